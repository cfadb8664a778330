//! What the [`parser`](crate::parser) finds, named: one [`Action`] variant
//! per sequence family, with typed fields (as Ghostty's `Action` and
//! termwiz's escape types). The translators turn the parser's raw controls
//! ([`control`]), CSI ([`csi`]), ESC ([`esc`]), OSC ([`osc`]) and DCS
//! introducers into actions; the emulator dispatches them with one match.
//! Printable text never becomes an action: it keeps its own fast path.

mod control;
mod csi;
mod esc;
mod osc;

use crate::dcs_request::DcsRequest;
use crate::modes::{Mode, ModeKind};
use crate::parser::Params;
use crate::titles::Which;

pub(crate) use osc::Fields;

/// A rectangle's corners as a DEC rectangular operation gives them (1-based,
/// 0 for the default), before the emulator clips them to its page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RectArgs {
    /// Top row.
    pub top: u16,
    /// Left column.
    pub left: u16,
    /// Bottom row.
    pub bottom: u16,
    /// Right column.
    pub right: u16,
}

/// The modes one SM, RM, XTSAVE or XTRESTORE lists, those this terminal
/// knows.
#[derive(Clone, Copy)]
pub(crate) struct ModeList<'a> {
    kind: ModeKind,
    params: &'a Params,
}

impl<'a> ModeList<'a> {
    /// The known modes listed, in order; unknown numbers are skipped.
    pub fn iter(self) -> impl Iterator<Item = Mode> + 'a {
        self.params
            .iter()
            .filter_map(move |param| Mode::find(self.kind, param[0]))
    }
}

/// TBC's two forms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TabClear {
    /// The stop at the cursor's column (0).
    AtCursor,
    /// Every stop (3).
    All,
}

/// One escape-sequence family or control, with its arguments.
pub(crate) enum Action<'a> {
    // C0 and C1 controls.
    /// BEL.
    Bell,
    /// BS, and CUB: moves left `n` columns.
    CursorBack(usize),
    /// HT.
    HorizontalTab,
    /// LF, VT and FF.
    LineFeed,
    /// CR.
    CarriageReturn,
    /// SO (1) and SI (0): which of G0-G3 is in GL.
    LockingShift(usize),
    /// IND (C1 or `ESC D`).
    Index,
    /// NEL (C1 or `ESC E`).
    NextLine,
    /// HTS (C1 or `ESC H`): a tab stop at the cursor's column.
    SetTabStop,
    /// RI (C1 or `ESC M`).
    ReverseIndex,

    // CSI: the cursor.
    /// CUU.
    CursorUp(usize),
    /// CUD.
    CursorDown(usize),
    /// VPR: down `n` rows, past the bottom margin.
    CursorDownUnbounded(usize),
    /// CUF and HPR.
    CursorForward(usize),
    /// CNL: down `n` rows, then to the first column.
    CursorNextLine(usize),
    /// CPL: up `n` rows, then to the first column.
    CursorPrecedingLine(usize),
    /// CHA and HPA: to a column (0-based).
    CursorColumn(usize),
    /// VPA: to a row (0-based).
    CursorRow(usize),
    /// CUP and HVP: to a row and column (0-based).
    CursorPosition {
        /// Row.
        row: usize,
        /// Column.
        col: usize,
    },
    /// CHT: `n` tab stops forward.
    TabForward(usize),
    /// CBT: `n` tab stops back.
    TabBackward(usize),
    /// TBC.
    TabClear(TabClear),
    /// SCOSC (`CSI s`, when side margins are off) and DECSC (`ESC 7`).
    SaveCursor,
    /// SCORC (`CSI u`) and DECRC (`ESC 8`).
    RestoreCursor,
    /// `CSI Pl ; Pr s`: DECSLRM when side margins are on, else SCOSC.
    SideMarginsOrSaveCursor {
        /// Left margin (1-based, 0 for the default).
        left: u16,
        /// Right margin (1-based, 0 for the default).
        right: u16,
    },
    /// DECSCUSR: cursor shape and blink.
    CursorStyle(u16),

    // CSI: editing and erasing.
    /// ICH.
    InsertChars(usize),
    /// DCH.
    DeleteChars(usize),
    /// ECH.
    EraseChars(usize),
    /// IL.
    InsertLines(usize),
    /// DL.
    DeleteLines(usize),
    /// ED and DECSED.
    EraseInDisplay {
        /// Which part (0 below, 1 above, 2 all, 3 scrollback).
        mode: u16,
        /// DECSED: protected cells are kept.
        selective: bool,
    },
    /// EL and DECSEL.
    EraseInLine {
        /// Which part (0 right, 1 left, 2 all).
        mode: u16,
        /// DECSEL: protected cells are kept.
        selective: bool,
    },
    /// REP: the preceding character `n` more times.
    Repeat(usize),
    /// SU: the region's text up `n` lines.
    ScrollUp(usize),
    /// SD: the region's text down `n` lines.
    ScrollDown(usize),
    /// SL (negative) and SR (positive): the text `n` columns sideways.
    ScrollColumns(isize),
    /// DECIC (positive) and DECDC (negative): columns inserted or deleted.
    EditColumns(isize),
    /// DECSTBM.
    ScrollRegion {
        /// Top margin (1-based, 0 for the default).
        top: usize,
        /// Bottom margin (1-based, 0 for the default).
        bottom: usize,
    },
    /// DECSCA (`CSI Ps " q`): protection of the cells printed next.
    CharProtection(bool),
    /// SPA (`ESC V`): ISO protection of the cells printed next.
    StartProtectedArea,
    /// EPA (`ESC W`): the cells printed next are not protected.
    EndProtectedArea,

    // CSI: rectangles.
    /// DECFRA: fills a rectangle with a character.
    FillRect {
        /// The character's code.
        ch: u16,
        /// The rectangle.
        rect: RectArgs,
    },
    /// DECERA and DECSERA.
    EraseRect {
        /// The rectangle.
        rect: RectArgs,
        /// DECSERA: protected cells are kept.
        selective: bool,
    },
    /// DECCRA: copies a rectangle to a new top-left corner.
    CopyRect {
        /// The source.
        rect: RectArgs,
        /// Destination top row (1-based).
        top: u16,
        /// Destination left column (1-based).
        left: u16,
    },
    /// DECCARA and DECRARA: sets or reverses attributes in a rectangle.
    ChangeRectAttrs {
        /// The rectangle.
        rect: RectArgs,
        /// The sequence's parameters: the SGR-like attribute numbers are
        /// those after the rectangle's four.
        params: &'a Params,
        /// DECRARA: reverses rather than sets.
        reverse: bool,
    },
    /// DECSACE.
    AttrChangeExtent(u16),
    /// DECRQCRA: reports a rectangle's checksum.
    RectChecksum {
        /// The request's id, echoed in the reply.
        id: u16,
        /// The rectangle.
        rect: RectArgs,
    },

    // CSI: rendition and modes.
    /// SGR, its parameters read by [`crate::sgr`].
    Sgr(&'a Params),
    /// SM, RM, DECSET and DECRST.
    SetModes {
        /// The modes.
        modes: ModeList<'a>,
        /// Set (true) or reset.
        on: bool,
    },
    /// XTSAVE.
    SaveModes(ModeList<'a>),
    /// XTRESTORE.
    RestoreModes(ModeList<'a>),
    /// DECKPAM (true) and DECKPNM.
    AppKeypad(bool),
    /// DECSTR.
    SoftReset,
    /// RIS.
    FullReset,
    /// DECSCL.
    ConformanceLevel(u16),
    /// SCS (`ESC ( F` and friends): a character set into G0-G3.
    Designate {
        /// G0 to G3.
        slot: usize,
        /// The set's final byte.
        set: u8,
    },
    /// DECALN.
    ScreenAlignment,
    /// DECBI.
    BackIndex,
    /// DECFI.
    ForwardIndex,

    // CSI: keyboard.
    /// Kitty keyboard: pushes flags.
    PushKeyboardFlags(u16),
    /// Kitty keyboard: pops `n` entries.
    PopKeyboardFlags(usize),
    /// Kitty keyboard: sets, adds or removes flags.
    SetKeyboardFlags {
        /// The flags.
        flags: u16,
        /// 1 sets, 2 adds, 3 removes.
        mode: u16,
    },
    /// Kitty keyboard: reports the flags.
    ReportKeyboardFlags,
    /// XTMODKEYS with no parameter: every option back to its default.
    ResetKeyModifierOptions,
    /// XTMODKEYS.
    SetKeyModifierOption {
        /// Which resource.
        resource: u16,
        /// Its value.
        value: u16,
    },
    /// XTMODKEYS' disable form (`CSI > Pp n`).
    DisableKeyModifierOption(u16),
    /// XTQMODKEYS.
    ReportKeyModifierOption(u16),

    // CSI: reports and window operations.
    /// DA1 (also DECID, `ESC Z`).
    PrimaryAttributes,
    /// DA2.
    SecondaryAttributes,
    /// DA3.
    TertiaryAttributes,
    /// XTVERSION.
    ReportVersion,
    /// DSR and DECDSR.
    DeviceStatus {
        /// The report asked for.
        kind: u16,
        /// DECDSR (`CSI ? Ps n`).
        dec: bool,
        /// The second parameter.
        arg: u16,
    },
    /// DECRQM.
    ReportMode {
        /// The mode's number.
        number: u16,
        /// ANSI or DEC.
        kind: ModeKind,
    },
    /// XTSMGRAPHICS.
    GraphicsAttributes {
        /// Which attribute.
        item: u16,
        /// What to do with it.
        action: u16,
    },
    /// XTWINOPS.
    WindowOp {
        /// The operation.
        op: u16,
        /// Its first argument.
        arg: u16,
    },

    // OSC.
    /// OSC 0, 1 and 2: a title, as raw bytes.
    Title {
        /// Which title.
        which: Which,
        /// Its text.
        text: &'a [u8],
    },
    /// OSC 8: a hyperlink's start (non-empty URI) or end.
    Hyperlink {
        /// The `key=value` parameters, `:`-separated.
        params: &'a [u8],
        /// The URI.
        uri: &'a [u8],
    },
    /// OSC 52: base64 text for the clipboard (or `?`, a query).
    Clipboard(&'a [u8]),
    /// OSC 4 (`index;spec` pairs) and OSC 5 (`special;spec` pairs).
    PaletteColors {
        /// 4 or 5.
        osc: u16,
        /// The pairs' fields.
        pairs: Fields<'a>,
    },
    /// OSC 104 and 105: resets palette or special colours.
    ResetPaletteColors {
        /// 104 or 105.
        osc: u16,
        /// The indices (none: every colour).
        indices: Fields<'a>,
    },
    /// OSC 10-19: sets or reports dynamic colours from `first` on.
    DynamicColors {
        /// The first colour's OSC number.
        first: u16,
        /// One spec each.
        specs: Fields<'a>,
    },
    /// OSC 110-119: resets one dynamic colour.
    ResetDynamicColor(u16),

    // DCS and APC.
    /// `DCS q`: a sixel image starts.
    SixelStart,
    /// Any other DCS string starts: the request it carries when the
    /// terminal answers it (DECRQSS, XTGETTCAP), else `None` (its data is
    /// dropped).
    DcsStart(Option<DcsRequest>),
    /// A kitty graphics command (`APC G ...`).
    KittyGraphics(&'a [u8]),
}

impl Action<'_> {
    /// The action a DCS introducer starts.
    pub fn from_dcs(intermediates: &[u8], action: char) -> Action<'static> {
        if intermediates.is_empty() && action == 'q' {
            Action::SixelStart
        } else {
            Action::DcsStart(DcsRequest::start(intermediates, action))
        }
    }
}

//! `vte` as the oracle for panecast's parser: the same bytes go to
//! `vte::Parser` and to `panecast_term::parser::Parser`, each with a
//! recorder, and both action lists are brought to one normal form:
//! - print: a run of characters (consecutive prints merged, so panecast's
//!   ASCII runs, text batches and single characters compare with vte's one
//!   character at a time);
//! - execute: one C0 or C1 byte (panecast's `newline` is CR then LF);
//! - CSI: parameters with their sub-parameters, intermediates, the ignore
//!   flag and the final character;
//! - ESC: intermediates, the ignore flag and the final byte;
//! - OSC: its parameters and whether BEL ended it;
//! - DCS: hook (like CSI), put (consecutive bytes merged), unhook.
//!
//! panecast is fed the bytes in chunks, vte whole (see [`compare`]).
//!
//! SOS, PM and APC: vte reports none of them (it only skips them);
//! panecast reports an APC string that starts with `G` (kitty graphics),
//! which [`DIFFERENCES`] names. Where the two differ on purpose, the table
//! names the case, the reason, and the normalisation, which touches that
//! case only. Shared by `tests/vte_differential.rs` and the fuzz target
//! `fuzz/fuzz_targets/vte_differential.rs`.

#![allow(dead_code)] // The test and the fuzz target use different parts.

use panecast_term::parser::{self, MAX_OSC_BYTES};

/// One action in the normal form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Printed characters, merged into a run.
    Print(String),
    /// A C0 or C1 control.
    Execute(u8),
    /// A CSI sequence.
    Csi {
        params: Vec<Vec<u16>>,
        intermediates: Vec<u8>,
        ignore: bool,
        action: char,
    },
    /// An escape sequence.
    Esc {
        intermediates: Vec<u8>,
        ignore: bool,
        byte: u8,
    },
    /// An OSC string.
    Osc {
        params: Vec<Vec<u8>>,
        bell_terminated: bool,
    },
    /// The start of a DCS string.
    Hook {
        params: Vec<Vec<u16>>,
        intermediates: Vec<u8>,
        ignore: bool,
        action: char,
    },
    /// DCS data bytes, merged into a run.
    Put(Vec<u8>),
    /// The end of a DCS string.
    Unhook,
    /// An APC string (panecast only: kitty graphics).
    Apc(Vec<u8>),
}

/// A difference on purpose between the two parsers.
pub struct Difference {
    /// The case's name, as [`Comparison::applied`] lists it.
    pub name: &'static str,
    /// Why panecast differs.
    pub reason: &'static str,
}

/// Every difference on purpose, each normalised by one function below.
pub const DIFFERENCES: &[Difference] = &[
    Difference {
        name: APC_REPORTED,
        reason: "panecast reports an APC string starting with `G` (kitty graphics, at most \
                 MAX_APC_BYTES); vte skips every SOS/PM/APC string. Normalised: panecast's \
                 APC actions are dropped.",
    },
    Difference {
        name: OSC_LAST_PARAM_KEEPS_REST,
        reason: "with more than 15 `;` in an OSC string, panecast's 16th parameter keeps the \
                 rest of the string (OSC 52 and OSC 1337 data may hold `;`); vte ends it at the \
                 16th `;` and drops the rest. Normalised: panecast's 16th parameter is cut at \
                 its first `;`.",
    },
    Difference {
        name: OSC_LENGTH_BOUND,
        reason: "panecast keeps at most MAX_OSC_BYTES of an OSC string (hostile output must \
                 not grow memory); vte with std keeps all of it. Normalised: vte's string is cut \
                 to MAX_OSC_BYTES and split again.",
    },
];

/// [`DIFFERENCES`]: panecast reports kitty graphics APC strings.
pub const APC_REPORTED: &str = "apc_reported";
/// [`DIFFERENCES`]: panecast's 16th OSC parameter keeps the rest.
pub const OSC_LAST_PARAM_KEEPS_REST: &str = "osc_last_param_keeps_rest";
/// [`DIFFERENCES`]: panecast bounds OSC strings.
pub const OSC_LENGTH_BOUND: &str = "osc_length_bound";

/// Inputs on which vte 0.15's actions change with where a chunk ends (its
/// partial-character path), with what it does; panecast gives the same
/// actions cut or whole. The reason [`compare`] feeds vte whole.
pub const VTE_CHUNK_BUGS: &[(&[u8], usize, &str)] = &[
    (
        b"a\xc2\x85b",
        2,
        "U+0085 (a C1 control) split after its first byte is printed, not executed",
    ),
    (
        b"\xd9\xab\x48\xd5",
        1,
        "after completing U+066B, the `H` read into the same 4-byte window is dropped",
    ),
];

/// Most OSC parameters either parser splits a string into.
const MAX_OSC_PARAMS: usize = 16;

/// Actions in the normal form, runs merged as they are recorded.
#[derive(Default)]
struct Log(Vec<Action>);

impl Log {
    fn print(&mut self, c: char) {
        match self.0.last_mut() {
            Some(Action::Print(run)) => run.push(c),
            _ => self.0.push(Action::Print(c.to_string())),
        }
    }

    fn put(&mut self, byte: u8) {
        match self.0.last_mut() {
            Some(Action::Put(run)) => run.push(byte),
            _ => self.0.push(Action::Put(vec![byte])),
        }
    }

    fn hook<'a>(
        &mut self,
        params: impl Iterator<Item = &'a [u16]>,
        intermediates: &[u8],
        ignore: bool,
        action: char,
    ) {
        self.0.push(Action::Hook {
            params: params.map(<[u16]>::to_vec).collect(),
            intermediates: intermediates.to_vec(),
            ignore,
            action,
        });
    }

    fn osc(&mut self, params: &[&[u8]], bell_terminated: bool) {
        self.0.push(Action::Osc {
            params: params.iter().map(|p| p.to_vec()).collect(),
            bell_terminated,
        });
    }
}

/// Records panecast's actions.
#[derive(Default)]
struct PanecastRecorder(Log);

impl parser::Actions for PanecastRecorder {
    fn print_ascii(&mut self, run: &[u8]) {
        run.iter().for_each(|&b| self.0.print(char::from(b)));
    }

    fn print_text(&mut self, text: &[char]) {
        text.iter().for_each(|&c| self.0.print(c));
    }

    fn print(&mut self, c: char) {
        self.0.print(c);
    }

    fn execute(&mut self, byte: u8) {
        self.0 .0.push(Action::Execute(byte));
    }

    fn csi_dispatch(
        &mut self,
        params: &parser::Params,
        intermediates: &[u8],
        ignore: bool,
        action: char,
    ) {
        self.0 .0.push(Action::Csi {
            params: params.iter().map(<[u16]>::to_vec).collect(),
            intermediates: intermediates.to_vec(),
            ignore,
            action,
        });
    }

    fn esc_dispatch(&mut self, intermediates: &[u8], ignore: bool, byte: u8) {
        self.0 .0.push(Action::Esc {
            intermediates: intermediates.to_vec(),
            ignore,
            byte,
        });
    }

    fn osc_dispatch(&mut self, params: &[&[u8]], bell_terminated: bool) {
        self.0.osc(params, bell_terminated);
    }

    fn hook(&mut self, params: &parser::Params, intermediates: &[u8], ignore: bool, action: char) {
        self.0.hook(params.iter(), intermediates, ignore, action);
    }

    fn put(&mut self, byte: u8) {
        self.0.put(byte);
    }

    fn unhook(&mut self) {
        self.0 .0.push(Action::Unhook);
    }

    fn apc_dispatch(&mut self, data: &[u8]) {
        self.0 .0.push(Action::Apc(data.to_vec()));
    }
}

/// Records vte's actions.
#[derive(Default)]
struct VteRecorder(Log);

impl vte::Perform for VteRecorder {
    fn print(&mut self, c: char) {
        self.0.print(c);
    }

    fn execute(&mut self, byte: u8) {
        self.0 .0.push(Action::Execute(byte));
    }

    fn hook(&mut self, params: &vte::Params, intermediates: &[u8], ignore: bool, action: char) {
        self.0.hook(params.iter(), intermediates, ignore, action);
    }

    fn put(&mut self, byte: u8) {
        self.0.put(byte);
    }

    fn unhook(&mut self) {
        self.0 .0.push(Action::Unhook);
    }

    fn osc_dispatch(&mut self, params: &[&[u8]], bell_terminated: bool) {
        self.0.osc(params, bell_terminated);
    }

    fn csi_dispatch(&mut self, params: &vte::Params, intermediates: &[u8], ignore: bool, c: char) {
        self.0 .0.push(Action::Csi {
            params: params.iter().map(<[u16]>::to_vec).collect(),
            intermediates: intermediates.to_vec(),
            ignore,
            action: c,
        });
    }

    fn esc_dispatch(&mut self, intermediates: &[u8], ignore: bool, byte: u8) {
        self.0 .0.push(Action::Esc {
            intermediates: intermediates.to_vec(),
            ignore,
            byte,
        });
    }
}

/// `bytes` cut before each index of `cuts` (ascending, inside the bytes).
fn chunks<'a>(bytes: &'a [u8], cuts: &[usize]) -> Vec<&'a [u8]> {
    let mut chunks = Vec::with_capacity(cuts.len() + 1);
    let mut start = 0;
    for &cut in cuts {
        let cut = cut.clamp(start, bytes.len());
        chunks.push(&bytes[start..cut]);
        start = cut;
    }
    chunks.push(&bytes[start..]);
    chunks
}

/// panecast's actions for `bytes`, fed in chunks cut at `cuts`.
pub fn panecast_actions(bytes: &[u8], cuts: &[usize]) -> Vec<Action> {
    let mut parser = parser::Parser::new();
    let mut recorder = PanecastRecorder::default();
    for chunk in chunks(bytes, cuts) {
        let read = parser.advance(&mut recorder, chunk);
        assert_eq!(
            read,
            chunk.len(),
            "panecast stopped early with nothing spent"
        );
    }
    recorder.0 .0
}

/// vte's actions for `bytes`, fed in chunks cut at `cuts`.
pub fn vte_actions(bytes: &[u8], cuts: &[usize]) -> Vec<Action> {
    let mut parser = vte::Parser::new();
    let mut recorder = VteRecorder::default();
    for chunk in chunks(bytes, cuts) {
        parser.advance(&mut recorder, chunk);
    }
    recorder.0 .0
}

/// Both parsers' actions for the same bytes, normalised.
#[derive(Debug)]
pub struct Comparison {
    /// panecast's actions, normalised.
    pub panecast: Vec<Action>,
    /// vte's actions, normalised.
    pub vte: Vec<Action>,
    /// The [`DIFFERENCES`] that changed either list, by name.
    pub applied: Vec<&'static str>,
}

impl Comparison {
    /// True when the normalised lists are the same.
    pub fn agrees(&self) -> bool {
        self.panecast == self.vte
    }

    /// The first index where the lists differ, with a few actions of each
    /// from there, for a failure message.
    pub fn first_difference(&self) -> String {
        let at = self
            .panecast
            .iter()
            .zip(&self.vte)
            .position(|(a, b)| a != b)
            .unwrap_or(self.panecast.len().min(self.vte.len()));
        let from = at.saturating_sub(2);
        let show =
            |list: &[Action]| -> Vec<Action> { list.iter().skip(from).take(5).cloned().collect() };
        format!(
            "first difference at action {at} (of {} panecast, {} vte), from {from}:\n  panecast: {:?}\n  vte:      {:?}",
            self.panecast.len(),
            self.vte.len(),
            show(&self.panecast),
            show(&self.vte),
        )
    }
}

/// Feeds `bytes` to panecast cut at `cuts` and to vte whole, and
/// normalises the differences on purpose. vte is fed whole because its
/// actions depend on where chunks end (see [`VTE_CHUNK_BUGS`]); panecast's
/// must not, so its cut stream is held to vte's answer for the whole one.
pub fn compare(bytes: &[u8], cuts: &[usize]) -> Comparison {
    let mut applied = Vec::new();
    let mut note = |name: &'static str, changed: bool| {
        if changed && !applied.contains(&name) {
            applied.push(name);
        }
    };
    let mut panecast = panecast_actions(bytes, cuts);
    let mut vte = vte_actions(bytes, &[]);
    note(APC_REPORTED, drop_apc(&mut panecast));
    note(OSC_LAST_PARAM_KEEPS_REST, cut_last_osc_param(&mut panecast));
    note(OSC_LENGTH_BOUND, bound_osc(&mut vte));
    Comparison {
        panecast,
        vte,
        applied,
    }
}

/// [`APC_REPORTED`]: drops panecast's APC actions, and joins the printed
/// runs an APC stood between (vte, which reports nothing there, has one).
fn drop_apc(actions: &mut Vec<Action>) -> bool {
    let before = actions.len();
    actions.retain(|a| !matches!(a, Action::Apc(_)));
    if actions.len() == before {
        return false;
    }
    let mut joined: Vec<Action> = Vec::with_capacity(actions.len());
    for action in actions.drain(..) {
        match (joined.last_mut(), action) {
            (Some(Action::Print(run)), Action::Print(more)) => run.push_str(&more),
            (_, action) => joined.push(action),
        }
    }
    *actions = joined;
    true
}

/// [`OSC_LAST_PARAM_KEEPS_REST`]: cuts a 16th OSC parameter at its first `;`.
fn cut_last_osc_param(actions: &mut [Action]) -> bool {
    let mut changed = false;
    for action in actions {
        if let Action::Osc { params, .. } = action {
            if params.len() == MAX_OSC_PARAMS {
                let last = params.last_mut().expect("16 parameters");
                if let Some(at) = last.iter().position(|&b| b == b';') {
                    last.truncate(at);
                    changed = true;
                }
            }
        }
    }
    changed
}

/// [`OSC_LENGTH_BOUND`]: cuts an OSC string longer than panecast keeps to
/// [`MAX_OSC_BYTES`] and splits it again as vte would.
fn bound_osc(actions: &mut [Action]) -> bool {
    let mut changed = false;
    for action in actions {
        if let Action::Osc { params, .. } = action {
            let mut raw = params.join(&b';');
            if raw.len() > MAX_OSC_BYTES {
                raw.truncate(MAX_OSC_BYTES);
                *params = raw
                    .split(|&b| b == b';')
                    .take(MAX_OSC_PARAMS)
                    .map(<[u8]>::to_vec)
                    .collect();
                changed = true;
            }
        }
    }
    changed
}

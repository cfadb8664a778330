//! The escape-sequence parser: bytes in, [`Actions`] out.
//!
//! It is the DEC ANSI parser state machine (Paul Williams,
//! <https://vt100.net/emu/dec_ansi_parser>) with UTF-8 text, OSC strings
//! ended by BEL as well as ST, and three things a general-purpose parser
//! does not give this emulator:
//! - **Runs.** Printable ASCII reaches [`Actions::print_ascii`] a run at a
//!   time, and a whole CSI sequence with plain parameters is read in one
//!   tight loop ([`Parser::csi_in_one_go`]); the byte-at-a-time machine only
//!   takes over for what that loop does not handle (controls inside a
//!   sequence, a sequence cut by the end of a chunk, overflows).
//! - **Bounds.** An OSC string keeps at most [`MAX_OSC_BYTES`]; the rest of
//!   it is dropped up to its terminator, so an endless string cannot grow
//!   memory.
//! - **Chunks split anywhere.** A UTF-8 character cut by the end of one
//!   chunk is completed from the next.
//! - **Files streamed.** The data of iTerm2's `OSC 1337 ; File=ARGS : DATA`
//!   (far beyond the OSC bound) reaches the host in runs
//!   ([`Actions::osc_file_data`]) when the host takes it
//!   ([`Actions::osc_file_start`]), and is never kept here.

mod params;
mod utf8;

use serde::{Deserialize, Serialize};

use params::add_digit;
pub use params::Params;
#[cfg(test)]
use params::MAX_PARAMS;

/// Longest OSC string kept, in bytes.
pub const MAX_OSC_BYTES: usize = 8 * 1024;

/// Longest APC string kept, in bytes: a kitty graphics chunk (at most
/// 4096 bytes of payload) and its keys. A longer one is dropped whole.
pub const MAX_APC_BYTES: usize = 8 * 1024;

/// Most `;`-separated parameters an OSC string is split into; the last one
/// keeps the rest of the string, separators included.
const MAX_OSC_PARAMS: usize = 16;

/// What an OSC string that carries a file starts with (iTerm2's inline
/// files); the arguments follow, then `:` and the base64 data.
const OSC_FILE: &[u8] = b"1337;File=";

/// Most characters handed to [`Actions::print_text`] at once.
const TEXT_BATCH: usize = 64;

/// Most intermediate bytes of a sequence; one with more is dispatched as
/// ignored.
const MAX_INTERMEDIATES: usize = 2;

/// What the parser found, in the order the bytes came.
pub trait Actions {
    /// A run of printable ASCII (`0x20..=0x7e`), never empty.
    fn print_ascii(&mut self, run: &[u8]);
    /// A run of decoded non-ASCII characters, never empty and never a C1
    /// control.
    fn print_text(&mut self, text: &[char]);
    /// One other printable character (`DEL` included, which prints nothing).
    fn print(&mut self, c: char);
    /// A C0 control, or a C1 control (`0x80..=0x9f`) given as a raw byte or
    /// encoded in UTF-8.
    fn execute(&mut self, byte: u8);
    /// CR then LF, the end of almost every line: the same as
    /// `execute(0x0d)` then `execute(0x0a)`, in one call.
    fn newline(&mut self) {
        self.execute(0x0d);
        self.execute(0x0a);
    }
    /// A complete CSI sequence. `ignore` is set when it overflowed the
    /// parameter or intermediate limits.
    fn csi_dispatch(&mut self, params: &Params, intermediates: &[u8], ignore: bool, action: char);
    /// A complete escape sequence (`ESC` intermediates final).
    fn esc_dispatch(&mut self, intermediates: &[u8], ignore: bool, byte: u8);
    /// A complete OSC string, whole. By default it is split at `;` into at
    /// most 16 parameters (the last keeps any further `;`) for
    /// [`Actions::osc_dispatch`].
    fn osc_string(&mut self, data: &[u8], bell_terminated: bool) {
        let mut slices: [&[u8]; MAX_OSC_PARAMS] = [&[]; MAX_OSC_PARAMS];
        let mut count = 0;
        for (slot, part) in slices
            .iter_mut()
            .zip(data.splitn(MAX_OSC_PARAMS, |&b| b == b';'))
        {
            *slot = part;
            count += 1;
        }
        self.osc_dispatch(&slices[..count], bell_terminated);
    }
    /// A complete OSC string split at `;` (see [`Actions::osc_string`]).
    fn osc_dispatch(&mut self, _params: &[&[u8]], _bell_terminated: bool) {}
    /// The start of a DCS string, with its parameters and final byte.
    fn hook(&mut self, params: &Params, intermediates: &[u8], ignore: bool, action: char);
    /// A byte of the DCS string's data.
    fn put(&mut self, byte: u8);
    /// The end of the DCS string.
    fn unhook(&mut self);
    /// A complete APC string that starts with `G` (kitty graphics), `G`
    /// included, at most [`MAX_APC_BYTES`] long. Other APC strings, and
    /// longer ones, are dropped.
    fn apc_dispatch(&mut self, _data: &[u8]) {}
    /// The `:` of `OSC 1337 ; File=ARGS :` was read: true when the host
    /// takes the data ([`Actions::osc_file_data`], then
    /// [`Actions::osc_file_end`]); false (the default) keeps the string
    /// an ordinary OSC string, bounded and then dispatched.
    fn osc_file_start(&mut self, _args: &[u8]) -> bool {
        false
    }
    /// A run of a taken file's data (no C0 control in it).
    fn osc_file_data(&mut self, _data: &[u8]) {}
    /// The end of a taken file's data: `complete` when it ended with BEL
    /// or ST, not cancelled by CAN or SUB.
    fn osc_file_end(&mut self, _complete: bool) {}
    /// True when the host's share of work is spent: the parser stops after
    /// the action it is in, and [`Parser::advance`] returns where.
    fn spent(&self) -> bool {
        false
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
enum State {
    #[default]
    Ground,
    Escape,
    EscapeIntermediate,
    CsiEntry,
    CsiParam,
    CsiIntermediate,
    CsiIgnore,
    DcsEntry,
    DcsParam,
    DcsIntermediate,
    DcsPassthrough,
    DcsIgnore,
    OscString,
    /// The data of an OSC string that carries a file, taken by the host.
    OscFile,
    /// An APC string, kept (bounded) for [`Actions::apc_dispatch`].
    ApcString,
    SosPmApcString,
}

/// The parser's state between calls: chunks may split anywhere.
#[derive(Clone, Default, Serialize, Deserialize)]
pub struct Parser {
    state: State,
    params: Params,
    /// The parameter being read.
    param: u16,
    intermediates: [u8; MAX_INTERMEDIATES],
    intermediate_len: usize,
    /// Set when a sequence overflowed a limit.
    ignoring: bool,
    osc: Vec<u8>,
    /// The APC string being read.
    #[serde(default)]
    apc: Vec<u8>,
    /// Set when the APC string being read passed [`MAX_APC_BYTES`].
    #[serde(default)]
    apc_overflow: bool,
    partial: utf8::Partial,
}

/// True for the bytes of [`Actions::print_ascii`].
#[inline(always)]
fn printable(b: u8) -> bool {
    (0x20..0x7f).contains(&b)
}

/// The C0 controls a CSI, DCS-less escape or ground state executes at once:
/// all but CAN, SUB and ESC, which end the sequence instead.
#[inline(always)]
fn executed_inside(b: u8) -> bool {
    matches!(b, 0x00..=0x17 | 0x19 | 0x1c..=0x1f)
}

impl Parser {
    /// A parser in the ground state.
    pub fn new() -> Parser {
        Parser::default()
    }

    /// Checks a parser read back from a saved state: lengths a parser
    /// could have reached, so that a state written by another build's bug
    /// is refused rather than indexed out of bounds.
    pub(crate) fn check_restored(&self) -> Result<(), &'static str> {
        if self.intermediate_len > MAX_INTERMEDIATES {
            return Err("the parser holds too many intermediates");
        }
        if !self.partial.is_consistent() {
            return Err("the parser holds a whole character as a partial one");
        }
        if self.osc.len() > MAX_OSC_BYTES || self.apc.len() > MAX_APC_BYTES {
            return Err("the parser holds a string longer than its bound");
        }
        Ok(())
    }

    /// Parses `bytes`, calling `actions` for everything complete in them,
    /// until they end or [`Actions::spent`] says stop: returns how many
    /// bytes it read (the rest is for the next call).
    pub fn advance<A: Actions>(&mut self, actions: &mut A, bytes: &[u8]) -> usize {
        let mut i = 0;
        if self.partial.is_pending() {
            i = self
                .partial
                .complete(bytes, |c| print_or_execute(actions, c));
        }
        while i < bytes.len() {
            i = match self.state {
                State::Ground => self.ground(actions, bytes, i),
                State::OscFile => self.osc_file(actions, bytes, i),
                _ => {
                    self.step(actions, bytes[i]);
                    i + 1
                }
            };
            if actions.spent() {
                break;
            }
        }
        i
    }

    /// Reads ground-state text from `bytes[i..]` up to the next escape
    /// sequence (entered or read whole) or the end; returns where it stopped.
    #[inline]
    fn ground<A: Actions>(&mut self, actions: &mut A, bytes: &[u8], mut i: usize) -> usize {
        let len = bytes.len();
        while i < len {
            let b = bytes[i];
            if printable(b) {
                let start = i;
                i += 1;
                while i < len && printable(bytes[i]) {
                    i += 1;
                }
                actions.print_ascii(&bytes[start..i]);
            } else if b == 0x1b {
                match self.csi_in_one_go(actions, bytes, i + 1) {
                    Some(end) if actions.spent() => return end,
                    Some(end) => i = end,
                    None => {
                        self.enter_escape();
                        return i + 1;
                    }
                }
            } else if b == b'\r' && bytes.get(i + 1) == Some(&b'\n') {
                actions.newline();
                i += 2;
                if actions.spent() {
                    return i;
                }
            } else if b < 0x20 {
                actions.execute(b);
                i += 1;
                if actions.spent() {
                    return i;
                }
            } else if b == 0x7f {
                actions.print('\x7f');
                i += 1;
            } else {
                i = self.text(actions, bytes, i);
            }
        }
        i
    }

    /// Decodes the run of non-ASCII text at `bytes[i..]`, handing it on in
    /// batches; returns where it stopped.
    #[inline]
    fn text<A: Actions>(&mut self, actions: &mut A, bytes: &[u8], i: usize) -> usize {
        let mut batch = ['\0'; TEXT_BATCH];
        let mut len = 0;
        let end = utf8::decode_run(bytes, i, &mut self.partial, |c| {
            if ('\u{80}'..='\u{9f}').contains(&c) {
                if len > 0 {
                    actions.print_text(&batch[..len]);
                    len = 0;
                }
                actions.execute(c as u8);
                return;
            }
            batch[len] = c;
            len += 1;
            if len == TEXT_BATCH {
                actions.print_text(&batch);
                len = 0;
            }
        });
        if len > 0 {
            actions.print_text(&batch[..len]);
        }
        end
    }

    /// Reads `[ params intermediates final` from `bytes[i..]` (after an ESC)
    /// and dispatches it, when it is all there with nothing unusual inside:
    /// returns the index after it, or `None` (nothing dispatched) for the
    /// state machine to read it byte by byte instead.
    #[inline]
    fn csi_in_one_go<A: Actions>(
        &mut self,
        actions: &mut A,
        bytes: &[u8],
        mut i: usize,
    ) -> Option<usize> {
        if bytes.get(i) != Some(&b'[') {
            return None;
        }
        i += 1;
        self.reset();
        if let Some(&marker @ 0x3c..=0x3f) = bytes.get(i) {
            self.intermediates[0] = marker;
            self.intermediate_len = 1;
            i += 1;
        }
        let mut param: u16 = 0;
        loop {
            let b = *bytes.get(i)?;
            i += 1;
            match b {
                b'0'..=b'9' => param = add_digit(param, b - b'0'),
                b';' | b':' if self.params.is_full() => return None,
                b';' => {
                    self.params.push(param);
                    param = 0;
                }
                b':' => {
                    self.params.push_sub(param);
                    param = 0;
                }
                0x20..=0x2f => break,
                0x40..=0x7e if !self.params.is_full() => {
                    self.params.push(param);
                    let intermediates = &self.intermediates[..self.intermediate_len];
                    actions.csi_dispatch(&self.params, intermediates, false, char::from(b));
                    return Some(i);
                }
                _ => return None,
            }
        }
        // Intermediates, then the final byte.
        if self.params.is_full() {
            return None;
        }
        self.params.push(param);
        i -= 1;
        loop {
            let b = *bytes.get(i)?;
            i += 1;
            match b {
                0x20..=0x2f if self.intermediate_len < MAX_INTERMEDIATES => {
                    self.intermediates[self.intermediate_len] = b;
                    self.intermediate_len += 1;
                }
                0x40..=0x7e => {
                    let intermediates = &self.intermediates[..self.intermediate_len];
                    actions.csi_dispatch(&self.params, intermediates, false, char::from(b));
                    return Some(i);
                }
                _ => return None,
            }
        }
    }

    /// Forgets the last sequence's parameters and intermediates.
    #[inline]
    fn reset(&mut self) {
        self.params.clear();
        self.param = 0;
        self.intermediate_len = 0;
        self.ignoring = false;
    }

    fn enter_escape(&mut self) {
        self.reset();
        self.state = State::Escape;
    }

    /// One byte outside the ground state.
    fn step<A: Actions>(&mut self, actions: &mut A, b: u8) {
        match self.state {
            State::Ground => unreachable!("ground-state bytes are read by Parser::ground"),
            State::Escape => self.escape(actions, b),
            State::EscapeIntermediate => match b {
                _ if executed_inside(b) => actions.execute(b),
                0x20..=0x2f => self.collect(b),
                0x30..=0x7e => self.esc_dispatch(actions, b),
                0x7f => {}
                _ => self.anywhere(actions, b),
            },
            State::CsiEntry => match b {
                _ if executed_inside(b) => actions.execute(b),
                0x20..=0x2f => {
                    self.collect(b);
                    self.state = State::CsiIntermediate;
                }
                0x30..=0x3b => {
                    self.param_byte(b);
                    self.state = State::CsiParam;
                }
                0x3c..=0x3f => {
                    self.collect(b);
                    self.state = State::CsiParam;
                }
                0x40..=0x7e => self.csi_dispatch(actions, b),
                _ => self.anywhere(actions, b),
            },
            State::CsiParam => match b {
                _ if executed_inside(b) => actions.execute(b),
                0x20..=0x2f => {
                    self.collect(b);
                    self.state = State::CsiIntermediate;
                }
                0x30..=0x3b => self.param_byte(b),
                0x3c..=0x3f => self.state = State::CsiIgnore,
                0x40..=0x7e => self.csi_dispatch(actions, b),
                0x7f => {}
                _ => self.anywhere(actions, b),
            },
            State::CsiIntermediate => match b {
                _ if executed_inside(b) => actions.execute(b),
                0x20..=0x2f => self.collect(b),
                0x30..=0x3f => self.state = State::CsiIgnore,
                0x40..=0x7e => self.csi_dispatch(actions, b),
                0x7f => {}
                _ => self.anywhere(actions, b),
            },
            State::CsiIgnore => match b {
                _ if executed_inside(b) => actions.execute(b),
                0x20..=0x3f | 0x7f => {}
                0x40..=0x7e => self.state = State::Ground,
                _ => self.anywhere(actions, b),
            },
            State::DcsEntry => match b {
                _ if executed_inside(b) => {}
                0x20..=0x2f => {
                    self.collect(b);
                    self.state = State::DcsIntermediate;
                }
                0x30..=0x3b => {
                    self.param_byte(b);
                    self.state = State::DcsParam;
                }
                0x3c..=0x3f => {
                    self.collect(b);
                    self.state = State::DcsParam;
                }
                0x40..=0x7e => self.hook(actions, b),
                0x7f => {}
                _ => self.anywhere(actions, b),
            },
            State::DcsParam => match b {
                _ if executed_inside(b) => {}
                0x20..=0x2f => {
                    self.collect(b);
                    self.state = State::DcsIntermediate;
                }
                0x30..=0x3b => self.param_byte(b),
                0x3c..=0x3f => self.state = State::DcsIgnore,
                0x40..=0x7e => self.hook(actions, b),
                0x7f => {}
                _ => self.anywhere(actions, b),
            },
            State::DcsIntermediate => match b {
                _ if executed_inside(b) => {}
                0x20..=0x2f => self.collect(b),
                0x30..=0x3f => self.state = State::DcsIgnore,
                0x40..=0x7e => self.hook(actions, b),
                0x7f => {}
                _ => self.anywhere(actions, b),
            },
            State::DcsPassthrough => match b {
                0x18 | 0x1a => {
                    actions.unhook();
                    actions.execute(b);
                    self.state = State::Ground;
                }
                0x1b => {
                    actions.unhook();
                    self.enter_escape();
                }
                0x9c => {
                    actions.unhook();
                    self.state = State::Ground;
                }
                0x00..=0x7e => actions.put(b),
                _ => {}
            },
            State::DcsIgnore | State::SosPmApcString => self.anywhere(actions, b),
            State::OscString => self.osc_byte(actions, b),
            State::ApcString => self.apc_byte(actions, b),
            State::OscFile => {
                self.osc_file(actions, &[b], 0);
            }
        }
    }

    /// The byte after an ESC.
    fn escape<A: Actions>(&mut self, actions: &mut A, b: u8) {
        match b {
            _ if executed_inside(b) => actions.execute(b),
            0x20..=0x2f => {
                self.collect(b);
                self.state = State::EscapeIntermediate;
            }
            b'P' => {
                self.reset();
                self.state = State::DcsEntry;
            }
            b'[' => {
                self.reset();
                self.state = State::CsiEntry;
            }
            b']' => {
                self.osc.clear();
                self.state = State::OscString;
            }
            b'_' => {
                self.apc.clear();
                self.apc_overflow = false;
                self.state = State::ApcString;
            }
            b'X' | b'^' => self.state = State::SosPmApcString,
            0x30..=0x7e => self.esc_dispatch(actions, b),
            0x18 | 0x1a => {
                actions.execute(b);
                self.state = State::Ground;
            }
            // Another ESC starts over; DEL and 8-bit bytes are ignored.
            _ => {}
        }
    }

    /// CAN and SUB abort a sequence; ESC starts a new one; anything else is
    /// ignored.
    fn anywhere<A: Actions>(&mut self, actions: &mut A, b: u8) {
        match b {
            0x18 | 0x1a => {
                actions.execute(b);
                self.state = State::Ground;
            }
            0x1b => self.enter_escape(),
            _ => {}
        }
    }

    fn collect(&mut self, b: u8) {
        if self.intermediate_len == MAX_INTERMEDIATES {
            self.ignoring = true;
        } else {
            self.intermediates[self.intermediate_len] = b;
            self.intermediate_len += 1;
        }
    }

    /// A digit, `:` or `;` of a CSI or DCS sequence's parameters.
    fn param_byte(&mut self, b: u8) {
        if self.params.is_full() {
            self.ignoring = true;
            return;
        }
        match b {
            b';' => {
                self.params.push(self.param);
                self.param = 0;
            }
            b':' => {
                self.params.push_sub(self.param);
                self.param = 0;
            }
            _ => self.param = add_digit(self.param, b - b'0'),
        }
    }

    /// Closes the last parameter before a dispatch.
    fn close_params(&mut self) {
        if self.params.is_full() {
            self.ignoring = true;
        } else {
            self.params.push(self.param);
        }
    }

    fn csi_dispatch<A: Actions>(&mut self, actions: &mut A, b: u8) {
        self.close_params();
        let intermediates = &self.intermediates[..self.intermediate_len];
        actions.csi_dispatch(&self.params, intermediates, self.ignoring, char::from(b));
        self.state = State::Ground;
    }

    fn esc_dispatch<A: Actions>(&mut self, actions: &mut A, b: u8) {
        let intermediates = &self.intermediates[..self.intermediate_len];
        actions.esc_dispatch(intermediates, self.ignoring, b);
        self.state = State::Ground;
    }

    fn hook<A: Actions>(&mut self, actions: &mut A, b: u8) {
        self.close_params();
        let intermediates = &self.intermediates[..self.intermediate_len];
        actions.hook(&self.params, intermediates, self.ignoring, char::from(b));
        self.state = State::DcsPassthrough;
    }

    /// A byte of an OSC string.
    fn osc_byte<A: Actions>(&mut self, actions: &mut A, b: u8) {
        match b {
            0x07 => {
                self.osc_end(actions, true);
                self.state = State::Ground;
            }
            0x18 | 0x1a => {
                self.osc_end(actions, false);
                actions.execute(b);
                self.state = State::Ground;
            }
            0x1b => {
                self.osc_end(actions, false);
                self.enter_escape();
            }
            0x00..=0x1f => {}
            b':' if self.osc.starts_with(OSC_FILE) && {
                let args = &self.osc[OSC_FILE.len()..];
                !args.contains(&b':') && actions.osc_file_start(args)
            } =>
            {
                self.osc.clear();
                self.state = State::OscFile;
            }
            _ if self.osc.len() < MAX_OSC_BYTES => self.osc.push(b),
            _ => {}
        }
    }

    /// A byte of an APC string: kept up to the bound; at ESC, a kept
    /// graphics string is dispatched.
    fn apc_byte<A: Actions>(&mut self, actions: &mut A, b: u8) {
        match b {
            0x18 | 0x1a => {
                self.apc.clear();
                actions.execute(b);
                self.state = State::Ground;
            }
            0x1b => {
                if !self.apc_overflow && self.apc.first() == Some(&b'G') {
                    actions.apc_dispatch(&self.apc);
                }
                self.apc.clear();
                self.enter_escape();
            }
            0x00..=0x1f => {}
            _ if self.apc_overflow => {}
            _ if self.apc.len() < MAX_APC_BYTES => self.apc.push(b),
            _ => {
                self.apc_overflow = true;
                self.apc.clear();
            }
        }
    }

    /// Hands the run of a file's data at `bytes[i..]` to the host, or
    /// reads the control that ends it; returns where it stopped.
    fn osc_file<A: Actions>(&mut self, actions: &mut A, bytes: &[u8], i: usize) -> usize {
        let run = bytes[i..]
            .iter()
            .position(|&b| b < 0x20)
            .unwrap_or(bytes.len() - i);
        if run > 0 {
            actions.osc_file_data(&bytes[i..i + run]);
            return i + run;
        }
        let b = bytes[i];
        match b {
            0x07 => {
                actions.osc_file_end(true);
                self.state = State::Ground;
            }
            0x18 | 0x1a => {
                actions.osc_file_end(false);
                actions.execute(b);
                self.state = State::Ground;
            }
            0x1b => {
                actions.osc_file_end(true);
                self.enter_escape();
            }
            _ => {}
        }
        i + 1
    }

    fn osc_end<A: Actions>(&mut self, actions: &mut A, bell_terminated: bool) {
        actions.osc_string(&self.osc, bell_terminated);
        self.osc.clear();
    }
}

/// A decoded character: C1 controls are executed, the rest printed.
#[inline]
fn print_or_execute<A: Actions>(actions: &mut A, c: char) {
    if ('\u{80}'..='\u{9f}').contains(&c) {
        actions.execute(c as u8);
    } else {
        actions.print(c);
    }
}

#[cfg(test)]
mod tests;

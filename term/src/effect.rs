//! What the terminal asks its host to carry out. The terminal does no I/O:
//! answers for the program, clipboard writes and file offers wait in it
//! until the host
//! takes them with [`Term::take_effects`](super::Term::take_effects).

/// Something the terminal asks its host to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// Bytes to write back to the program: answers to DA, DSR, CPR,
    /// DECRQM, colour queries, ...
    Reply(Vec<u8>),
    /// Text the program put on the clipboard (OSC 52), for control viewers.
    Clipboard(String),
    /// A file the program offered for download (OSC 1337 File,
    /// `inline=0`), for control viewers.
    FileOffer(super::FileOffer),
}

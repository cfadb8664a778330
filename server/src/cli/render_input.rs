//! What `panecast render` reads: an asciicast recording, read whole to be
//! replayed, or raw bytes, fed to the terminal a chunk at a time as they
//! are read, so a log of any size renders in the memory of its screen and
//! scrollback.

use std::io::{ErrorKind, Read};

use crate::record::{looks_like_cast, Cast, CastError, SNIFF};
use panecast_term::{Term, DEFAULT_SCROLLBACK};

use super::RenderArgs;

/// Bytes read at a time: small enough that the buffer stays in the
/// processor's first-level cache while the terminal reads it. An input that
/// starts like a recording's header is read up to [`SNIFF`] bytes before
/// [`looks_like_cast`] decides what it is.
const CHUNK: usize = 16 * 1024;

/// Why `panecast render` has no terminal to render.
#[derive(Debug, thiserror::Error)]
pub(super) enum RenderInputError {
    /// The file or standard input could not be read.
    #[error("cannot read {name}: {source}")]
    Read {
        /// The file, or standard input.
        name: String,
        /// Why.
        source: std::io::Error,
    },
    /// `--at` given with raw bytes, which have no times.
    #[error("--at needs an asciicast recording; this input is raw bytes")]
    AtWithoutRecording,
    /// The recording is malformed.
    #[error(transparent)]
    Cast(#[from] CastError),
}

/// The terminal after the whole input of `panecast render`: its file, or
/// standard input for none and `-`.
pub(super) fn read_term(args: &RenderArgs) -> Result<Term, RenderInputError> {
    let (mut reader, name): (Box<dyn Read>, String) = match args.file.as_deref() {
        Some(path) if path.as_os_str() != "-" => {
            let name = path.display().to_string();
            match std::fs::File::open(path) {
                Ok(opened) => (Box::new(opened), name),
                Err(source) => return Err(RenderInputError::Read { name, source }),
            }
        }
        _ => (Box::new(std::io::stdin().lock()), "standard input".into()),
    };
    let cannot_read = |source: std::io::Error| RenderInputError::Read {
        name: name.clone(),
        source,
    };
    let mut chunk = vec![0; CHUNK];
    let mut first = fill(&mut reader, &mut chunk).map_err(cannot_read)?;
    if first == CHUNK && chunk[0] == b'{' {
        chunk.resize(SNIFF, 0);
        first += fill(&mut reader, &mut chunk[CHUNK..]).map_err(cannot_read)?;
    }
    if looks_like_cast(&chunk[..first]) {
        chunk.truncate(first);
        reader.read_to_end(&mut chunk).map_err(cannot_read)?;
        return replay(&chunk, args);
    }
    if args.at.is_some() {
        return Err(RenderInputError::AtWithoutRecording);
    }
    let mut term = Term::new(
        args.cols.unwrap_or(80),
        args.rows.unwrap_or(24),
        DEFAULT_SCROLLBACK,
    );
    let mut len = first;
    while len > 0 {
        term.advance(&chunk[..len]);
        len = fill(&mut reader, &mut chunk).map_err(cannot_read)?;
    }
    Ok(term)
}

/// The screen of recording `bytes` at the moment asked for, resized when a
/// size was asked for.
fn replay(bytes: &[u8], args: &RenderArgs) -> Result<Term, RenderInputError> {
    let cast = Cast::parse(bytes)?;
    let mut term = cast.term_at(args.at.unwrap_or(f64::INFINITY));
    if args.cols.is_some() || args.rows.is_some() {
        term.resize(
            args.cols.unwrap_or(term.cols()),
            args.rows.unwrap_or(term.rows()),
        );
    }
    Ok(term)
}

/// Reads until `buf` is full or the input ends (a pipe hands out less at
/// a time); returns how many bytes it holds, 0 at the end.
fn fill(reader: &mut dyn Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut len = 0;
    while len < buf.len() {
        match reader.read(&mut buf[len..]) {
            Ok(0) => break,
            Ok(n) => len += n,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(len)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that hands out at most `step` bytes a call, as a pipe does.
    struct Trickle<'a> {
        bytes: &'a [u8],
        step: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.step.min(buf.len()).min(self.bytes.len());
            buf[..n].copy_from_slice(&self.bytes[..n]);
            self.bytes = &self.bytes[n..];
            Ok(n)
        }
    }

    #[test]
    fn fill_gathers_a_trickle_until_the_buffer_is_full_or_the_input_ends() {
        let bytes: Vec<u8> = (0..=255).collect();
        let mut reader = Trickle {
            bytes: &bytes,
            step: 7,
        };
        let mut buf = [0; 100];
        assert_eq!(fill(&mut reader, &mut buf).unwrap(), 100);
        assert_eq!(buf[..], bytes[..100]);
        assert_eq!(fill(&mut reader, &mut buf).unwrap(), 100);
        assert_eq!(fill(&mut reader, &mut buf).unwrap(), 56);
        assert_eq!(buf[..56], bytes[200..]);
        assert_eq!(fill(&mut reader, &mut buf).unwrap(), 0);
    }
}

//! The local terminal: raw mode and the alternate screen while attached,
//! both undone on every way out (a normal return, an error, a panic; the
//! stop signals SIGTERM, SIGHUP, SIGINT and SIGQUIT end the attach loop,
//! which returns normally), and its size.

use std::io::Write;
use std::sync::Mutex;

/// Standard input's file descriptor.
const STDIN: libc::c_int = 0;
/// Standard output's file descriptor.
const STDOUT: libc::c_int = 1;

/// Entered on attach: save the title, the alternate screen, no autowrap
/// (a row drawn to the last column must not scroll), a reset pen.
const ENTER: &str = "\x1b[22;0t\x1b[?1049h\x1b[?7l\x1b[0m\x1b[H\x1b[2J";
/// Left on detach: every mode the painter may have mirrored off, the pen
/// reset, the cursor's shape and visibility back, autowrap on, the main
/// screen and the title back.
const LEAVE: &str = "\x1b[0m\x1b]8;;\x1b\\\x1b[?1l\x1b>\x1b[?2004l\x1b[?1004l\x1b[?9l\x1b[?1000l\
\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?5l\x1b[0 q\x1b[?25h\x1b[?7h\x1b[?1049l\x1b[23;0t";

/// The terminal settings to put back, while a [`Raw`] is alive.
static SAVED: Mutex<Option<libc::termios>> = Mutex::new(None);

/// The local terminal in raw mode on the alternate screen; dropping it puts
/// the terminal back as it was.
pub struct Raw(());

impl Raw {
    /// Switches standard input to raw mode and enters the alternate screen.
    /// Fails when standard input or output is not a terminal.
    pub fn enter() -> Result<Raw, String> {
        // SAFETY: isatty reads no memory.
        if unsafe { libc::isatty(STDIN) != 1 || libc::isatty(STDOUT) != 1 } {
            return Err("standard input and output must be a terminal".into());
        }
        // SAFETY: a zeroed termios is a valid value for tcgetattr to fill.
        let mut saved: libc::termios = unsafe { std::mem::zeroed() };
        // SAFETY: tcgetattr writes the struct given.
        if unsafe { libc::tcgetattr(STDIN, &mut saved) } != 0 {
            return Err(format!(
                "cannot read the terminal's settings: {}",
                std::io::Error::last_os_error()
            ));
        }
        let mut raw = saved;
        // SAFETY: cfmakeraw changes the struct given.
        unsafe { libc::cfmakeraw(&mut raw) };
        *SAVED.lock().unwrap_or_else(|e| e.into_inner()) = Some(saved);
        install_panic_hook();
        // SAFETY: tcsetattr reads the struct given.
        if unsafe { libc::tcsetattr(STDIN, libc::TCSANOW, &raw) } != 0 {
            let error = std::io::Error::last_os_error();
            restore();
            return Err(format!("cannot put the terminal in raw mode: {error}"));
        }
        write_all(ENTER);
        Ok(Raw(()))
    }
}

impl Drop for Raw {
    fn drop(&mut self) {
        restore();
    }
}

/// Puts the terminal back, once: the screen and modes, then the settings.
fn restore() {
    let saved = SAVED.lock().unwrap_or_else(|e| e.into_inner()).take();
    if let Some(saved) = saved {
        write_all(LEAVE);
        // SAFETY: tcsetattr reads the struct given.
        unsafe { libc::tcsetattr(STDIN, libc::TCSANOW, &saved) };
    }
}

/// A panic restores the terminal before its message is printed.
fn install_panic_hook() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore();
        previous(info);
    }));
}

fn write_all(s: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(s.as_bytes()).and_then(|()| out.flush());
}

/// The local terminal's size as (columns, rows), `None` when unknown.
pub fn size() -> Option<(u16, u16)> {
    // SAFETY: a zeroed winsize is a valid value for the ioctl to fill.
    let mut ws: libc::winsize = unsafe { std::mem::zeroed() };
    // SAFETY: TIOCGWINSZ writes a winsize into the struct given.
    let ok = unsafe { libc::ioctl(STDOUT, libc::TIOCGWINSZ, &mut ws) } == 0;
    (ok && ws.ws_col > 0 && ws.ws_row > 0).then_some((ws.ws_col, ws.ws_row))
}

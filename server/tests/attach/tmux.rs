//! The local terminal of the attach tests: a tmux server of its own, a
//! window per `panecast attach`, keys typed with `tmux send-keys`, the
//! pane read with `tmux capture-pane` (its text, or its text with which
//! cells are underlined).

#![allow(dead_code)] // Each test binary uses a different part of this module.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::common::eventually;

/// The pane's width, and the session's.
pub const COLS: u16 = 80;
/// The pane's height, and the session's.
pub const ROWS: u16 = 24;

/// A tmux server of its own (its socket in a fresh directory), killed on drop.
pub struct Tmux {
    /// Its directory, removed on drop.
    pub dir: PathBuf,
}

impl Tmux {
    /// A tmux server in a fresh directory (started by its first window).
    pub fn new() -> Tmux {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("panecast-attach-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a temporary directory");
        Tmux { dir }
    }

    /// Runs `tmux ARGS` on this server; its standard output.
    pub fn run(&self, args: &[&str]) -> String {
        let socket = self.dir.join("tmux");
        let out = Command::new("tmux")
            .arg("-S")
            .arg(&socket)
            .args(["-f", "/dev/null"])
            .args(args)
            .output()
            .expect("tmux runs (tests/run.sh installs it)");
        assert!(
            out.status.success(),
            "tmux {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Starts `panecast attach ARGS` (with `env` set) in a new window
    /// `name`; after it exits the pane shows its exit code and whether the
    /// terminal is back in canonical mode with echo, and stays open.
    pub fn attach(&self, name: &str, env: &str, args: &str) {
        self.attach_sized(name, (COLS, ROWS), env, args);
    }

    /// [`Tmux::attach`] in a window of `size` (columns, rows).
    pub fn attach_sized(&self, name: &str, size: (u16, u16), env: &str, args: &str) {
        self.window(name, size, &attach_script(env, args));
    }

    /// [`Tmux::attach`], with every byte the attach writes to the pane
    /// copied to a file from the first (`tmux pipe-pane`): the order in
    /// which it painted things, which reading the pane now and then may
    /// miss on a busy machine.
    pub fn attach_recorded(&self, name: &str, env: &str, args: &str) -> Recording {
        let file = self.dir.join(format!("{name}.out"));
        let go = self.dir.join(format!("{name}.go"));
        // The attach waits for the pipe to be in place.
        let script = format!(
            "until [ -e '{}' ]; do sleep 0.01; done; {}",
            go.display(),
            attach_script(env, args)
        );
        self.window(name, (COLS, ROWS), &script);
        let copy = format!("cat >> '{}'", file.display());
        self.run(&["pipe-pane", "-o", "-t", name, &copy]);
        std::fs::write(&go, b"").expect("the go file");
        Recording { file }
    }

    /// A new window `name` of `size` running `sh -c script`.
    fn window(&self, name: &str, size: (u16, u16), script: &str) {
        let (cols, rows) = (size.0.to_string(), size.1.to_string());
        self.run(&[
            "new-session",
            "-d",
            "-s",
            name,
            "-x",
            &cols,
            "-y",
            &rows,
            "sh",
            "-c",
            script,
        ]);
    }

    /// The pane's text, lines' trailing blanks and trailing empty lines cut.
    pub fn pane(&self, name: &str) -> String {
        trimmed(&self.run(&["capture-pane", "-p", "-t", name]))
    }

    /// The pane's rows, each cell's character and whether it is underlined
    /// (trailing blanks kept, so that an underlined one is seen).
    pub fn pane_styled(&self, name: &str) -> Vec<Vec<(char, bool)>> {
        underlined(&self.run(&["capture-pane", "-e", "-N", "-p", "-t", name]))
    }

    /// Presses `keys` (tmux key names, or `-l` and text) in pane `name`.
    pub fn keys(&self, name: &str, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", name];
        args.extend(keys);
        self.run(&args);
    }

    /// Types `text` as it is (no key names).
    pub fn type_text(&self, name: &str, text: &str) {
        self.run(&["send-keys", "-t", name, "-l", text]);
    }

    /// Waits until the attach in pane `name` has exited and the terminal's
    /// modes are printed after it, and returns the pane.
    pub fn wait_exit(&self, name: &str) -> String {
        eventually(&format!("the attach in pane {name} to exit"), || {
            let pane = self.pane(name);
            pane.lines()
                .any(|l| l == "echo" || l == "-echo")
                .then_some(pane)
        })
    }
}

/// The shell script of a window running `panecast attach ARGS` with `env`:
/// after it exits the pane shows its exit code and whether the terminal is
/// back in canonical mode with echo, and stays open.
fn attach_script(env: &str, args: &str) -> String {
    let bin = env!("CARGO_BIN_EXE_panecast");
    format!(
        "{env} {bin} attach {args}; echo exit=$?; \
         stty -a | tr ' ;' '\\n\\n' | grep -x -e icanon -e -icanon -e echo -e -echo; \
         exec sleep 600"
    )
}

/// What an attach wrote to its pane, copied to a file as it goes.
pub struct Recording {
    file: PathBuf,
}

impl Recording {
    /// How many bytes are copied so far.
    pub fn len(&self) -> usize {
        std::fs::metadata(&self.file).map_or(0, |m| m.len() as usize)
    }

    /// Whether cell (`row`, `col`) was underlined (a prediction) when it
    /// first showed `c` after byte `from` (counting only a change to `c`:
    /// a cell that shows `c` at `from` must first show something else);
    /// `None` until the copy has it. Replays the copy through an emulator
    /// of the pane's size.
    pub fn first_shown_underlined(
        &self,
        from: usize,
        c: char,
        row: usize,
        col: usize,
    ) -> Option<bool> {
        let bytes = std::fs::read(&self.file).unwrap_or_default();
        let from = from.min(bytes.len());
        let mut term = panecast_term::Term::new(COLS, ROWS, 0);
        term.advance(&bytes[..from]);
        let cell = |term: &mut panecast_term::Term| {
            let cell = *term.row(row)?.cells().get(col)?;
            let underline = term.style_now(cell.style()).1.underline;
            Some((cell.ch(), underline != panecast_term::Underline::None))
        };
        let mut left = cell(&mut term).is_none_or(|(shown, _)| shown != c);
        for &byte in &bytes[from..] {
            term.advance(&[byte]);
            match cell(&mut term) {
                Some((shown, underlined)) if shown == c && left => return Some(underlined),
                Some((shown, _)) if shown != c => left = true,
                _ => {}
            }
        }
        None
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let socket = self.dir.join("tmux");
        let _ = Command::new("tmux")
            .arg("-S")
            .arg(&socket)
            .arg("kill-server")
            .stderr(Stdio::null())
            .status();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// `text` with each line's trailing blanks and the trailing empty lines cut.
pub fn trimmed(text: &str) -> String {
    let lines: Vec<&str> = text.lines().map(str::trim_end).collect();
    let end = lines
        .iter()
        .rposition(|l| !l.is_empty())
        .map_or(0, |i| i + 1);
    lines[..end].join("\n")
}

/// The rows of `capture-pane -e` output: each character and whether SGR
/// underlining (4, 4:1 to 4:5) was on for it.
pub fn underlined(captured: &str) -> Vec<Vec<(char, bool)>> {
    let mut rows = Vec::new();
    for line in captured.lines() {
        let mut row = Vec::new();
        let mut on = false;
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            if c != '\x1b' {
                row.push((c, on));
                continue;
            }
            if chars.peek() != Some(&'[') {
                chars.next();
                continue;
            }
            chars.next();
            let mut params = String::new();
            let mut last = None;
            for c in chars.by_ref() {
                if ('\x40'..='\x7e').contains(&c) {
                    last = Some(c);
                    break;
                }
                params.push(c);
            }
            if last != Some('m') {
                continue;
            }
            for param in params.split(';') {
                match param {
                    "" | "0" | "24" | "4:0" => on = false,
                    "4" => on = true,
                    p if p.starts_with("4:") => on = true,
                    _ => {}
                }
            }
        }
        rows.push(row);
    }
    rows
}

/// The text of `row`, its trailing blanks cut.
pub fn row_text(row: &[(char, bool)]) -> String {
    row.iter()
        .map(|(c, _)| c)
        .collect::<String>()
        .trim_end()
        .to_owned()
}

//! The window title and icon label (OSC 0, 1, 2) and the stack XTWINOPS 22
//! and 23 push them on and pop them from.

use serde::{Deserialize, Serialize};

/// Titles pushed at most; older pushes are dropped (xterm keeps 10).
const MAX_STACKED: usize = 10;

/// Longest title kept, in characters.
const MAX_TITLE_CHARS: usize = 1024;

/// Which titles a push or pop concerns (XTWINOPS 22/23's second parameter).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Which {
    /// Both the icon label and the window title (0).
    Both,
    /// The icon label (1).
    Icon,
    /// The window title (2).
    Window,
}

impl Which {
    /// The selector XTWINOPS 22/23 take; unknown values select nothing.
    pub fn from_param(param: u16) -> Option<Which> {
        match param {
            0 => Some(Which::Both),
            1 => Some(Which::Icon),
            2 => Some(Which::Window),
            _ => None,
        }
    }

    fn icon(self) -> bool {
        self != Which::Window
    }

    fn window(self) -> bool {
        self != Which::Icon
    }
}

/// The window title, the icon label and the pushed pairs.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(crate) struct Titles {
    window: String,
    icon: String,
    stack: Vec<(String, String)>,
}

impl Titles {
    /// The window title.
    pub fn window(&self) -> &str {
        &self.window
    }

    /// The icon label.
    pub fn icon(&self) -> &str {
        &self.icon
    }

    /// Sets the titles `which` selects from what a program sent: control
    /// characters are dropped and the length capped.
    pub fn set(&mut self, which: Which, text: &str) {
        let clean: String = text
            .chars()
            .filter(|c| !c.is_control())
            .take(MAX_TITLE_CHARS)
            .collect();
        if which.icon() {
            self.icon.clone_from(&clean);
        }
        if which.window() {
            self.window = clean;
        }
    }

    /// XTWINOPS 22: pushes the current titles (both are saved; a pop
    /// restores those `which` selects).
    pub fn push(&mut self) {
        if self.stack.len() == MAX_STACKED {
            self.stack.remove(0);
        }
        self.stack.push((self.icon.clone(), self.window.clone()));
    }

    /// XTWINOPS 23: pops the last push, restoring the titles `which` selects.
    pub fn pop(&mut self, which: Which) {
        if let Some((icon, window)) = self.stack.pop() {
            if which.icon() {
                self.icon = icon;
            }
            if which.window() {
                self.window = window;
            }
        }
    }

    /// Everything back to empty (RIS).
    pub fn clear(&mut self) {
        *self = Titles::default();
    }
}

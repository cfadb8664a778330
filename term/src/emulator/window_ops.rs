//! XTWINOPS (`CSI Ps ; Ps ; Ps t`): the reports about the window and the
//! title stack.
//!
//! Operations that would move, resize, iconify or raise the window are
//! ignored, as with xterm's default `allowWindowOps: false`: a session's size
//! belongs to its viewers and the server's resize policy, not to the program.
//! Pixel sizes are those of the cell the SVG renderer draws.

use super::Emulator;
use crate::titles::Which;
use crate::{CELL_HEIGHT, CELL_WIDTH};

impl Emulator {
    /// XTWINOPS `op;arg`.
    pub fn window_op(&mut self, op: u16, arg: u16) {
        let (rows, cols) = (self.rows, self.cols);
        let (cell_w, cell_h) = (CELL_WIDTH.round() as usize, CELL_HEIGHT.round() as usize);
        let reply = match op {
            11 => "\x1b[1t".to_string(),
            13 => "\x1b[3;0;0t".to_string(),
            14 => format!("\x1b[4;{};{}t", rows * cell_h, cols * cell_w),
            15 => format!("\x1b[5;{};{}t", rows * cell_h, cols * cell_w),
            16 => format!("\x1b[6;{cell_h};{cell_w}t"),
            18 => format!("\x1b[8;{rows};{cols}t"),
            19 => format!("\x1b[9;{rows};{cols}t"),
            20 => format!("\x1b]L{}\x1b\\", self.titles.icon()),
            21 => format!("\x1b]l{}\x1b\\", self.titles.window()),
            22 => {
                self.titles.push();
                return;
            }
            23 => {
                if let Some(which) = Which::from_param(arg) {
                    self.titles.pop(which);
                }
                return;
            }
            _ => return,
        };
        self.reply(reply.as_bytes());
    }
}

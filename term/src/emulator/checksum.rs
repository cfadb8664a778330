//! DECRQCRA: the checksum of a rectangle of cells, the way xterm answers it
//! (and how esctest reads the screen back).

use super::Emulator;

impl Emulator {
    /// DECRQCRA `Pid;Pp;Pt;Pl;Pb;Pr`: replies `DCS Pid ! ~ XXXX ST` with the
    /// 16-bit two's complement of the sum of the characters in the rectangle
    /// (xterm's format before patch 279, what esctest expects by default).
    /// Erased cells count as spaces, the right half of a wide character as
    /// nothing; attributes do not count. An empty rectangle sums to 0.
    pub fn report_checksum(&mut self, id: u16, top: u16, left: u16, bottom: u16, right: u16) {
        let mut sum: u32 = 0;
        if let Some(rect) = self.rect_from(top, left, bottom, right) {
            self.spend((rect.bottom + 1 - rect.top) * (rect.right + 1 - rect.left));
            for r in rect.rows() {
                let cells = self.screen.grid()[r].cells();
                for cell in &cells[rect.left..=rect.right] {
                    sum = sum.wrapping_add(match (cell.width(), cell.ch()) {
                        (0, _) => 0,
                        (_, '\0') => u32::from(b' '),
                        (_, c) => c as u32,
                    });
                }
            }
        }
        let checksum = (sum as u16).wrapping_neg();
        self.reply_fmt(format_args!("\x1bP{id}!~{checksum:04X}\x1b\\"));
    }
}

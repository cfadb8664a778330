//! The shape checks a state read back must pass before it is used: sizes,
//! rows, cursors and margins that fit together, so that a state written by
//! another build's bug is refused rather than indexed out of bounds.

use super::Emulator;
use crate::screen::Screen;
use crate::MAX_DIMENSION;

impl Emulator {
    /// Checks the shape of a state read back.
    pub(crate) fn check_restored(&self) -> Result<(), &'static str> {
        let (cols, rows) = (self.cols, self.rows);
        if !(1..=MAX_DIMENSION as usize).contains(&cols)
            || !(1..=MAX_DIMENSION as usize).contains(&rows)
        {
            return Err("size out of range");
        }
        if !screen_fits(&self.screen, cols, rows) {
            return Err("the shown screen does not fit the size");
        }
        // The hidden screen's order is checked before its rows are counted
        // through it.
        let hidden = self.hidden.grid();
        if !hidden.is_consistent() {
            return Err("the hidden screen's rows are out of order");
        }
        if hidden.iter().count() != 0 && !screen_fits(&self.hidden, cols, rows) {
            return Err("the hidden screen does not fit the size");
        }
        if self.region.top > self.region.bottom
            || self.region.bottom >= rows
            || self.region.left > self.region.right
            || self.region.right >= cols
        {
            return Err("margins out of the screen");
        }
        if self.tabs.len() != cols {
            return Err("tab stops do not fit the width");
        }
        self.graphics.check_restored()
    }
}

/// True when `screen` holds `rows` rows of `cols` cells, in a consistent
/// order, with its cursors on it.
fn screen_fits(screen: &Screen, cols: usize, rows: usize) -> bool {
    let cursor = screen.cursor();
    let saved = screen.saved_cursor();
    screen.grid().is_consistent()
        && screen.grid().iter().count() == rows
        && screen.grid().iter().all(|row| row.fits(cols))
        && cursor.row < rows
        && cursor.col < cols
        && saved.row < rows
        && saved.col < cols
}

#[cfg(test)]
impl Emulator {
    /// Puts the cursor below the screen, as no sequence can: a state to
    /// refuse.
    pub(crate) fn misplace_cursor_for_test(&mut self) {
        self.screen.cursor_mut().row = self.rows;
    }
}

#[cfg(test)]
mod tests {
    use super::Emulator;

    #[test]
    fn a_fresh_state_passes_and_broken_shapes_are_named() {
        let emu = Emulator::new(10, 5, 10);
        assert_eq!(emu.check_restored(), Ok(()));
        let mut cursor = emu.clone();
        cursor.misplace_cursor_for_test();
        assert_eq!(
            cursor.check_restored(),
            Err("the shown screen does not fit the size")
        );
        let mut margins = emu.clone();
        margins.region.bottom = 5;
        assert_eq!(margins.check_restored(), Err("margins out of the screen"));
        let mut size = emu.clone();
        size.cols = 11;
        assert_eq!(
            size.check_restored(),
            Err("the shown screen does not fit the size")
        );
        let mut tabs = emu;
        tabs.tabs.resize(9);
        assert_eq!(tabs.check_restored(), Err("tab stops do not fit the width"));
    }
}

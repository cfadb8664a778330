//! Tab stops: one flag per column, every eighth column by default.

use serde::{Deserialize, Serialize};

/// The tab stops of a screen.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TabStops {
    stops: Vec<bool>,
}

impl TabStops {
    /// Default stops (every 8 columns) for `cols` columns.
    pub fn new(cols: usize) -> TabStops {
        TabStops {
            stops: (0..cols).map(|c| c % 8 == 0 && c != 0).collect(),
        }
    }

    /// The width the stops are kept for.
    pub fn len(&self) -> usize {
        self.stops.len()
    }

    /// Changes the width, giving new columns the default stops.
    pub fn resize(&mut self, cols: usize) {
        let old = self.stops.len();
        self.stops.resize(cols, false);
        for c in old..cols {
            self.stops[c] = c % 8 == 0;
        }
    }

    /// Sets a stop at `col` (HTS).
    pub fn set(&mut self, col: usize) {
        if let Some(s) = self.stops.get_mut(col) {
            *s = true;
        }
    }

    /// Clears the stop at `col` (TBC 0).
    pub fn clear(&mut self, col: usize) {
        if let Some(s) = self.stops.get_mut(col) {
            *s = false;
        }
    }

    /// Clears every stop (TBC 3).
    pub fn clear_all(&mut self) {
        self.stops.fill(false);
    }

    /// The column of the next stop after `col`, or the last column.
    pub fn next(&self, col: usize) -> usize {
        let last = self.stops.len().saturating_sub(1);
        (col + 1..self.stops.len())
            .find(|&c| self.stops[c])
            .unwrap_or(last)
    }

    /// The column of the previous stop before `col`, or column 0.
    pub fn prev(&self, col: usize) -> usize {
        (0..col.min(self.stops.len()))
            .rev()
            .find(|&c| self.stops[c])
            .unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_stops_are_every_eight_columns() {
        let tabs = TabStops::new(80);
        assert_eq!(tabs.next(0), 8);
        assert_eq!(tabs.next(8), 16);
        assert_eq!(tabs.next(75), 79);
        assert_eq!(tabs.prev(17), 16);
        assert_eq!(tabs.prev(3), 0);
    }

    #[test]
    fn set_and_clear() {
        let mut tabs = TabStops::new(40);
        tabs.clear_all();
        assert_eq!(tabs.next(0), 39);
        tabs.set(5);
        assert_eq!(tabs.next(0), 5);
        tabs.clear(5);
        assert_eq!(tabs.next(0), 39);
        tabs.resize(50);
        assert_eq!(tabs.next(39), 40);
    }
}

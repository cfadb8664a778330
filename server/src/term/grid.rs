//! The visible rows as a ring: scrolling the whole screen moves an offset
//! instead of the rows (alacritty's storage idea), so a line feed at the
//! bottom costs the same for 40 rows as for 1000.

use std::ops::{Index, IndexMut};

use super::row::Row;

/// The rows of one screen (main or alternate), top to bottom.
#[derive(Debug, Default)]
pub(crate) struct Grid {
    rows: Vec<Row>,
    /// Physical index of the top row.
    zero: usize,
}

impl Grid {
    /// A grid holding `rows`, the first on top.
    pub fn new(rows: Vec<Row>) -> Grid {
        Grid { rows, zero: 0 }
    }

    #[inline]
    fn physical(&self, r: usize) -> usize {
        let i = self.zero + r;
        if i >= self.rows.len() {
            i - self.rows.len()
        } else {
            i
        }
    }

    /// Row `r` if it exists.
    pub fn get(&self, r: usize) -> Option<&Row> {
        (r < self.rows.len()).then(|| &self.rows[self.physical(r)])
    }

    /// The rows top to bottom.
    pub fn iter(&self) -> impl Iterator<Item = &Row> + '_ {
        let (tail, head) = self.rows.split_at(self.zero);
        head.iter().chain(tail.iter())
    }

    /// The rows top to bottom, for writing.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut Row> + '_ {
        let (tail, head) = self.rows.split_at_mut(self.zero);
        head.iter_mut().chain(tail.iter_mut())
    }

    /// Rotates rows `top..=bottom` up by `n`: the top `n` rows of the range
    /// come out at its bottom (the caller clears them).
    pub fn rotate_up(&mut self, top: usize, bottom: usize, n: usize) {
        if top == 0 && bottom + 1 == self.rows.len() {
            self.zero = (self.zero + n) % self.rows.len();
        } else {
            self.contiguous()[top..=bottom].rotate_left(n);
        }
    }

    /// Rotates rows `top..=bottom` down by `n`: the bottom `n` rows of the
    /// range come out at its top (the caller clears them).
    pub fn rotate_down(&mut self, top: usize, bottom: usize, n: usize) {
        if top == 0 && bottom + 1 == self.rows.len() {
            self.zero = (self.zero + self.rows.len() - n % self.rows.len()) % self.rows.len();
        } else {
            self.contiguous()[top..=bottom].rotate_right(n);
        }
    }

    /// The rows as one slice in screen order.
    fn contiguous(&mut self) -> &mut [Row] {
        if self.zero != 0 {
            self.rows.rotate_left(self.zero);
            self.zero = 0;
        }
        &mut self.rows
    }

    /// The rows in screen order, consuming the grid.
    pub fn into_vec(mut self) -> Vec<Row> {
        self.contiguous();
        self.rows
    }
}

impl Index<usize> for Grid {
    type Output = Row;

    #[inline]
    fn index(&self, r: usize) -> &Row {
        &self.rows[self.physical(r)]
    }
}

impl IndexMut<usize> for Grid {
    #[inline]
    fn index_mut(&mut self, r: usize) -> &mut Row {
        let i = self.physical(r);
        &mut self.rows[i]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::term::style::StyleId;

    fn grid(n: u64) -> Grid {
        Grid::new((0..n).map(|g| Row::new(1, StyleId::DEFAULT, g)).collect())
    }

    fn order(grid: &Grid) -> Vec<u64> {
        grid.iter().map(|r| r.generation()).collect()
    }

    #[test]
    fn full_rotation_moves_the_offset_and_partial_rotation_the_rows() {
        let mut g = grid(5);
        g.rotate_up(0, 4, 2);
        assert_eq!(order(&g), [2, 3, 4, 0, 1]);
        assert_eq!(g[0].generation(), 2);
        g.rotate_up(1, 3, 1);
        assert_eq!(order(&g), [2, 4, 0, 3, 1]);
        g.rotate_down(0, 4, 1);
        assert_eq!(order(&g), [1, 2, 4, 0, 3]);
        g.rotate_down(0, 2, 1);
        assert_eq!(order(&g), [4, 1, 2, 0, 3]);
        assert_eq!(g.into_vec().iter().map(|r| r.generation()).collect::<Vec<_>>(), [4, 1, 2, 0, 3]);
    }
}

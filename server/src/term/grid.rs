//! The visible rows, addressed through a permutation: scrolling a region
//! rotates a small array of row numbers instead of moving the rows, so a
//! line feed costs the same for a 3-row region as for a 1000-row screen.

use std::ops::{Index, IndexMut};

use serde::{Deserialize, Serialize};

use super::row::Row;

/// The rows of one screen (main or alternate), top to bottom.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(crate) struct Grid {
    rows: Vec<Row>,
    /// `order[r]` is the storage index of screen row `r`.
    order: Vec<u16>,
}

impl Grid {
    /// A grid holding `rows` (at most `u16::MAX`), the first on top.
    pub fn new(rows: Vec<Row>) -> Grid {
        let order = (0..rows.len() as u16).collect();
        Grid { rows, order }
    }

    /// Row `r` if it exists.
    pub fn get(&self, r: usize) -> Option<&Row> {
        self.order.get(r).map(|&i| &self.rows[i as usize])
    }

    /// The rows top to bottom.
    pub fn iter(&self) -> impl Iterator<Item = &Row> + '_ {
        self.order.iter().map(|&i| &self.rows[i as usize])
    }

    /// Every row, in storage order (for visits where order does not matter).
    pub fn storage_mut(&mut self) -> impl Iterator<Item = &mut Row> + '_ {
        self.rows.iter_mut()
    }

    /// Rotates rows `top..=bottom` up by `n`: the top `n` rows of the range
    /// come out at its bottom (the caller clears them).
    #[inline(always)]
    pub fn rotate_up(&mut self, top: usize, bottom: usize, n: usize) {
        let range = &mut self.order[top..=bottom];
        if let ([first, ..], 1) = (&*range, n) {
            let first = *first;
            range.copy_within(1.., 0);
            range[range.len() - 1] = first;
        } else {
            range.rotate_left(n);
        }
    }

    /// Rotates rows `top..=bottom` down by `n`: the bottom `n` rows of the
    /// range come out at its top (the caller clears them).
    #[inline]
    pub fn rotate_down(&mut self, top: usize, bottom: usize, n: usize) {
        self.order[top..=bottom].rotate_right(n);
    }

    /// True when the order is a permutation of the rows (a grid read back
    /// is checked with this before use).
    pub fn is_consistent(&self) -> bool {
        let mut seen = vec![false; self.rows.len()];
        self.order.len() == self.rows.len()
            && self.order.iter().all(|&i| {
                seen.get_mut(i as usize)
                    .is_some_and(|s| !std::mem::replace(s, true))
            })
    }

    /// The rows in screen order, consuming the grid.
    pub fn into_vec(self) -> Vec<Row> {
        let mut slots: Vec<Option<Row>> = self.rows.into_iter().map(Some).collect();
        self.order
            .iter()
            .filter_map(|&i| slots[i as usize].take())
            .collect()
    }
}

impl Index<usize> for Grid {
    type Output = Row;

    #[inline]
    fn index(&self, r: usize) -> &Row {
        &self.rows[self.order[r] as usize]
    }
}

impl IndexMut<usize> for Grid {
    #[inline]
    fn index_mut(&mut self, r: usize) -> &mut Row {
        &mut self.rows[self.order[r] as usize]
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
    fn rotations_reorder_rows_without_moving_them() {
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
        let rows = g.into_vec();
        assert_eq!(
            rows.iter().map(|r| r.generation()).collect::<Vec<_>>(),
            [4, 1, 2, 0, 3]
        );
    }
}

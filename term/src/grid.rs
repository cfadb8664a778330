//! The visible rows, addressed through a permutation: scrolling a region
//! turns a small array of row numbers instead of moving the rows, and a
//! region scrolled again and again is turned lazily (an offset into its
//! part of the array), so a line feed costs the same for a 3-row region as
//! for a 1000-row screen and moves no row numbers at all.

use std::ops::{Index, IndexMut};

use serde::ser::SerializeStruct;
use serde::{Deserialize, Serialize, Serializer};

use super::row::Row;

/// The rows of one screen (main or alternate), top to bottom.
///
/// Serialized as its rows and the order with any pending turn applied, so
/// the saved form does not depend on how the rows were scrolled.
#[derive(Clone, Debug, Default, Deserialize)]
pub(crate) struct Grid {
    rows: Vec<Row>,
    /// The storage index of each screen row, before [`Turn`] applies.
    order: Vec<u16>,
    #[serde(skip)]
    turn: Turn,
    /// The row the last line feed at a region's bottom cleared, where the
    /// program's next text goes, found without the turn.
    #[serde(skip)]
    fresh: Fresh,
}

/// Screen row `row` is storage row `slot` (`row` is `usize::MAX` for none).
#[derive(Clone, Copy, Debug)]
struct Fresh {
    row: usize,
    slot: usize,
}

impl Default for Fresh {
    fn default() -> Fresh {
        Fresh {
            row: usize::MAX,
            slot: 0,
        }
    }
}

/// A rotation of `order[top..top + len]` not yet applied: screen row
/// `top + i` (for `i < len`) is `order[top + (i + by) % len]`. Scrolling
/// the same region again only moves `by`; scrolling another region applies
/// it first. `len` is 0 when nothing is pending.
#[derive(Clone, Copy, Debug, Default)]
struct Turn {
    top: usize,
    len: usize,
    /// Always below `len` (0 when `len` is).
    by: usize,
}

impl Turn {
    /// Where screen row `r` is in `order`.
    #[inline(always)]
    fn slot(self, r: usize) -> usize {
        let i = r.wrapping_sub(self.top);
        if i < self.len {
            let j = i + self.by;
            self.top + if j >= self.len { j - self.len } else { j }
        } else {
            r
        }
    }
}

impl Grid {
    /// A grid holding `rows` (at most `u16::MAX`), the first on top.
    pub fn new(rows: Vec<Row>) -> Grid {
        let order = (0..rows.len() as u16).collect();
        Grid {
            rows,
            order,
            turn: Turn::default(),
            fresh: Fresh::default(),
        }
    }

    /// Row `r` if it exists.
    pub fn get(&self, r: usize) -> Option<&Row> {
        (r < self.order.len()).then(|| &self[r])
    }

    /// The rows top to bottom.
    pub fn iter(&self) -> impl Iterator<Item = &Row> + '_ {
        (0..self.order.len()).map(|r| &self[r])
    }

    /// Every row, in storage order (for visits where order does not matter).
    pub fn storage_mut(&mut self) -> impl Iterator<Item = &mut Row> + '_ {
        self.rows.iter_mut()
    }

    /// Rotates rows `top..=bottom` up by `n`: the top `n` rows of the range
    /// come out at its bottom (the caller clears them).
    #[inline]
    pub fn rotate_up(&mut self, top: usize, bottom: usize, n: usize) {
        let len = self.turning(top, bottom);
        self.turn.by = (self.turn.by + n % len) % len;
        self.fresh = Fresh::default();
    }

    /// Rotates rows `top..=bottom` up by one and returns the row that came
    /// out at the bottom, for the caller to clear (a line feed at the
    /// bottom of a region).
    #[inline]
    pub fn rotate_up_one(&mut self, top: usize, bottom: usize) -> &mut Row {
        let len = self.turning(top, bottom);
        let out = self.order[top + self.turn.by] as usize;
        self.turn.by += 1;
        if self.turn.by == len {
            self.turn.by = 0;
        }
        self.fresh = Fresh {
            row: bottom,
            slot: out,
        };
        &mut self.rows[out]
    }

    /// Rotates rows `top..=bottom` down by `n`: the bottom `n` rows of the
    /// range come out at its top (the caller clears them).
    #[inline]
    pub fn rotate_down(&mut self, top: usize, bottom: usize, n: usize) {
        let len = self.turning(top, bottom);
        self.turn.by = (self.turn.by + len - n % len) % len;
        self.fresh = Fresh::default();
    }

    /// Makes `top..=bottom` the region whose turn is pending, applying
    /// another region's first; returns its height.
    ///
    /// # Panics
    ///
    /// When `top > bottom` or `bottom` is off the grid (callers pass a
    /// scroll region, which is always inside).
    #[inline(always)]
    fn turning(&mut self, top: usize, bottom: usize) -> usize {
        let len = bottom + 1 - top;
        if (top, len) != (self.turn.top, self.turn.len) {
            assert!(
                top <= bottom && bottom < self.order.len(),
                "region {top}..={bottom} off the grid"
            );
            self.settle();
            self.turn = Turn { top, len, by: 0 };
        }
        len
    }

    /// Applies the pending turn to `order`, so rows are found without it
    /// (for when scrolling is over for a while).
    #[inline]
    pub fn settle(&mut self) {
        if self.turn.len != 0 {
            self.apply_turn();
        }
    }

    /// Rotates `order` by the pending turn and forgets it. A turn of one
    /// (a single line feed between cursor moves) moves the numbers down
    /// one place, cheaper than the general rotation.
    #[cold]
    fn apply_turn(&mut self) {
        let Turn { top, len, by } = std::mem::take(&mut self.turn);
        let range = &mut self.order[top..top + len];
        if let ([first, ..], 1) = (&*range, by) {
            let first = *first;
            range.copy_within(1.., 0);
            range[len - 1] = first;
        } else {
            range.rotate_left(by);
        }
        self.fresh = Fresh::default();
    }

    /// The storage index of screen row `r`.
    #[inline(always)]
    fn storage(&self, r: usize) -> usize {
        if self.turn.len == 0 {
            self.order[r] as usize
        } else if r == self.fresh.row {
            self.fresh.slot
        } else {
            self.order[self.turn.slot(r)] as usize
        }
    }

    /// The order with the pending turn applied.
    fn settled_order(&self) -> impl Iterator<Item = u16> + '_ {
        (0..self.order.len()).map(|r| self.order[self.turn.slot(r)])
    }

    /// True when the order is a permutation of the rows (a grid read back
    /// is checked with this before use).
    pub fn is_consistent(&self) -> bool {
        let mut seen = vec![false; self.rows.len()];
        let turn = self.turn;
        let fresh = self.fresh;
        let fresh_agrees = fresh.row == usize::MAX
            || self.order.get(turn.slot(fresh.row)) == Some(&(fresh.slot as u16));
        fresh_agrees
            && turn.by <= turn.len.saturating_sub(1)
            && turn.top + turn.len <= self.order.len()
            && self.order.len() == self.rows.len()
            && self.order.iter().all(|&i| {
                seen.get_mut(i as usize)
                    .is_some_and(|s| !std::mem::replace(s, true))
            })
    }

    /// The rows in screen order, consuming the grid.
    pub fn into_vec(self) -> Vec<Row> {
        let order: Vec<u16> = self.settled_order().collect();
        let mut slots: Vec<Option<Row>> = self.rows.into_iter().map(Some).collect();
        order
            .iter()
            .filter_map(|&i| slots[i as usize].take())
            .collect()
    }
}

impl Serialize for Grid {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let order: Vec<u16> = self.settled_order().collect();
        let mut grid = serializer.serialize_struct("Grid", 2)?;
        grid.serialize_field("rows", &self.rows)?;
        grid.serialize_field("order", &order)?;
        grid.end()
    }
}

impl Index<usize> for Grid {
    type Output = Row;

    #[inline]
    fn index(&self, r: usize) -> &Row {
        &self.rows[self.storage(r)]
    }
}

impl IndexMut<usize> for Grid {
    #[inline]
    fn index_mut(&mut self, r: usize) -> &mut Row {
        let i = self.storage(r);
        &mut self.rows[i]
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::style::StyleId;

    fn grid(n: u64) -> Grid {
        Grid::new((0..n).map(|g| Row::new(1, StyleId::DEFAULT, g)).collect())
    }

    fn order(grid: &Grid) -> Vec<u64> {
        grid.iter().map(|r| r.generation()).collect()
    }

    /// `grid` written and read back as the saved state is.
    fn saved(grid: &Grid) -> Grid {
        let mut bytes = Vec::new();
        ciborium::into_writer(grid, &mut bytes).expect("a grid serializes");
        ciborium::from_reader(&bytes[..]).expect("a saved grid reads back")
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

    #[test]
    fn a_region_turned_many_times_moves_no_row_numbers() {
        let mut g = grid(6);
        for _ in 0..7 {
            let out = g.rotate_up_one(1, 4).generation();
            assert_eq!(
                g[4].generation(),
                out,
                "the row handed out is at the bottom"
            );
        }
        // Seven turns of a four-row region are three.
        assert_eq!(order(&g), [0, 4, 1, 2, 3, 5]);
        assert_eq!(g.order, [0, 1, 2, 3, 4, 5], "nothing moved yet");
        assert!(g.is_consistent());
        g.settle();
        assert_eq!(g.order, [0, 4, 1, 2, 3, 5]);
        assert_eq!(order(&g), [0, 4, 1, 2, 3, 5]);
    }

    #[test]
    fn a_grid_is_saved_with_its_turn_applied() {
        let mut g = grid(4);
        g.rotate_up_one(0, 2);
        let saved = saved(&g);
        assert_eq!(saved.order, [1, 2, 0, 3]);
        assert_eq!(order(&saved), order(&g));
        assert!(saved.is_consistent());
    }

    /// One step of a scripted scroll: which rotation, and its region.
    #[derive(Clone, Debug)]
    enum Step {
        Up(usize, usize, usize),
        UpOne(usize, usize),
        Down(usize, usize, usize),
        Settle,
    }

    fn step(rows: usize) -> impl Strategy<Value = Step> {
        let region = (0..rows).prop_flat_map(move |top| (Just(top), top..rows));
        prop_oneof![
            (region.clone(), 0..rows + 2).prop_map(|((t, b), n)| Step::Up(t, b, n)),
            region.clone().prop_map(|(t, b)| Step::UpOne(t, b)),
            (region, 0..rows + 2).prop_map(|((t, b), n)| Step::Down(t, b, n)),
            Just(Step::Settle),
        ]
    }

    proptest! {
        /// Any mix of rotations shows the rows a plain vector rotated the
        /// same way shows, whether read row by row, whole or saved.
        #[test]
        fn turns_match_rotating_a_vector(steps in proptest::collection::vec(step(7), 0..40)) {
            let mut g = grid(7);
            let mut model: Vec<u64> = (0..7).collect();
            for s in steps {
                match s {
                    Step::Up(t, b, n) => {
                        g.rotate_up(t, b, n);
                        model[t..=b].rotate_left(n % (b + 1 - t));
                    }
                    Step::UpOne(t, b) => {
                        let out = g.rotate_up_one(t, b).generation();
                        model[t..=b].rotate_left(1);
                        prop_assert_eq!(out, model[b]);
                    }
                    Step::Down(t, b, n) => {
                        g.rotate_down(t, b, n);
                        model[t..=b].rotate_right(n % (b + 1 - t));
                    }
                    Step::Settle => g.settle(),
                }
                prop_assert_eq!(order(&g), model.clone());
                prop_assert!(g.is_consistent());
                for (r, &want) in model.iter().enumerate() {
                    prop_assert_eq!(g.get(r).map(Row::generation), Some(want));
                }
            }
            prop_assert!(g.get(7).is_none());
            let saved = saved(&g);
            prop_assert_eq!(order(&saved), model.clone());
            let rows: Vec<u64> = g.into_vec().iter().map(Row::generation).collect();
            prop_assert_eq!(rows, model);
        }
    }
}

//! The numeric parameters of a CSI or DCS sequence: up to [`MAX_PARAMS`]
//! values, `;` separating parameters and `:` sub-parameters (as in
//! `38:2::255:0:0`).

use serde::{Deserialize, Serialize};

/// Most values (parameters and sub-parameters together) kept; a sequence
/// with more is dispatched as ignored.
pub const MAX_PARAMS: usize = 32;

/// The parameters of one sequence.
#[derive(Clone, Default, Serialize, Deserialize)]
pub struct Params {
    /// Every value, parameters and their sub-parameters in order.
    values: [u16; MAX_PARAMS],
    /// At the index of each parameter's first value: how many values it has
    /// (1 + its sub-parameters). Unused at sub-parameter indexes.
    group_len: [u8; MAX_PARAMS],
    /// Values used.
    len: usize,
    /// Sub-parameters in the parameter being built.
    open_subs: u8,
}

impl Params {
    /// Number of values, sub-parameters included.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when the sequence had no parameters at all.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The parameters, each as its values (the parameter, then its
    /// sub-parameters).
    #[inline]
    pub fn iter(&self) -> Iter<'_> {
        Iter {
            params: self,
            index: 0,
        }
    }

    /// The first value of each of the first `N` parameters (0 where there
    /// are fewer): what most sequences read, without walking the groups
    /// as slices.
    #[inline]
    pub fn firsts<const N: usize>(&self) -> [u16; N] {
        let mut firsts = [0; N];
        let mut index = 0;
        for slot in firsts.iter_mut() {
            if index >= self.len {
                break;
            }
            *slot = self.values[index];
            index += usize::from(self.group_len[index]);
        }
        firsts
    }

    /// True when no further value fits.
    #[inline]
    pub(super) fn is_full(&self) -> bool {
        self.len == MAX_PARAMS
    }

    /// Forgets every value.
    #[inline]
    pub(super) fn clear(&mut self) {
        self.len = 0;
        self.open_subs = 0;
    }

    /// Ends the current parameter with `value`. Callers check
    /// [`Params::is_full`] first.
    #[inline]
    pub(super) fn push(&mut self, value: u16) {
        self.group_len[self.len - self.open_subs as usize] = self.open_subs + 1;
        self.values[self.len] = value;
        self.open_subs = 0;
        self.len += 1;
    }

    /// Adds `value` to the current parameter, which goes on with a
    /// sub-parameter. Callers check [`Params::is_full`] first.
    #[inline]
    pub(super) fn push_sub(&mut self, value: u16) {
        self.group_len[self.len - self.open_subs as usize] = self.open_subs + 1;
        self.values[self.len] = value;
        self.open_subs += 1;
        self.len += 1;
    }
}

impl<'a> IntoIterator for &'a Params {
    type Item = &'a [u16];
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

/// Iterator over [`Params`], a parameter (with its sub-parameters) at a time.
pub struct Iter<'a> {
    params: &'a Params,
    index: usize,
}

impl<'a> Iterator for Iter<'a> {
    type Item = &'a [u16];

    #[inline]
    fn next(&mut self) -> Option<&'a [u16]> {
        if self.index >= self.params.len {
            return None;
        }
        let n = self.params.group_len[self.index] as usize;
        let group = &self.params.values[self.index..self.index + n];
        self.index += n;
        Some(group)
    }
}

impl std::fmt::Debug for Params {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let groups: Vec<String> = self
            .iter()
            .map(|g| g.iter().map(u16::to_string).collect::<Vec<_>>().join(":"))
            .collect();
        write!(f, "[{}]", groups.join(";"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn firsts_are_each_parameters_first_value_past_its_sub_parameters() {
        // 38:2::10:20:30;5;7 (the empty sub-parameter reads as 0).
        let mut params = Params::default();
        for sub in [38, 2, 0, 10, 20] {
            params.push_sub(sub);
        }
        params.push(30);
        params.push(5);
        params.push(7);
        assert_eq!(params.firsts::<2>(), [38, 5]);
        assert_eq!(params.firsts::<4>(), [38, 5, 7, 0]);
        let firsts: Vec<u16> = params.iter().map(|group| group[0]).collect();
        assert_eq!(firsts, [38, 5, 7]);
        assert_eq!(Params::default().firsts::<3>(), [0, 0, 0]);
    }
}

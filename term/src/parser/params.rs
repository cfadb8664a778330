//! The numeric parameters of a CSI or DCS sequence: up to [`MAX_PARAMS`]
//! values, `;` separating parameters and `:` sub-parameters (as in
//! `38:2::255:0:0`).

use serde::{Deserialize, Serialize};

/// Most values (parameters and sub-parameters together) kept; a sequence
/// with more is dispatched as ignored.
pub const MAX_PARAMS: usize = 32;

/// The parameters of one sequence.
#[derive(Clone, Default, Serialize, Deserialize)]
#[serde(from = "SavedParams", into = "SavedParams")]
pub struct Params {
    /// Every value, parameters and their sub-parameters in order.
    values: [u16; MAX_PARAMS],
    /// Bit `k` is set when value `k` is followed by a sub-parameter (it came
    /// before a `:`), so value `k + 1` belongs to the same parameter.
    continued: u32,
    /// Values used.
    len: usize,
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

    /// Every value, when no parameter has sub-parameters (each value is
    /// then a parameter of its own): the common case, read without
    /// finding where each parameter ends.
    #[inline]
    pub fn plain(&self) -> Option<&[u16]> {
        (self.continued == 0).then(|| &self.values[..self.len])
    }

    /// The first value of each of the first `N` parameters (0 where there
    /// are fewer): what most sequences read, without walking the groups
    /// as slices.
    #[inline]
    pub fn firsts<const N: usize>(&self) -> [u16; N] {
        if self.continued != 0 {
            return self.firsts_past_sub_parameters();
        }
        // No sub-parameters: each value is a parameter.
        let mut firsts = [0; N];
        for (index, (slot, &value)) in firsts.iter_mut().zip(&self.values).enumerate() {
            if index < self.len {
                *slot = value;
            }
        }
        firsts
    }

    /// [`Params::firsts`] when some parameter has sub-parameters, which
    /// few sequences but SGR's (which iterates) have.
    #[cold]
    #[inline(never)]
    fn firsts_past_sub_parameters<const N: usize>(&self) -> [u16; N] {
        let mut firsts = [0; N];
        let mut index = 0;
        for slot in firsts.iter_mut() {
            if index >= self.len {
                break;
            }
            *slot = self.values[index];
            index += self.group_len(index);
        }
        firsts
    }

    /// How many values the parameter starting at `index` (below `len`)
    /// has: its own and its sub-parameters'.
    #[inline]
    fn group_len(&self, index: usize) -> usize {
        let subs = (self.continued >> index).trailing_ones() as usize;
        (subs + 1).min(self.len - index)
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
        self.continued = 0;
    }

    /// Ends the current parameter with `value`. Callers check
    /// [`Params::is_full`] first.
    #[inline]
    pub(super) fn push(&mut self, value: u16) {
        self.values[self.len] = value;
        self.len += 1;
    }

    /// Adds `value` to the current parameter, which goes on with a
    /// sub-parameter. Callers check [`Params::is_full`] first.
    #[inline]
    pub(super) fn push_sub(&mut self, value: u16) {
        self.continued |= 1 << self.len;
        self.push(value);
    }
}

/// A parameter's value after one more decimal digit, held at `u16::MAX`
/// once it would pass it.
#[inline(always)]
pub(super) fn add_digit(value: u16, digit: u8) -> u16 {
    let next = u32::from(value) * 10 + u32::from(digit);
    next.min(u32::from(u16::MAX)) as u16
}

/// [`Params`] as a saved terminal state holds them (state version 4):
/// the length of each parameter at its first value, and how many
/// sub-parameters the one being read has so far.
#[derive(Serialize, Deserialize)]
struct SavedParams {
    values: [u16; MAX_PARAMS],
    group_len: [u8; MAX_PARAMS],
    len: usize,
    open_subs: u8,
}

impl From<Params> for SavedParams {
    fn from(params: Params) -> SavedParams {
        let mut group_len = [0; MAX_PARAMS];
        let mut open_subs = 0;
        let mut index = 0;
        while index < params.len {
            let n = params.group_len(index);
            group_len[index] = n as u8;
            if params.continued & (1 << (index + n - 1)) != 0 {
                open_subs = n as u8;
            }
            index += n;
        }
        SavedParams {
            values: params.values,
            group_len,
            len: params.len,
            open_subs,
        }
    }
}

impl From<SavedParams> for Params {
    /// Out-of-range lengths (a damaged state that still passed its
    /// checksum) are clipped, never trusted as indexes.
    fn from(saved: SavedParams) -> Params {
        let len = saved.len.min(MAX_PARAMS);
        let open = usize::from(saved.open_subs).min(len);
        let closed = len - open;
        let mut continued = 0u32;
        let mut index = 0;
        while index < closed {
            let n = usize::from(saved.group_len[index]).clamp(1, closed - index);
            for k in index..index + n - 1 {
                continued |= 1 << k;
            }
            index += n;
        }
        for k in closed..len {
            continued |= 1 << k;
        }
        Params {
            values: saved.values,
            continued,
            len,
        }
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
        let n = self.params.group_len(self.index);
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

    /// `38:2::10:20:30;5;7;1:2:`, the last parameter still open.
    fn with_open_parameter() -> Params {
        let mut params = Params::default();
        for sub in [38, 2, 0, 10, 20] {
            params.push_sub(sub);
        }
        for value in [30, 5, 7] {
            params.push(value);
        }
        params.push_sub(1);
        params.push_sub(2);
        params
    }

    #[test]
    fn each_parameter_is_read_with_its_sub_parameters() {
        let params = with_open_parameter();
        let groups: Vec<&[u16]> = params.iter().collect();
        assert_eq!(groups, [&[38, 2, 0, 10, 20, 30][..], &[5], &[7], &[1, 2]]);
        assert_eq!(format!("{params:?}"), "[38:2:0:10:20:30;5;7;1:2]");
    }

    #[test]
    fn digits_add_up_and_hold_at_the_largest_value() {
        assert_eq!(add_digit(12, 3), 123);
        assert_eq!(add_digit(6553, 5), u16::MAX);
        assert_eq!(add_digit(6553, 6), u16::MAX);
        assert_eq!(add_digit(u16::MAX, 9), u16::MAX);
    }

    #[test]
    fn the_saved_form_is_state_version_4s_and_reads_back_the_same() {
        let saved = SavedParams::from(with_open_parameter());
        let mut group_len = [0; MAX_PARAMS];
        (group_len[0], group_len[6], group_len[7], group_len[8]) = (6, 1, 1, 2);
        assert_eq!(saved.group_len, group_len);
        assert_eq!((saved.len, saved.open_subs), (10, 2));
        let read = Params::from(saved);
        assert_eq!(read.continued, with_open_parameter().continued);
        assert_eq!(read.values, with_open_parameter().values);
        assert_eq!(read.len, 10);
    }

    #[test]
    fn a_damaged_saved_form_is_clipped_not_trusted() {
        let saved = SavedParams {
            values: [7; MAX_PARAMS],
            group_len: [0; MAX_PARAMS],
            len: 40,
            open_subs: 200,
        };
        let params = Params::from(saved);
        assert_eq!(params.len(), MAX_PARAMS);
        assert_eq!(params.iter().count(), 1);
        let saved = SavedParams {
            values: [7; MAX_PARAMS],
            group_len: [255; MAX_PARAMS],
            len: 3,
            open_subs: 0,
        };
        assert_eq!(Params::from(saved).iter().count(), 1);
    }
}

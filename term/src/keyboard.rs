//! What a program asked of the keyboard: the kitty keyboard protocol's
//! enhancement flags (a bounded stack per screen) and xterm's
//! `modifyOtherKeys` level. The input encoder reads both through
//! [`Modes::keyboard`](super::Modes::keyboard).

use serde::{Deserialize, Serialize};

/// The kitty keyboard protocol's progressive enhancement flags.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyboardFlags(u8);

impl KeyboardFlags {
    /// No enhancement: legacy encoding.
    pub const NONE: KeyboardFlags = KeyboardFlags(0);
    /// 1: disambiguate escape codes.
    pub const DISAMBIGUATE: KeyboardFlags = KeyboardFlags(1);
    /// 2: report repeat and release events.
    pub const EVENT_TYPES: KeyboardFlags = KeyboardFlags(2);
    /// 4: report shifted and base-layout keys.
    pub const ALTERNATE_KEYS: KeyboardFlags = KeyboardFlags(4);
    /// 8: report keys that type text as escape codes too.
    pub const ALL_KEYS: KeyboardFlags = KeyboardFlags(8);
    /// 16: report the text a key types inside its escape code.
    pub const TEXT: KeyboardFlags = KeyboardFlags(16);
    /// Every defined flag.
    pub const ALL: KeyboardFlags = KeyboardFlags(31);

    /// The flags in `bits` the protocol defines; other bits are dropped.
    pub fn from_bits(bits: u16) -> KeyboardFlags {
        KeyboardFlags((bits & u16::from(Self::ALL.0)) as u8)
    }

    /// The flags as a number, as `CSI ? u` reports them.
    pub fn bits(self) -> u8 {
        self.0
    }

    /// True when every flag of `other` is set.
    pub fn contains(self, other: KeyboardFlags) -> bool {
        self.0 & other.0 == other.0
    }

    /// True when no flag is set.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
}

/// How many entries a screen's stack keeps; a push beyond evicts the oldest
/// (kitty keeps 8), so a program pushing forever uses no more memory.
pub const STACK_DEPTH: usize = 8;

/// One screen's stack of flags (`CSI > flags u` pushes, `CSI < n u` pops,
/// `CSI = flags ; mode u` changes the top). Empty means no flags.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyboardStack {
    entries: Vec<KeyboardFlags>,
}

impl KeyboardStack {
    /// The flags in force: the top entry's, or none.
    pub fn current(&self) -> KeyboardFlags {
        self.entries.last().copied().unwrap_or_default()
    }

    /// `CSI > flags u`: pushes, evicting the oldest entry when full.
    pub fn push(&mut self, flags: KeyboardFlags) {
        if self.entries.len() >= STACK_DEPTH {
            self.entries.remove(0);
        }
        self.entries.push(flags);
    }

    /// `CSI < n u`: pops `n` entries (all of them if fewer are held).
    pub fn pop(&mut self, n: usize) {
        let keep = self.entries.len().saturating_sub(n);
        self.entries.truncate(keep);
    }

    /// `CSI = flags ; mode u`: mode 1 sets the flags to `flags`, 2 adds
    /// them, 3 removes them; other modes are ignored. On an empty stack
    /// the result becomes its only entry (as kitty).
    pub fn set(&mut self, flags: KeyboardFlags, mode: u16) {
        let current = self.current().0;
        let next = match mode {
            1 => flags.0,
            2 => current | flags.0,
            3 => current & !flags.0,
            _ => return,
        };
        match self.entries.last_mut() {
            Some(top) => *top = KeyboardFlags(next),
            None => self.entries.push(KeyboardFlags(next)),
        }
    }

    /// How many entries are held.
    pub fn depth(&self) -> usize {
        self.entries.len()
    }
}

/// xterm's `modifyOtherKeys` level: 0 off, 1 (keys with modifiers that
/// have no well-known encoding), 2 (all keys with modifiers).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OtherKeys(u8);

impl OtherKeys {
    /// Off: legacy encoding.
    pub const OFF: OtherKeys = OtherKeys(0);

    /// The level `n`, if xterm defines it (0 to 2).
    pub fn from_level(n: u16) -> Option<OtherKeys> {
        (n <= 2).then_some(OtherKeys(n as u8))
    }

    /// The level, 0 to 2.
    pub fn level(self) -> u8 {
        self.0
    }
}

/// What the input encoder needs to know about the keyboard: the kitty flags
/// of the screen shown and the `modifyOtherKeys` level.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KeyboardMode {
    /// The kitty keyboard protocol's flags in force.
    pub flags: KeyboardFlags,
    /// xterm's `modifyOtherKeys` level.
    pub other_keys: OtherKeys,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn push_pop_and_set() {
        let mut stack = KeyboardStack::default();
        assert_eq!(stack.current(), KeyboardFlags::NONE);
        stack.push(KeyboardFlags::from_bits(1));
        stack.push(KeyboardFlags::from_bits(11));
        assert_eq!(stack.current().bits(), 11);
        stack.set(KeyboardFlags::from_bits(16), 2);
        assert_eq!(stack.current().bits(), 27);
        stack.set(KeyboardFlags::from_bits(3), 3);
        assert_eq!(stack.current().bits(), 24);
        stack.set(KeyboardFlags::from_bits(4), 1);
        assert_eq!(stack.current().bits(), 4);
        stack.set(KeyboardFlags::from_bits(8), 9);
        assert_eq!(stack.current().bits(), 4);
        stack.pop(1);
        assert_eq!(stack.current().bits(), 1);
        stack.pop(5);
        assert_eq!(stack.current(), KeyboardFlags::NONE);
        assert_eq!(stack.depth(), 0);
        // Set on an empty stack makes an entry, as kitty does.
        stack.set(KeyboardFlags::from_bits(1), 1);
        assert_eq!((stack.current().bits(), stack.depth()), (1, 1));
    }

    #[test]
    fn undefined_bits_are_dropped() {
        assert_eq!(KeyboardFlags::from_bits(0xffff).bits(), 31);
        assert_eq!(KeyboardFlags::from_bits(32), KeyboardFlags::NONE);
    }

    #[test]
    fn a_million_pushes_keep_the_stack_bounded() {
        let mut stack = KeyboardStack::default();
        for i in 0..1_000_000u32 {
            stack.push(KeyboardFlags::from_bits((i % 32) as u16));
        }
        assert_eq!(stack.depth(), STACK_DEPTH);
        assert!(stack.entries.capacity() <= 2 * STACK_DEPTH);
        // The newest survive, the oldest were evicted.
        assert_eq!(stack.current().bits(), (999_999 % 32) as u8);
        stack.pop(STACK_DEPTH - 1);
        assert_eq!(
            stack.current().bits(),
            ((1_000_000 - STACK_DEPTH) % 32) as u8
        );
    }

    #[test]
    fn other_keys_levels() {
        assert_eq!(OtherKeys::from_level(2).map(OtherKeys::level), Some(2));
        assert_eq!(OtherKeys::from_level(3), None);
    }
}

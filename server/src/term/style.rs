//! Cell styles: colours and attributes, interned in a per-terminal table so a
//! cell holds only a 16-bit id (Ghostty's lesson: styles are few, cells many).

use rustc_hash::FxHashMap;

/// A colour as the program asked for it; the theme resolves it when painting.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub enum Color {
    /// The terminal's default foreground or background.
    #[default]
    Default,
    /// An index into the 256-colour palette (0-15 are the ANSI colours).
    Indexed(u8),
    /// A 24-bit colour.
    Rgb(u8, u8, u8),
}

/// The shape of an underline (SGR 4 and its `4:n` sub-parameters).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
#[repr(u8)]
pub enum Underline {
    /// No underline.
    #[default]
    None = 0,
    /// A single straight line.
    Single = 1,
    /// Two lines.
    Double = 2,
    /// A wavy line.
    Curly = 3,
    /// A dotted line.
    Dotted = 4,
    /// A dashed line.
    Dashed = 5,
}

impl Underline {
    /// The underline for an SGR `4:n` sub-parameter; unknown values mean single.
    pub fn from_param(n: u16) -> Underline {
        match n {
            0 => Underline::None,
            2 => Underline::Double,
            3 => Underline::Curly,
            4 => Underline::Dotted,
            5 => Underline::Dashed,
            _ => Underline::Single,
        }
    }
}

/// Boolean text attributes, one bit each.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct Attrs(u8);

impl Attrs {
    /// SGR 1.
    pub const BOLD: Attrs = Attrs(1);
    /// SGR 2.
    pub const DIM: Attrs = Attrs(1 << 1);
    /// SGR 3.
    pub const ITALIC: Attrs = Attrs(1 << 2);
    /// SGR 5 and 6.
    pub const BLINK: Attrs = Attrs(1 << 3);
    /// SGR 7.
    pub const INVERSE: Attrs = Attrs(1 << 4);
    /// SGR 8.
    pub const INVISIBLE: Attrs = Attrs(1 << 5);
    /// SGR 9.
    pub const STRIKE: Attrs = Attrs(1 << 6);

    /// True when every bit of `other` is set.
    pub fn contains(self, other: Attrs) -> bool {
        self.0 & other.0 == other.0
    }

    /// Sets or clears the bits of `other`.
    pub fn set(&mut self, other: Attrs, on: bool) {
        if on {
            self.0 |= other.0;
        } else {
            self.0 &= !other.0;
        }
    }

    /// The raw bits, for compact encodings.
    pub fn bits(self) -> u8 {
        self.0
    }
}

/// Everything about how a cell looks except its text.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Style {
    /// Foreground colour.
    pub fg: Color,
    /// Background colour.
    pub bg: Color,
    /// Underline colour (SGR 58); `Default` follows the foreground.
    pub underline_color: Color,
    /// Bold, dim, italic, blink, inverse, invisible, strike.
    pub attrs: Attrs,
    /// Underline shape.
    pub underline: Underline,
    /// OSC 8 hyperlink id in the terminal's link table; 0 means none.
    pub link: u16,
}

impl Color {
    /// The colour as 26 bits: a 2-bit kind and 24 bits of value.
    #[inline]
    fn packed(self) -> u64 {
        match self {
            Color::Default => 0,
            Color::Indexed(i) => 1 << 24 | i as u64,
            Color::Rgb(r, g, b) => 2 << 24 | (r as u64) << 16 | (g as u64) << 8 | b as u64,
        }
    }
}

/// Hashes a style as two words (it is hashed once per SGR-styled run, so
/// this is on the print path of colourful output).
impl std::hash::Hash for Style {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_u64(self.fg.packed() | self.bg.packed() << 26);
        state.write_u64(
            self.underline_color.packed()
                | (self.attrs.0 as u64) << 26
                | (self.underline as u64) << 34
                | (self.link as u64) << 40,
        );
    }
}

impl Style {
    /// The style an erase leaves behind: only the background survives (xterm's BCE).
    pub fn erased(&self) -> Style {
        Style {
            bg: self.bg,
            ..Style::default()
        }
    }

    /// The canonical style string of the screen JSON (`fg:1 bg:#0ac81e bold ...`),
    /// empty for the default style. Hyperlinked text counts as underlined (it is
    /// shown underlined, and the xterm.js reference reports it so); underline
    /// colour and the link target are not part of it.
    pub fn describe(&self) -> String {
        let mut parts: Vec<String> = Vec::new();
        for (name, color) in [("fg", self.fg), ("bg", self.bg)] {
            match color {
                Color::Default => {}
                Color::Indexed(i) => parts.push(format!("{name}:{i}")),
                Color::Rgb(r, g, b) => parts.push(format!("{name}:#{r:02x}{g:02x}{b:02x}")),
            }
        }
        let flags = [
            (self.attrs.contains(Attrs::BOLD), "bold"),
            (self.attrs.contains(Attrs::DIM), "dim"),
            (self.attrs.contains(Attrs::ITALIC), "italic"),
            (
                self.underline != Underline::None || self.link != 0,
                "underline",
            ),
            (self.attrs.contains(Attrs::BLINK), "blink"),
            (self.attrs.contains(Attrs::INVERSE), "inverse"),
            (self.attrs.contains(Attrs::INVISIBLE), "invisible"),
            (self.attrs.contains(Attrs::STRIKE), "strike"),
        ];
        parts.extend(flags.iter().filter(|f| f.0).map(|f| f.1.to_string()));
        parts.join(" ")
    }
}

/// Index of a style in a [`StyleTable`]; 0 is always the default style.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default, PartialOrd, Ord)]
pub struct StyleId(pub u16);

impl StyleId {
    /// The default style.
    pub const DEFAULT: StyleId = StyleId(0);
}

/// Interned styles. Ids are stable until [`StyleTable::compact`] renumbers them,
/// which bumps [`StyleTable::epoch`] so that caches keyed by id know to reset.
///
/// A compaction scans every stored cell, so it is paced: after one that
/// freed little (every id still live), the next waits until enough new
/// styles were refused that each refusal paid for [`CELLS_PER_REFUSAL`]
/// cell visits at most. No byte stream can make each new style cost a scan.
#[derive(Clone, Debug)]
pub struct StyleTable {
    styles: Vec<Style>,
    index: FxHashMap<Style, StyleId>,
    epoch: u32,
    /// Styles refused because the table was full, since the last compaction.
    refused: usize,
    /// Refusals to wait for before the next compaction.
    patience: usize,
}

/// How many styles a table holds at most (ids are 16 bits).
pub const STYLE_CAPACITY: usize = 1 << 16;

/// A compaction that leaves fewer than this many ids free freed too little
/// to run again as soon as the table is full.
const WORTHWHILE_FREE_IDS: usize = STYLE_CAPACITY / 8;

/// Cell visits of a compaction each refused style may cost at most.
pub const CELLS_PER_REFUSAL: usize = 64;

impl Default for StyleTable {
    fn default() -> Self {
        let mut index = FxHashMap::default();
        index.insert(Style::default(), StyleId::DEFAULT);
        StyleTable {
            styles: vec![Style::default()],
            index,
            epoch: 0,
            refused: 0,
            patience: 0,
        }
    }
}

impl StyleTable {
    /// The id of `style`, adding it if new; `None` when the table is full.
    pub fn intern(&mut self, style: &Style) -> Option<StyleId> {
        if let Some(id) = self.index.get(style) {
            return Some(*id);
        }
        if self.styles.len() >= STYLE_CAPACITY {
            self.refused += 1;
            return None;
        }
        let id = StyleId(self.styles.len() as u16);
        self.styles.push(*style);
        self.index.insert(*style, id);
        Some(id)
    }

    /// Number of styles held, the default included.
    pub fn len(&self) -> usize {
        self.styles.len()
    }

    /// Bumped every time ids are renumbered.
    pub fn epoch(&self) -> u32 {
        self.epoch
    }

    /// All styles in id order.
    pub fn styles(&self) -> &[Style] {
        &self.styles
    }

    /// Renumbers the hyperlinks styles refer to after the link table was
    /// compacted (`remap` from [`LinkTable::compact`]); style ids stay.
    ///
    /// [`LinkTable::compact`]: super::links::LinkTable::compact
    pub fn remap_links(&mut self, remap: &[u16]) {
        self.index.clear();
        for (i, style) in self.styles.iter_mut().enumerate() {
            style.link = remap.get(style.link as usize).copied().unwrap_or(0);
            self.index.insert(*style, StyleId(i as u16));
        }
        self.epoch = self.epoch.wrapping_add(1);
    }

    /// True when the table is full and a compaction may run now.
    pub fn compaction_due(&self) -> bool {
        self.styles.len() >= STYLE_CAPACITY && self.refused >= self.patience
    }

    /// Keeps only the styles whose ids are marked in `used` (indexed by id) and
    /// renumbers them densely; `cells` is how many cells were scanned to mark
    /// them. Returns the old-id to new-id map.
    pub fn compact(&mut self, used: &[bool], cells: usize) -> Vec<StyleId> {
        let mut remap = vec![StyleId::DEFAULT; self.styles.len()];
        let old = std::mem::take(&mut self.styles);
        self.index.clear();
        for (i, style) in old.into_iter().enumerate() {
            if i == 0 || used.get(i).copied().unwrap_or(false) {
                let id = StyleId(self.styles.len() as u16);
                self.styles.push(style);
                self.index.insert(style, id);
                remap[i] = id;
            }
        }
        self.epoch = self.epoch.wrapping_add(1);
        self.refused = 0;
        self.patience = if STYLE_CAPACITY - self.styles.len() < WORTHWHILE_FREE_IDS {
            cells / CELLS_PER_REFUSAL
        } else {
            0
        };
        remap
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interning_is_idempotent_and_default_is_zero() {
        let mut table = StyleTable::default();
        assert_eq!(table.intern(&Style::default()), Some(StyleId::DEFAULT));
        let red = Style {
            fg: Color::Indexed(1),
            ..Style::default()
        };
        let a = table.intern(&red).unwrap();
        assert_eq!(table.intern(&red), Some(a));
        assert_ne!(a, StyleId::DEFAULT);
        assert_eq!(table.styles()[a.0 as usize], red);
    }

    #[test]
    fn compact_renumbers_and_bumps_epoch() {
        let mut table = StyleTable::default();
        let ids: Vec<StyleId> = (0..5)
            .map(|i| {
                table
                    .intern(&Style {
                        fg: Color::Indexed(i),
                        ..Style::default()
                    })
                    .unwrap()
            })
            .collect();
        let mut used = vec![false; table.len()];
        used[ids[3].0 as usize] = true;
        let remap = table.compact(&used, 5);
        assert_eq!(table.len(), 2);
        assert_eq!(table.epoch(), 1);
        assert_eq!(
            table.styles()[remap[ids[3].0 as usize].0 as usize].fg,
            Color::Indexed(3)
        );
    }

    /// A full table: every id holds a distinct style.
    fn full_table() -> StyleTable {
        let mut table = StyleTable::default();
        for i in 1..STYLE_CAPACITY as u32 {
            let fg = Color::Rgb((i >> 16) as u8, (i >> 8) as u8, i as u8);
            table.intern(&Style {
                fg,
                ..Style::default()
            });
        }
        assert_eq!(table.len(), STYLE_CAPACITY);
        table
    }

    #[test]
    fn a_compaction_that_freed_little_waits_for_refusals_to_pay_for_it() {
        let mut table = full_table();
        assert!(table.compaction_due(), "the first compaction runs at once");
        let all = vec![true; STYLE_CAPACITY];
        let cells = 6400;
        table.compact(&all, cells);
        let new = Style {
            fg: Color::Indexed(7),
            bg: Color::Indexed(1),
            ..Style::default()
        };
        for _ in 0..cells / CELLS_PER_REFUSAL {
            assert!(!table.compaction_due());
            assert_eq!(table.intern(&new), None);
        }
        assert!(table.compaction_due());
    }

    #[test]
    fn a_compaction_that_freed_much_runs_again_when_the_table_fills() {
        let mut table = full_table();
        let mut used = vec![false; STYLE_CAPACITY];
        used[1] = true;
        table.compact(&used, 1_000_000);
        assert_eq!(table.len(), 2);
        let mut refilled = full_table();
        refilled.patience = table.patience;
        assert!(refilled.compaction_due());
    }

    #[test]
    fn describe_matches_the_screen_json_order() {
        let style = Style {
            fg: Color::Indexed(1),
            bg: Color::Rgb(10, 200, 30),
            attrs: {
                let mut a = Attrs::default();
                a.set(Attrs::BOLD, true);
                a.set(Attrs::STRIKE, true);
                a
            },
            underline: Underline::Curly,
            ..Style::default()
        };
        assert_eq!(style.describe(), "fg:1 bg:#0ac81e bold underline strike");
        assert_eq!(Style::default().describe(), "");
    }
}

//! Inline images on the screen: sixel (DCS q), the kitty graphics protocol
//! (APC G) and iTerm2's inline images (OSC 1337 File, inline=1) decoded
//! into the store and placed at the cursor as slices of the rows they
//! cover (see `term/image`).

use std::collections::{BTreeMap, HashSet};

use serde::{Deserialize, Serialize};

use super::Emulator;
use crate::image::iterm::InlineArgs;
use crate::image::kitty::{self, Action, Command};
use crate::image::sixel::{SixelDecoder, COLOR_REGISTERS};
use crate::image::{
    decode_base64, decode_picture, inflate, Image, ImageHash, ImageSet, ImageSlice, ImageStore,
    PixelRect, StoreError,
};
use crate::{Mode, CELL_HEIGHT, CELL_WIDTH};

/// Most kitty image ids (and, apart, image numbers) remembered.
const MAX_KITTY_IDS: usize = 4096;

/// Work counted per decoded pixel (and per payload byte), so one slice of
/// output cannot decode without bound.
const PIXELS_PER_WORK: usize = 64;

/// The graphics state of one terminal. A saved state keeps all of it but
/// a transmission in progress (a kitty chunk sequence or a sixel image not
/// yet ended): that one is dropped, as if its data were bad.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(crate) struct Graphics {
    store: ImageStore,
    /// Kitty image ids to the images they name (ordered, so that a saved
    /// state's bytes depend on the state only).
    ids: BTreeMap<u32, ImageHash>,
    /// Kitty image numbers to the ids the terminal gave them.
    numbers: BTreeMap<u32, u32>,
    /// Kitty placements on the screen by placement serial: (id, placement id).
    placements: BTreeMap<u32, (u32, u32)>,
    /// The kitty transmission being received in chunks: its first command
    /// and the data so far (`None` once it passed the cap or a chunk was
    /// not base64).
    #[serde(skip)]
    chunked: Option<(Command, Option<Vec<u8>>)>,
    #[serde(skip)]
    sixel: Option<SixelDecoder>,
    next_placement: u32,
    next_id: u32,
}

/// How the cursor moves after a placement.
#[derive(Clone, Copy, PartialEq, Eq)]
enum After {
    /// Sixel: on the image's last row, at its left column.
    LastRow,
    /// Kitty and iTerm2: after the image's right edge on its last row.
    RightOfLastRow,
    /// Kitty `C=1`: where it was.
    Stay,
}

/// The size of a cell in the terminal's pixels (what XTWINOPS reports).
fn cell_size() -> (u32, u32) {
    (CELL_WIDTH.round() as u32, CELL_HEIGHT.round() as u32)
}

impl Graphics {
    /// Checks a state read back: no more kitty ids, numbers and placements
    /// than the terminal keeps.
    pub(super) fn check_restored(&self) -> Result<(), &'static str> {
        if self.ids.len() > MAX_KITTY_IDS
            || self.numbers.len() > MAX_KITTY_IDS
            || self.placements.len() > MAX_KITTY_IDS
        {
            return Err("more kitty ids or placements than kept");
        }
        Ok(())
    }
}

impl Emulator {
    /// Sets the budget of decoded image memory and the cap on one image's
    /// pixels.
    pub fn limit_images(&mut self, bytes: usize, pixels: u64) {
        self.graphics.store.set_limits(bytes, pixels);
    }

    /// The images, for a snapshot.
    pub fn images(&self) -> ImageSet {
        self.graphics.store.published()
    }

    /// Decoded image bytes held.
    pub fn image_bytes(&self) -> usize {
        self.graphics.store.bytes()
    }

    /// Largest decoded size an inline file may reach before it is dropped.
    pub(super) fn image_file_cap(&self) -> u64 {
        self.graphics.store.max_pixels().saturating_mul(4) + (1 << 20)
    }

    /// The hashes still shown somewhere (screens, scrollback) or named by
    /// a kitty id.
    fn live_images(&self) -> HashSet<ImageHash> {
        let rows = self.screen.grid().iter().chain(self.hidden.grid().iter());
        rows.flat_map(|row| row.images().iter())
            .chain(self.scrollback.images())
            .map(ImageSlice::image)
            .chain(self.graphics.ids.values().copied())
            .collect()
    }

    /// Keeps a decoded image, evicting what it must.
    fn admit(&mut self, image: Image) -> Result<ImageHash, StoreError> {
        self.spend(image.bytes() / 4 / PIXELS_PER_WORK + 1);
        let live = || self.live_images();
        let live = live();
        self.graphics.store.insert(image, || live)
    }

    /// Places `src` of image `hash` at the cursor, `size` pixels large (and
    /// `cells` columns and rows when given), one slice per row.
    #[allow(clippy::too_many_arguments)]
    fn place(
        &mut self,
        hash: ImageHash,
        src: PixelRect,
        size: (u32, u32),
        cells: (u32, u32),
        z: i32,
        text_cuts: bool,
        after: After,
    ) -> u32 {
        let (cw, ch) = cell_size();
        let cols = if cells.0 > 0 {
            cells.0
        } else {
            size.0.div_ceil(cw)
        }
        .max(1) as usize;
        let rows = if cells.1 > 0 {
            cells.1
        } else {
            size.1.div_ceil(ch)
        }
        .max(1) as usize;
        let size = if cells.0 > 0 || cells.1 > 0 {
            ((cols as u32) * cw, (rows as u32) * ch)
        } else {
            size
        };
        let saved = *self.screen.cursor();
        let start = saved.col;
        self.graphics.next_placement = self.graphics.next_placement.wrapping_add(1);
        let serial = self.graphics.next_placement;
        let shown = cols.min(self.cols - start).min(u16::MAX as usize) as u16;
        let rows = rows.min(u16::MAX as usize);
        for i in 0..rows {
            if i > 0 {
                if after == After::Stay {
                    if saved.row + i >= self.rows {
                        break;
                    }
                    self.screen.cursor_mut().row = saved.row + i;
                } else {
                    self.index();
                }
            }
            let r = self.screen.cursor().row;
            self.spend(self.cols);
            let slice = ImageSlice::new(
                hash,
                serial,
                start as u16,
                i as u16,
                shown,
                src,
                size,
                z,
                text_cuts,
            );
            self.screen.grid_mut()[r].add_image(slice);
            self.touch(r);
        }
        match after {
            After::Stay => *self.screen.cursor_mut() = saved,
            After::LastRow => self.screen.cursor_mut().col = start,
            After::RightOfLastRow => {
                self.screen.cursor_mut().col = (start + cols).min(self.cols - 1);
            }
        }
        self.screen.cursor_mut().pending_wrap = false;
        serial
    }

    /// Removes the slices of the visible rows that `remove` selects.
    fn remove_slices(&mut self, mut remove: impl FnMut(&ImageSlice, usize) -> bool) {
        for r in 0..self.rows {
            let row = &mut self.screen.grid_mut()[r];
            if !row.has_images() {
                continue;
            }
            let before = row.images().len();
            row.retain_images(|s| !remove(s, r));
            if row.images().len() != before {
                self.touch(r);
            }
        }
    }

    /// RIS: kitty's ids, placements and any transmission are forgotten
    /// (the images go with the rows that showed them).
    pub(super) fn reset_graphics(&mut self) {
        let g = &mut self.graphics;
        g.ids.clear();
        g.numbers.clear();
        g.placements.clear();
        g.chunked = None;
        g.sixel = None;
    }

    /// ED 2 and 3, and the like: every image on the visible rows goes.
    pub(super) fn clear_screen_images(&mut self) {
        self.remove_slices(|_, _| true);
        self.graphics.placements.clear();
    }

    // ----- sixel -----

    /// DCS `P1 ; P2 ; P3 q`: a sixel image starts.
    pub(super) fn sixel_start(&mut self) {
        let pixels = self.graphics.store.max_pixels();
        self.graphics.sixel = Some(SixelDecoder::new(pixels));
    }

    /// True while a sixel image is being received.
    pub(super) fn sixel_active(&self) -> bool {
        self.graphics.sixel.is_some()
    }

    /// A byte of sixel data.
    pub(super) fn sixel_put(&mut self, byte: u8) {
        if let Some(decoder) = &mut self.graphics.sixel {
            decoder.put(byte);
        }
    }

    /// The end of the sixel data: the image is placed at the cursor, or
    /// at the top-left under DECSDM.
    pub(super) fn sixel_end(&mut self) {
        let Some(image) = self.graphics.sixel.take().and_then(SixelDecoder::finish) else {
            return;
        };
        let (w, h) = (image.width(), image.height());
        if let Ok(hash) = self.admit(image) {
            let src = PixelRect { x: 0, y: 0, w, h };
            if self.modes.get(Mode::SixelDisplay) {
                // DECSDM: at the top-left, clipped, the cursor untouched.
                let cursor = *self.screen.cursor();
                let home = self.screen.cursor_mut();
                (home.row, home.col) = (0, 0);
                self.place(hash, src, (w, h), (0, 0), 0, true, After::Stay);
                *self.screen.cursor_mut() = cursor;
            } else {
                self.place(hash, src, (w, h), (0, 0), 0, true, After::LastRow);
            }
        }
    }

    /// XTSMGRAPHICS (`CSI ? Pi ; Pa ; Pv S`): reads (Pa 1) and the
    /// maximum (Pa 4) colour registers (Pi 1) and sixel geometry (Pi 2);
    /// setting is refused (status 3), other items are unknown (status 1).
    pub(super) fn graphics_attributes(&mut self, item: u16, action: u16) {
        match (item, action) {
            (1, 1 | 4) => self.reply_fmt(format_args!("\x1b[?1;0;{COLOR_REGISTERS}S")),
            (2, 1 | 4) => {
                let side = (self.graphics.store.max_pixels() as f64).sqrt() as u64;
                let side = side.min(u64::from(crate::image::MAX_IMAGE_SIDE));
                self.reply_fmt(format_args!("\x1b[?2;0;{side};{side}S"));
            }
            (1 | 2, 2 | 3) => self.reply_fmt(format_args!("\x1b[?{item};3;0S")),
            _ => self.reply_fmt(format_args!("\x1b[?{item};1;0S")),
        }
    }

    // ----- iTerm2 -----

    /// A whole inline image's data: decoded and placed at the cursor.
    pub(super) fn show_inline_image(&mut self, args: InlineArgs, data: &[u8]) {
        // iTerm2's protocol has no error reply: an image that does not
        // decode (JPEG, GIF, over the cap, malformed) is dropped, as iTerm2
        // drops it.
        let Ok(image) = decode_picture(data, self.graphics.store.max_pixels()) else {
            return;
        };
        let natural = (image.width(), image.height());
        let screen = (self.cols as u32, self.rows as u32);
        let size = args.fit(natural, screen, cell_size());
        if let Ok(hash) = self.admit(image) {
            let src = PixelRect {
                x: 0,
                y: 0,
                w: natural.0,
                h: natural.1,
            };
            self.place(hash, src, size, (0, 0), 0, true, After::RightOfLastRow);
        }
    }

    // ----- kitty -----

    /// An APC G string (the `G` included).
    pub(super) fn kitty_graphics(&mut self, data: &[u8]) {
        self.spend(data.len() / PIXELS_PER_WORK + 1);
        let (keys, payload) = kitty::split(&data[1..]);
        let command = Command::parse(keys);
        let cap = self.image_file_cap() as usize;
        // Each chunk is base64 of its own (programs pad every chunk).
        let payload = decode_base64(payload);
        if let Some((first, buffer)) = &mut self.graphics.chunked {
            *buffer = match (buffer.take(), payload) {
                (Some(mut b), Some(p)) if b.len() + p.len() <= cap => {
                    b.extend_from_slice(&p);
                    Some(b)
                }
                _ => None,
            };
            if command.more {
                return;
            }
            let mut first = first.clone();
            first.quiet = first.quiet.max(command.quiet);
            let data = buffer.take();
            self.graphics.chunked = None;
            let result = match data {
                Some(data) => self.kitty_run(&mut first, &data),
                None => Err("EINVAL:bad base64, or image data too large".to_owned()),
            };
            self.kitty_reply(&first, result);
            return;
        }
        let transmits = matches!(
            command.action,
            Action::Transmit | Action::TransmitAndPlace | Action::Query
        );
        if command.more && transmits {
            let data = payload.filter(|p| p.len() <= cap);
            self.graphics.chunked = Some((command, data));
            return;
        }
        let mut command = command;
        let result = match payload {
            Some(data) => self.kitty_run(&mut command, &data),
            None => Err("EINVAL:bad base64".to_owned()),
        };
        self.kitty_reply(&command, result);
    }

    fn kitty_reply(&mut self, command: &Command, result: Result<(), String>) {
        if let Some(reply) = command.reply(result.as_ref().map(|_| ()).map_err(|e| e.as_str())) {
            self.reply(&reply);
        }
    }

    /// Runs one whole command with its (decoded) payload.
    fn kitty_run(&mut self, command: &mut Command, payload: &[u8]) -> Result<(), String> {
        match command.action {
            Action::Delete => {
                self.kitty_delete(command);
                // Deletes are not answered.
                command.quiet = 2;
                Ok(())
            }
            Action::Place => {
                let hash = self.kitty_lookup(command)?;
                self.kitty_place(command, hash)
            }
            Action::Query => self.kitty_decode(command, payload).map(|_| ()),
            Action::Transmit | Action::TransmitAndPlace => {
                let image = self.kitty_decode(command, payload)?;
                let hash = self
                    .admit(image)
                    .map_err(|_| "EFBIG:image too large".to_owned())?;
                if command.id == 0 && command.number != 0 {
                    self.graphics.next_id = self.graphics.next_id.wrapping_add(1).max(1);
                    command.id = self.graphics.next_id | 0x8000_0000;
                    remember(&mut self.graphics.numbers, command.number, command.id);
                }
                if command.id != 0 {
                    remember(&mut self.graphics.ids, command.id, hash);
                }
                if command.action == Action::TransmitAndPlace {
                    self.kitty_place(command, hash)?;
                }
                Ok(())
            }
            Action::Other => Err("EINVAL:unsupported action".to_owned()),
        }
    }

    /// The image a command names by id or number.
    fn kitty_lookup(&self, command: &Command) -> Result<ImageHash, String> {
        let id = if command.id != 0 {
            command.id
        } else {
            self.graphics
                .numbers
                .get(&command.number)
                .copied()
                .unwrap_or(0)
        };
        self.graphics
            .ids
            .get(&id)
            .copied()
            .filter(|h| self.graphics.store.get(*h).is_some())
            .ok_or_else(|| "ENOENT:no such image".to_owned())
    }

    /// Decodes a transmission's payload (refusing what is not direct data).
    fn kitty_decode(&mut self, command: &Command, data: &[u8]) -> Result<Image, String> {
        if command.medium != b'd' {
            return Err(
                "EINVAL:only direct transmission (t=d): the program is not on the viewer's machine"
                    .to_owned(),
            );
        }
        let max_pixels = self.graphics.store.max_pixels();
        self.spend(data.len() / PIXELS_PER_WORK);
        let bpp = match command.format {
            24 => 3,
            32 => 4,
            100 => 0,
            _ => return Err("EINVAL:unsupported format".to_owned()),
        };
        let raw_size = u64::from(command.width) * u64::from(command.height);
        if bpp > 0 && (raw_size == 0 || !self.graphics.store.fits(command.width, command.height)) {
            return Err(if raw_size == 0 {
                "EINVAL:no size".to_owned()
            } else {
                "EFBIG:image too large".to_owned()
            });
        }
        let data = if command.compressed {
            let cap = if bpp > 0 {
                (raw_size * bpp) as usize
            } else {
                self.image_file_cap() as usize
            };
            inflate(data, cap).ok_or_else(|| "EINVAL:bad or oversized zlib data".to_owned())?
        } else {
            data.to_vec()
        };
        if bpp == 0 {
            return decode_picture(&data, max_pixels).map_err(|e| format!("EBADPNG:{e}"));
        }
        let needed = (raw_size * bpp) as usize;
        if data.len() < needed {
            return Err("ENODATA:not enough data".to_owned());
        }
        let rgba = if bpp == 4 {
            data[..needed].to_vec()
        } else {
            data[..needed]
                .chunks_exact(3)
                .flat_map(|p| [p[0], p[1], p[2], 255])
                .collect()
        };
        Image::new(command.width, command.height, rgba).ok_or_else(|| "EINVAL:bad size".to_owned())
    }

    /// Places a stored image as the command says.
    fn kitty_place(&mut self, command: &Command, hash: ImageHash) -> Result<(), String> {
        let Some(image) = self.graphics.store.get(hash) else {
            return Err("ENOENT:no such image".to_owned());
        };
        let (iw, ih) = (image.width(), image.height());
        let [x, y, w, h] = command.src;
        let x = x.min(iw - 1);
        let y = y.min(ih - 1);
        let w = if w == 0 { iw - x } else { w.min(iw - x) };
        let h = if h == 0 { ih - y } else { h.min(ih - y) };
        let src = PixelRect { x, y, w, h };
        let key = (command.id, command.placement);
        if command.placement != 0 {
            // A placement id names one placement: placing it again moves it.
            let old: HashSet<u32> = self
                .graphics
                .placements
                .iter()
                .filter(|(_, k)| **k == key)
                .map(|(s, _)| *s)
                .collect();
            if !old.is_empty() {
                self.remove_slices(|s, _| old.contains(&s.placement()));
                self.graphics.placements.retain(|s, _| !old.contains(s));
            }
        }
        let after = if command.stay {
            After::Stay
        } else {
            After::RightOfLastRow
        };
        let cells = (command.cols, command.rows);
        let serial = self.place(hash, src, (w, h), cells, command.z, false, after);
        self.graphics.placements.insert(serial, key);
        while self.graphics.placements.len() > MAX_KITTY_IDS {
            self.graphics.placements.pop_first();
        }
        Ok(())
    }

    /// `a=d`: deletes the visible kitty placements the kind (`d=`) selects;
    /// the upper-case kinds also free the images those placements showed
    /// (and, for `I` and `N`, the image the id names; for `A`, every
    /// image) that no row shows any more, as kitty frees images left
    /// without placements: their ids go and their data leaves the store. `f`/`F` (animation frames) delete nothing: there are none.
    fn kitty_delete(&mut self, command: &Command) {
        let which = command.delete;
        let id = match which.to_ascii_lowercase() {
            b'n' => self
                .graphics
                .numbers
                .get(&command.number)
                .copied()
                .unwrap_or(0),
            _ => command.id,
        };
        let hit = self.kitty_selected(command, id);
        let mut freed: HashSet<u32> = hit
            .iter()
            .filter_map(|serial| self.graphics.placements.get(serial))
            .map(|&(image_id, _)| image_id)
            .collect();
        self.remove_slices(|s, _| hit.contains(&s.placement()));
        self.graphics.placements.retain(|s, _| !hit.contains(s));
        if !which.is_ascii_uppercase() {
            return;
        }
        match which {
            b'I' | b'N' => {
                freed.insert(id);
            }
            b'A' => freed.extend(self.graphics.ids.keys()),
            _ => {}
        }
        self.free_unshown(&freed);
    }

    /// The serials of the visible kitty placements a delete selects.
    fn kitty_selected(&self, command: &Command, id: u32) -> HashSet<u32> {
        let placements = &self.graphics.placements;
        let cursor = *self.screen.cursor();
        // `x` and `y` name a cell (1-based) or, for `r`, a range of ids.
        let [x, y, ..] = command.src;
        let cell = (x.saturating_sub(1) as usize, y.saturating_sub(1) as usize);
        let covers = |s: &ImageSlice, col: usize| {
            let (a, b) = s.visible();
            (a as usize..b as usize).contains(&col)
        };
        let mut hit = HashSet::new();
        for r in 0..self.rows {
            for s in self.screen.grid()[r].images() {
                let Some(&(image_id, pid)) = placements.get(&s.placement()) else {
                    continue;
                };
                let selected = match command.delete.to_ascii_lowercase() {
                    b'a' => true,
                    b'i' | b'n' => {
                        image_id == id && (command.placement == 0 || pid == command.placement)
                    }
                    b'c' => r == cursor.row && covers(s, cursor.col),
                    b'p' => r == cell.1 && covers(s, cell.0),
                    b'q' => r == cell.1 && covers(s, cell.0) && s.z() == command.z,
                    b'x' => covers(s, cell.0),
                    b'y' => r == cell.1,
                    b'z' => s.z() == command.z,
                    b'r' => image_id != 0 && (x..=y).contains(&image_id),
                    _ => false,
                };
                if selected {
                    hit.insert(s.placement());
                }
            }
        }
        hit
    }

    /// Frees the kitty images `ids` name that no row shows (screens or
    /// scrollback): the ids (and numbers for them) go, and the data of
    /// their pictures that no other id names.
    fn free_unshown(&mut self, ids: &HashSet<u32>) {
        let mut dropped = HashSet::new();
        let rows = self.screen.grid().iter().chain(self.hidden.grid().iter());
        let shown: HashSet<ImageHash> = rows
            .flat_map(|row| row.images().iter())
            .chain(self.scrollback.images())
            .map(ImageSlice::image)
            .collect();
        let g = &mut self.graphics;
        g.ids.retain(|id, hash| {
            let free = ids.contains(id) && !shown.contains(hash);
            if free {
                dropped.insert(*hash);
            }
            !free
        });
        let named: HashSet<ImageHash> = g.ids.values().copied().collect();
        let kept = &g.ids;
        g.numbers.retain(|_, id| kept.contains_key(id));
        for hash in dropped {
            if !shown.contains(&hash) && !named.contains(&hash) {
                g.store.remove(hash);
            }
        }
    }
}

/// Remembers `key` -> `value`, forgetting the lowest key past the cap.
fn remember<V>(map: &mut BTreeMap<u32, V>, key: u32, value: V) {
    if map.len() >= MAX_KITTY_IDS && !map.contains_key(&key) {
        if let Some(&any) = map.keys().next() {
            map.remove(&any);
        }
    }
    map.insert(key, value);
}

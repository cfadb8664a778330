//! The images of one terminal by content hash, within a memory budget.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;

use super::{Image, ImageHash, DEFAULT_IMAGE_BYTES, DEFAULT_IMAGE_PIXELS, MAX_IMAGE_SIDE};

/// Most images kept at once, however small: bounds the bookkeeping.
pub(super) const MAX_IMAGES: usize = 1024;

/// The images a snapshot can show, by hash: shared, cloned only when the
/// store changes after a snapshot took it.
#[derive(Clone, Debug, Default)]
pub struct ImageSet(Arc<HashMap<ImageHash, Arc<Image>>>);

impl ImageSet {
    /// The image with this hash, if still kept.
    pub fn get(&self, hash: ImageHash) -> Option<&Arc<Image>> {
        self.0.get(&hash)
    }

    /// Number of images.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// This set without the images `removed` names, with `added`.
    pub fn changed(
        &self,
        removed: &[ImageHash],
        added: impl IntoIterator<Item = Image>,
    ) -> ImageSet {
        let mut map = HashMap::clone(&self.0);
        for hash in removed {
            map.remove(hash);
        }
        map.extend(added.into_iter().map(|i| (i.hash(), Arc::new(i))));
        ImageSet(Arc::new(map))
    }

    /// The images, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = &Arc<Image>> {
        self.0.values()
    }

    /// True when there is none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Why an image was not kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StoreError {
    /// More pixels than one image may have, or more bytes than the budget.
    TooBig,
}

/// The store: images by hash, the order they came in, and their bytes.
/// Saved as its limits and its pictures (`saved.rs` implements serde's
/// traits for it, so that the store knows nothing of how it is saved).
#[derive(Clone, Debug)]
pub(crate) struct ImageStore {
    images: ImageSet,
    order: VecDeque<ImageHash>,
    bytes: usize,
    budget: usize,
    max_pixels: u64,
}

impl Default for ImageStore {
    fn default() -> ImageStore {
        ImageStore {
            images: ImageSet::default(),
            order: VecDeque::new(),
            bytes: 0,
            budget: DEFAULT_IMAGE_BYTES,
            max_pixels: DEFAULT_IMAGE_PIXELS,
        }
    }
}

impl ImageStore {
    /// Sets the budget of decoded bytes and the cap on one image's pixels.
    pub fn set_limits(&mut self, budget: usize, max_pixels: u64) {
        self.budget = budget;
        self.max_pixels = max_pixels;
    }

    /// True when a `width` x `height` image may be kept.
    pub fn fits(&self, width: u32, height: u32) -> bool {
        let pixels = u64::from(width) * u64::from(height);
        width <= MAX_IMAGE_SIDE
            && height <= MAX_IMAGE_SIDE
            && pixels <= self.max_pixels
            && pixels.saturating_mul(4) <= self.budget as u64
    }

    /// The most pixels one image may have.
    pub fn max_pixels(&self) -> u64 {
        self.max_pixels.min(self.budget as u64 / 4)
    }

    /// The budget of decoded bytes and the cap on one image's pixels.
    pub fn limits(&self) -> (usize, u64) {
        (self.budget, self.max_pixels)
    }

    /// The images, oldest first.
    pub fn oldest_first(&self) -> impl Iterator<Item = &Arc<Image>> {
        self.order.iter().filter_map(|hash| self.images.get(*hash))
    }

    /// Decoded bytes held.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// The images, for a snapshot.
    pub fn published(&self) -> ImageSet {
        self.images.clone()
    }

    /// The image with this hash, if kept.
    pub fn get(&self, hash: ImageHash) -> Option<&Arc<Image>> {
        self.images.get(hash)
    }

    /// Keeps `image`, making room first: images `live` does not list go
    /// first, then the oldest. `live` is asked at most once, and only when
    /// room is needed.
    pub fn insert(
        &mut self,
        image: Image,
        live: impl FnOnce() -> HashSet<ImageHash>,
    ) -> Result<ImageHash, StoreError> {
        let hash = image.hash();
        if !self.fits(image.width(), image.height()) {
            return Err(StoreError::TooBig);
        }
        if self.images.get(hash).is_some() {
            // Already kept: it becomes the newest.
            self.order.retain(|h| *h != hash);
            self.order.push_back(hash);
            return Ok(hash);
        }
        let needed = image.bytes();
        if self.bytes + needed > self.budget || self.order.len() >= MAX_IMAGES {
            let live = live();
            let dead: Vec<ImageHash> = self
                .order
                .iter()
                .filter(|h| !live.contains(h))
                .copied()
                .collect();
            for h in dead {
                self.remove(h);
            }
        }
        while self.bytes + needed > self.budget || self.order.len() >= MAX_IMAGES {
            let Some(oldest) = self.order.front().copied() else {
                break;
            };
            self.remove(oldest);
        }
        self.bytes += needed;
        self.order.push_back(hash);
        Arc::make_mut(&mut self.images.0).insert(hash, Arc::new(image));
        Ok(hash)
    }

    /// Forgets one image.
    pub fn remove(&mut self, hash: ImageHash) {
        if let Some(image) = Arc::make_mut(&mut self.images.0).remove(&hash) {
            self.bytes -= image.bytes();
            self.order.retain(|h| *h != hash);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn image(seed: u8, side: u32) -> Image {
        Image::new(side, side, vec![seed; (side * side * 4) as usize]).unwrap()
    }

    #[test]
    fn the_oldest_image_goes_first_when_the_budget_is_full() {
        let mut store = ImageStore::default();
        store.set_limits(3 * 400, 10_000);
        let mut hashes = Vec::new();
        for i in 0..4 {
            // Every image is still shown: the oldest must go.
            let live: HashSet<_> = hashes.iter().copied().collect();
            hashes.push(store.insert(image(i, 10), || live).unwrap());
        }
        assert!(store.get(hashes[0]).is_none());
        assert!(hashes[1..].iter().all(|h| store.get(*h).is_some()));
        assert_eq!(store.bytes(), 1200);
    }

    #[test]
    fn unreferenced_images_go_before_older_live_ones() {
        let mut store = ImageStore::default();
        store.set_limits(2 * 400, 10_000);
        let a = store.insert(image(1, 10), HashSet::new).unwrap();
        let b = store.insert(image(2, 10), HashSet::new).unwrap();
        let c = store.insert(image(3, 10), || HashSet::from([a])).unwrap();
        assert!(store.get(a).is_some() && store.get(c).is_some());
        assert!(store.get(b).is_none());
    }

    #[test]
    fn an_image_over_the_pixel_cap_is_refused() {
        let mut store = ImageStore::default();
        store.set_limits(1 << 20, 99);
        assert_eq!(
            store.insert(image(1, 10), HashSet::new),
            Err(StoreError::TooBig)
        );
        assert_eq!(store.bytes(), 0);
    }
}

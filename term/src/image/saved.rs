//! Pictures as other processes get them: a PNG file with its hash
//! ([`Picture`]), in a saved terminal state (the store: its limits and its
//! pictures, oldest first) and in the cluster's messages. Reading back
//! decodes each picture within what is left of a budget, so a corrupt or
//! hostile input is refused before it can allocate past it.

use std::fmt;

use serde::de::{Error, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::decode::decode_picture;
use super::store::{ImageStore, MAX_IMAGES};
use super::{Image, ImageHash};

/// [`ImageStore`] as saved.
#[derive(Serialize, Deserialize)]
pub(crate) struct SavedStore {
    budget: u64,
    max_pixels: u64,
    images: Vec<Picture>,
}

/// One picture as saved or sent: its hash and its pixels as a PNG file.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Picture {
    hash: ImageHash,
    png: Png,
}

impl Picture {
    /// `image` as a PNG file (encoded once per image, and shared).
    pub fn of(image: &Image) -> Picture {
        Picture {
            hash: image.hash(),
            png: Png(image.png().to_vec()),
        }
    }

    /// The hash it claims.
    pub fn hash(&self) -> ImageHash {
        self.hash
    }

    /// The picture decoded, refused past `max_pixels` (before its pixels
    /// are allocated) and when its pixels are not its hash.
    pub fn decode(&self, max_pixels: u64) -> Result<Image, &'static str> {
        let image = decode_picture(&self.png.0, max_pixels)
            .map_err(|_| "a picture that does not decode within the budget")?;
        if image.hash() != self.hash {
            return Err("a picture that does not match its hash");
        }
        Ok(image)
    }
}

/// A PNG file, as a CBOR byte string.
#[derive(Clone, Debug)]
struct Png(Vec<u8>);

impl Serialize for Png {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(&self.0)
    }
}

impl<'de> Deserialize<'de> for Png {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Png, D::Error> {
        deserializer.deserialize_byte_buf(PngVisitor).map(Png)
    }
}

struct PngVisitor;

impl Visitor<'_> for PngVisitor {
    type Value = Vec<u8>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a PNG file's bytes")
    }

    fn visit_bytes<E: Error>(self, bytes: &[u8]) -> Result<Vec<u8>, E> {
        Ok(bytes.to_vec())
    }

    fn visit_byte_buf<E: Error>(self, bytes: Vec<u8>) -> Result<Vec<u8>, E> {
        Ok(bytes)
    }
}

impl From<&ImageStore> for SavedStore {
    fn from(store: &ImageStore) -> SavedStore {
        let (budget, max_pixels) = store.limits();
        SavedStore {
            budget: budget as u64,
            max_pixels,
            images: store
                .oldest_first()
                .map(|image| Picture::of(image))
                .collect(),
        }
    }
}

/// Why a saved store was refused.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct SavedStoreError(&'static str);

impl fmt::Display for SavedStoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "saved images: {}", self.0)
    }
}

impl Serialize for ImageStore {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        SavedStore::from(self).serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for ImageStore {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<ImageStore, D::Error> {
        ImageStore::try_from(SavedStore::deserialize(deserializer)?).map_err(D::Error::custom)
    }
}

impl TryFrom<SavedStore> for ImageStore {
    type Error = SavedStoreError;

    fn try_from(saved: SavedStore) -> Result<ImageStore, SavedStoreError> {
        let budget = usize::try_from(saved.budget).unwrap_or(usize::MAX);
        let mut store = ImageStore::default();
        store.set_limits(budget, saved.max_pixels);
        if saved.images.len() > MAX_IMAGES {
            return Err(SavedStoreError("more images than a store keeps"));
        }
        for picture in saved.images {
            // Only what is left of the budget may be decoded: a picture
            // larger than that is refused before its pixels are allocated.
            let room = (budget - store.bytes()) as u64 / 4;
            let image = picture
                .decode(store.max_pixels().min(room))
                .map_err(SavedStoreError)?;
            if store.get(picture.hash()).is_some() {
                return Err(SavedStoreError("a picture saved twice"));
            }
            store
                .insert(image, Default::default)
                .map_err(|_| SavedStoreError("a picture over the limits"))?;
        }
        Ok(store)
    }
}

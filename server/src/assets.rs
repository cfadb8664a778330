//! The web client's files, compiled into the binary by `build.rs`
//! (`build/web_assets.rs`): each as served, with its version and its
//! compressed forms.

/// A file of the web client as the server sends it.
#[derive(Debug)]
pub struct Asset {
    /// Its name in `web/` (`protocol.js`).
    pub name: &'static str,
    /// Its `Content-Type`.
    pub content_type: &'static str,
    /// Its version: the first 16 hex digits of the SHA-256 of `identity`.
    /// Pages ask for their bundles as `?v=` this, and it is the root of
    /// every form's ETag.
    pub hash: &'static str,
    /// The file as served, with no content coding.
    pub identity: &'static [u8],
    /// Brotli (quality 11), when smaller than `identity`.
    pub br: Option<&'static [u8]>,
    /// Gzip (level 9), when smaller than `identity`.
    pub gzip: Option<&'static [u8]>,
}

/// Every file of `web/` but its docs, in name order.
static ASSETS: &[Asset] = &include!(concat!(env!("OUT_DIR"), "/web_assets.rs"));

/// A file of the web client by name (`client.js`).
pub fn asset(name: &str) -> Option<&'static Asset> {
    ASSETS.iter().find(|asset| asset.name == name)
}

/// Every file of the web client, in name order.
pub fn all() -> &'static [Asset] {
    ASSETS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pages_and_modules_are_compiled_in() {
        for page in ["index.html", "terminal.html", "embed.html", "replay.html"] {
            let asset = asset(page).expect(page);
            assert!(asset.content_type.starts_with("text/html"));
            assert!(!asset.identity.is_empty());
        }
        let protocol = asset("protocol.js").expect("protocol.js");
        assert!(protocol.content_type.starts_with("text/javascript"));
        assert!(asset("../Cargo.toml").is_none());
        assert!(asset("missing.js").is_none());
    }

    #[test]
    fn every_file_has_a_version_and_smaller_compressed_forms() {
        for asset in all() {
            assert_eq!(asset.hash.len(), 16, "{}", asset.name);
            assert!(asset.hash.bytes().all(|b| b.is_ascii_hexdigit()));
            for packed in [asset.br, asset.gzip].into_iter().flatten() {
                assert!(packed.len() < asset.identity.len(), "{}", asset.name);
            }
            if asset.content_type.starts_with("text/") {
                assert!(asset.br.is_some(), "{} has a brotli form", asset.name);
                assert!(asset.gzip.is_some(), "{} has a gzip form", asset.name);
            }
        }
    }
}

//! The web client's files, compiled into the binary by `build.rs`.

/// Every file of `web/`: (name, content type, bytes).
static ASSETS: &[(&str, &str, &[u8])] = include!(concat!(env!("OUT_DIR"), "/web_assets.rs"));

/// A file of the web client by name (`client.js`), with its content type.
pub fn asset(name: &str) -> Option<(&'static str, &'static [u8])> {
    ASSETS
        .iter()
        .find(|(n, _, _)| *n == name)
        .map(|(_, content_type, bytes)| (*content_type, *bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pages_and_modules_are_compiled_in() {
        for page in ["index.html", "terminal.html", "embed.html"] {
            let (content_type, bytes) = asset(page).expect(page);
            assert!(content_type.starts_with("text/html"));
            assert!(!bytes.is_empty());
        }
        let (content_type, _) = asset("protocol.js").expect("protocol.js");
        assert!(content_type.starts_with("text/javascript"));
        assert_eq!(asset("../Cargo.toml"), None);
        assert_eq!(asset("missing.js"), None);
    }
}

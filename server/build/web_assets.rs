//! The web client (`../web`) as the server sends it, compiled into the
//! binary as a table of every file with its content type, its version (a
//! content hash) and its compressed forms, so a new file needs no code
//! change. Documentation (`*.md`) stays out: it is for developers, not
//! something a page loads.
//!
//! What is served differs from the sources in three ways, all made here so
//! that `web/` stays plain modules anyone can read and load as they are:
//! - JavaScript loses its comments and indentation ([`served_js`]).
//! - Each page loads one file, the bundle of its module and every module
//!   it imports (`build/bundle.rs`), at a versioned URL
//!   (`../web/page.bundle.js?v=HASH`) that may be cached for good: a new
//!   version is a new URL ([`with_bundles`]). The modules are served one
//!   by one as well, for pages that import them.
//! - Every file has a brotli and a gzip form, kept only when smaller.
//!
//! The web size budget is measured on what is served
//! (`tests/browser/size-check.mjs`), the bytes a page costs on the wire
//! by `tests/browser/transfer.test.mjs`.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::{env, fs};

use brotli::enc::backward_references::BrotliEncoderMode;

use crate::bundle;
use sha2::{Digest, Sha256};

/// Brotli's best quality: the files are compressed once, at build time.
const BROTLI_QUALITY: i32 = 11;
/// Brotli's window, 4 MiB: larger than any file of the client.
const BROTLI_WINDOW_BITS: i32 = 22;
/// Hex digits of a file's SHA-256 kept as its version (64 bits).
const HASH_HEX_DIGITS: usize = 16;

fn content_type(name: &str) -> &'static str {
    match name.rsplit('.').next() {
        Some("html") => "text/html; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("ico") => "image/x-icon",
        Some("json") => "application/json",
        _ => "application/octet-stream",
    }
}

/// A module as served: whole-line comments (`// ...` and `/* ... */`
/// blocks that start a line) and blank lines removed, each line's
/// leading whitespace dropped, and a trailing ` // ...` comment cut where
/// the code before it has no quote, backtick or slash (so the `//` cannot
/// be inside a string, template, regular expression or division) and the
/// line does not continue a template string. Line breaks stay, so
/// automatic semicolon insertion and every token are as in the source. The
/// only multi-line literals in the client are CSS template strings, where
/// indentation has no meaning.
///
/// No Rust minifier earns a place here: the ones that rename and rewrite
/// (oxc's, swc's) are large to build and oxc's says it is alpha, and the
/// small one (minify-js) is no longer kept up; brotli takes most of what
/// renaming would save.
fn served_js(name: &str, source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    let mut in_block = false;
    let mut in_template = false;
    for (number, line) in source.lines().enumerate() {
        let text = line.trim();
        let opens = !in_block && text.starts_with("/*");
        if in_block || opens {
            match text.find("*/") {
                Some(end) if end + 2 == text.len() => in_block = false,
                Some(_) => panic!(
                    "web/{name}:{}: code after a block comment on the same line; \
                     put it on a line of its own",
                    number + 1
                ),
                None => in_block = true,
            }
            continue;
        }
        if text.is_empty() || text.starts_with("//") {
            continue;
        }
        let code = match text.find(" // ") {
            Some(at) if !in_template && !text[..at].contains(['\'', '"', '`', '/']) => &text[..at],
            _ => text,
        };
        in_template ^= code.matches('`').count() % 2 == 1;
        out.push_str(code);
        out.push('\n');
    }
    out
}

/// A page as served: each module script's `src` names the bundle of its
/// module ([`bundle::bundle`]: the module and all it imports, one file) at
/// its versioned URL (`../web/page.js` becomes
/// `../web/page.bundle.js?v=HASH`), which may be cached for good: a new
/// version is a new URL. The bundles go into `served`. A page with no
/// module script is served as it is.
fn with_bundles(
    name: &str,
    html: &str,
    modules: &BTreeMap<String, String>,
    served: &mut BTreeMap<String, Vec<u8>>,
) -> String {
    const OPEN: &str = "<script type=\"module\" src=\"";
    let mut page = String::with_capacity(html.len() + 64);
    let mut rest = html;
    while let Some(at) = rest.find(OPEN) {
        let after = &rest[at + OPEN.len()..];
        let end = after
            .find('"')
            .unwrap_or_else(|| panic!("web/{name}: a module script's src has no closing quote"));
        let src = &after[..end];
        let (dir, module) = src.rfind('/').map_or(("", src), |at| src.split_at(at + 1));
        assert!(
            modules.contains_key(module),
            "web/{name}: the module script {src:?} is not a module of web/"
        );
        let bundled = format!("{}.bundle.js", module.trim_end_matches(".js"));
        let code = bundle::bundle(module, modules).into_bytes();
        let hash = version(&code);
        served.insert(bundled.clone(), code);
        page.push_str(&rest[..at + OPEN.len()]);
        page.push_str(&format!("{dir}{bundled}?v={hash}"));
        rest = &after[end..];
    }
    page.push_str(rest);
    page
}

/// The first [`HASH_HEX_DIGITS`] hex digits of the SHA-256 of `bytes`.
fn version(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    hex[..HASH_HEX_DIGITS].to_owned()
}

fn brotli(bytes: &[u8], text: bool) -> Vec<u8> {
    let params = brotli::enc::BrotliEncoderParams {
        quality: BROTLI_QUALITY,
        lgwin: BROTLI_WINDOW_BITS,
        size_hint: bytes.len(),
        mode: if text {
            BrotliEncoderMode::BROTLI_MODE_TEXT
        } else {
            BrotliEncoderMode::BROTLI_MODE_GENERIC
        },
        ..Default::default()
    };
    let mut out = Vec::new();
    brotli::BrotliCompress(&mut &bytes[..], &mut out, &params).expect("brotli writes to memory");
    out
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    // flate2's gzip header has no name and a zero time: the same input
    // always gives the same bytes.
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    encoder.write_all(bytes).expect("gzip writes to memory");
    encoder.finish().expect("gzip writes to memory")
}

/// Writes `web_assets.rs` to `out_dir`: an array of `Asset` (defined by
/// `src/assets.rs`, which includes it), one for each file of the client,
/// in name order, with its served forms written beside it under `web/`.
pub fn write(out_dir: &Path) {
    let web = Path::new(&env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"))
        .join("../web");
    println!("cargo:rerun-if-changed={}", web.display());
    let mut names: Vec<String> = fs::read_dir(&web)
        .map(|dir| {
            dir.filter_map(|entry| entry.ok())
                .filter(|entry| entry.file_type().is_ok_and(|t| t.is_file()))
                .map(|entry| entry.file_name().to_string_lossy().into_owned())
                .filter(|name| !name.ends_with(".md"))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    for name in &names {
        // Names go into JSON, HTML attributes and URLs unescaped.
        assert!(
            name.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_')),
            "web/{name}: a file name of letters, digits, '.', '-' and '_' only"
        );
    }
    let read = |name: &str| {
        let path = web.join(name);
        println!("cargo:rerun-if-changed={}", path.display());
        fs::read(&path).unwrap_or_else(|e| panic!("web/{name}: {e}"))
    };
    let text = |name: &str, bytes: Vec<u8>| {
        String::from_utf8(bytes).unwrap_or_else(|_| panic!("web/{name} is not UTF-8"))
    };

    // Modules and other files first: pages name the bundles made of them.
    let mut served: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    let mut modules: BTreeMap<String, String> = BTreeMap::new();
    for name in names.iter().filter(|n| !n.ends_with(".html")) {
        let bytes = read(name);
        if name.ends_with(".js") {
            let js = served_js(name, &text(name, bytes));
            modules.insert(name.clone(), js.clone());
            served.insert(name.clone(), js.into_bytes());
        } else {
            served.insert(name.clone(), bytes);
        }
    }
    for name in names.iter().filter(|n| n.ends_with(".html")) {
        let html = text(name, read(name));
        let page = with_bundles(name, &html, &modules, &mut served);
        served.insert(name.clone(), page.into_bytes());
    }

    let dir = out_dir.join("web");
    fs::create_dir_all(&dir).expect("OUT_DIR is writable");
    let mut table = String::from("[\n");
    for (name, bytes) in &served {
        let content_type = content_type(name);
        let is_text = content_type.starts_with("text/")
            || content_type.ends_with("json")
            || content_type.ends_with("xml");
        let file = |suffix: &str, bytes: &[u8]| {
            let path = dir.join(format!("{name}{suffix}"));
            fs::write(&path, bytes).expect("OUT_DIR is writable");
            format!("include_bytes!({:?})", path.display().to_string())
        };
        let smaller = |suffix: &str, packed: Vec<u8>| {
            if packed.len() < bytes.len() {
                format!("Some({})", file(suffix, &packed))
            } else {
                "None".to_owned()
            }
        };
        table.push_str(&format!(
            "    Asset {{ name: {name:?}, content_type: {content_type:?}, hash: {:?}, \
             identity: {}, br: {}, gzip: {} }},\n",
            version(bytes),
            file("", bytes),
            smaller(".br", brotli(bytes, is_text)),
            smaller(".gz", gzip(bytes)),
        ));
    }
    table.push(']');
    fs::write(out_dir.join("web_assets.rs"), table).expect("OUT_DIR is writable");
}

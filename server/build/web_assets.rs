//! The web client (`../web`) as the server sends it, compiled into the
//! binary as a table of every file with its content type, its version (a
//! content hash) and its compressed forms, so a new file needs no code
//! change. Documentation (`*.md`) stays out: it is for developers, not
//! something a page loads.
//!
//! What is served differs from the sources in three ways, all made here so
//! that `web/` stays plain modules anyone can read and load as they are:
//! - JavaScript loses its comments and indentation ([`served_js`]).
//! - Each page gets an import map that sends every module of its static
//!   import graph to a versioned URL (`../web/protocol.js` to
//!   `../web/protocol.js?v=HASH`), a `<link rel="modulepreload">` for each
//!   of them (a cold visit fetches them all at once instead of one level
//!   of imports per round trip), and its module script's `src` versioned
//!   the same way ([`with_import_map`]). A versioned URL may be cached
//!   for good: a new version is a new URL.
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

/// The modules a served module imports statically, by name, in order:
/// `import ... from './x.js'`, `import './x.js'` and `export ... from
/// './x.js'`, each starting a line (as [`served_js`] leaves them) and
/// possibly running over several lines up to its specifier (or, for a
/// local `export { a };`, its `;`). Panics, naming the
/// file, on what the import map could not cover: a dynamic `import(`, or
/// a specifier other than `./NAME.js` of a file in `web/`.
fn static_imports(name: &str, served: &str, modules: &BTreeMap<String, String>) -> Vec<String> {
    if served.contains("import(") || served.contains("import (") {
        panic!(
            "web/{name}: a dynamic import(): the page's import map and preloads (build/web_assets.rs) \
             know only static imports; import it statically"
        );
    }
    let mut found = Vec::new();
    let mut statement = String::new();
    for line in served.lines() {
        if statement.is_empty() && !starts_import_or_reexport(line) {
            continue;
        }
        statement.push_str(line);
        statement.push('\n');
        let specifier = specifier_of(&statement);
        if specifier.is_none() && !line.trim_end().ends_with(';') {
            continue;
        }
        match specifier {
            Some(specifier) => {
                let target = specifier
                    .strip_prefix("./")
                    .filter(|target| modules.contains_key(*target))
                    .unwrap_or_else(|| {
                        panic!(
                            "web/{name}: imports {specifier:?}; modules import each other as \
                             './NAME.js', a file of web/"
                        )
                    });
                if !found.iter().any(|f| f == target) {
                    found.push(target.to_owned());
                }
            }
            None if statement.starts_with("import") => {
                panic!("web/{name}: cannot read the module this import names: {statement}")
            }
            // `export { a, b };`: a local export list.
            None => {}
        }
        statement.clear();
    }
    assert!(
        statement.is_empty(),
        "web/{name}: an import or export that never names its module: {statement}"
    );
    found
}

/// Whether a served line starts an import declaration, or an export that
/// may name another module (`export {`, `export *`).
fn starts_import_or_reexport(line: &str) -> bool {
    let import = line
        .strip_prefix("import")
        .and_then(|rest| rest.chars().next());
    let export = line.strip_prefix("export").map(str::trim_start);
    matches!(import, Some(' ' | '{' | '*' | '\'' | '"'))
        || export.is_some_and(|rest| rest.starts_with('{') || rest.starts_with('*'))
}

/// The module specifier of a whole import or re-export statement: the
/// string after its `from` keyword, or right after `import` for a bare
/// `import './x.js';`.
fn specifier_of(statement: &str) -> Option<&str> {
    fn quoted(text: &str) -> Option<&str> {
        let text = text.trim_start();
        let quote = text.chars().next().filter(|c| matches!(c, '\'' | '"'))?;
        let rest = &text[1..];
        rest.find(quote).map(|end| &rest[..end])
    }
    if let Some(specifier) = statement.strip_prefix("import").and_then(quoted) {
        return Some(specifier);
    }
    statement.rmatch_indices("from").find_map(|(at, _)| {
        let before = statement[..at].chars().next_back();
        matches!(before, Some(' ' | '}' | '\n'))
            .then(|| quoted(&statement[at + "from".len()..]))
            .flatten()
    })
}

/// Every module `entry` reaches through static imports, `entry` first,
/// then in the order they are found (breadth first).
fn import_graph(entry: &str, imports: &BTreeMap<String, Vec<String>>) -> Vec<String> {
    let mut graph = vec![entry.to_owned()];
    let mut next = 0;
    while next < graph.len() {
        for module in imports.get(&graph[next]).into_iter().flatten() {
            if !graph.contains(module) {
                graph.push(module.clone());
            }
        }
        next += 1;
    }
    graph
}

/// A page as served: after its `<meta charset="utf-8">`, an import map
/// that sends each module of its static import graph to its versioned URL
/// (relative as the page's module script is, e.g. `../web/protocol.js` to
/// `../web/protocol.js?v=HASH`) and a `<link rel="modulepreload">` for
/// each; and the module script's `src` versioned. A folder that does not
/// start with `/`, `./` or `../` gets a `./` (`web/x.js` becomes
/// `./web/x.js`): an import map's key without one is a bare name, which no
/// relative import matches. A page with no module script is served as it
/// is.
fn with_import_map(
    name: &str,
    html: &str,
    hashes: &BTreeMap<String, String>,
    imports: &BTreeMap<String, Vec<String>>,
) -> String {
    const OPEN: &str = "<script type=\"module\" src=\"";
    const CHARSET: &str = "<meta charset=\"utf-8\">";
    let mut page = String::with_capacity(html.len() + 2048);
    let mut prefix: Option<String> = None;
    let mut modules: Vec<String> = Vec::new();
    let mut rest = html;
    while let Some(at) = rest.find(OPEN) {
        let after = &rest[at + OPEN.len()..];
        let end = after
            .find('"')
            .unwrap_or_else(|| panic!("web/{name}: a module script's src has no closing quote"));
        let src = &after[..end];
        let (dir, module) = src.rfind('/').map_or(("", src), |at| src.split_at(at + 1));
        let hash = hashes.get(module).unwrap_or_else(|| {
            panic!("web/{name}: the module script {src:?} is not a module of web/")
        });
        let dir = if ["/", "./", "../"]
            .iter()
            .any(|start| dir.starts_with(start))
        {
            dir.to_owned()
        } else {
            format!("./{dir}")
        };
        if prefix.as_ref().is_some_and(|p| *p != dir) {
            panic!("web/{name}: module scripts in different folders; the import map has one");
        }
        for module in import_graph(module, imports) {
            if !modules.contains(&module) {
                modules.push(module);
            }
        }
        page.push_str(&rest[..at + OPEN.len()]);
        page.push_str(&format!("{dir}{module}?v={hash}"));
        prefix = Some(dir);
        rest = &after[end..];
    }
    page.push_str(rest);
    let Some(prefix) = prefix else {
        return page;
    };
    let url = |module: &str| format!("{prefix}{module}?v={}", hashes[module]);
    let map: Vec<String> = modules
        .iter()
        .map(|module| format!("\"{prefix}{module}\":\"{}\"", url(module)))
        .collect();
    let mut head = format!(
        "\n<script type=\"importmap\">{{\"imports\":{{{}}}}}</script>",
        map.join(",")
    );
    for module in &modules {
        head.push_str(&format!(
            "\n<link rel=\"modulepreload\" href=\"{}\">",
            url(module)
        ));
    }
    let at = page
        .find(CHARSET)
        .unwrap_or_else(|| panic!("web/{name}: no {CHARSET}: the import map goes right after it"))
        + CHARSET.len();
    page.insert_str(at, &head);
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

    // Modules and other files first: a page's import map names their versions.
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
    let hashes: BTreeMap<String, String> = served
        .iter()
        .map(|(name, bytes)| (name.clone(), version(bytes)))
        .collect();
    let imports: BTreeMap<String, Vec<String>> = modules
        .iter()
        .map(|(name, js)| (name.clone(), static_imports(name, js, &modules)))
        .collect();
    for name in names.iter().filter(|n| n.ends_with(".html")) {
        let html = text(name, read(name));
        let page = with_import_map(name, &html, &hashes, &imports);
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

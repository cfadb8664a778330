//! Writes what the crate includes from `OUT_DIR`: the table of character
//! widths the print path looks up (`build/width_table.rs`), and the web
//! client (`../web`), compiled into the binary as a table of every file of
//! the client with its content type, so a new file needs no code change.
//! Documentation (`*.md`) stays out: it is for developers, not something a
//! page loads.
//!
//! JavaScript is served without its comments and indentation (see
//! [`served_js`]): the sources stay documented, and browsers download
//! only the code. The web size budget is measured on what is served
//! (`tests/browser/size-check.mjs`).

#[path = "build/width_table.rs"]
mod width_table;

use std::path::Path;
use std::{env, fs};

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

fn main() {
    let out_dir = env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    width_table::write(Path::new(&out_dir));
    println!("cargo:rerun-if-changed=build");
    web_assets();
}

/// Writes `web_assets.rs`: the web client's files, as served.
fn web_assets() {
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
    let out_dir = Path::new(&env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("web");
    fs::create_dir_all(&out_dir).expect("OUT_DIR is writable");
    let mut table = String::from("&[\n");
    for name in &names {
        let source = web
            .join(name)
            .canonicalize()
            .expect("web file path resolves");
        println!("cargo:rerun-if-changed={}", source.display());
        let path = if name.ends_with(".js") {
            let text = fs::read_to_string(&source).expect("web modules are UTF-8");
            let served = out_dir.join(name);
            fs::write(&served, served_js(name, &text)).expect("OUT_DIR is writable");
            served
        } else {
            source
        };
        table.push_str(&format!(
            "    ({name:?}, {:?}, include_bytes!({:?})),\n",
            content_type(name),
            path.display().to_string()
        ));
    }
    table.push(']');
    let out = Path::new(&env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("web_assets.rs");
    fs::write(out, table).expect("OUT_DIR is writable");
}

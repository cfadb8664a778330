//! Compiles the web client (`../web`) into the binary: writes a table of
//! every file of the client with its content type, so a new file needs no
//! code change. Documentation (`*.md`) stays out: it is for developers,
//! not something a page loads.

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

fn main() {
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
    let mut table = String::from("&[\n");
    for name in &names {
        let path = web
            .join(name)
            .canonicalize()
            .expect("web file path resolves");
        println!("cargo:rerun-if-changed={}", path.display());
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

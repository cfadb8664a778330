//! The web client as served: in the content coding asked for
//! (`Accept-Encoding`, with `Vary`), with strong ETags and `304 Not
//! Modified`, cached for good only at a file's current `?v=`, and every
//! page loading one versioned bundle of its modules; at the root and under
//! a base path.

mod common;

use std::io::Read;

use common::{test_config, Response, Server};
use panecast::assets::{self, Asset};

const IMMUTABLE: &str = "public, max-age=31536000, immutable";
const BROWSER: &str = "gzip, deflate, br, zstd";

/// Each page's path below the base path (ids and names no session or
/// recording has: a page is served all the same) and its file.
const PAGES: [(&str, &str); 4] = [
    ("/", "index.html"),
    ("/s/x", "terminal.html"),
    ("/embed/x", "embed.html"),
    ("/r/x", "replay.html"),
];

fn server_under(base: &str) -> Server {
    let mut config = test_config();
    config.base_path = base.to_owned();
    Server::start(config)
}

fn get(server: &Server, path: &str, headers: &[(&str, &str)]) -> Response {
    server.raw("GET", path, headers, None)
}

fn asset(name: &str) -> &'static Asset {
    assets::asset(name).unwrap_or_else(|| panic!("{name} is compiled in"))
}

/// The body of `response`, decoded as its `Content-Encoding` says.
fn decoded(response: &Response) -> Vec<u8> {
    let mut out = Vec::new();
    match response.header("content-encoding") {
        None => out.clone_from(&response.bytes),
        Some("gzip") => {
            flate2::read::GzDecoder::new(&response.bytes[..])
                .read_to_end(&mut out)
                .expect("a gzip body");
        }
        Some("br") => {
            brotli_decompressor::Decompressor::new(&response.bytes[..], 4096)
                .read_to_end(&mut out)
                .expect("a brotli body");
        }
        Some(other) => panic!("an unexpected coding {other}"),
    }
    out
}

/// `relative` (as a page's script `src` writes it) resolved against the
/// path of the page it is on.
fn resolve(page: &str, relative: &str) -> String {
    let mut segments: Vec<&str> = page.split('/').collect();
    segments.pop();
    for part in relative.split('/') {
        match part {
            ".." => {
                segments.pop();
            }
            "." => {}
            part => segments.push(part),
        }
    }
    segments.join("/")
}

/// The text between `open` and the next `close` in `html`, for each time
/// `open` occurs.
fn between<'a>(html: &'a str, open: &str, close: &str) -> Vec<&'a str> {
    html.split(open)
        .skip(1)
        .map(|rest| rest.split(close).next().unwrap_or_default())
        .collect()
}

#[test]
fn modules_and_pages_come_in_the_coding_asked_for() {
    for base in ["", "/term"] {
        let server = server_under(base);
        for path in ["/web/protocol.js", "/s/x", "/"] {
            let path = format!("{base}{path}");
            let name = if path.ends_with(".js") {
                "protocol.js"
            } else if path.ends_with("/x") {
                "terminal.html"
            } else {
                "index.html"
            };
            let file = asset(name);
            for (accept, coding) in [
                (Some(BROWSER), Some("br")),
                (Some("gzip"), Some("gzip")),
                (Some("br;q=0, gzip"), Some("gzip")),
                (Some("gzip;q=0.5, br;q=0.4"), Some("gzip")),
                (Some("*"), Some("br")),
                (Some("identity"), None),
                (Some("br;q=0, gzip;q=0"), None),
                (Some("*;q=0"), None),
                (Some(""), None),
                (None, None),
            ] {
                let headers: Vec<(&str, &str)> =
                    accept.map(|a| ("Accept-Encoding", a)).into_iter().collect();
                let response = get(&server, &path, &headers);
                assert_eq!(response.status, 200, "{path} {accept:?}: {}", response.body);
                assert_eq!(
                    response.header("content-encoding"),
                    coding,
                    "{path} with {accept:?}"
                );
                assert_eq!(response.header("vary"), Some("Accept-Encoding"), "{path}");
                assert_eq!(decoded(&response), file.identity, "{path} with {accept:?}");
                let sent = match coding {
                    Some("br") => file.br,
                    Some(_) => file.gzip,
                    None => Some(file.identity),
                };
                assert_eq!(Some(&response.bytes[..]), sent, "{path}: the stored form");
                assert!(
                    response.bytes.len() <= file.identity.len(),
                    "{path}: a form is sent only when smaller"
                );
            }
        }
    }
}

#[test]
fn every_file_answers_in_each_of_its_forms() {
    let server = server_under("");
    for file in assets::all() {
        let path = format!("/web/{}", file.name);
        for (accept, form) in [("br", file.br), ("gzip", file.gzip), ("identity", None)] {
            let response = get(&server, &path, &[("Accept-Encoding", accept)]);
            assert_eq!(response.status, 200, "{path}");
            assert_eq!(response.header("content-type"), Some(file.content_type));
            assert_eq!(
                response.bytes,
                form.unwrap_or(file.identity),
                "{path} {accept}"
            );
            assert_eq!(decoded(&response), file.identity, "{path} {accept}");
        }
    }
}

#[test]
fn a_known_etag_gets_304_and_any_other_the_file() {
    for base in ["", "/term"] {
        let server = server_under(base);
        for (path, cache_control) in [
            ("/web/terminal.js", "no-cache"),
            ("/s/x", "no-cache"),
            ("/embed/x", "no-cache"),
            ("/", "no-cache"),
        ] {
            let path = format!("{base}{path}");
            let first = get(&server, &path, &[("Accept-Encoding", BROWSER)]);
            assert_eq!(first.status, 200, "{path}");
            let tag = first.header("etag").expect("an ETag").to_owned();
            assert!(tag.starts_with('"') && tag.ends_with('"'), "strong: {tag}");
            assert_eq!(first.header("cache-control"), Some(cache_control), "{path}");
            let again = get(
                &server,
                &path,
                &[("Accept-Encoding", BROWSER), ("If-None-Match", &tag)],
            );
            assert_eq!(again.status, 304, "{path}: {}", again.body);
            assert!(again.bytes.is_empty(), "{path}: a 304 has no body");
            assert_eq!(again.header("etag"), Some(tag.as_str()));
            assert_eq!(again.header("vary"), Some("Accept-Encoding"));
            assert_eq!(again.header("cache-control"), Some(cache_control));
            let listed = format!("\"nope\", {tag}");
            let among = get(
                &server,
                &path,
                &[("Accept-Encoding", BROWSER), ("If-None-Match", &listed)],
            );
            assert_eq!(among.status, 304, "{path}: one of a list");
            for wrong in ["\"0000000000000000\"", "\"0000000000000000-br\"", "W/\"x\""] {
                let other = get(
                    &server,
                    &path,
                    &[("Accept-Encoding", BROWSER), ("If-None-Match", wrong)],
                );
                assert_eq!(other.status, 200, "{path} with {wrong}");
                assert_eq!(other.header("etag"), Some(tag.as_str()));
            }
            // The brotli form's tag does not validate the gzip form.
            let gzip = get(
                &server,
                &path,
                &[("Accept-Encoding", "gzip"), ("If-None-Match", &tag)],
            );
            assert_eq!(gzip.status, 200, "{path}");
            assert_eq!(gzip.header("content-encoding"), Some("gzip"));
            assert_ne!(gzip.header("etag"), Some(tag.as_str()));
        }
    }
}

#[test]
fn only_the_current_version_is_cached_for_good() {
    for base in ["", "/term"] {
        let server = server_under(base);
        let file = asset("protocol.js");
        let path = format!("{base}/web/protocol.js");
        for (query, cache_control) in [
            (format!("?v={}", file.hash), IMMUTABLE),
            (format!("?x=1&v={}", file.hash), IMMUTABLE),
            (String::new(), "no-cache"),
            ("?v=0000000000000000".to_owned(), "no-cache"),
            (format!("?v={}0", file.hash), "no-cache"),
            ("?v=".to_owned(), "no-cache"),
        ] {
            let response = get(&server, &format!("{path}{query}"), &[]);
            assert_eq!(response.status, 200, "{query}");
            assert_eq!(
                response.header("cache-control"),
                Some(cache_control),
                "{query}"
            );
            assert!(
                response.header("etag").is_some(),
                "{query}: an ETag all the same"
            );
            assert_eq!(response.header("access-control-allow-origin"), Some("*"));
        }
    }
}

#[test]
fn every_page_loads_one_versioned_bundle_of_its_modules() {
    let import = regex::Regex::new(r#"(?m)(?:from|^import) ?'\./([\w.-]+)'"#).expect("a regex");
    for base in ["", "/term"] {
        let server = server_under(base);
        for (path, name) in PAGES {
            let page_path = format!("{base}{path}");
            let page = get(&server, &page_path, &[]);
            assert_eq!(page.status, 200, "{page_path}");
            assert_eq!(page.bytes, asset(name).identity);
            let html = &page.body;
            assert!(!html.contains("importmap"), "{page_path}: no import map");
            let scripts = between(html, "<script type=\"module\" src=\"", "\"");
            assert_eq!(scripts.len(), 1, "{page_path}: one module script");
            let (file_name, version) = scripts[0]
                .rsplit('/')
                .next()
                .and_then(|s| s.split_once("?v="))
                .unwrap_or_else(|| panic!("{page_path}: {} is versioned", scripts[0]));
            let entry = file_name
                .strip_suffix(".bundle.js")
                .map(|stem| format!("{stem}.js"))
                .unwrap_or_else(|| panic!("{page_path}: {file_name} is a bundle"));
            let file = asset(file_name);
            assert_eq!(
                version, file.hash,
                "{page_path}: the bundle's current version"
            );
            let url = resolve(&page_path, scripts[0]);
            assert_eq!(url, format!("{base}/web/{file_name}?v={}", file.hash));
            let response = get(&server, &url, &[("Accept-Encoding", BROWSER)]);
            assert_eq!(response.status, 200, "{url}");
            assert_eq!(response.header("cache-control"), Some(IMMUTABLE), "{url}");
            let code = String::from_utf8(decoded(&response)).expect("UTF-8");
            assert_eq!(code.as_bytes(), file.identity, "{url}");
            // One file: it imports nothing, and holds the entry's whole
            // static import graph, each module once, after what it imports.
            assert!(!import.is_match(&code), "{url}: a bundle imports nothing");
            let mut graph = vec![entry.clone()];
            let mut next = 0;
            while next < graph.len() {
                let served = String::from_utf8_lossy(asset(&graph[next]).identity).into_owned();
                for target in import.captures_iter(&served) {
                    let target = target.get(1).expect("a name").as_str().to_owned();
                    if !graph.contains(&target) {
                        graph.push(target);
                    }
                }
                next += 1;
            }
            assert!(graph.len() > 1, "{page_path}: {entry} imports modules");
            for module in &graph[1..] {
                let variable = format!(
                    "const __panecast_{} = ",
                    module.trim_end_matches(".js").replace(['-', '.'], "_")
                );
                assert_eq!(code.matches(&variable).count(), 1, "{url}: {module} once");
            }
        }
    }
}

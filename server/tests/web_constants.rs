//! The constants the server and the web client share, kept equal: the web
//! client (`web/*.js`) has no build step, so instead of generating its copy
//! this test reads the JavaScript and checks it against the Rust source of
//! truth. A failure names the file and the constant to update.
//!
//! - the themes `dark`, `light` and `contrast` in web/palette.js are
//!   `render::theme`'s: what a program reads back with OSC 4/10/11/12 is
//!   what a viewer sees;
//! - the link schemes (`LINK_SCHEMES` in web/terminal.js) are
//!   `render::LINK_SCHEMES`;
//! - the close codes the client handles (web/connection.js, web/terminal.js)
//!   are `panecast_proto::close`'s;
//! - the named key codes (`KEYS` in web/protocol.js) are `NamedKey`'s, and
//!   the key events (`KEY_PRESS`, ...) are `KeyEvent`'s.

use std::collections::BTreeMap;
use std::path::Path;

use panecast::render::theme::{self, ThemeColors};
use panecast::render::LINK_SCHEMES;
use panecast_proto::{close, KeyEvent, NamedKey};

fn web(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../web")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The text between `start` (exclusive) and the next `end` after it.
fn between<'a>(text: &'a str, start: &str, end: &str, file: &str) -> &'a str {
    let from = text
        .find(start)
        .unwrap_or_else(|| panic!("{file}: `{start}` not found"))
        + start.len();
    let len = text[from..]
        .find(end)
        .unwrap_or_else(|| panic!("{file}: no `{end}` after `{start}`"));
    &text[from..from + len]
}

/// Every `#rrggbb` in `text`, in order.
fn hex_colours(text: &str) -> Vec<String> {
    text.match_indices('#')
        .filter_map(|(i, _)| text.get(i..i + 7))
        .filter(|c| c[1..].bytes().all(|b| b.is_ascii_hexdigit()))
        .map(str::to_ascii_lowercase)
        .collect()
}

/// Every integer (decimal or 0x hex) in `text`, in order.
fn numbers(text: &str) -> Vec<u32> {
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .filter_map(|w| match w.strip_prefix("0x") {
            Some(h) => u32::from_str_radix(h, 16).ok(),
            None => w.parse().ok(),
        })
        .collect()
}

#[test]
fn the_clients_themes_are_the_servers() {
    let js = web("palette.js");
    for theme in panecast_proto::Theme::ALL {
        let name = theme.name();
        let colors = ThemeColors::of(theme);
        let body = between(&js, &format!("{name}: {{"), "}", "web/palette.js");
        let colours = hex_colours(body);
        // fg, bg, cursor, then the 16 ANSI colours.
        assert_eq!(
            colours.len(),
            19,
            "web/palette.js {name} theme: {colours:?}"
        );
        assert_eq!(colours[0], theme::hex(colors.fg()), "{name}.fg");
        assert_eq!(colours[1], theme::hex(colors.bg()), "{name}.bg");
        assert_eq!(colours[2], theme::hex(colors.cursor()), "{name}.cursor");
        for (i, c) in colours[3..].iter().enumerate() {
            assert_eq!(*c, theme::hex(colors.palette(i as u8)), "{name}.ansi[{i}]");
        }
    }
    // Colours 16-255: the client computes them from the cube steps and the grey ramp.
    let steps = numbers(between(&js, "const steps = [", "]", "web/palette.js"));
    for (i, step) in steps.iter().enumerate() {
        let (r, _, _) = theme::palette(16 + 36 * i as u8);
        assert_eq!(*step, u32::from(r), "cube step {i}");
    }
    let grey = between(
        &js,
        "for (let i = 232; i < 256; i++) {",
        "}",
        "web/palette.js",
    );
    assert!(
        grey.contains("const v = 8 + 10 * (i - 232);"),
        "web/palette.js grey ramp: {grey}"
    );
    assert_eq!(theme::palette(232), (8, 8, 8));
    assert_eq!(theme::palette(255), (238, 238, 238));
}

#[test]
fn the_client_follows_the_servers_link_policy() {
    let js = web("terminal.js");
    let list = between(&js, "LINK_SCHEMES = [", "]", "web/terminal.js");
    let schemes: Vec<&str> = list
        .split(',')
        .map(|s| s.trim().trim_matches('\''))
        .filter(|s| !s.is_empty())
        .collect();
    assert_eq!(schemes, LINK_SCHEMES);
}

#[test]
fn the_clients_close_codes_are_the_protocols() {
    let known = [
        close::NORMAL,
        close::GOING_AWAY,
        close::PROTOCOL_ERROR,
        close::UNSUPPORTED_DATA,
        close::POLICY_VIOLATION,
        close::MESSAGE_TOO_BIG,
        close::INTERNAL_ERROR,
        close::SESSION_ENDED,
        close::SESSION_DELETED,
        close::ACCESS_REVOKED,
        close::SESSION_NOT_FOUND,
        close::NODE_GONE,
        close::ORIGIN_FORBIDDEN,
        close::RATE_LIMITED,
        close::IDLE_TIMEOUT,
        close::TOO_MANY_VIEWERS,
    ];
    let conn = web("connection.js");
    let last = numbers(between(
        &conn,
        "FINAL = new Set([",
        "]",
        "web/connection.js",
    ));
    for code in &last {
        assert!(
            known.contains(&(*code as u16)),
            "web/connection.js FINAL: unknown close code {code}"
        );
    }
    // PROTOCOL.md: no reconnect after these; reconnect after those.
    for code in [
        close::SESSION_ENDED,
        close::SESSION_DELETED,
        close::SESSION_NOT_FOUND,
        close::NODE_GONE,
        close::ORIGIN_FORBIDDEN,
    ] {
        assert!(last.contains(&u32::from(code)), "FINAL lacks {code}");
    }
    for code in [
        close::GOING_AWAY,
        close::INTERNAL_ERROR,
        close::SERVICE_RESTART,
    ] {
        assert!(!last.contains(&u32::from(code)), "FINAL holds {code}");
    }
    // An upgrade in place: the client reconnects at once, no overlay.
    assert!(
        conn.contains(&format!("SERVICE_RESTART = {}", close::SERVICE_RESTART)),
        "web/connection.js names 1012"
    );
    let term = web("terminal.js");
    let texts = between(&term, "STATUS_TEXT = {", "}", "web/terminal.js");
    for line in texts.lines().filter(|l| l.contains(':')) {
        let code: u16 = line
            .trim()
            .split(':')
            .next()
            .and_then(|c| c.parse().ok())
            .unwrap_or_else(|| panic!("web/terminal.js STATUS_TEXT line {line:?}"));
        assert!(
            known.contains(&code),
            "web/terminal.js STATUS_TEXT: unknown close code {code}"
        );
    }
}

#[test]
fn the_clients_key_codes_are_the_protocols() {
    let js = web("protocol.js");
    let table = between(&js, "export const KEYS = {", "};", "web/protocol.js");
    let mut keys: BTreeMap<String, u32> = table
        .split(',')
        .filter_map(|entry| entry.split_once(':'))
        .map(|(name, code)| (name.trim().to_string(), numbers(code)[0]))
        .collect();
    // The two ranges the client fills in with loops.
    let rest = &js[js.find("export const KEYS = {").unwrap_or(0)..];
    assert!(
        rest.contains("for (let n = 1; n <= 24; n++) KEYS['F' + n] = 0x1f + n;"),
        "web/protocol.js: the F1-F24 loop changed"
    );
    assert!(
        rest.contains("for (let n = 0; n <= 9; n++) KEYS['Kp' + n] = 0x40 + n;"),
        "web/protocol.js: the Kp0-Kp9 loop changed"
    );
    for n in 1..=24 {
        keys.insert(format!("F{n}"), 0x1f + n);
    }
    for n in 0..=9 {
        keys.insert(format!("Kp{n}"), 0x40 + n);
    }
    let proto: BTreeMap<String, u32> = NamedKey::ALL
        .iter()
        .map(|k| (k.name().to_string(), u32::from(k.code())))
        .collect();
    assert_eq!(keys, proto);
}

#[test]
fn key_events_are_the_protocols() {
    let text = web("protocol.js");
    let consts = between(&text, "export const KEY_PRESS", ";", "web/protocol.js");
    let names: Vec<&str> = consts
        .split(',')
        .map(|part| part.split('=').next().unwrap_or("").trim())
        .collect();
    assert_eq!(names, ["", "KEY_REPEAT", "KEY_RELEASE"], "web/protocol.js");
    let proto: Vec<u32> = KeyEvent::ALL.iter().map(|e| *e as u32).collect();
    assert_eq!(
        numbers(consts),
        proto,
        "web/protocol.js: KEY_PRESS, KEY_REPEAT, KEY_RELEASE"
    );
}

//! The values the server and the web client share that are not wire
//! constants, kept equal: the web client (`web/*.js`) has no build step, so
//! this test reads the JavaScript and checks it against the Rust source of
//! truth. A failure names the file and the value to update.
//!
//! - the themes of web/palette.js are `proto::Theme::ALL`, each with the
//!   colours of `render::theme`'s theme of that name: what a program reads
//!   back with OSC 4/10/11/12 is what a viewer sees;
//! - the link schemes (`LINK_SCHEMES` in web/links.js) are
//!   `render::LINK_SCHEMES`.
//!
//! The wire's constants (message types, close codes, key codes and events,
//! flags) are not checked here: they are generated from `panecast_proto`
//! into web/protocol.js, and proto/tests/js_constants.rs keeps them equal.

use std::path::Path;

use panecast::render::theme;
use panecast::render::LINK_SCHEMES;
use panecast::session::colors_of;

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
        let colors = colors_of(theme);
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
fn the_client_offers_the_servers_themes_only() {
    let js = web("palette.js");
    let table = between(&js, "export const THEMES = {", "\n};", "web/palette.js");
    let offered: Vec<&str> = table
        .lines()
        .filter_map(|line| line.strip_prefix("  ")?.strip_suffix(": {"))
        .collect();
    let known: Vec<&str> = panecast_proto::Theme::ALL
        .iter()
        .map(|theme| theme.name())
        .collect();
    assert_eq!(offered, known, "web/palette.js THEMES");
}

#[test]
fn the_client_follows_the_servers_link_policy() {
    let js = web("links.js");
    let list = between(&js, "LINK_SCHEMES = [", "]", "web/links.js");
    let schemes: Vec<&str> = list
        .split(',')
        .map(|s| s.trim().trim_matches('\''))
        .filter(|s| !s.is_empty())
        .collect();
    assert_eq!(schemes, LINK_SCHEMES);
}

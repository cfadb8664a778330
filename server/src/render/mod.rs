//! Turns a [`Snapshot`] into the formats `panecast render` and the screen API
//! offer: plain text, the screen JSON, an ANSI redraw stream, HTML and SVG.

pub(crate) mod ansi;
mod html;
pub(crate) mod images;
mod json;
mod markup;
mod svg;
mod text;
pub mod theme;

use std::str::FromStr;

use panecast_term::Snapshot;

pub use json::{ImageJson, RevisedScreen, ScreenJson};
pub use markup::LINK_SCHEMES;
pub use svg::{CELL_HEIGHT, CELL_WIDTH};

/// An output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Format {
    /// The visible lines, trailing blanks trimmed.
    #[default]
    Text,
    /// The screen JSON of the corpus README.
    Json,
    /// A stream of escape sequences that redraws the screen on a terminal of the same size.
    Ansi,
    /// A `<pre class="panecast">` fragment with inline styles.
    Html,
    /// A self-contained SVG image of the screen.
    Svg,
}

impl FromStr for Format {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "text" => Ok(Format::Text),
            "json" => Ok(Format::Json),
            "ansi" => Ok(Format::Ansi),
            "html" => Ok(Format::Html),
            "svg" => Ok(Format::Svg),
            other => Err(format!(
                "unknown format '{other}' (expected text, json, ansi, html or svg)"
            )),
        }
    }
}

impl Format {
    /// The HTTP content type of this format.
    pub fn content_type(self) -> &'static str {
        match self {
            Format::Text => "text/plain; charset=utf-8",
            Format::Json => "application/json",
            Format::Ansi => "text/plain; charset=utf-8",
            Format::Html => "text/html; charset=utf-8",
            Format::Svg => "image/svg+xml",
        }
    }
}

/// Renders a snapshot in `format`.
pub fn render(snapshot: &Snapshot, format: Format) -> String {
    match format {
        Format::Text => text::render(snapshot),
        Format::Json => json::render(snapshot),
        Format::Ansi => ansi::render(snapshot),
        Format::Html => html::render(snapshot),
        Format::Svg => svg::render(snapshot),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_format_parses_by_name() {
        for (name, format) in [
            ("text", Format::Text),
            ("json", Format::Json),
            ("ansi", Format::Ansi),
            ("html", Format::Html),
            ("svg", Format::Svg),
        ] {
            assert_eq!(name.parse::<Format>(), Ok(format));
            assert!(!format.content_type().is_empty());
        }
        let err = "bogus".parse::<Format>().unwrap_err();
        assert_eq!(
            err,
            "unknown format 'bogus' (expected text, json, ansi, html or svg)"
        );
    }
}

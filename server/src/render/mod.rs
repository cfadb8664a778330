//! Turns a [`Snapshot`] into the formats `panecast render` and the screen API
//! offer: plain text, the screen JSON, an ANSI redraw stream, HTML and SVG.

mod json;
mod text;

use std::str::FromStr;

use crate::term::Snapshot;

pub use json::ScreenJson;

/// An output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Format {
    /// The visible lines, trailing blanks trimmed.
    #[default]
    Text,
    /// The screen JSON of the corpus README.
    Json,
}

impl FromStr for Format {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "text" => Ok(Format::Text),
            "json" => Ok(Format::Json),
            other => Err(format!("unknown format '{other}' (expected text or json)")),
        }
    }
}

impl Format {
    /// The HTTP content type of this format.
    pub fn content_type(self) -> &'static str {
        match self {
            Format::Text => "text/plain; charset=utf-8",
            Format::Json => "application/json",
        }
    }
}

/// Renders a snapshot in `format`.
pub fn render(snapshot: &Snapshot, format: Format) -> String {
    match format {
        Format::Text => text::render(snapshot),
        Format::Json => json::render(snapshot),
    }
}

//! panecast: a headless terminal-rendering service.
//!
//! The emulator lives in [`term`]; [`render`] turns a screen into text, JSON,
//! ANSI, HTML or SVG; [`stream`] turns screens into wire frames for
//! viewers; [`cli`] is the command line.

pub mod assets;
pub mod cli;
pub mod render;
pub mod stream;
pub mod term;

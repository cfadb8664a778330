//! panecast: a headless terminal-rendering service.
//!
//! The emulator lives in [`term`]; [`render`] turns a screen into text, JSON,
//! ANSI, HTML or SVG; [`stream`] turns screens into wire frames for
//! viewers. [`pty`] runs children in pseudo-terminals, [`session`] keeps one
//! actor per child that owns its screen, run with every other on the
//! emulator [`pool`] (the ptys on one event loop), [`input`] encodes keys, and [`api`]
//! serves it all over HTTP behind the one access check of [`access`];
//! [`config`] holds profiles and limits, [`cli`] is the command line
//! ([`attach`] its terminal client),
//! [`health`] its health probe, [`tls`] the built-in TLS, and [`assets`]
//! holds the web client's files; [`secret_file`] reads secrets from files;
//! [`upgrade`] hands every session over across a re-exec of the binary
//! (SIGUSR2).

pub mod access;
pub mod api;
pub mod assets;
pub mod attach;
pub mod cli;
pub mod cluster;
pub mod cluster_config;
pub mod config;
pub mod files;
pub mod health;
pub mod http_client;
pub mod input;
pub mod pool;
pub mod pty;
pub mod random;
pub mod record;
pub mod render;
pub mod scrub;
pub mod secret_file;
pub mod session;
pub mod stream;
pub mod time;
pub mod tls;
pub mod upgrade;

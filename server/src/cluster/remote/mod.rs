//! Sessions across the nodes of a cluster (`serve --cluster`).
//!
//! - The owner node answers other nodes' asks about its sessions, on one
//!   subscription, and publishes the screens of the sessions they watch
//!   ([`owner`]).
//! - A node with viewers of another node's session keeps one mirror of
//!   it: a session whose screens come from its owner's messages and whose
//!   commands go to its owner as asks ([`mirror`]).
//! - A node starts a session on another by asking it ([`create`]).
//! - Recordings stay on their owner's disk; any node lists, reads and
//!   deletes them by asking it ([`recordings`]).
//!
//! Without a cluster nothing here runs.

mod ask;
mod create;
mod incoming;
mod mirror;
mod owner;
pub(super) mod recordings;

pub(super) use create::create_on;
pub(super) use mirror::{open as open_mirror, OpenError};
pub(super) use owner::serve_asks;

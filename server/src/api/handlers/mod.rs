//! The REST handlers: sessions and their creation, share links, files,
//! recordings, search, wait, the pages of the web client and the routes
//! outside the session API.

pub(super) mod files;
pub(super) mod links;
pub(super) mod ops;
pub(super) mod pages;
pub(super) mod recordings;
pub(super) mod search;
pub(super) mod sessions;
pub(super) mod view;
pub(super) mod wait;

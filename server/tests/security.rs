//! The security suite: one file per concern under `tests/security/`. Each
//! case states the attack it tries and asserts the exact refusal.

mod common;

#[path = "security/support.rs"]
mod support;

#[path = "security/bodies.rs"]
mod bodies;
#[path = "security/connections.rs"]
mod connections;
#[path = "security/cookies.rs"]
mod cookies;
#[path = "security/credentials.rs"]
mod credentials;
#[path = "security/csrf.rs"]
mod csrf;
#[path = "security/expensive_sequences.rs"]
mod expensive_sequences;
#[path = "security/framing.rs"]
mod framing;
#[path = "security/leftovers.rs"]
mod leftovers;
#[path = "security/limits.rs"]
mod limits;
#[path = "security/links.rs"]
mod links;
#[path = "security/process.rs"]
mod process;
#[path = "security/resize.rs"]
mod resize;
#[path = "security/roles.rs"]
mod roles;
#[path = "security/starvation_search.rs"]
mod starvation_search;
#[path = "security/traversal.rs"]
mod traversal;

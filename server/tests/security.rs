//! The security suite: one file per concern under `tests/security/`. Each
//! case states the attack it tries and asserts the exact refusal.

mod common;

#[path = "security/support.rs"]
mod support;

#[path = "security/admin_token.rs"]
mod admin_token;
#[path = "security/bodies.rs"]
mod bodies;
#[path = "security/cluster_bus.rs"]
mod cluster_bus;
#[path = "security/connections.rs"]
mod connections;
#[path = "security/cookies.rs"]
mod cookies;
#[path = "security/credentials.rs"]
mod credentials;
#[path = "security/csrf.rs"]
mod csrf;
#[path = "security/events.rs"]
mod events;
#[path = "security/expensive_sequences.rs"]
mod expensive_sequences;
#[path = "security/files.rs"]
mod files;
#[path = "security/forwarded.rs"]
mod forwarded;
#[path = "security/framing.rs"]
mod framing;
#[path = "security/isolation.rs"]
mod isolation;
#[path = "security/leftovers.rs"]
mod leftovers;
#[path = "security/limits.rs"]
mod limits;
#[path = "security/links.rs"]
mod links;
#[path = "security/login_csrf.rs"]
mod login_csrf;
#[path = "security/logs.rs"]
mod logs;
#[path = "security/mcp.rs"]
mod mcp;
#[path = "security/metrics_access.rs"]
mod metrics_access;
#[path = "security/names.rs"]
mod names;
#[path = "security/oidc_cookie.rs"]
mod oidc_cookie;
#[path = "security/origins.rs"]
mod origins;
#[path = "security/probing.rs"]
mod probing;
#[path = "security/process.rs"]
mod process;
#[path = "security/proxy_header.rs"]
mod proxy_header;
#[path = "security/recordings_cut.rs"]
mod recordings_cut;
#[path = "security/resize.rs"]
mod resize;
#[path = "security/roles.rs"]
mod roles;
#[path = "security/scopes.rs"]
mod scopes;
#[path = "security/signin_rate.rs"]
mod signin_rate;
#[path = "security/starvation_alis.rs"]
mod starvation_alis;
#[path = "security/starvation_connections.rs"]
mod starvation_connections;
#[path = "security/starvation_memory.rs"]
mod starvation_memory;
#[path = "security/starvation_replays.rs"]
mod starvation_replays;
#[path = "security/starvation_search.rs"]
mod starvation_search;
#[path = "security/starvation_viewers.rs"]
mod starvation_viewers;
#[path = "security/starvation_waits.rs"]
mod starvation_waits;
#[path = "security/traversal.rs"]
mod traversal;

//! `/mcp`: the Model Context Protocol over Streamable HTTP (the official
//! Rust SDK, `rmcp`), behind the same [guard](crate::api::auth::guard) as `/api`.
//!
//! The service is stateless: every POST is one JSON-RPC message, served
//! by a fresh [`Tools`](tools::Tools) and forgotten once answered, so an
//! MCP client holds no state on the server and no credential can fill
//! memory by opening MCP sessions (there are none to open: the server
//! sends no `Mcp-Session-Id`). What a request may cost is bounded as for
//! the rest of the API: the body by `max_body_bytes`, concurrent requests
//! by the connection limits, and every tool by the same session limits
//! (input rate, read pacing, session count) as the route it stands for.

mod screen;
mod tools;

use std::sync::Arc;

use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use crate::api::state::AppState;

/// The route it is served at (below `base_path`, if any).
pub const ROUTE: &str = "/mcp";

/// The MCP service: stateless, answering plain JSON when a tool sends no
/// progress. The Host and Origin checks, authentication and the CSRF
/// check are the guard's, in front of it, so the SDK's own Host list is
/// off (it would only know loopback names).
pub fn service(state: &AppState) -> StreamableHttpService<tools::Tools, NeverSessionManager> {
    let mut config = StreamableHttpServerConfig::default()
        .disable_allowed_hosts()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_max_request_body_bytes(state.config.limits.max_body_bytes);
    config.sse_keep_alive = None;
    let tools = tools::Tools::new(state.clone());
    StreamableHttpService::new(
        move || Ok(tools.clone()),
        Arc::new(NeverSessionManager::default()),
        config,
    )
}

//! The streams a session is watched through: the WebSocket stream (and a
//! recording replayed over it), ALiS, Server-Sent Events and MCP.

pub(super) mod alis;
pub(super) mod events;
pub(super) mod mcp;
pub(super) mod replay;
pub(super) mod ws;

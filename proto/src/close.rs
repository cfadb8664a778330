//! WebSocket close codes used by panecast (PROTOCOL.md, "Errors and close
//! codes"). The codes below 4000 are RFC 6455's; the 4000 range is panecast's.
//! An `Error` message sent just before a close carries the same code.

/// 1000: the work is done (the client navigated away, or the server ends a
/// connection it no longer needs).
pub const NORMAL: u16 = 1000;

/// 1001: the server is shutting down (or the page is going away).
pub const GOING_AWAY: u16 = 1001;

/// 1002: a malformed message (truncated, overlong varint, invalid UTF-8, a
/// value out of range, trailing bytes), or an unsupported protocol version.
pub const PROTOCOL_ERROR: u16 = 1002;

/// 1003: an unknown message type, or a text (non-binary) WebSocket message.
pub const UNSUPPORTED_DATA: u16 = 1003;

/// 1008: a policy violation, e.g. a `view` connection sent input or a resize.
pub const POLICY_VIOLATION: u16 = 1008;

/// 1009: a message, string or list bigger than its limit.
pub const MESSAGE_TOO_BIG: u16 = 1009;

/// 1011: the server hit an unexpected internal error.
pub const INTERNAL_ERROR: u16 = 1011;

/// 1012: the server restarts (an upgrade in place): every session goes on,
/// and the client reconnects at once to find the same screen.
pub const SERVICE_RESTART: u16 = 1012;

/// 4001: the session's program exited and the session ended (an `Exit`
/// message was sent first).
pub const SESSION_ENDED: u16 = 4001;

/// 4002: the session was deleted through the API.
pub const SESSION_DELETED: u16 = 4002;

/// 4003: the credential the connection was opened with was revoked or
/// expired (a share link). Reconnecting needs a new credential.
pub const ACCESS_REVOKED: u16 = 4003;

/// 4004: no session has the requested id.
pub const SESSION_NOT_FOUND: u16 = 4004;

/// 4005: the node of a cluster that ran the session is gone (killed, cut
/// off): the session is lost. Sent by the other nodes to their viewers of
/// it.
pub const NODE_GONE: u16 = 4005;

/// 4006: the upgrade came with a cookie from a page whose origin is not the
/// server's (nor in its `allowed_origins`): accepted only to be closed at
/// once, with what would allow it as the reason (a page cannot read an
/// HTTP refusal). Reconnecting cannot help.
pub const ORIGIN_FORBIDDEN: u16 = 4006;

/// 4008: the client sent input faster than the server's input rate limit.
pub const RATE_LIMITED: u16 = 4008;

/// 4010: the connection was idle longer than the server's idle timeout.
pub const IDLE_TIMEOUT: u16 = 4010;

/// 4029: the session already has as many viewers as the server allows.
pub const TOO_MANY_VIEWERS: u16 = 4029;

/// 4100: not a close code. An `Error` with this code is a warning: some input
/// was dropped (for example by the rate limit) and the connection stays open.
pub const INPUT_DROPPED: u16 = 4100;

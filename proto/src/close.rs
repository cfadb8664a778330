//! WebSocket close codes used by panecast (PROTOCOL.md, "Errors and close
//! codes"). The codes below 4000 are RFC 6455's; the 4000 range is panecast's.
//! An `Error` message sent just before a close carries the same code.

/// Declares each close code once, as a `pub const`, and [`ALL`] from the
/// same list.
macro_rules! close_codes {
    ($($(#[$doc:meta])* $name:ident = $code:literal;)*) => {
        $($(#[$doc])* pub const $name: u16 = $code;)*

        /// Every code of this module with its name, in this order (the web
        /// client's `CLOSE` table is generated from it).
        pub const ALL: &[(&str, u16)] = &[$((stringify!($name), $name)),*];
    };
}

close_codes! {
    /// 1000: the work is done (the client navigated away, or the server ends a
    /// connection it no longer needs).
    NORMAL = 1000;

    /// 1001: the server is shutting down (or the page is going away).
    GOING_AWAY = 1001;

    /// 1002: a malformed message (truncated, overlong varint, invalid UTF-8, a
    /// value out of range, trailing bytes), or an unsupported protocol version.
    PROTOCOL_ERROR = 1002;

    /// 1003: an unknown message type, or a text (non-binary) WebSocket message.
    UNSUPPORTED_DATA = 1003;

    /// 1008: a policy violation, e.g. a `view` connection sent input or a resize.
    POLICY_VIOLATION = 1008;

    /// 1009: a message, string or list bigger than its limit.
    MESSAGE_TOO_BIG = 1009;

    /// 1011: the server hit an unexpected internal error.
    INTERNAL_ERROR = 1011;

    /// 1012: the server restarts (an upgrade in place): every session goes on,
    /// and the client reconnects at once to find the same screen.
    SERVICE_RESTART = 1012;

    /// 4000: sent by a client, not the server: the server's message did not
    /// decode, and the client closes before reconnecting.
    MALFORMED_FROM_SERVER = 4000;

    /// 4001: the session's program exited and the session ended (an `Exit`
    /// message was sent first).
    SESSION_ENDED = 4001;

    /// 4002: the session was deleted through the API.
    SESSION_DELETED = 4002;

    /// 4003: the credential the connection was opened with was revoked or
    /// expired (a share link). Reconnecting needs a new credential.
    ACCESS_REVOKED = 4003;

    /// 4004: no session has the requested id.
    SESSION_NOT_FOUND = 4004;

    /// 4005: the node of a cluster that ran the session is gone (killed, cut
    /// off): the session is lost. Sent by the other nodes to their viewers of
    /// it.
    NODE_GONE = 4005;

    /// 4006: the upgrade came with a cookie from a page whose origin is not the
    /// server's (nor in its `allowed_origins`): accepted only to be closed at
    /// once, with what would allow it as the reason (a page cannot read an
    /// HTTP refusal). Reconnecting cannot help.
    ORIGIN_FORBIDDEN = 4006;

    /// 4008: the client sent input faster than the server's input rate limit.
    RATE_LIMITED = 4008;

    /// 4010: the connection was idle longer than the server's idle timeout.
    IDLE_TIMEOUT = 4010;

    /// 4029: the session already has as many viewers as the server allows.
    TOO_MANY_VIEWERS = 4029;

    /// 4100: not a close code. An `Error` with this code is a warning: some input
    /// was dropped (for example by the rate limit) and the connection stays open.
    INPUT_DROPPED = 4100;
}

/// The codes of an `Error` that warns and does not close, 4100 to 4199:
/// a client shows its message and keeps the connection.
pub const WARNINGS: std::ops::Range<u16> = INPUT_DROPPED..4200;

/// The codes after which a client does not reconnect, since the next
/// connection would be closed the same way (PROTOCOL.md section 8): the
/// session is gone or refused, the credential or origin is refused, the
/// client itself is at fault, or the user went idle.
pub const FINAL: [u16; 13] = [
    NORMAL,
    PROTOCOL_ERROR,
    UNSUPPORTED_DATA,
    POLICY_VIOLATION,
    MESSAGE_TOO_BIG,
    SESSION_ENDED,
    SESSION_DELETED,
    ACCESS_REVOKED,
    SESSION_NOT_FOUND,
    NODE_GONE,
    ORIGIN_FORBIDDEN,
    IDLE_TIMEOUT,
    TOO_MANY_VIEWERS,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_reconnects_after_a_passing_fault_only() {
        let passing = [
            GOING_AWAY,
            INTERNAL_ERROR,
            SERVICE_RESTART,
            RATE_LIMITED,
            INPUT_DROPPED,
            MALFORMED_FROM_SERVER,
        ];
        for code in passing {
            assert!(!FINAL.contains(&code), "{code} is final");
        }
        assert!(FINAL.iter().all(|code| ALL.iter().any(|(_, c)| c == code)));
        assert!(WARNINGS.contains(&INPUT_DROPPED));
        assert!(ALL
            .iter()
            .all(|(_, code)| *code == INPUT_DROPPED || !WARNINGS.contains(code)));
    }
}

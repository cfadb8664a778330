//! Every error code the API answers, each declared once with its HTTP
//! status and a one-line meaning. `docs/api.md`'s error table is checked
//! against this list by a test, and the OpenAPI document shows the codes
//! as the enum of `ErrorBody.code`.

use axum::http::StatusCode;
use serde::Serialize;
use utoipa::ToSchema;

/// Declares [`ErrorCode`]: `Variant "code" STATUS "meaning";` per code.
macro_rules! error_codes {
    ($($variant:ident $code:literal $status:ident $meaning:literal;)*) => {
        /// A stable, machine-readable error code; serialized as its string.
        /// Each variant's name is its code in snake case (the tests check
        /// that `as_str` and the serialized form agree).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, ToSchema)]
        #[serde(rename_all = "snake_case")]
        pub enum ErrorCode {
            $(
                #[doc = $meaning]
                $variant,
            )*
        }

        impl ErrorCode {
            /// Every code, in declaration order.
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$variant),*];

            /// The code as clients see it, such as `session_not_found`.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(ErrorCode::$variant => $code,)*
                }
            }

            /// The HTTP status this code is answered with.
            pub fn status(self) -> StatusCode {
                match self {
                    $(ErrorCode::$variant => StatusCode::$status,)*
                }
            }

            /// What the code means, in one line.
            pub fn meaning(self) -> &'static str {
                match self {
                    $(ErrorCode::$variant => $meaning,)*
                }
            }
        }
    };
}

error_codes! {
    BadJson "bad_json" BAD_REQUEST "the body is not JSON of the route's shape";
    BadBody "bad_body" BAD_REQUEST "the body could not be read";
    BadRequest "bad_request" BAD_REQUEST "conflicting or missing fields";
    BadSize "bad_size" BAD_REQUEST "cols or rows out of range";
    BadCount "bad_count" BAD_REQUEST "MCP read_scrollback: count out of range";
    BadArguments "bad_arguments" BAD_REQUEST "MCP: a tool's arguments do not match its schema";
    BadScrollback "bad_scrollback" BAD_REQUEST "scrollback over its limits";
    BadCommand "bad_command" BAD_REQUEST "an empty command, or one with a NUL byte";
    BadEnv "bad_env" BAD_REQUEST "a bad environment variable";
    BadCwd "bad_cwd" BAD_REQUEST "cwd is not an existing directory";
    UnknownProfile "unknown_profile" BAD_REQUEST "no profile of that name";
    UnknownKey "unknown_key" BAD_REQUEST "a key name input does not know";
    BadFormat "bad_format" BAD_REQUEST "an unknown screen format";
    BadQuery "bad_query" BAD_REQUEST "a malformed query string";
    BadPattern "bad_pattern" BAD_REQUEST "a search's or wait's pattern is empty, too long or invalid";
    BadLimit "bad_limit" BAD_REQUEST "a search's limit out of range";
    BadRole "bad_role" BAD_REQUEST "an unknown stream or link role";
    BadName "bad_name" BAD_REQUEST "a session or upload name that is not allowed";
    BadTtl "bad_ttl" BAD_REQUEST "a link's ttl of 0 or over the maximum";
    BadLabel "bad_label" BAD_REQUEST "a link's label empty, too long or with control characters";
    BadToken "bad_token" BAD_REQUEST "a token that cannot be stored in a cookie";
    SpawnFailed "spawn_failed" BAD_REQUEST "the program could not be started";
    Unauthorized "unauthorized" UNAUTHORIZED "no valid credential";
    TooManyAuthFailures "too_many_auth_failures" TOO_MANY_REQUESTS "this address presented too many wrong credentials this minute";
    Forbidden "forbidden" FORBIDDEN "the credential may not do this";
    Csrf "csrf" FORBIDDEN "a cookie-authenticated write not from this server's pages";
    NoRule "no_rule" FORBIDDEN "signed in, but no auth rule names the user";
    BadState "bad_state" BAD_REQUEST "no sign-in under way in this browser, or a foreign state";
    SigninFailed "signin_failed" BAD_REQUEST "the provider refused the code";
    BadHost "bad_host" BAD_REQUEST "no redirect_url and no Host to make one from";
    BadIdToken "bad_id_token" UNAUTHORIZED "the ID token fails its verification";
    SigninDenied "signin_denied" FORBIDDEN "the sign-in was not completed at the provider";
    SigninNotConfigured "signin_not_configured" NOT_FOUND "the server has no OpenID sign-in";
    ProviderUnavailable "provider_unavailable" SERVICE_UNAVAILABLE "the OpenID provider cannot be reached or read";
    FilesDisabled "files_disabled" FORBIDDEN "the session's profile does not move files";
    OutsideCwd "outside_cwd" FORBIDDEN "a download path that leads out of the working directory";
    FileDenied "file_denied" FORBIDDEN "the session's user may not write or read that file";
    BadPath "bad_path" BAD_REQUEST "a path that is empty, absolute, holds NUL or cannot be a cookie path";
    NotAFile "not_a_file" BAD_REQUEST "a download path that is not a regular file";
    FileNotFound "file_not_found" NOT_FOUND "no file at that download path";
    FileExists "file_exists" CONFLICT "an upload to an existing name without overwrite";
    FilesOnOwner "files_on_owner" CONFLICT "a file route on a node that mirrors the session";
    TooLarge "too_large" PAYLOAD_TOO_LARGE "a file over the upload limit";
    FileIo "file_io" INTERNAL_SERVER_ERROR "a file could not be read or written";
    OriginForbidden "origin_forbidden" FORBIDDEN "a cookie-authenticated stream from a foreign origin";
    SessionNotFound "session_not_found" NOT_FOUND "no session with that id or name in reach";
    LinkNotFound "link_not_found" NOT_FOUND "no live link with that id on the session";
    NotFound "not_found" NOT_FOUND "no such route";
    BadRecordingName "bad_recording_name" BAD_REQUEST "a recording name with characters not allowed";
    RecordingNotFound "recording_not_found" NOT_FOUND "no such recording in reach";
    NotRecorded "not_recorded" NOT_FOUND "the session is not recorded";
    RecordingLive "recording_live" CONFLICT "the recording's session still records";
    BadMarker "bad_marker" BAD_REQUEST "a marker label that is too long";
    NotRecording "not_recording" CONFLICT "a marker for a session that is not recording";
    RecordingTooLarge "recording_too_large" PAYLOAD_TOO_LARGE "a replay of a recording over the replay limit";
    BadRecording "bad_recording" UNPROCESSABLE_ENTITY "a replay of a file that is not asciicast v2";
    TooManyReplays "too_many_replays" TOO_MANY_REQUESTS "too many replays are open";
    RecordingFailed "recording_failed" INTERNAL_SERVER_ERROR "a recorded session's file could not be created";
    RecordingIo "recording_io" INTERNAL_SERVER_ERROR "the recordings directory could not be read";
    MethodNotAllowed "method_not_allowed" METHOD_NOT_ALLOWED "the route does not take that method";
    SessionExited "session_exited" CONFLICT "the session's program has exited";
    ReplayReadOnly "replay_read_only" CONFLICT "input or a resize sent to a replay, which is read-only";
    BadWait "bad_wait" BAD_REQUEST "a wait with no condition";
    BadTimeout "bad_timeout" BAD_REQUEST "a wait's timeout over the maximum";
    WaitTimeout "wait_timeout" REQUEST_TIMEOUT "no condition of a wait held in time";
    TooManyViewers "too_many_viewers" TOO_MANY_REQUESTS "the session's viewer slots are taken";
    TooManyWaits "too_many_waits" TOO_MANY_REQUESTS "too many waits are open on the session";
    NameTaken "name_taken" CONFLICT "a session already has that name";
    NameReserved "name_reserved" CONFLICT "the name belongs to a declared session";
    UnknownHost "unknown_host" MISDIRECTED_REQUEST "the Host is not one this server answers to";
    UpgradeRequired "upgrade_required" UPGRADE_REQUIRED "a stream route asked without a WebSocket upgrade";
    BodyTooLarge "body_too_large" PAYLOAD_TOO_LARGE "the body is over the limit";
    TooManySessions "too_many_sessions" TOO_MANY_REQUESTS "no room for another session";
    InputRateLimited "input_rate_limited" TOO_MANY_REQUESTS "more input than the session's rate allows";
    ReadsPaced "reads_paced" TOO_MANY_REQUESTS "this credential's reads took their share of the session";
    TooManyLinks "too_many_links" TOO_MANY_REQUESTS "the session has the most live links it may";
    InputBusy "input_busy" TOO_MANY_REQUESTS "the program is not reading its input";
    ResizeFailed "resize_failed" INTERNAL_SERVER_ERROR "the terminal could not be resized";
    Internal "internal" INTERNAL_SERVER_ERROR "the server could not do something it needs";
    ShuttingDown "shutting_down" SERVICE_UNAVAILABLE "the server is shutting down";
    ShortOfDescriptors "short_of_descriptors" SERVICE_UNAVAILABLE "no open file left for a new session";
    ShortOfProcesses "short_of_processes" SERVICE_UNAVAILABLE "the system could not start another process";
    ShortOfTerminals "short_of_terminals" SERVICE_UNAVAILABLE "the system has no pseudo-terminal left";
    NodeNotFound "node_not_found" NOT_FOUND "no live node of that name in the cluster";
    ClusterUnavailable "cluster_unavailable" SERVICE_UNAVAILABLE "NATS, the registry or the session's node cannot be reached";
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    /// `(status, code)` of every row of docs/api.md's error table.
    fn documented() -> BTreeSet<(u16, String)> {
        let doc = include_str!("../../../docs/api.md");
        let table = doc
            .split("\n## Errors\n")
            .nth(1)
            .expect("docs/api.md has an Errors section");
        table
            .lines()
            .filter_map(|line| {
                let cells: Vec<&str> = line.split('|').map(str::trim).collect();
                let status = cells.get(1)?.parse().ok()?;
                let code = cells.get(2)?.trim_matches('`').to_owned();
                Some((status, code))
            })
            .collect()
    }

    #[test]
    fn the_docs_table_lists_every_code_with_its_status_and_no_other() {
        let declared: BTreeSet<(u16, String)> = ErrorCode::ALL
            .iter()
            .map(|code| (code.status().as_u16(), code.as_str().to_owned()))
            .collect();
        let documented = documented();
        let missing: Vec<_> = declared.difference(&documented).collect();
        let extra: Vec<_> = documented.difference(&declared).collect();
        assert!(
            missing.is_empty() && extra.is_empty(),
            "docs/api.md's error table lacks {missing:?} and has {extra:?}, which ErrorCode does not declare"
        );
    }

    #[test]
    fn serializes_as_its_string() {
        for code in ErrorCode::ALL {
            assert_eq!(
                serde_json::to_value(code).expect("a code serializes"),
                serde_json::Value::from(code.as_str())
            );
        }
        let codes: BTreeSet<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
        assert_eq!(
            codes.len(),
            ErrorCode::ALL.len(),
            "a code is declared twice"
        );
    }
}

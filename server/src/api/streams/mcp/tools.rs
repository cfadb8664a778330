//! The MCP tools. Each resolves its session within the caller's scope and
//! role and calls the function the HTTP route of the same job calls, so
//! every rule (scope, role, limits, audit) is the API's; a refusal is a
//! tool error (`isError: true`) whose text is the API's error body,
//! `{"error": message, "code": code}`.

use crate::api::error::ErrorCode;
use axum::extract::FromRef;
use axum::http::request::Parts;
use rmcp::handler::server::tool::{Extension, ToolCallContext, ToolRouter};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{tool, tool_handler, tool_router, ErrorData, RoleServer, ServerHandler};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::access::Action;
use crate::render::ScreenJson;
use crate::session::wait::WaitRequest;
use crate::session::SessionHandle;
use panecast_proto::limits::MAX_SCROLLBACK_LINES;

use super::screen;
use crate::api::auth::auth_state::AuthState;
use crate::api::auth::caller::Caller;
use crate::api::auth::guard;
use crate::api::error::ApiError;
use crate::api::handlers::search;
use crate::api::handlers::sessions;
use crate::api::handlers::wait;
use crate::api::spec::CreateRequest;
use crate::api::state::AppState;

/// What every tool answers: a result, or a tool error.
type Answer = Result<CallToolResult, ErrorData>;

/// The MCP server: the tools, with the state every handler shares.
#[derive(Clone)]
pub struct Tools {
    state: AppState,
    tool_router: ToolRouter<Tools>,
}

/// Names a session.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SessionArgs {
    /// The session's id (32 hex digits) or name, as `list_sessions` shows it.
    session: String,
}

/// The arguments of `start_session`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StartArgs {
    /// A configured profile to run (default `shell`); `list_sessions`
    /// does not show profiles, the server's configuration names them.
    profile: Option<String>,
    /// A program and its arguments to run instead of a profile, such as
    /// `["python3", "-q"]`; only when the server allows any command and the
    /// credential may start one.
    command: Option<Vec<String>>,
    /// A name for the session, unique among running sessions, usable
    /// wherever an id is: 1 to 64 letters, digits, `.`, `_` or `-`.
    name: Option<String>,
    /// Width in columns (default: the server's, usually 80).
    cols: Option<u16>,
    /// Height in rows (default: the server's, usually 24).
    rows: Option<u16>,
}

/// The arguments of `type`: exactly one of `text` or `keys`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TypeArgs {
    /// The session's id or name.
    session: String,
    /// Text to type as is (no Enter is added: send `keys: ["Enter"]` after it).
    text: Option<String>,
    /// Keys by name, pressed in order: `Enter`, `Tab`, `Backspace`,
    /// `Escape`, `Space`, `Up`, `Down`, `Left`, `Right`, `Home`, `End`,
    /// `PageUp`, `PageDown`, `Insert`, `Delete`, `F1`..`F12`, a single
    /// character, and modifiers as tmux writes them: `C-c` (Ctrl),
    /// `M-x` (Alt), `S-Up` (Shift).
    keys: Option<Vec<String>>,
}

/// The format `read_screen` answers in.
#[derive(Debug, Default, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ScreenFormat {
    /// One line per row, the cursor marked with `█`.
    #[default]
    Text,
    /// The screen JSON: size, cursor, title, lines and style runs.
    Json,
}

/// The arguments of `read_screen`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScreenArgs {
    /// The session's id or name.
    session: String,
    /// `text` (default): the rows as text with the cursor marked by `█`
    /// (inserted before the character under the cursor); `json`: the
    /// screen JSON, with the cursor's row and column (zero-based).
    #[serde(default)]
    format: ScreenFormat,
}

/// The arguments of `wait_for`: at least one condition; the first that
/// holds answers.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WaitArgs {
    /// The session's id or name.
    session: String,
    /// Text to wait for on the screen, case-sensitive, within one line
    /// (rows joined by a soft wrap are one line).
    text: Option<String>,
    /// A regular expression (Rust `regex` syntax, at most 1024 bytes) to
    /// wait for on the screen; case-sensitive unless it starts with `(?i)`.
    regex: Option<String>,
    /// Answer once the program printed nothing for this many milliseconds.
    idle_ms: Option<u64>,
    /// True: answer once the program has ended.
    exit: Option<bool>,
    /// Give up after this many milliseconds (default 30000, at most the
    /// server's `max_wait_ms`): a `wait_timeout` error with the screen.
    timeout_ms: Option<u64>,
    /// A revision, as `type` answers it: `text` and `regex` then match only
    /// rows that changed after it, so an old match on the screen does not answer.
    after: Option<u64>,
}

/// The arguments of `search`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchArgs {
    /// The session's id or name.
    session: String,
    /// The text to find (or a regular expression with `regex: true`).
    pattern: String,
    /// True: `pattern` is a Rust `regex` pattern. Default false.
    #[serde(default)]
    regex: bool,
    /// True: match case. Default false.
    #[serde(default)]
    case: bool,
    /// The most matches to answer, 1 to 1000 (default 100).
    limit: Option<usize>,
}

/// The arguments of `read_scrollback`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScrollbackArgs {
    /// The session's id or name.
    session: String,
    /// The first line to read, counting up from the screen: 1 is the
    /// line just above the screen's top row. Default 1.
    start: Option<u64>,
    /// How many lines, 1 to 1000 (default 100).
    count: Option<u16>,
}

/// What `read_scrollback` answers.
#[derive(Debug, Serialize)]
struct ScrollbackAnswer {
    /// Scrollback lines the session holds now.
    total: u64,
    /// The index of the last line of `lines` (the nearest to the screen).
    start: u64,
    /// The lines, oldest first: the last one is line `start`.
    lines: Vec<String>,
}

/// A refusal of the API, as a tool error carrying its body.
fn refused(error: ApiError) -> Answer {
    Ok(CallToolResult::structured_error(
        json!({ "error": error.message, "code": error.code }),
    ))
}

/// A JSON answer.
fn structured(value: impl Serialize) -> Answer {
    match serde_json::to_value(value) {
        Ok(value) => Ok(CallToolResult::structured(value)),
        Err(e) => Err(ErrorData::internal_error(e.to_string(), None)),
    }
}

#[tool_router]
impl Tools {
    /// The tools, over `state`.
    pub fn new(state: AppState) -> Tools {
        Tools {
            state,
            tool_router: Self::tool_router(),
        }
    }

    /// The session `asked` names, if the caller may do `action` to it.
    async fn reach(
        &self,
        parts: &Parts,
        asked: &str,
        action: Action,
    ) -> Result<(Caller, SessionHandle), ApiError> {
        let caller = Caller::of(parts)?;
        let session = guard::reach(
            &AuthState::from_ref(&self.state),
            caller.grant(),
            asked,
            action,
        )
        .await?;
        Ok((caller.clone(), session))
    }

    #[tool(
        name = "list_sessions",
        description = "List the terminal sessions you can reach, oldest first: each with its id, name, size, status (running or exited, with the exit code), your role in it (view, control or admin) and who is watching. Use an id or name from here as `session` in the other tools.",
        annotations(read_only_hint = true)
    )]
    async fn list_sessions(&self, Extension(parts): Extension<Parts>) -> Answer {
        let caller = match Caller::of(&parts) {
            Ok(caller) => caller,
            Err(error) => return refused(error),
        };
        match sessions::visible(&self.state, caller.grant()).await {
            Ok(list) => structured(json!({ "sessions": list })),
            Err(error) => refused(error),
        }
    }

    #[tool(
        name = "start_session",
        description = "Start a terminal session running a configured profile (default `shell`) or, where the server allows it, a command such as [\"python3\", \"-q\"]. Answers the new session (its `id` is what the other tools take). Give it a `name` to find it again easily."
    )]
    async fn start_session(
        &self,
        Extension(parts): Extension<Parts>,
        Parameters(args): Parameters<StartArgs>,
    ) -> Answer {
        let caller = match Caller::of(&parts) {
            Ok(caller) => caller,
            Err(error) => return refused(error),
        };
        if let Err(error) = guard::allow(caller.grant(), Action::Create, None, "") {
            return refused(error);
        }
        let request = CreateRequest {
            name: args.name,
            profile: args.profile,
            command: args.command,
            cols: args.cols.map(u64::from),
            rows: args.rows.map(u64::from),
            ..CreateRequest::default()
        };
        match sessions::start(&self.state, caller, request).await {
            Ok(session) => structured(sessions::view(&self.state, &session, caller.grant())),
            Err(error) => refused(error),
        }
    }

    #[tool(
        name = "end_session",
        description = "End a session: its program is hung up (then killed after a grace period) and the session disappears. Needs the admin role. Answers the session's final state.",
        annotations(destructive_hint = true)
    )]
    async fn end_session(
        &self,
        Extension(parts): Extension<Parts>,
        Parameters(args): Parameters<SessionArgs>,
    ) -> Answer {
        let (caller, session) = match self.reach(&parts, &args.session, Action::Delete).await {
            Ok(found) => found,
            Err(error) => return refused(error),
        };
        match sessions::end(&self.state, &caller, session).await {
            Ok(session) => structured(sessions::view(&self.state, &session, caller.grant())),
            Err(error) => refused(error),
        }
    }

    #[tool(
        name = "type",
        description = "Type into a session's program, as a person at the keyboard: either `text` (typed as is; add keys [\"Enter\"] in a second call, or end the text with a newline, to submit a line) or `keys` by name (Enter, Tab, Escape, Up, C-c for Ctrl-C, ...). Needs the control role. Answers `revision`, the revision of the last screen before the keys were written: pass it as `after` to wait_for to wait only for what they caused."
    )]
    async fn type_input(
        &self,
        Extension(parts): Extension<Parts>,
        Parameters(args): Parameters<TypeArgs>,
    ) -> Answer {
        let (caller, session) = match self.reach(&parts, &args.session, Action::Control).await {
            Ok(found) => found,
            Err(error) => return refused(error),
        };
        let input = match sessions::input_of(args.text, args.keys) {
            Ok(input) => input,
            Err(error) => return refused(error),
        };
        match sessions::type_into(&session, input, caller.grant()).await {
            Ok(revision) => structured(json!({ "revision": revision })),
            Err(error) => refused(error),
        }
    }

    #[tool(
        name = "wait_for",
        description = "Wait until something happens in a session, instead of reading the screen in a loop: `text` or `regex` appears on the screen, the output stays idle for `idle_ms`, or (`exit: true`) the program ends; the first that holds answers, with `matched` (text, regex, idle or exit), where (`at`: row, start, end) and the screen JSON then. After typing, pass the revision `type` answered as `after`, so only output that came after your keys can match. Times out after `timeout_ms` (default 30000) with the error code wait_timeout and the screen; session_exited if the program ended first.",
        annotations(read_only_hint = true)
    )]
    async fn wait_for(
        &self,
        Extension(parts): Extension<Parts>,
        Parameters(args): Parameters<WaitArgs>,
    ) -> Answer {
        let (caller, session) = match self.reach(&parts, &args.session, Action::Read).await {
            Ok(found) => found,
            Err(error) => return refused(error),
        };
        let request = WaitRequest {
            text: args.text,
            regex: args.regex,
            idle_ms: args.idle_ms,
            exit: args.exit,
            timeout_ms: args.timeout_ms,
            after: args.after,
        };
        match wait::run(&caller, &session, request).await {
            Ok(Ok(held)) => structured(held),
            Ok(Err(timeout)) => match serde_json::to_value(timeout) {
                Ok(body) => Ok(CallToolResult::structured_error(body)),
                Err(e) => Err(ErrorData::internal_error(e.to_string(), None)),
            },
            Err(error) => refused(error),
        }
    }

    #[tool(
        name = "read_screen",
        description = "Read what a session's terminal shows now. `text` (default): one line per row, trailing blanks trimmed, with the cursor marked by the character █ inserted where it is. `json`: the screen JSON (cols, rows, cursor {row, col} zero-based, alternate, title, lines, styles).",
        annotations(read_only_hint = true)
    )]
    async fn read_screen(
        &self,
        Extension(parts): Extension<Parts>,
        Parameters(args): Parameters<ScreenArgs>,
    ) -> Answer {
        let (_, session) = match self.reach(&parts, &args.session, Action::Read).await {
            Ok(found) => found,
            Err(error) => return refused(error),
        };
        let snapshot = session.screen();
        match args.format {
            ScreenFormat::Text => Ok(CallToolResult::success(vec![ContentBlock::text(
                screen::marked(&snapshot),
            )])),
            ScreenFormat::Json => structured(ScreenJson::from_snapshot(&snapshot)),
        }
    }

    #[tool(
        name = "search",
        description = "Find text (or a regular expression) in a session's scrollback and screen, oldest line first. Each match is on absolute row `line` (screen row r is `screen_top + r`; scrollback line i, 1 being just above the screen, is `screen_top - i`), from column `start` to `end` (exclusive; past `cols` when it continues on the next rows); `truncated` says there were more than `limit`. Read the lines around a match with read_screen or read_scrollback. Reads are paced per credential: a `reads_paced` error means try again in a moment.",
        annotations(read_only_hint = true)
    )]
    async fn search(
        &self,
        Extension(parts): Extension<Parts>,
        Parameters(args): Parameters<SearchArgs>,
    ) -> Answer {
        let (caller, session) = match self.reach(&parts, &args.session, Action::Read).await {
            Ok(found) => found,
            Err(error) => return refused(error),
        };
        let pattern = (args.pattern.as_str(), args.regex, args.case);
        match search::run(&caller, &session, pattern, args.limit).await {
            Ok(found) => structured(found),
            Err(error) => refused(error),
        }
    }

    #[tool(
        name = "read_scrollback",
        description = "Read lines that scrolled off the top of a session's screen, as text. Line 1 is just above the screen; `start` and `count` pick lines start..start+count-1 counting upwards, answered oldest first. `total` says how many the session holds. Reads are paced per credential (`reads_paced`).",
        annotations(read_only_hint = true)
    )]
    async fn read_scrollback(
        &self,
        Extension(parts): Extension<Parts>,
        Parameters(args): Parameters<ScrollbackArgs>,
    ) -> Answer {
        let (caller, session) = match self.reach(&parts, &args.session, Action::Read).await {
            Ok(found) => found,
            Err(error) => return refused(error),
        };
        let start = args.start.unwrap_or(1).max(1);
        let count = args.count.unwrap_or(100);
        if !(1..=MAX_SCROLLBACK_LINES).contains(&count) {
            return refused(ApiError::new(
                ErrorCode::BadCount,
                format!("count must be in 1..={MAX_SCROLLBACK_LINES}"),
            ));
        }
        match session.scrollback(start, count, &caller.reader()).await {
            Ok(read) => structured(ScrollbackAnswer {
                total: read.answer.total,
                start: read.answer.start,
                lines: read
                    .answer
                    .lines
                    .iter()
                    .rev()
                    .map(|line| line.text().to_owned())
                    .collect(),
            }),
            Err(error) => refused(error.into()),
        }
    }
}

/// A tool error the SDK made (arguments that do not match the tool's
/// schema: every refusal of the tools themselves is structured), given
/// the API's body with the code `bad_arguments`.
fn with_code(result: CallToolResult) -> CallToolResult {
    if result.is_error != Some(true) || result.structured_content.is_some() {
        return result;
    }
    let message: Vec<&str> = result
        .content
        .iter()
        .filter_map(|block| block.as_text().map(|text| text.text.as_str()))
        .collect();
    CallToolResult::structured_error(
        json!({ "error": message.join("\n"), "code": ErrorCode::BadArguments }),
    )
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Tools {
    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let call = ToolCallContext::new(self, request, context);
        Ok(match self.tool_router.call(call).await? {
            CallToolResponse::Complete(result) => CallToolResponse::Complete(with_code(result)),
            other => other,
        })
    }

    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("panecast", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "panecast runs terminal sessions. list_sessions or start_session, then type, \
                 wait_for what you expect, and read_screen. Errors carry the API's code \
                 (session_not_found, forbidden, wait_timeout, ...).",
            )
    }
}

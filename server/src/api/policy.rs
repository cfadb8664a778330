//! The route table of the access check: which [`Action`] each route and
//! method is. The guard looks every request up here; a routed method
//! missing from the table is [`Action::Unlisted`], which needs the admin
//! role, so nothing slips through unchecked.

use axum::http::Method;

use crate::access::Action;

/// `(method, route pattern, action)`.
pub(super) const ROUTES: &[(Method, &str, Action)] = &[
    (Method::GET, "/api/sessions", Action::List),
    (Method::POST, "/api/sessions", Action::Create),
    (Method::GET, "/api/profiles", Action::List),
    (Method::GET, "/api/openapi.json", Action::List),
    (Method::GET, "/api/sessions/{id}", Action::Read),
    (Method::DELETE, "/api/sessions/{id}", Action::Delete),
    (Method::GET, "/api/sessions/{id}/screen", Action::Read),
    (Method::GET, "/api/sessions/{id}/search", Action::Read),
    // A wait only reads: a view credential may wait.
    (Method::POST, "/api/sessions/{id}/wait", Action::Read),
    (Method::GET, "/api/sessions/{id}/events", Action::Read),
    (Method::POST, "/api/sessions/{id}/login", Action::Read),
    (Method::GET, "/api/sessions/{id}/ws", Action::Read),
    (Method::GET, "/api/sessions/{id}/alis", Action::Read),
    (Method::GET, "/api/sessions/{id}/recording", Action::Read),
    // The recording routes name no session: the guard lets any role in and
    // the handlers check the recording's session (404 outside the scope,
    // then the role: Delete needs admin).
    (Method::GET, "/api/recordings", Action::List),
    (Method::GET, "/api/recordings/{name}", Action::Read),
    (Method::GET, "/api/recordings/{name}/ws", Action::Read),
    (Method::DELETE, "/api/recordings/{name}", Action::Read),
    (Method::POST, "/api/sessions/{id}/input", Action::Control),
    (Method::POST, "/api/sessions/{id}/resize", Action::Control),
    (Method::POST, "/api/sessions/{id}/markers", Action::Control),
    (Method::GET, "/api/sessions/{id}/files", Action::Control),
    (
        Method::PUT,
        "/api/sessions/{id}/files/{name}",
        Action::Control,
    ),
    (Method::GET, "/api/sessions/{id}/links", Action::Share),
    (Method::POST, "/api/sessions/{id}/links", Action::Share),
    (
        Method::DELETE,
        "/api/sessions/{id}/links/{link_id}",
        Action::Share,
    ),
];

/// The MCP endpoint (`super::mcp`), which is no REST route and is not in
/// the OpenAPI document: any role may speak MCP, and each tool checks the
/// action it stands for on the session it names, as the route would.
pub(super) const MCP: &[(Method, &str, Action)] = &[
    (Method::POST, "/mcp", Action::List),
    (Method::GET, "/mcp", Action::List),
    (Method::DELETE, "/mcp", Action::List),
];

/// What a request to `route` (the matched pattern) with `method` does;
/// [`Action::Unlisted`] for one the table does not list.
pub fn action(method: &Method, route: &str) -> Action {
    let method = if method == Method::HEAD {
        &Method::GET
    } else {
        method
    };
    ROUTES
        .iter()
        .chain(MCP)
        .find(|(m, r, _)| m == method && *r == route)
        .map_or(Action::Unlisted, |(_, _, action)| *action)
}

/// True when the route's pattern names a session.
pub fn names_a_session(route: &str) -> bool {
    route.contains("{id}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn looks_up_routes() {
        assert_eq!(action(&Method::GET, "/api/sessions"), Action::List);
        assert_eq!(action(&Method::HEAD, "/api/sessions/{id}"), Action::Read);
        assert_eq!(
            action(&Method::POST, "/api/sessions/{id}/input"),
            Action::Control
        );
        assert_eq!(action(&Method::PUT, "/api/sessions"), Action::Unlisted);
        assert_eq!(action(&Method::POST, "/mcp"), Action::List);
        assert_eq!(action(&Method::PUT, "/mcp"), Action::Unlisted);
        assert!(names_a_session("/api/sessions/{id}/ws"));
        assert!(!names_a_session("/api/sessions"));
    }
}

//! The route table of the access check: which [`Action`] each route and
//! method is, as [`super::routes`] declares it with the route, plus the
//! table of `/mcp`. The guard looks every request up here; a method and
//! route neither lists is [`Action::Unlisted`], which needs the admin
//! role, so nothing slips through unchecked.

use axum::http::Method;

use crate::access::Action;

/// The MCP endpoint (`super::mcp`), which is no REST route and is not in
/// the OpenAPI document: any role may speak MCP, and each tool checks the
/// action it stands for on the session it names, as the route would.
pub(super) const MCP: &[(Method, &str, Action)] = &[
    (Method::POST, "/mcp", Action::List),
    (Method::GET, "/mcp", Action::List),
    (Method::DELETE, "/mcp", Action::List),
];

/// What a request to `route` (the matched pattern) with `method` does;
/// [`Action::Unlisted`] for one no table lists.
pub fn action(method: &Method, route: &str) -> Action {
    let method = if method == Method::HEAD {
        &Method::GET
    } else {
        method
    };
    let mcp = MCP.iter().map(|(m, r, action)| (m, *r, *action));
    super::routes::declared()
        .policy()
        .chain(mcp)
        .find(|(m, r, _)| *m == method && *r == route)
        .map_or(Action::Unlisted, |(_, _, action)| action)
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

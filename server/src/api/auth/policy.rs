//! The route table of the access check: which [`Action`] each route and
//! method is, as [`crate::api::routes`] declares it with the route, plus the
//! table of `/mcp`. The guard looks every request up here; a method and
//! route it does not list is [`Action::Unlisted`], which needs the admin
//! role, so nothing slips through unchecked.

use axum::http::Method;

use crate::access::Action;

/// The MCP endpoint (`crate::api::streams::mcp`), which is no REST route and is not in
/// the OpenAPI document: any role may speak MCP, and each tool checks the
/// action it stands for on the session it names, as the route would.
pub(in crate::api) const MCP: &[(Method, &str, Action)] = &[
    (Method::POST, "/mcp", Action::List),
    (Method::GET, "/mcp", Action::List),
    (Method::DELETE, "/mcp", Action::List),
];

/// The guard's table: the access rule of every route [`crate::api::routes`]
/// declares, and [`MCP`].
#[derive(Debug)]
pub struct Policy {
    rules: Vec<(Method, String, Action)>,
}

impl Policy {
    /// The table of the `declared` rules and [`MCP`]'s.
    pub fn new<'a>(declared: impl Iterator<Item = (&'a Method, &'a str, Action)>) -> Policy {
        let mcp = MCP.iter().map(|(m, r, action)| (m, *r, *action));
        Policy {
            rules: declared
                .chain(mcp)
                .map(|(method, route, action)| (method.clone(), route.to_owned(), action))
                .collect(),
        }
    }

    /// What a request to `route` (the matched pattern) with `method` does;
    /// [`Action::Unlisted`] for one the table does not list.
    pub fn action(&self, method: &Method, route: &str) -> Action {
        let method = if method == Method::HEAD {
            &Method::GET
        } else {
            method
        };
        self.rules
            .iter()
            .find(|(m, r, _)| m == method && r == route)
            .map_or(Action::Unlisted, |(_, _, action)| *action)
    }
}

/// True when the route's pattern names a session.
pub fn names_a_session(route: &str) -> bool {
    route.contains("{id}")
}

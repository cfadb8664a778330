//! Every route, declared once: its handler, whose `#[utoipa::path]` gives
//! its method, its path and its OpenAPI operation, and its access rule.
//! The router ([`super::router`]), the paths of the OpenAPI document
//! ([`openapi`]) and the guard's table ([`policy`](super::auth::policy)) are all
//! derived from this one list. A route under `/api` is added with
//! [`Declared::api`], which does not compile without the
//! [`Action`](crate::access::Action) the guard checks; a route outside it
//! with [`Declared::open`]. `/mcp`, which speaks JSON-RPC and is not in the
//! document, is routed beside these with its own table, `policy::MCP`.
//!
//! To add a route: annotate its handler with `#[utoipa::path]` and add one
//! line to [`declare`].

use std::sync::LazyLock;

use utoipa_axum::routes;

use crate::access::Action;

pub(super) mod declare;
pub(super) mod openapi;

use self::declare::{tagged, Declared};
use super::auth::oidc::web as oidc;
use super::auth::policy::Policy;
use super::handlers::{files, links, ops, pages, recordings, search, sessions, wait};
use super::streams::{alis, events, replay, ws};

/// `routes!(module::handler)`, its operation tagged `module`: the document
/// groups operations by the handler's module.
macro_rules! handler {
    ($module:ident :: $handler:ident) => {
        tagged(stringify!($module), routes!($module::$handler))
    };
}

/// The declarations, made once.
static DECLARED: LazyLock<Declared> = LazyLock::new(declare);

/// Every route with its operation and its access rule.
pub(super) fn declared() -> &'static Declared {
    &DECLARED
}

/// The guard's table: the access rule of every declared route.
pub(super) fn policy() -> Policy {
    Policy::new(declared().policy())
}

/// The list: every route with its access rule.
fn declare() -> Declared {
    Declared::default()
        .api(Action::List, handler!(sessions::list))
        .api(Action::Create, handler!(sessions::create))
        .api(Action::Read, handler!(sessions::show))
        .api(Action::Delete, handler!(sessions::delete))
        .api(Action::Read, handler!(sessions::screen))
        .api(Action::Control, handler!(sessions::input))
        .api(Action::Control, handler!(sessions::resize))
        .api(Action::Read, handler!(search::search))
        // A wait only reads: a view credential may wait.
        .api(Action::Read, handler!(wait::wait))
        .api(Action::Read, handler!(events::events))
        .api(Action::Read, handler!(ws::upgrade))
        .api(Action::Read, handler!(alis::upgrade))
        .api(Action::Read, handler!(recordings::of_session))
        // The recording routes name no session: the guard lets any role in
        // and the handlers check the recording's session (404 outside the
        // scope, then the role: a delete needs admin).
        .api(Action::List, handler!(recordings::list))
        .api(Action::Read, handler!(recordings::download))
        .api(Action::Read, handler!(recordings::delete))
        .api(Action::Read, handler!(replay::upgrade))
        .api(Action::Control, handler!(replay::add_marker))
        .api(Action::Control, handler!(files::upload))
        .api(Action::Control, handler!(files::download))
        .api(Action::Read, handler!(links::login))
        .api(Action::Share, handler!(links::mint))
        .api(Action::Share, handler!(links::list))
        .api(Action::Share, handler!(links::revoke))
        .api(Action::List, handler!(pages::profiles))
        .api(Action::List, handler!(openapi::openapi))
        // The pages and the client's files hold no secret: a page fetches
        // everything through the API.
        .open(handler!(pages::index))
        .open(handler!(pages::terminal))
        .open(handler!(pages::replay))
        .open(handler!(pages::embed))
        .open(handler!(pages::web_file))
        .open(handler!(ops::healthz))
        // Open or behind its own token, as configured.
        .open(handler!(ops::metrics))
        // Signing in is how a person gets a credential.
        .open(handler!(oidc::login))
        .open(handler!(oidc::callback))
        .open(handler!(oidc::logout))
}

#[cfg(test)]
mod tests {
    use self::declare::API;
    use super::*;

    /// Every operation of the document, `METHOD path`.
    fn documented() -> Vec<String> {
        let doc = serde_json::to_value(super::super::openapi_document())
            .expect("the document serializes");
        doc["paths"]
            .as_object()
            .expect("paths")
            .iter()
            .flat_map(|(path, item)| {
                item.as_object()
                    .expect("a path item")
                    .keys()
                    .map(move |method| format!("{} {path}", method.to_uppercase()))
            })
            .collect()
    }

    #[test]
    fn the_policy_looks_routes_up() {
        use crate::api::auth::policy::{names_a_session, Policy};
        use axum::http::Method;
        let policy = Policy::new(declared().policy());
        assert_eq!(policy.action(&Method::GET, "/api/sessions"), Action::List);
        assert_eq!(
            policy.action(&Method::HEAD, "/api/sessions/{id}"),
            Action::Read
        );
        assert_eq!(
            policy.action(&Method::POST, "/api/sessions/{id}/input"),
            Action::Control
        );
        assert_eq!(
            policy.action(&Method::PUT, "/api/sessions"),
            Action::Unlisted
        );
        assert_eq!(policy.action(&Method::POST, "/mcp"), Action::List);
        assert_eq!(policy.action(&Method::PUT, "/mcp"), Action::Unlisted);
        assert!(names_a_session("/api/sessions/{id}/ws"));
        assert!(!names_a_session("/api/sessions"));
    }

    #[test]
    fn every_api_route_has_an_access_rule() {
        let prefix = format!("{API}/");
        let ruled: Vec<String> = declared()
            .policy()
            .map(|(method, route, _)| format!("{method} {route}"))
            .collect();
        for operation in documented() {
            let under_api = operation
                .split_once(' ')
                .is_some_and(|(_, path)| path.starts_with(&prefix));
            assert_eq!(
                under_api,
                ruled.contains(&operation),
                "{operation}: a route under {API} is declared with `api` and its action, \
                 any other with `open`"
            );
        }
    }
}

//! What [`crate::api::routes`] declares its routes with: each route, added with
//! its access rule, grows the router, the OpenAPI paths and the guard's
//! policy table at once, so the three cannot drift apart.

use axum::http::Method;
use axum::Router;
use utoipa::openapi::path::{Operation, PathItem, Paths};
use utoipa::openapi::schema::Schema;
use utoipa::openapi::{OpenApi, RefOr};
use utoipa_axum::router::UtoipaMethodRouter;

use crate::access::Action;

use crate::api::state::AppState;

/// Where the routes behind the guard are nested.
pub(in crate::api) const API: &str = "/api";

/// Routes declared with their access rules, and what derives from them.
#[derive(Default)]
pub(in crate::api) struct Declared {
    /// The routes behind the guard, at their paths relative to [`API`].
    api: Router<AppState>,
    /// The routes no guard stands in front of.
    open: Router<AppState>,
    /// Every operation, at its full path, in the order declared.
    paths: Paths,
    /// The schemas the handlers name.
    schemas: Vec<(String, RefOr<Schema>)>,
    /// `(method, full route pattern, action)` of every guarded operation.
    policy: Vec<(Method, String, Action)>,
}

impl Declared {
    /// Adds `routes` (`routes!(handler)`: the handler's `#[utoipa::path]`
    /// gives its method, its full path under [`API`] and its operation)
    /// behind the guard, which lets in only callers that may do `action`.
    pub fn api(mut self, action: Action, routes: UtoipaMethodRouter<AppState>) -> Self {
        let (schemas, mut paths, method_router) = routes;
        for (path, item) in &mut paths.paths {
            self.policy
                .extend(operations(item).map(|(method, _)| (method, path.clone(), action)));
            // A path outside API would be misplaced: `routes::tests`
            // names any such declaration.
            let relative = path.strip_prefix(API).unwrap_or(path);
            self.api = self.api.route(relative, method_router.clone());
        }
        self.document(schemas, paths)
    }

    /// Adds `routes` (as for [`Declared::api`]) with no guard in front: the
    /// handler asks no credential, or checks its caller itself.
    pub fn open(mut self, routes: UtoipaMethodRouter<AppState>) -> Self {
        let (schemas, paths, method_router) = routes;
        for path in paths.paths.keys() {
            self.open = self.open.route(path, method_router.clone());
        }
        self.document(schemas, paths)
    }

    /// Adds the operations of `paths` and the `schemas` they name.
    fn document(mut self, schemas: Vec<(String, RefOr<Schema>)>, paths: Paths) -> Self {
        for (path, item) in paths.paths {
            match self.paths.paths.get_mut(&path) {
                Some(known) => known.merge_operations(item),
                None => {
                    self.paths.paths.insert(path, item);
                }
            }
        }
        self.schemas.extend(schemas);
        self
    }

    /// The routes behind the guard, relative to [`API`].
    pub fn api_router(&self) -> Router<AppState> {
        self.api.clone()
    }

    /// The routes with no guard, at their full paths.
    pub fn open_router(&self) -> Router<AppState> {
        self.open.clone()
    }

    /// Adds every declared operation and the schemas they name to `doc`.
    pub fn add_to(&self, doc: &mut OpenApi) {
        doc.paths.paths.extend(self.paths.paths.clone());
        doc.components
            .get_or_insert_with(Default::default)
            .schemas
            .extend(self.schemas.iter().cloned());
    }

    /// `(method, full route pattern, action)` of every guarded operation.
    pub fn policy(&self) -> impl Iterator<Item = (&Method, &str, Action)> {
        self.policy
            .iter()
            .map(|(method, route, action)| (method, route.as_str(), *action))
    }
}

/// `routes` with its operations tagged `tag` (OpenAPI tools group
/// operations by tag).
pub(in crate::api) fn tagged(
    tag: &str,
    mut routes: UtoipaMethodRouter<AppState>,
) -> UtoipaMethodRouter<AppState> {
    for item in routes.1.paths.values_mut() {
        for (_, operation) in operations(item) {
            operation
                .tags
                .get_or_insert_with(Vec::new)
                .push(tag.to_owned());
        }
    }
    routes
}

/// Every operation of `item`, with its method.
pub(in crate::api) fn operations(
    item: &mut PathItem,
) -> impl Iterator<Item = (Method, &mut Operation)> {
    [
        (Method::GET, &mut item.get),
        (Method::PUT, &mut item.put),
        (Method::POST, &mut item.post),
        (Method::DELETE, &mut item.delete),
        (Method::OPTIONS, &mut item.options),
        (Method::HEAD, &mut item.head),
        (Method::PATCH, &mut item.patch),
        (Method::TRACE, &mut item.trace),
    ]
    .into_iter()
    .filter_map(|(method, operation)| operation.as_mut().map(|operation| (method, operation)))
}

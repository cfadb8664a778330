//! `GET /api/openapi.json`: the OpenAPI 3.1 description of every route,
//! generated from the handlers' own annotations and types with `utoipa`.
//! What the [guard](crate::api::auth::guard) and the host check answer for every route
//! is added here once, by [`GuardAnswers`], rather than on each handler.

use axum::{Extension, Json};
use utoipa::openapi::path::Operation;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::{Content, OpenApi as Document, Ref, RefOr, Response, ResponseBuilder};
use utoipa::{Modify, OpenApi};

use super::declare::Declared;
use crate::api::error::{ErrorBody, ErrorCode};

mod operation_links;
mod patterns;

/// The name of the bearer security scheme.
const BEARER: &str = "bearer";

/// The document's frame: its paths and the schemas the handlers name are
/// added from the routes' declarations (see [`crate::api::routes`]).
#[derive(OpenApi)]
#[openapi(
    info(
        title = "panecast",
        description = "Programs in ptys on the server: start them, drive them, read their screens. See docs/api.md."
    ),
    components(schemas(ErrorBody, ErrorCode)),
    security(("bearer" = []))
)]
struct ApiDoc;

/// Adds the bearer scheme, the patterns of the path parameters, the links
/// between operations, and to every operation the answers that do not
/// come from its handler: 421 from the host check on every route; 401,
/// 403 and 429 from the guard on `/api`; 404 `session_not_found` where the route
/// names a session.
struct GuardAnswers;

impl Modify for GuardAnswers {
    fn modify(&self, doc: &mut Document) {
        let components = doc.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            BEARER,
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some(
                        "The admin token, a key, or a share link's token; pages also take it as ?token=",
                    ))
                    .build(),
            ),
        );
        for (path, item) in doc.paths.paths.iter_mut() {
            let api = path.starts_with("/api/");
            let names_a_session = crate::api::auth::policy::names_a_session(path);
            for (_, operation) in super::declare::operations(item) {
                patterns::add(path, operation);
                add(
                    operation,
                    "421",
                    "unknown_host: the Host is not one this server answers to",
                );
                if api {
                    add(operation, "401", "unauthorized: no valid credential");
                    add(
                        operation,
                        "429",
                        "too_many_auth_failures: this address presented too many wrong credentials this minute",
                    );
                    add(
                        operation,
                        "403",
                        "forbidden, csrf: the credential may not do this",
                    );
                }
                if names_a_session {
                    add(operation, "404", "session_not_found");
                }
            }
        }
        operation_links::add(doc);
    }
}

/// Adds an error answer to `operation`, or its description to the one the
/// handler already lists for that status.
fn add(operation: &mut Operation, status: &str, description: &str) {
    let responses = &mut operation.responses.responses;
    match responses.get_mut(status) {
        Some(RefOr::T(response)) => {
            response.description = format!("{}; {description}", response.description);
        }
        Some(RefOr::Ref(_)) => {}
        None => {
            responses.insert(status.to_owned(), RefOr::T(error_response(description)));
        }
    }
}

/// An answer with the JSON error body.
fn error_response(description: &str) -> Response {
    ResponseBuilder::new()
        .description(description)
        .content(
            "application/json",
            Content::new(Some(Ref::from_schema_name("ErrorBody"))),
        )
        .build()
}

/// The document of the `declared` routes: the frame, their operations,
/// and what [`GuardAnswers`] adds to them.
pub fn build(declared: &Declared) -> Document {
    let mut doc = ApiDoc::openapi();
    declared.add_to(&mut doc);
    GuardAnswers.modify(&mut doc);
    doc
}

/// `GET /api/openapi.json`: this document.
#[utoipa::path(
    get,
    path = "/api/openapi.json",
    responses((status = 200, description = "The OpenAPI document", body = Object))
)]
pub async fn openapi(Extension(document): Extension<&'static Document>) -> Json<&'static Document> {
    Json(document)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    /// Routes outside the document: `/mcp` speaks JSON-RPC (MCP), no REST,
    /// so schemathesis has nothing to run on it (see `crate::api::streams::mcp`).
    const UNDOCUMENTED: &[(&str, &str)] = &[("POST", "/mcp"), ("GET", "/mcp"), ("DELETE", "/mcp")];

    #[test]
    fn mcp_is_routed_but_not_documented() {
        let doc = document_json();
        let routed: BTreeSet<(String, String)> = crate::api::auth::policy::MCP
            .iter()
            .map(|(method, path, _)| (method.to_string(), (*path).to_owned()))
            .collect();
        let undocumented: BTreeSet<(String, String)> = UNDOCUMENTED
            .iter()
            .map(|(method, path)| ((*method).to_owned(), (*path).to_owned()))
            .collect();
        assert_eq!(routed, undocumented);
        for (_, path) in UNDOCUMENTED {
            assert!(doc["paths"].get(*path).is_none(), "{path} is documented");
        }
    }

    fn document_json() -> serde_json::Value {
        serde_json::to_value(crate::api::openapi_document()).expect("the document serializes")
    }

    #[test]
    fn every_error_answer_is_the_error_body() {
        let doc = document_json();
        let mut errors = 0;
        for (path, item) in doc["paths"].as_object().expect("paths") {
            for (method, operation) in item.as_object().expect("a path item") {
                let responses = operation["responses"].as_object().expect("responses");
                let status = |s: &str| responses.contains_key(s);
                assert!(status("421"), "{method} {path}: no 421");
                if path.starts_with("/api/") {
                    assert!(
                        status("401") && status("403"),
                        "{method} {path}: no 401/403"
                    );
                }
                if path.contains("{id}") {
                    assert!(status("404"), "{method} {path}: no 404");
                }
                for (code, response) in responses {
                    if code.as_str() >= "400" {
                        errors += 1;
                        let schema = &response["content"]["application/json"]["schema"]["$ref"];
                        // A wait's time-out is the error body plus the screen.
                        let expected = if path.ends_with("/wait") && code == "408" {
                            "#/components/schemas/WaitTimeout"
                        } else {
                            "#/components/schemas/ErrorBody"
                        };
                        assert_eq!(schema, expected, "{method} {path} {code}");
                    }
                }
            }
        }
        assert!(errors > 60, "only {errors} error answers documented");
        let timeout = &doc["components"]["schemas"]["WaitTimeout"];
        for field in ["error", "code", "screen", "revision"] {
            assert!(
                timeout["required"]
                    .as_array()
                    .is_some_and(|r| r.iter().any(|f| f == field)),
                "WaitTimeout lacks {field}: {timeout}"
            );
        }
    }

    #[test]
    fn every_path_parameter_has_a_pattern() {
        let missing = patterns::missing(crate::api::openapi_document());
        assert!(missing.is_empty(), "no pattern for {missing:?}");
    }

    #[test]
    fn the_error_body_code_is_the_enum_of_every_code() {
        let doc = document_json();
        let schemas = &doc["components"]["schemas"];
        assert_eq!(
            schemas["ErrorBody"]["properties"]["code"]["$ref"],
            "#/components/schemas/ErrorCode"
        );
        let listed: BTreeSet<&str> = schemas["ErrorCode"]["enum"]
            .as_array()
            .expect("ErrorCode is an enum")
            .iter()
            .filter_map(|code| code.as_str())
            .collect();
        let declared: BTreeSet<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
        assert_eq!(listed, declared);
    }

    #[test]
    fn has_the_bearer_scheme_and_error_answers() {
        let doc =
            serde_json::to_value(crate::api::openapi_document()).expect("the document serializes");
        assert_eq!(
            doc["components"]["securitySchemes"]["bearer"]["scheme"],
            "bearer"
        );
        let show = &doc["paths"]["/api/sessions/{id}"]["get"]["responses"];
        for status in ["401", "403", "404", "421"] {
            assert_eq!(
                show[status]["content"]["application/json"]["schema"]["$ref"],
                "#/components/schemas/ErrorBody",
                "status {status}"
            );
        }
        assert!(doc["paths"]["/healthz"]["get"]["responses"]["401"].is_null());
    }
}

//! The OpenAPI links between operations: which answer names what the next
//! request needs (a created session's id, a minted link's id, a recording's
//! name). Clients and schemathesis's stateful phase follow them.

use serde_json::Value;
use utoipa::openapi::link::LinkBuilder;
use utoipa::openapi::{OpenApi as Document, RefOr};

/// `(from method, from path, status, link name, to method, to path,
/// [(parameter, runtime expression)])`.
type Edge = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static [(&'static str, &'static str)],
);

/// The created session's id.
const NEW_SESSION: &[(&str, &str)] = &[("path.id", "$response.body#/id")];

/// The created session's recording.
const NEW_RECORDING: &[(&str, &str)] = &[("path.name", "$response.body#/recording")];

/// The session the link was minted on, and the link.
const NEW_LINK: &[(&str, &str)] = &[
    ("path.id", "$request.path.id"),
    ("path.link_id", "$response.body#/id"),
];

/// Every link of the document.
const EDGES: &[Edge] = &[
    (
        "post",
        "/api/sessions",
        "201",
        "GetSession",
        "get",
        "/api/sessions/{id}",
        NEW_SESSION,
    ),
    (
        "post",
        "/api/sessions",
        "201",
        "GetScreen",
        "get",
        "/api/sessions/{id}/screen",
        NEW_SESSION,
    ),
    (
        "post",
        "/api/sessions",
        "201",
        "SendInput",
        "post",
        "/api/sessions/{id}/input",
        NEW_SESSION,
    ),
    (
        "post",
        "/api/sessions",
        "201",
        "Resize",
        "post",
        "/api/sessions/{id}/resize",
        NEW_SESSION,
    ),
    (
        "post",
        "/api/sessions",
        "201",
        "ListLinks",
        "get",
        "/api/sessions/{id}/links",
        NEW_SESSION,
    ),
    (
        "post",
        "/api/sessions",
        "201",
        "MintLink",
        "post",
        "/api/sessions/{id}/links",
        NEW_SESSION,
    ),
    (
        "post",
        "/api/sessions",
        "201",
        "DeleteSession",
        "delete",
        "/api/sessions/{id}",
        NEW_SESSION,
    ),
    (
        "post",
        "/api/sessions",
        "201",
        "DownloadRecording",
        "get",
        "/api/recordings/{name}",
        NEW_RECORDING,
    ),
    (
        "post",
        "/api/sessions",
        "201",
        "DeleteRecording",
        "delete",
        "/api/recordings/{name}",
        NEW_RECORDING,
    ),
    (
        "post",
        "/api/sessions/{id}/links",
        "201",
        "RevokeLink",
        "delete",
        "/api/sessions/{id}/links/{link_id}",
        NEW_LINK,
    ),
];

/// A JSON pointer to the operation `method` of `path`, as `operationRef`
/// names it: a URI fragment, so `/` is `~1` (RFC 6901) and the braces of
/// a template are percent-encoded.
fn operation_ref(method: &str, path: &str) -> String {
    let pointer = path
        .replace('~', "~0")
        .replace('/', "~1")
        .replace('{', "%7B")
        .replace('}', "%7D");
    format!("#/paths/{pointer}/{method}")
}

/// Adds every link of [`EDGES`] to the answers of `doc`.
pub fn add(doc: &mut Document) {
    for (method, path, status, name, to_method, to_path, parameters) in EDGES {
        let mut link = LinkBuilder::new().operation_ref(operation_ref(to_method, to_path));
        for (parameter, expression) in *parameters {
            link = link.parameter(*parameter, Value::from(*expression));
        }
        let response = doc
            .paths
            .paths
            .get_mut(*path)
            .and_then(|item| match *method {
                "post" => item.post.as_mut(),
                "get" => item.get.as_mut(),
                _ => None,
            })
            .and_then(|operation| operation.responses.responses.get_mut(*status));
        if let Some(RefOr::T(response)) = response {
            response
                .links
                .insert((*name).to_owned(), RefOr::T(link.build()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refers_to_an_operation_as_a_uri_fragment() {
        assert_eq!(
            operation_ref("delete", "/api/sessions/{id}"),
            "#/paths/~1api~1sessions~1%7Bid%7D/delete"
        );
    }

    #[test]
    fn every_link_joins_two_documented_operations() {
        let doc = serde_json::to_value(crate::api::openapi_document()).expect("it serializes");
        for (method, path, status, name, to_method, to_path, _) in EDGES {
            let links = &doc["paths"][path][method]["responses"][status]["links"];
            assert!(
                links[name].is_object(),
                "{method} {path} {status} lacks {name}"
            );
            assert!(
                doc["paths"][to_path][to_method].is_object(),
                "{name} leads to {to_method} {to_path}, which is not documented"
            );
        }
    }
}

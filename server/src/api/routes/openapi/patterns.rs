//! The pattern of every path parameter, written into the OpenAPI document
//! once here rather than on each handler. Each pattern admits exactly what
//! the handler's own check admits (the tests compare them), so a client or
//! a generator that follows the document sends names the server can find.

use utoipa::openapi::path::{Operation, ParameterIn};
use utoipa::openapi::{RefOr, Schema};

/// A session's id (32 hex digits) or name (see
/// [`crate::config::valid_session_name`]): 1 to 64 letters, digits, `.`,
/// `_`, `-`, starting with a letter or digit.
pub const SESSION: &str = "^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$";

/// A recording's name (see [`crate::record::valid_name`]).
pub const RECORDING: &str = "^[A-Za-z0-9_-]{1,128}$";

/// A share link's id: 16 hex digits, the first half of a fresh secret.
pub const LINK: &str = "^[0-9a-f]{16}$";

/// An uploaded file's name (see [`crate::files::check_name`]): one path
/// component of 1 to 255 bytes without NUL; `.` and `..` match but are
/// refused with `bad_name` (JSON Schema patterns have no look-ahead in
/// every dialect schemathesis reads).
pub const FILE: &str = "^[^/\\u0000]{1,255}$";

/// A file of the web client (`/web/{name}`).
pub const WEB_FILE: &str = "^[A-Za-z0-9][A-Za-z0-9._-]*$";

/// The pattern of path parameter `name` in the route `path`.
fn pattern(path: &str, name: &str) -> Option<&'static str> {
    match name {
        "id" => Some(SESSION),
        "link_id" => Some(LINK),
        "name" if path.starts_with("/web/") => Some(WEB_FILE),
        "name" if path.contains("/files/") => Some(FILE),
        "name" if path.starts_with("/api/recordings/") || path.starts_with("/r/") => {
            Some(RECORDING)
        }
        _ => None,
    }
}

/// Sets the pattern of every path parameter of `operation` on `path`.
pub fn add(path: &str, operation: &mut Operation) {
    for parameter in operation.parameters.iter_mut().flatten() {
        let RefOr::T(parameter) = parameter else {
            continue;
        };
        if parameter.parameter_in != ParameterIn::Path {
            continue;
        }
        let Some(pattern) = pattern(path, &parameter.name) else {
            continue;
        };
        if let Some(RefOr::T(Schema::Object(object))) = parameter.schema.as_mut() {
            object.pattern = Some(pattern.to_owned());
        }
    }
}

/// Every `(path, parameter)` of the document that has no pattern.
#[cfg(test)]
pub fn missing(doc: &utoipa::openapi::OpenApi) -> Vec<String> {
    let mut missing = Vec::new();
    for (path, item) in &doc.paths.paths {
        let operations = [&item.get, &item.put, &item.post, &item.delete, &item.patch];
        for operation in operations.into_iter().flatten() {
            for parameter in operation.parameters.iter().flatten() {
                let RefOr::T(parameter) = parameter else {
                    missing.push(format!("{path}: a parameter by reference"));
                    continue;
                };
                if parameter.parameter_in != ParameterIn::Path {
                    continue;
                }
                let has = matches!(
                    parameter.schema.as_ref(),
                    Some(RefOr::T(Schema::Object(object))) if object.pattern.is_some()
                );
                if !has {
                    missing.push(format!("{path} {{{}}}", parameter.name));
                }
            }
        }
    }
    missing
}

#[cfg(test)]
mod tests {
    use regex::Regex;

    use super::*;

    /// Names on both sides of every rule the checks apply.
    const SAMPLES: &[&str] = &[
        "",
        "a",
        "A",
        "0",
        "-a",
        ".a",
        "_a",
        "a.b",
        "a_b-c",
        "a/b",
        "a b",
        "a\0b",
        ".",
        "..",
        "é",
        "0123456789abcdef0123456789abcdef",
        "0123456789abcdef",
        "0123456789ABCDEF",
        "0123456789abcdeg",
        "x;rm",
        "a%2Fb",
    ];

    fn long(n: usize) -> String {
        "a".repeat(n)
    }

    fn samples() -> Vec<String> {
        let mut all: Vec<String> = SAMPLES.iter().map(|s| (*s).to_owned()).collect();
        for n in [63, 64, 65, 127, 128, 129, 255, 256] {
            all.push(long(n));
        }
        all
    }

    fn agrees(pattern: &str, check: impl Fn(&str) -> bool) {
        let regex = Regex::new(pattern).expect("the pattern compiles");
        for sample in samples() {
            assert_eq!(
                regex.is_match(&sample),
                check(&sample),
                "{pattern} and the handler's check disagree on {sample:?}"
            );
        }
    }

    fn is_id(s: &str) -> bool {
        s.len() == 32 && s.bytes().all(|b| b.is_ascii_hexdigit())
    }

    #[test]
    fn session_is_an_id_or_a_name() {
        agrees(SESSION, |s| {
            crate::config::valid_session_name(s) || is_id(s)
        });
    }

    #[test]
    fn recording_is_what_the_store_accepts() {
        agrees(RECORDING, crate::record::valid_name);
    }

    #[test]
    fn file_is_what_an_upload_accepts_but_dots() {
        agrees(FILE, |s| {
            crate::files::check_name(s).is_ok() || s == "." || s == ".."
        });
    }

    #[test]
    fn link_is_what_a_mint_makes() {
        let regex = Regex::new(LINK).expect("the pattern compiles");
        let secret = crate::access::secret::generate().expect("randomness");
        assert!(regex.is_match(&secret[..16]), "{secret}");
    }

    #[test]
    fn every_web_file_matches() {
        let regex = Regex::new(WEB_FILE).expect("the pattern compiles");
        let web = concat!(env!("CARGO_MANIFEST_DIR"), "/../web");
        for entry in std::fs::read_dir(web).expect("web/ is readable") {
            let name = entry.expect("an entry").file_name();
            let name = name.to_string_lossy();
            assert!(regex.is_match(&name), "{name}");
        }
    }
}

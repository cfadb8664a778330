//! What `panecast attach` connects to, read from its URL: a session page
//! (`http(s)://host[:port][/base]/s/ID`, with the link token as `#t=T` or
//! `?token=T`), or the server's URL with the session named apart.

use axum::http::Uri;

use crate::config::{normalize_base_path, valid_session_name};

/// A session's stream, found from a URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// True for https (the stream is then wss).
    pub tls: bool,
    /// The host, without brackets for IPv6 addresses.
    pub host: String,
    /// The port, the scheme's default when the URL has none.
    pub port: u16,
    /// The URL's authority, as sent in the Host header.
    pub authority: String,
    /// The path the server runs under ("" or "/term").
    pub base: String,
    /// The session's id or name, as it appears in a path.
    pub session: String,
    /// The token the URL carries (`#t=` or `?token=`), if any.
    pub token: Option<String>,
    /// The URL asks for a view-only page (`?role=view`).
    pub view: bool,
}

impl Target {
    /// Reads `url`; `session` names the session when `url` is the server's.
    pub fn parse(url: &str, session: Option<&str>) -> Result<Target, String> {
        let bad = |why: &str| format!("'{url}' is not a session URL: {why}");
        let (before, fragment) = url.split_once('#').unwrap_or((url, ""));
        let uri: Uri = before.parse().map_err(|_| bad("it does not parse"))?;
        let tls = match uri.scheme_str() {
            Some("https" | "wss") => true,
            Some("http" | "ws") => false,
            _ => return Err(bad("use http:// or https://")),
        };
        let authority = uri.authority().ok_or_else(|| bad("it names no host"))?;
        if authority.as_str().contains('@') {
            return Err(bad("user names in URLs are not supported; use --token"));
        }
        let host = authority
            .host()
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_owned();
        let port = authority.port_u16().unwrap_or(if tls { 443 } else { 80 });
        let path = uri.path().trim_end_matches('/');
        let (base, id) = match session {
            Some(id) => (path, id),
            None => split_page(path).ok_or_else(|| {
                bad("no session in its path (/s/ID); give the server's URL and --session ID")
            })?,
        };
        if !valid_session_name(id) && !is_session_id(id) {
            return Err(format!("'{id}' is not a session id or name"));
        }
        let base = normalize_base_path(base).map_err(|e| bad(&e.to_string()))?;
        let query = uri.query().unwrap_or("");
        let token = param(fragment, "t").or_else(|| param(query, "token"));
        Ok(Target {
            tls,
            host,
            port,
            authority: authority.as_str().to_owned(),
            base,
            session: id.to_owned(),
            token,
            view: param(query, "role").as_deref() == Some("view"),
        })
    }

    /// The URL of the session's stream for `role` ("view" or "control"),
    /// asking for compressed frames (the decoder inflates them).
    pub fn stream_url(&self, role: &str) -> String {
        let scheme = if self.tls { "wss" } else { "ws" };
        format!(
            "{scheme}://{}{}/api/sessions/{}/ws?role={role}&deflate=1",
            self.authority, self.base, self.session
        )
    }
}

/// True for a session id: 32 lowercase hex digits.
fn is_session_id(s: &str) -> bool {
    s.len() == 32 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// `(base, id)` of a page path `BASE/s/ID` (or `BASE/embed/ID`).
fn split_page(path: &str) -> Option<(&str, &str)> {
    let (rest, id) = path.rsplit_once('/')?;
    let (base, page) = rest.rsplit_once('/')?;
    matches!(page, "s" | "embed").then_some((base, id))
}

/// The value of `name` in a `a=1&b=2` list (percent-decoded), if not empty.
fn param(list: &str, name: &str) -> Option<String> {
    list.split('&')
        .filter_map(|pair| pair.split_once('='))
        .find(|(key, _)| *key == name)
        .map(|(_, value)| percent_decode(value))
        .filter(|value| !value.is_empty())
}

/// Decodes `%XX` escapes (and `+` as a space, as forms write it); a broken
/// escape is kept as written.
fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (b'+', _) => {
                out.push(b' ');
                i += 1;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_url_names_the_session_and_its_link() {
        let t = Target::parse("https://example.com/term/s/abc123#t=link-Token_1", None)
            .expect("a page URL");
        assert!(t.tls);
        assert_eq!((t.host.as_str(), t.port), ("example.com", 443));
        assert_eq!(t.base, "/term");
        assert_eq!(t.session, "abc123");
        assert_eq!(t.token.as_deref(), Some("link-Token_1"));
        assert!(!t.view);
        assert_eq!(
            t.stream_url("control"),
            "wss://example.com/term/api/sessions/abc123/ws?role=control&deflate=1"
        );
    }

    #[test]
    fn a_server_url_takes_the_session_apart() {
        let t = Target::parse("http://[::1]:7681/", Some("build")).expect("a server URL");
        assert!(!t.tls);
        assert_eq!((t.host.as_str(), t.port), ("::1", 7681));
        assert_eq!(t.base, "");
        assert_eq!(
            t.stream_url("view"),
            "ws://[::1]:7681/api/sessions/build/ws?role=view&deflate=1"
        );
        assert_eq!(t.token, None);
    }

    #[test]
    fn the_query_may_carry_the_token_and_the_role() {
        let t = Target::parse("http://h:1/s/x/?token=a%2Db&role=view", None).expect("a page");
        assert_eq!(t.session, "x");
        assert_eq!(t.token.as_deref(), Some("a-b"));
        assert!(t.view);
    }

    #[test]
    fn urls_without_a_session_are_refused() {
        for url in [
            "not a url",
            "ftp://h/s/x",
            "/s/x",
            "http://h/",
            "http://h/x/y",
            "http://user@h/s/x",
        ] {
            assert!(Target::parse(url, None).is_err(), "{url}");
        }
        assert!(Target::parse("http://h/", Some("a b")).is_err());
    }
}

//! The cookies the server sets: `panecast_token` (the admin token or a key,
//! set after a page was opened with `?token=`) and `panecast_link` (a share
//! link, set by `POST /api/sessions/{id}/login` and scoped to that
//! session's API paths, so two links to two sessions in one browser never
//! overwrite each other). Both are `HttpOnly; SameSite=Strict`, carry a
//! `Max-Age`, and are `Secure` when the request came over https.

use axum::http::{header, HeaderMap, HeaderValue};

/// The cookie that holds the admin token or a key.
pub const TOKEN: &str = "panecast_token";
/// The cookie that holds a share link's token.
pub const LINK: &str = "panecast_link";

/// The cookie that holds a person signed in at the OpenID provider.
pub const SIGNIN: &str = "panecast_signin";
/// The cookie that holds a sign-in under way at the OpenID provider:
/// `SameSite=Lax`, since the provider's redirect back is a cross-site
/// navigation, and scoped to `/auth/`.
pub const SIGNIN_PENDING: &str = "panecast_signin_pending";

/// A `Set-Cookie` value.
pub fn set(name: &str, value: &str, path: &str, max_age: u64, secure: bool) -> Option<HeaderValue> {
    set_same_site(name, value, path, max_age, secure, "Strict")
}

/// A `Set-Cookie` value with `SameSite=same_site`.
pub fn set_same_site(
    name: &str,
    value: &str,
    path: &str,
    max_age: u64,
    secure: bool,
    same_site: &str,
) -> Option<HeaderValue> {
    let secure = if secure { "; Secure" } else { "" };
    HeaderValue::from_str(&format!(
        "{name}={value}; HttpOnly; SameSite={same_site}; Path={path}; Max-Age={max_age}{secure}"
    ))
    .ok()
}

/// Every value of the cookie `name` the request carries.
pub fn read<'a>(headers: &'a HeaderMap, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .filter_map(move |pair| {
            let (n, v) = pair.trim().split_once('=')?;
            (n == name).then_some(v)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(values: &[&str]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for v in values {
            map.append(header::COOKIE, HeaderValue::from_str(v).expect("ascii"));
        }
        map
    }

    #[test]
    fn reads_cookies_among_others() {
        let h = headers(&["a=1; panecast_token=xyz; b=2", "panecast_link=q"]);
        assert_eq!(read(&h, TOKEN).collect::<Vec<_>>(), ["xyz"]);
        assert_eq!(read(&h, LINK).collect::<Vec<_>>(), ["q"]);
        let h = headers(&["panecast_tokenx=1"]);
        assert_eq!(read(&h, TOKEN).count(), 0);
    }

    #[test]
    fn sets_every_flag() {
        let c = set(LINK, "t", "/api/sessions/x", 60, true).expect("value");
        assert_eq!(
            c.to_str().expect("ascii"),
            "panecast_link=t; HttpOnly; SameSite=Strict; Path=/api/sessions/x; Max-Age=60; Secure"
        );
        let c = set(TOKEN, "t", "/", 60, false).expect("value");
        assert!(!c.to_str().expect("ascii").contains("Secure"));
    }
}

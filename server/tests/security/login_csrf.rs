//! Login CSRF: a link on another site to `/?token=KEY` must not replace
//! the visitor's own credential cookie with the link author's. Typed or
//! same-origin navigations still trade, and so does a first sign-in.

use crate::common::{Server, TOKEN};
use crate::support::{keyed_config, CONTROL_KEY};

fn visit(server: &Server, fetch_site: Option<&str>, cookie: Option<&str>) -> (u16, Option<String>) {
    let mut headers = Vec::new();
    if let Some(site) = fetch_site {
        headers.push(("Sec-Fetch-Site", site));
    }
    if let Some(cookie) = cookie {
        headers.push(("Cookie", cookie));
    }
    let r = server.raw(
        "GET",
        &format!("/s/abc?token={CONTROL_KEY}"),
        &headers,
        None,
    );
    assert_eq!(
        r.header("location"),
        Some("/s/abc"),
        "the token leaves the URL"
    );
    (r.status, r.header("set-cookie").map(str::to_owned))
}

#[test]
fn a_cross_site_token_link_does_not_replace_the_visitors_credential() {
    let server = Server::start(keyed_config());
    let own = format!("panecast_token={TOKEN}");
    for site in [Some("cross-site"), Some("same-site"), None] {
        assert_eq!(visit(&server, site, Some(&own)), (303, None), "{site:?}");
    }
    // Typed in the address bar, or from this server's own pages: traded.
    for site in ["none", "same-origin"] {
        let (status, cookie) = visit(&server, Some(site), Some(&own));
        assert_eq!(status, 303);
        let cookie = cookie.unwrap_or_else(|| panic!("{site}: a cookie"));
        assert!(
            cookie.starts_with(&format!("panecast_token={CONTROL_KEY};")),
            "{cookie}"
        );
    }
}

#[test]
fn a_first_sign_in_from_a_link_elsewhere_still_works() {
    let server = Server::start(keyed_config());
    let (status, cookie) = visit(&server, Some("cross-site"), None);
    assert_eq!(status, 303);
    assert!(cookie.is_some_and(|c| c.starts_with("panecast_token=")));
    // A stale cookie is no credential to protect.
    let (_, cookie) = visit(
        &server,
        Some("cross-site"),
        Some("panecast_token=expired-0123456789"),
    );
    assert!(cookie.is_some());
    // Nor is the same credential.
    let same = format!("panecast_token={CONTROL_KEY}");
    let (_, cookie) = visit(&server, Some("cross-site"), Some(&same));
    assert!(cookie.is_some());
}

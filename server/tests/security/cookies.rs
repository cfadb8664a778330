//! Cookie flags, the redirect that drops `?token=`, and link cookies scoped
//! to their session.

use serde_json::json;

use crate::common::{session_id, test_config, Server, TOKEN};
use crate::support::{keyed_config, mint};

#[test]
fn the_page_token_becomes_a_strict_http_only_cookie_by_redirect() {
    let server = Server::start(keyed_config());
    let r = server.raw("GET", &format!("/s/abc?role=view&token={TOKEN}"), &[], None);
    assert_eq!(r.status, 303);
    assert_eq!(r.header("location"), Some("/s/abc?role=view"));
    let cookie = r.header("set-cookie").expect("a cookie");
    for flag in ["HttpOnly", "SameSite=Strict", "Path=/", "Max-Age=86400"] {
        assert!(cookie.contains(flag), "{flag} missing: {cookie}");
    }
    assert!(!cookie.contains("Secure"), "plain http: {cookie}");
    // A wrong token sets nothing.
    let r = server.raw("GET", "/?token=wrong", &[], None);
    assert_eq!(r.status, 401);
    assert!(r.header("set-cookie").is_none());
}

#[test]
fn cookies_are_secure_behind_a_trusted_https_proxy_only() {
    let mut config = test_config();
    config.trusted_proxies = vec!["127.0.0.1".into()];
    let server = Server::start(config);
    let path = format!("/?token={TOKEN}");
    let r = server.raw("GET", &path, &[("X-Forwarded-Proto", "https")], None);
    assert!(r.header("set-cookie").expect("cookie").contains("; Secure"));
    let untrusted = Server::start(test_config());
    let r = untrusted.raw("GET", &path, &[("X-Forwarded-Proto", "https")], None);
    assert!(!r.header("set-cookie").expect("cookie").contains("Secure"));
}

#[test]
fn a_link_login_sets_a_cookie_scoped_to_its_session() {
    let server = Server::start(keyed_config());
    let a = session_id(&server.create(&["cat"], json!({})));
    let b = session_id(&server.create(&["cat"], json!({})));
    let link_a = mint(&server, &a, "view");
    let link_b = mint(&server, &b, "view");
    let mut cookies = Vec::new();
    for (id, link) in [(&a, &link_a), (&b, &link_b)] {
        let auth = format!("Bearer {}", link["token"].as_str().expect("token"));
        let r = server.raw(
            "POST",
            &format!("/api/sessions/{id}/login"),
            &[("Authorization", &auth)],
            None,
        );
        assert_eq!(r.status, 204);
        let cookie = r.header("set-cookie").expect("cookie").to_owned();
        assert!(
            cookie.contains(&format!("Path=/api/sessions/{id};")),
            "{cookie}"
        );
        assert!(
            cookie.contains("HttpOnly")
                && cookie.contains("SameSite=Strict")
                && cookie.contains("Max-Age="),
            "{cookie}"
        );
        cookies.push(cookie);
    }
    // Two links in one browser: two cookies on two paths, neither overwrites
    // the other; each works on its own session only.
    let value = |c: &str| c.split(';').next().expect("pair").to_owned();
    let r = server.raw(
        "GET",
        &format!("/api/sessions/{a}/screen"),
        &[("Cookie", &value(&cookies[0]))],
        None,
    );
    assert_eq!(r.status, 200);
    let r = server.raw(
        "GET",
        &format!("/api/sessions/{b}/screen"),
        &[("Cookie", &value(&cookies[0]))],
        None,
    );
    assert_eq!(r.status, 404);
}

#[test]
fn login_sets_only_the_link_token_that_was_checked() {
    let server = Server::start(keyed_config());
    let id = session_id(&server.create(&["cat"], json!({})));
    let link = mint(&server, &id, "view");
    let token = link["token"].as_str().expect("token");
    let login = format!("/api/sessions/{id}/login");
    // Authenticated by its cookie, with a forged header beside it: the
    // header is not a credential that was checked, and is not copied.
    let cookie = format!("panecast_link={token}");
    let forged = "Bearer x; Domain=evil.example; Path=/; Max-Age=99999999";
    let r = server.raw(
        "POST",
        &login,
        &[
            ("Cookie", &cookie),
            ("Authorization", forged),
            ("Origin", &format!("http://{}", server.addr)),
            ("Content-Type", "application/json"),
        ],
        None,
    );
    assert_eq!(r.status, 204);
    assert_eq!(
        r.header("set-cookie"),
        None,
        "nothing to set: the cookie is there"
    );
    // The checked header token is set, and only it.
    let auth = format!("Bearer {token}");
    let r = server.raw("POST", &login, &[("Authorization", &auth)], None);
    assert_eq!(r.status, 204);
    let set = r.header("set-cookie").expect("the link cookie");
    assert!(
        set.starts_with(&format!("panecast_link={token}; HttpOnly;")),
        "{set}"
    );
    assert!(!set.contains("evil"), "{set}");
}

#[test]
fn login_with_a_new_link_replaces_an_older_links_cookie() {
    let server = Server::start(keyed_config());
    let id = session_id(&server.create(&["cat"], json!({})));
    let old = mint(&server, &id, "view");
    let new = mint(&server, &id, "view");
    let old_cookie = format!("panecast_link={}", old["token"].as_str().expect("token"));
    let new_token = new["token"].as_str().expect("token");
    let auth = format!("Bearer {new_token}");
    let r = server.raw(
        "POST",
        &format!("/api/sessions/{id}/login"),
        &[("Cookie", &old_cookie), ("Authorization", &auth)],
        None,
    );
    assert_eq!(r.status, 204, "{}", r.body);
    let set = r.header("set-cookie").expect("the new link's cookie");
    assert!(
        set.starts_with(&format!("panecast_link={new_token};")),
        "{set}"
    );
}

//! Clickjacking: no page may be framed, except `/embed/` by the origins in
//! `embed_ancestors`.

use crate::common::{test_config, Server};

#[test]
fn pages_refuse_every_frame() {
    let server = Server::start(test_config());
    for path in ["/", "/s/abc", "/api/sessions", "/healthz"] {
        let r = server.raw("GET", path, &[], None);
        assert_eq!(
            r.header("content-security-policy"),
            Some("frame-ancestors 'none'"),
            "{path}"
        );
        assert_eq!(r.header("x-frame-options"), Some("DENY"), "{path}");
    }
    // Embedding is refused too until origins are configured.
    let r = server.raw("GET", "/embed/abc", &[], None);
    assert_eq!(
        r.header("content-security-policy"),
        Some("frame-ancestors 'none'")
    );
}

#[test]
fn embed_pages_name_the_configured_ancestors() {
    let mut config = test_config();
    config.embed_ancestors = vec![
        "https://dash.example".into(),
        "https://grafana.example".into(),
    ];
    let server = Server::start(config);
    let r = server.raw("GET", "/embed/abc", &[], None);
    assert_eq!(r.status, 200);
    assert_eq!(
        r.header("content-security-policy"),
        Some("frame-ancestors https://dash.example https://grafana.example")
    );
    assert_eq!(r.header("x-frame-options"), None);
    let r = server.raw("GET", "/s/abc", &[], None);
    assert_eq!(
        r.header("content-security-policy"),
        Some("frame-ancestors 'none'")
    );
}

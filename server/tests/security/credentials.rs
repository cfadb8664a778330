//! Missing, wrong, expired and revoked credentials.

use serde_json::json;

use crate::common::{session_id, Server, TOKEN};
use crate::support::{keyed_config, mint, revoke, status, VIEW_KEY};

#[test]
fn missing_and_wrong_credentials_are_401() {
    let server = Server::start(keyed_config());
    let id = session_id(&server.create(&["cat"], json!({})));
    for (what, headers) in [
        ("no credential", vec![]),
        (
            "a wrong token",
            vec![("Authorization", "Bearer wrong".to_owned())],
        ),
        (
            "the token one character short",
            vec![(
                "Authorization",
                format!("Bearer {}", &TOKEN[..TOKEN.len() - 1]),
            )],
        ),
        (
            "a wrong cookie",
            vec![("Cookie", "panecast_token=wrong".to_owned())],
        ),
        (
            "a key's digest instead of its secret",
            vec![(
                "Authorization",
                format!(
                    "Bearer {}",
                    panecast::access::secret::hex(&panecast::access::secret::hash(
                        VIEW_KEY.as_bytes()
                    ))
                ),
            )],
        ),
    ] {
        let headers: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
        for path in [
            "/api/sessions".to_owned(),
            format!("/api/sessions/{id}/screen"),
        ] {
            let r = server.raw("GET", &path, &headers, None);
            assert_eq!(
                (r.status, r.code().as_str()),
                (401, "unauthorized"),
                "{what} on {path}"
            );
            assert_eq!(r.header("www-authenticate"), Some("Bearer"));
        }
    }
}

#[test]
fn revoked_and_expired_links_are_401() {
    let mut config = keyed_config();
    config.limits.max_link_ttl_secs = 1;
    config.limits.link_ttl_secs = 1;
    let server = Server::start(config);
    let id = session_id(&server.create(&["cat"], json!({})));
    let revoked = mint(&server, &id, "view");
    let token = revoked["token"].as_str().expect("token");
    assert_eq!(
        status(&server, token, "GET", &format!("/api/sessions/{id}"), None),
        200
    );
    let link_id = revoked["id"].as_str().expect("id");
    assert_eq!(revoke(&server, &id, link_id), 204);
    assert_eq!(
        status(&server, token, "GET", &format!("/api/sessions/{id}"), None),
        401
    );

    let expiring = mint(&server, &id, "view");
    let token = expiring["token"].as_str().expect("token");
    std::thread::sleep(std::time::Duration::from_millis(1100));
    assert_eq!(
        status(&server, token, "GET", &format!("/api/sessions/{id}"), None),
        401
    );
}

#[test]
fn a_ttl_over_the_limit_is_refused() {
    let server = Server::start(keyed_config());
    let id = session_id(&server.create(&["cat"], json!({})));
    let r = server.call(
        "POST",
        &format!("/api/sessions/{id}/links"),
        Some(r#"{"ttl": 999999999}"#),
    );
    assert_eq!((r.status, r.code().as_str()), (400, "bad_ttl"));
    let r = server.call(
        "POST",
        &format!("/api/sessions/{id}/links"),
        Some(r#"{"role": "admin"}"#),
    );
    assert_eq!((r.status, r.code().as_str()), (400, "bad_role"));
}

#[test]
fn the_401_suggests_only_a_way_the_api_accepts() {
    let server = Server::start(keyed_config());
    let r = server.raw("GET", "/api/sessions", &[], None);
    assert_eq!((r.status, r.code().as_str()), (401, "unauthorized"));
    let message = r.json()["error"].as_str().unwrap_or_default().to_owned();
    assert!(message.contains("Authorization: Bearer"), "{message}");
    assert!(
        !message.contains("?token="),
        "the API refuses ?token=: {message}"
    );
    let r = server.raw("GET", &format!("/api/sessions?token={TOKEN}"), &[], None);
    assert_eq!(r.status, 401, "and indeed it does");
}

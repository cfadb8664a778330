//! Sign-in at an OpenID provider (`[auth.oidc]`): the `panecast_signin`
//! cookie cannot be forged, changed or replayed after a logout, and the
//! callback takes no state but the one its own sign-in sent. The provider
//! is never reached here: the cookies are sealed as the server seals them,
//! with the configured secret (or another).

use panecast::access::{AuthConfig, Role, RuleConfig};
use panecast::config::Config;
use panecast::oidc::seal::{now, Sealer};
use panecast::oidc::{OidcConfig, Person};

use crate::common::{self, Server};

const SECRET: &str = "oidc-security-test-secret";

/// A server whose `[auth.oidc]` provider is never reached, with alice
/// (control) the only person a rule names; its secret file is in `dir`.
fn server(dir: &std::path::Path) -> Server {
    let secret_file = dir.join("oidc-secret");
    std::fs::write(&secret_file, SECRET).expect("write the secret");
    let config = Config {
        auth: AuthConfig {
            proxy: None,
            rules: vec![RuleConfig {
                users: vec!["alice".into()],
                groups: vec![],
                role: Role::Control,
                sessions: vec![],
                profiles: vec!["shell".into()],
            }],
            oidc: Some(OidcConfig {
                issuer: "http://127.0.0.1:9".into(),
                client_id: "panecast".into(),
                client_secret_file: secret_file,
                redirect_url: None,
                post_logout_redirect_url: None,
                scopes: vec!["openid".into()],
                user_claim: "preferred_username".into(),
                groups_claim: "groups".into(),
            }),
        },
        ..Config::default()
    };
    Server::start_with(config, true)
}

/// A temporary directory, removed when dropped.
struct Dir(std::path::PathBuf);

impl Dir {
    fn new() -> Dir {
        let name = format!(
            "panecast-oidc-security-{}",
            panecast::random::hex128().expect("random")
        );
        let path = std::env::temp_dir().join(name);
        std::fs::create_dir(&path).expect("mkdir");
        Dir(path)
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn person(user: &str) -> Person {
    Person {
        id: panecast::random::hex128().expect("random"),
        user: user.into(),
        groups: vec![],
    }
}

/// `person`'s cookie as a server with `secret` seals it.
fn cookie(secret: &str, person: &Person, exp: u64) -> String {
    format!(
        "panecast_signin={}",
        Sealer::new(secret, "session").seal(person, exp)
    )
}

fn list(server: &Server, cookie: &str) -> common::Response {
    server.raw("GET", "/api/sessions", &[("Cookie", cookie)], None)
}

#[test]
fn a_forged_or_changed_sign_in_cookie_is_refused() {
    let dir = Dir::new();
    let server = server(&dir.0);
    let alice = cookie(SECRET, &person("alice"), now() + 600);
    assert_eq!(
        list(&server, &alice).status,
        200,
        "the genuine cookie works"
    );

    // Sealed with another secret: a forgery.
    let forged = cookie("guessed-secret", &person("alice"), now() + 600);
    assert_eq!(list(&server, &forged).status, 401);
    // Alice's cookie with its payload changed (another user), its tag kept.
    let value = alice.trim_start_matches("panecast_signin=");
    let (payload, tag) = value.split_once('.').expect("payload.tag");
    let other = Sealer::new(SECRET, "session").seal(&person("admin"), now() + 600);
    let (other_payload, _) = other.split_once('.').expect("payload.tag");
    assert_ne!(payload, other_payload);
    let changed = format!("panecast_signin={other_payload}.{tag}");
    assert_eq!(list(&server, &changed).status, 401);
    // Its tag cut, or none.
    let cut = format!("panecast_signin={payload}.{}", &tag[..tag.len() - 1]);
    assert_eq!(list(&server, &cut).status, 401);
    assert_eq!(
        list(&server, &format!("panecast_signin={payload}")).status,
        401
    );
    // Expired, though genuine.
    let expired = cookie(SECRET, &person("alice"), now() - 1);
    assert_eq!(list(&server, &expired).status, 401);
    // A login cookie (another purpose) is no sign-in.
    let login = format!(
        "panecast_signin={}",
        Sealer::new(SECRET, "login").seal(&person("alice"), now() + 600)
    );
    assert_eq!(list(&server, &login).status, 401);
    // Genuine, but no rule names mallory.
    let mallory = list(&server, &cookie(SECRET, &person("mallory"), now() + 600));
    assert_eq!(
        (mallory.status, mallory.code()),
        (403, "no_rule".to_owned())
    );
}

#[test]
fn a_write_by_the_cookie_needs_the_same_site_checks_and_logout_ends_it() {
    let dir = Dir::new();
    let server = server(&dir.0);
    let alice = cookie(SECRET, &person("alice"), now() + 600);
    let cross_site = server.raw(
        "POST",
        "/api/sessions",
        &[
            ("Cookie", &alice),
            ("Origin", "https://evil.example"),
            ("Content-Type", "application/json"),
        ],
        Some(br#"{"profile": "shell"}"#),
    );
    assert_eq!(
        (cross_site.status, cross_site.code()),
        (403, "csrf".to_owned()),
        "{}",
        cross_site.body
    );
    // A logout from another site's form is refused, and ends nothing.
    let forced = server.raw(
        "POST",
        "/auth/logout",
        &[("Cookie", &alice), ("Origin", "https://evil.example")],
        None,
    );
    assert_eq!((forced.status, forced.code()), (403, "csrf".to_owned()));
    assert_eq!(list(&server, &alice).status, 200);
    // From the server's page: the cookie is cleared and its value stops working.
    let origin = format!("http://{}", server.addr);
    let out = server.raw(
        "POST",
        "/auth/logout",
        &[("Cookie", &alice), ("Origin", &origin)],
        None,
    );
    assert_eq!(out.status, 303, "{}", out.body);
    let cleared = out
        .headers
        .iter()
        .any(|(n, v)| n.eq_ignore_ascii_case("set-cookie") && v.starts_with("panecast_signin=;"));
    assert!(cleared, "{:?}", out.headers);
    assert_eq!(list(&server, &alice).status, 401, "ended by the logout");
}

#[test]
fn the_callback_takes_only_its_own_sign_ins_state() {
    let dir = Dir::new();
    let server = server(&dir.0);
    let pending = |secret: &str, state: &str| {
        let value = serde_json::json!({
            "state": state, "nonce": "n", "verifier": "v",
            "redirect": format!("http://{}/auth/callback", server.addr),
        });
        let sealed = Sealer::new(secret, "login").seal(&value, now() + 600);
        format!("panecast_signin_pending={sealed}")
    };
    let callback = |query: &str, cookie: Option<&str>| {
        let headers: Vec<(&str, &str)> = cookie.map(|c| ("Cookie", c)).into_iter().collect();
        let answer = server.raw("GET", &format!("/auth/callback?{query}"), &headers, None);
        (answer.status, answer.code(), answer.body)
    };
    // No sign-in under way in this browser (a link to the callback).
    let (status, code, body) = callback("code=c&state=s1", None);
    assert_eq!((status, code.as_str()), (400, "bad_state"), "{body}");
    // Its own sign-in is under way, but the state is another's.
    let own = pending(SECRET, "s1");
    let (status, code, body) = callback("code=c&state=s2", Some(&own));
    assert_eq!((status, code.as_str()), (400, "bad_state"), "{body}");
    assert!(body.contains("not the one this sign-in sent"), "{body}");
    // No state at all; an error from the provider with a wrong state.
    let (status, code, _) = callback("code=c", Some(&own));
    assert_eq!((status, code.as_str()), (400, "bad_state"));
    let (status, code, _) = callback("error=access_denied&state=s2", Some(&own));
    assert_eq!((status, code.as_str()), (400, "bad_state"));
    // A pending cookie sealed with another secret, whose state matches.
    let forged = pending("guessed-secret", "s1");
    let (status, code, _) = callback("code=c&state=s1", Some(&forged));
    assert_eq!((status, code.as_str()), (400, "bad_state"));
    // The right state and the provider's refusal: signin_denied.
    let (status, code, _) = callback("error=access_denied&state=s1", Some(&own));
    assert_eq!((status, code.as_str()), (403, "signin_denied"));
    // The right state and a code, but the provider cannot be reached.
    let (status, code, _) = callback("code=c&state=s1", Some(&own));
    assert_eq!((status, code.as_str()), (503, "provider_unavailable"));
}

//! Sign-in at an OpenID provider (`[auth.oidc]`): the `panecast_signin`
//! cookie cannot be forged, changed or replayed after a logout, and the
//! callback takes no state but the one its own sign-in sent; nothing a
//! session can read seals one (not the client secret, which a session
//! could once read and sign cookies with), and a client secret others may
//! read is refused at start. The provider is never reached here: the
//! cookies are sealed as the server seals them, with the key it made (or
//! another).

use std::os::unix::fs::PermissionsExt;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use hmac::{Hmac, Mac};
use panecast::access::{AuthConfig, Role, RuleConfig};
use panecast::api::auth::oidc::seal::{now, Sealer};
use panecast::api::auth::oidc::{CookieKey, OidcConfig, Person};
use panecast::config::Config;
use sha2::Sha256;

use crate::common::isolation::runs_as_root;
use crate::common::{self, Server};

const SECRET: &str = "oidc-security-test-secret";

/// The `[auth.oidc]` section of the tests, its files in `dir`: the client
/// secret (0600) and the cookie key the server makes.
fn oidc(dir: &std::path::Path) -> OidcConfig {
    let secret_file = dir.join("oidc-secret");
    std::fs::write(&secret_file, SECRET).expect("write the secret");
    std::fs::set_permissions(&secret_file, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    OidcConfig {
        issuer: "http://127.0.0.1:9".into(),
        client_id: "panecast".into(),
        client_secret_file: secret_file,
        cookie_key_file: dir.join("cookie.key"),
        redirect_url: None,
        post_logout_redirect_url: None,
        scopes: vec!["openid".into()],
        user_claim: "preferred_username".into(),
        groups_claim: "groups".into(),
    }
}

/// A server whose `[auth.oidc]` provider is never reached, with alice
/// (control) the only person a rule names; its files are in `dir`. With
/// the key it sealed its cookies with (read from the file it made, as
/// only the server's user may).
fn server(dir: &std::path::Path) -> (Server, CookieKey) {
    let oidc = oidc(dir);
    let key_file = oidc.cookie_key_file.clone();
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
            oidc: Some(oidc),
        },
        ..Config::default()
    };
    let server = Server::start_with(config, true);
    let key = CookieKey::load_or_create(&key_file).expect("the key the server made");
    (server, key)
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

/// `person`'s cookie as a server with `key` seals it.
fn cookie(key: &CookieKey, person: &Person, exp: u64) -> String {
    format!(
        "panecast_signin={}",
        Sealer::new(key, "session").seal(person, exp)
    )
}

fn list(server: &Server, cookie: &str) -> common::Response {
    server.raw("GET", "/api/sessions", &[("Cookie", cookie)], None)
}

#[test]
fn a_forged_or_changed_sign_in_cookie_is_refused() {
    let dir = Dir::new();
    let (server, key) = server(&dir.0);
    let alice = cookie(&key, &person("alice"), now() + 600);
    assert_eq!(
        list(&server, &alice).status,
        200,
        "the genuine cookie works"
    );

    // Sealed with another key: a forgery.
    let forged = cookie(
        &CookieKey::derived(b"guessed"),
        &person("alice"),
        now() + 600,
    );
    assert_eq!(list(&server, &forged).status, 401);
    // Alice's cookie with its payload changed (another user), its tag kept.
    let value = alice.trim_start_matches("panecast_signin=");
    let (payload, tag) = value.split_once('.').expect("payload.tag");
    let other = Sealer::new(&key, "session").seal(&person("admin"), now() + 600);
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
    let expired = cookie(&key, &person("alice"), now() - 1);
    assert_eq!(list(&server, &expired).status, 401);
    // A login cookie (another purpose) is no sign-in.
    let login = format!(
        "panecast_signin={}",
        Sealer::new(&key, "login").seal(&person("alice"), now() + 600)
    );
    assert_eq!(list(&server, &login).status, 401);
    // Genuine, but no rule names mallory.
    let mallory = list(&server, &cookie(&key, &person("mallory"), now() + 600));
    assert_eq!(
        (mallory.status, mallory.code()),
        (403, "no_rule".to_owned())
    );
}

#[test]
fn a_write_by_the_cookie_needs_the_same_site_checks_and_logout_ends_it() {
    let dir = Dir::new();
    let (server, key) = server(&dir.0);
    let alice = cookie(&key, &person("alice"), now() + 600);
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
    let (server, key) = server(&dir.0);
    let pending = |key: &CookieKey, state: &str| {
        let value = serde_json::json!({
            "state": state, "nonce": "n", "verifier": "v",
            "redirect": format!("http://{}/auth/callback", server.addr),
        });
        let sealed = Sealer::new(key, "login").seal(&value, now() + 600);
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
    let own = pending(&key, "s1");
    let (status, code, body) = callback("code=c&state=s2", Some(&own));
    assert_eq!((status, code.as_str()), (400, "bad_state"), "{body}");
    assert!(body.contains("not the one this sign-in sent"), "{body}");
    // No state at all; an error from the provider with a wrong state.
    let (status, code, _) = callback("code=c", Some(&own));
    assert_eq!((status, code.as_str()), (400, "bad_state"));
    let (status, code, _) = callback("error=access_denied&state=s2", Some(&own));
    assert_eq!((status, code.as_str()), (400, "bad_state"));
    // A pending cookie sealed with another secret, whose state matches.
    let forged = pending(&CookieKey::derived(b"guessed"), "s1");
    let (status, code, _) = callback("code=c&state=s1", Some(&forged));
    assert_eq!((status, code.as_str()), (400, "bad_state"));
    // The right state and the provider's refusal: signin_denied.
    let (status, code, _) = callback("error=access_denied&state=s1", Some(&own));
    assert_eq!((status, code.as_str()), (403, "signin_denied"));
    // The right state and a code, but the provider cannot be reached.
    let (status, code, _) = callback("code=c&state=s1", Some(&own));
    assert_eq!((status, code.as_str()), (503, "provider_unavailable"));
}

/// A sign-in cookie sealed the way a server before issue 38 sealed it:
/// under a key derived from the client secret alone, which a session that
/// read the secret file could compute.
fn sealed_with_the_client_secret(person: &Person, exp: u64) -> String {
    let hmac = |key: &[u8], data: &[u8]| {
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(key).expect("any length");
        mac.update(data);
        mac.finalize().into_bytes()
    };
    let key = hmac(SECRET.as_bytes(), b"panecast oidc cookie v1: session");
    let envelope = serde_json::json!({ "exp": exp, "v": person });
    let payload = URL_SAFE_NO_PAD.encode(envelope.to_string());
    let tag = URL_SAFE_NO_PAD.encode(hmac(&key, payload.as_bytes()));
    format!("panecast_signin={payload}.{tag}")
}

#[test]
fn a_cookie_forged_from_the_client_secret_is_refused() {
    let dir = Dir::new();
    let (server, key) = server(&dir.0);
    // The attack of the second trial: an admin-named person's cookie,
    // sealed from the client secret a session read.
    let forged = sealed_with_the_client_secret(&person("alice"), now() + 600);
    let refused = list(&server, &forged);
    assert_eq!(refused.status, 401, "{}", refused.body);
    // The same person, sealed with the server's own key: taken.
    assert_eq!(
        list(&server, &cookie(&key, &person("alice"), now() + 600)).status,
        200
    );
    // The key is the server's own file, 0600, and not the secret's.
    let mode = std::fs::metadata(dir.0.join("cookie.key"))
        .expect("made at start")
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
}

#[test]
fn a_client_secret_others_may_read_is_refused_at_start() {
    if !runs_as_root() {
        return;
    }
    let dir = Dir::new();
    let section = oidc(&dir.0);
    std::fs::set_permissions(
        &section.client_secret_file,
        std::fs::Permissions::from_mode(0o644),
    )
    .expect("chmod");
    let refused = section
        .validate()
        .expect_err("a secret others may read")
        .to_string();
    assert!(
        refused.contains("may be read by other users (mode 644)") && refused.contains("chmod 600"),
        "{refused}"
    );
    // As the configuration file names it, at start.
    let text = format!(
        "[auth.oidc]\nissuer = \"http://127.0.0.1:9\"\nclient_id = \"panecast\"\n\
         client_secret_file = \"{}\"\n",
        section.client_secret_file.display()
    );
    let err = Config::parse(&text)
        .expect_err("refused at start")
        .to_string();
    assert!(err.contains("client_secret_file"), "{err}");
    std::fs::set_permissions(
        &section.client_secret_file,
        std::fs::Permissions::from_mode(0o600),
    )
    .expect("chmod");
    section.validate().expect("private again");
    assert!(Config::parse(&text).is_ok());
}

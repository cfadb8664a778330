//! `/metrics` is for operators: the admin token, admin keys and keys the
//! config allows (`metrics = true`), never a share link or another key.

use panecast::access::secret;
use panecast::config::Config;
use serde_json::json;

use crate::common::{session_id, Server, TOKEN};
use crate::support::{as_, mint};

const SCRAPER_KEY: &str = "scraper-key-secret-0123";
const VIEW_KEY: &str = "plain-view-key-secret-0123";

fn config() -> Config {
    let key = |name: &str, secret_text: &str, extra: &str| {
        format!(
            "[[keys]]\nname = \"{name}\"\nsha256 = \"{}\"\nrole = \"view\"\n{extra}\n",
            secret::hex(&secret::hash(secret_text.as_bytes()))
        )
    };
    let text = [
        key("scraper", SCRAPER_KEY, "metrics = true"),
        key("plain", VIEW_KEY, ""),
    ]
    .concat();
    Config::parse(&text).expect("valid test config")
}

#[test]
fn metrics_answer_the_admin_and_allowed_keys_only() {
    let server = Server::start(config());
    let id = session_id(&server.create(&["cat"], json!({})));
    let link = mint(&server, &id, "control");
    let link = link["token"].as_str().expect("token");
    for (who, secret, expected) in [
        ("the admin token", TOKEN, 200),
        ("a key with metrics = true", SCRAPER_KEY, 200),
        ("a view key", VIEW_KEY, 403),
        ("a control share link", link, 403),
        ("a wrong token", "wrong-token-0123456789", 401),
    ] {
        let r = as_(&server, secret, "GET", "/metrics", None);
        assert_eq!(r.status, expected, "{who}: {}", r.body);
        if expected == 403 {
            assert_eq!(r.code(), "forbidden", "{who}");
        }
    }
}

//! The client's address behind proxies: `X-Forwarded-For` is read from the
//! right, trusted proxies are skipped, and the walk stops at the first
//! entry that is untrusted or is not an address. What a client wrote
//! further left never becomes its address.

use axum::http::{HeaderMap, HeaderValue};
use panecast::access::{client_address, TrustedProxies};

fn forwarded(value: &str) -> HeaderMap {
    let mut headers = HeaderMap::new();
    headers.insert(
        "x-forwarded-for",
        HeaderValue::from_str(value).expect("ascii"),
    );
    headers
}

fn address(peer: &str, xff: &str) -> String {
    let trusted = TrustedProxies::parse(&["127.0.0.1".into(), "10.0.0.0/8".into()]).expect("valid");
    client_address(peer.parse().expect("ip"), &forwarded(xff), &trusted).to_string()
}

#[test]
fn a_junk_entry_ends_the_walk_at_the_last_trusted_hop() {
    // The client sent `X-Forwarded-For: 6.6.6.6, junk`; the trusted proxy
    // passed it on. 6.6.6.6 is the client's claim, never its address.
    assert_eq!(address("127.0.0.1", "6.6.6.6, junk"), "127.0.0.1");
    assert_eq!(address("127.0.0.1", "6.6.6.6, junk, 10.0.0.7"), "10.0.0.7");
    assert_eq!(address("127.0.0.1", "6.6.6.6,"), "127.0.0.1");
}

#[test]
fn the_first_untrusted_entry_from_the_right_is_the_client() {
    assert_eq!(address("127.0.0.1", "6.6.6.6, 203.0.113.9"), "203.0.113.9");
    assert_eq!(
        address("127.0.0.1", "6.6.6.6, 203.0.113.9, 10.1.1.1"),
        "203.0.113.9"
    );
    assert_eq!(
        address("192.0.2.1", "6.6.6.6"),
        "192.0.2.1",
        "an untrusted peer is the client"
    );
}

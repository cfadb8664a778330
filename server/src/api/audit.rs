//! The audit log: one structured line (target `panecast::audit`) per
//! authentication failure, address blocked for failing too often, stream
//! connect and disconnect, link minted or revoked, and session created or
//! deleted. Each names the credential
//! (never its secret), the role, the session and the client's address.
//! Paths are logged without their query string.

use std::net::IpAddr;

use crate::access::{Credential, Role};

/// A request was refused for want of a valid credential.
pub fn auth_failed(peer: IpAddr, method: &str, path: &str, reason: &str) {
    tracing::warn!(target: "panecast::audit", event = "auth_failed", %peer, method, path, reason);
}

/// A request carried `[auth.proxy]`'s user header but did not come through
/// a trusted proxy (another address, or no proof): the header was ignored.
pub fn forged_header(peer: IpAddr, header: &str) {
    tracing::warn!(target: "panecast::audit", event = "forged_header", %peer, header, "a user header that did not come through a trusted proxy (not from its address, or without its proof): ignored");
}

/// A person signed in through the proxy whom no rule gives a role.
pub fn no_rule(peer: IpAddr, user: &str) {
    tracing::warn!(target: "panecast::audit", event = "no_rule", %peer, user, "signed in, but no rule of [auth] gives this person a role");
}

/// A person signed in at the OpenID provider.
pub fn signed_in(peer: IpAddr, user: &str, groups: &[String]) {
    tracing::info!(target: "panecast::audit", event = "signin", %peer, credential = %format_args!("user:{user}"), groups = %groups.join(","));
}

/// A sign-in at the OpenID provider was refused (`code`), naming the
/// person when the provider did.
pub fn signin_refused(peer: IpAddr, user: Option<&str>, code: &str, reason: &str) {
    let credential = user.map(|u| format!("user:{u}")).unwrap_or_default();
    tracing::warn!(target: "panecast::audit", event = "signin_refused", %peer, credential, code, reason);
}

/// A person signed out.
pub fn signed_out(peer: IpAddr, user: &str) {
    tracing::info!(target: "panecast::audit", event = "signout", %peer, credential = %format_args!("user:{user}"));
}

/// An address presented `limit` wrong credentials within a minute: it is
/// refused (429) until the minute is over.
pub fn auth_blocked(peer: IpAddr, limit: u32) {
    tracing::warn!(target: "panecast::audit", event = "auth_blocked", %peer, limit, "too many failed sign-ins: address refused for the rest of the minute");
}

/// A stream connection opened.
pub fn stream_opened(peer: IpAddr, credential: &Credential, role: Role, session: &str) {
    tracing::info!(target: "panecast::audit", event = "stream_opened", %peer, credential = %credential, %role, session);
}

/// A stream connection closed, with its close code.
pub fn stream_closed(peer: IpAddr, credential: &Credential, role: Role, session: &str, code: u16) {
    tracing::info!(target: "panecast::audit", event = "stream_closed", %peer, credential = %credential, %role, session, code);
}

/// A share link was minted.
pub fn link_minted(peer: IpAddr, by: &Credential, session: &str, link: &str, role: Role) {
    tracing::info!(target: "panecast::audit", event = "link_minted", %peer, credential = %by, session, link, %role);
}

/// A share link was revoked.
pub fn link_revoked(peer: IpAddr, by: &Credential, session: &str, link: &str) {
    tracing::info!(target: "panecast::audit", event = "link_revoked", %peer, credential = %by, session, link);
}

/// A session was created through the API.
pub fn session_created(peer: IpAddr, by: &Credential, role: Role, session: &str) {
    tracing::info!(target: "panecast::audit", event = "session_created", %peer, credential = %by, %role, session);
}

/// A session was deleted through the API.
pub fn session_deleted(peer: IpAddr, by: &Credential, role: Role, session: &str) {
    tracing::info!(target: "panecast::audit", event = "session_deleted", %peer, credential = %by, %role, session);
}

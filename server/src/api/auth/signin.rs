//! The limit on failed sign-ins (`limits.auth_failures_per_minute`): every
//! place that checks a presented credential (the API guard, a page's
//! `?token=`, `/metrics`) asks [`refusal`] first and reports a
//! wrong credential with [`failed`]. A blocked address gets 429
//! `too_many_auth_failures` with `Retry-After`, whatever it presents, so
//! guessing stops; other addresses are unaffected.

use crate::api::error::ErrorCode;
use std::net::IpAddr;

use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Response};

use crate::api::audit;
use crate::api::auth::auth_state::AuthState;
use crate::api::error::ApiError;

/// The 429 for an address that failed too often, if `peer` is one.
pub fn refusal(state: &AuthState, peer: IpAddr) -> Option<Response> {
    let left = state.failures.blocked(peer)?;
    let mut response = ApiError::new(
        ErrorCode::TooManyAuthFailures,
        "too many wrong credentials from this address; try again later",
    )
    .into_response();
    // Whole seconds, rounded up: never earlier than the window's end.
    let seconds = left.as_secs() + u64::from(left.subsec_nanos() > 0);
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
    Some(response)
}

/// Counts a wrong credential from `peer`; logs the address when this one
/// blocks it.
pub fn failed(state: &AuthState, peer: IpAddr) {
    if state.failures.failed(peer) {
        audit::auth_blocked(peer, state.config.limits.auth_failures_per_minute);
    }
}

//! Who is calling ([`Caller`]), as the [guard](super::guard) established
//! it, and its extractor: a handler takes a `Caller` argument, which is a
//! 401 `unauthorized` on a route the guard does not cover.

use std::net::{IpAddr, SocketAddr};

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::HeaderMap;

use panecast_proto::MemberKind;

use crate::access::{Credential, Grant};
use crate::api::error::ApiError;
use crate::api::http::origin::check_origin;
use crate::api::origin_refusal::OriginRefusal;
use crate::session::{Badge, Reader};

/// Who is calling, as established by the guard.
#[derive(Debug, Clone)]
pub struct Caller {
    pub(super) grant: Grant,
    pub(super) peer: IpAddr,
    /// The socket's peer: the TCP connection the request came on.
    pub(super) connection: SocketAddr,
    pub(super) secure: bool,
    /// The credential chosen is one the browser sends by itself (a cookie,
    /// a trusted proxy's header): writes and streams need the same-site checks.
    pub(super) cookie: bool,
    pub(super) checked: Checked,
}

/// The secret the guard checked and chose, exactly as authenticated (a
/// valid token: only safe characters); never printed.
#[derive(Clone)]
pub(super) struct Checked(pub(super) String);

impl std::fmt::Debug for Checked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Checked(..)")
    }
}

impl Caller {
    /// The caller the guard put in a request's extensions; 401
    /// `unauthorized` when there is none (a route the guard does not cover).
    pub fn of(parts: &Parts) -> Result<&Caller, ApiError> {
        parts
            .extensions
            .get::<Caller>()
            .ok_or_else(ApiError::unauthorized)
    }

    /// What the caller may do.
    pub fn grant(&self) -> &Grant {
        &self.grant
    }

    /// The client's address (through trusted proxies).
    pub fn peer(&self) -> IpAddr {
        self.peer
    }

    /// The caller as a reader of a session: its credential over this
    /// connection (searches and scrollback are paced by both).
    pub fn reader(&self) -> Reader {
        Reader::new(self.grant.principal(), self.connection)
    }

    /// Who the caller is in a session's room: a person or key by name, a
    /// link by its label (or unnamed), never a secret.
    pub fn badge(&self) -> Badge {
        match self.grant.credential() {
            Credential::Admin => Badge::new(MemberKind::Admin, "admin"),
            Credential::Key(name) => Badge::new(MemberKind::Key, name),
            Credential::User(name) => Badge::new(MemberKind::Person, name),
            Credential::Link(_) => Badge::new(
                MemberKind::Link,
                self.grant
                    .link_ticket()
                    .and_then(|t| t.label.as_deref())
                    .unwrap_or(""),
            ),
        }
    }

    /// True when the client reached the server over https.
    pub fn secure(&self) -> bool {
        self.secure
    }

    /// The token of the share link that authenticated this request, when
    /// it came in a header or subprotocol (one that came in a cookie is
    /// already a cookie): the one secret `/login` may set as a cookie.
    pub fn link_token(&self) -> Option<&str> {
        (self.grant.link_ticket().is_some() && !self.cookie).then_some(self.checked.0.as_str())
    }

    /// The Origin check of a stream upgrade (`/ws`, `/alis`): a credential
    /// that came in a cookie (which a browser sends on its own) must come from this server's pages or an
    /// allowed origin (403 `origin_forbidden`); one the page holds itself
    /// is no cross-site forgery.
    /// A refusal is logged with what the server saw and what would allow
    /// it (a proxy that drops the port from `Host` is the common cause).
    pub fn check_stream_origin(
        &self,
        headers: &HeaderMap,
        allowed: &[String],
    ) -> Result<(), OriginRefusal> {
        if !self.cookie {
            return Ok(());
        }
        check_origin(headers, allowed, self.secure).inspect_err(|refused| {
            tracing::warn!(reason = %refused, fix = refused.fix(), "origin_forbidden");
        })
    }
}

impl<S: Send + Sync> FromRequestParts<S> for Caller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Caller, ApiError> {
        Caller::of(parts).cloned()
    }
}

#[cfg(test)]
mod tests {
    use std::net::Ipv4Addr;

    use axum::http::Request;

    use super::*;
    use crate::api::error::ErrorCode;

    fn parts() -> Parts {
        Request::new(()).into_parts().0
    }

    #[tokio::test]
    async fn a_request_the_guard_passed_yields_its_caller() {
        let mut parts = parts();
        parts.extensions.insert(Caller {
            grant: Grant::admin(),
            peer: IpAddr::from(Ipv4Addr::new(192, 0, 2, 1)),
            connection: SocketAddr::from((Ipv4Addr::LOCALHOST, 4000)),
            secure: true,
            cookie: false,
            checked: Checked("secret".into()),
        });
        let caller = Caller::from_request_parts(&mut parts, &())
            .await
            .expect("the guard's caller");
        assert_eq!(caller.peer(), IpAddr::from(Ipv4Addr::new(192, 0, 2, 1)));
        assert!(caller.secure());
    }

    #[tokio::test]
    async fn a_request_without_a_caller_is_unauthorized() {
        let refused = Caller::from_request_parts(&mut parts(), &())
            .await
            .expect_err("no caller");
        assert_eq!(refused.code, ErrorCode::Unauthorized);
        assert_eq!(refused.status(), axum::http::StatusCode::UNAUTHORIZED);
    }
}

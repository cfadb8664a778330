//! The HTTP API: the router, assembled in one function from the routes
//! [`routes`] declares, and [`serve`], which runs it on a bound listener
//! until a shutdown signal and then ends every session.
//!
//! Every `/api` route goes through the [guard](guard), which authenticates
//! the caller and applies the one access check of [`crate::access`] with
//! the action the route is declared with.
//! Every route is documented, with curl examples and error codes, in
//! `docs/api.md`.

mod audit;
pub mod auth;
mod boot;
mod error;
mod error_code;
mod handlers;
mod http;
mod origin_refusal;
mod routes;
mod spec;
mod state;
mod streams;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::DefaultBodyLimit;
use axum::middleware;
use axum::Extension;
use axum::Router;
use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;

pub use crate::access::valid_token;
pub use auth::guard::{PROTOCOL, TOKEN_PROTOCOL};
pub use error::ApiError;
pub use http::origin::Tls;
pub use state::{AppState, Settings, StateError};

use auth::guard;
use handlers::{ops, pages};
use http::{base_path, listen, trace};
use routes::{declare, openapi};
use streams::mcp;

/// Time between two runs of the recordings' retention.
const RETENTION_PERIOD: Duration = Duration::from_secs(3600);

/// How long open connections may take to finish after the sessions ended.
const CONNECTION_DRAIN: Duration = Duration::from_secs(1);

/// Every route: `/api/...` behind the guard, the pages and `/web/` open
/// (they hold no secret; the pages fetch everything through the API),
/// `/healthz` open, `/metrics` as configured; all of them under
/// `base_path` when one is configured.
pub fn router(state: AppState) -> Router {
    let base = state.config.base_path.clone();
    let app = app(state);
    let app = if base.is_empty() {
        app
    } else {
        base_path::mount(base, app)
    };
    app.layer(trace::layer())
}

/// The OpenAPI document of every declared route, built once.
pub fn openapi_document() -> &'static utoipa::openapi::OpenApi {
    static DOCUMENT: std::sync::LazyLock<utoipa::openapi::OpenApi> =
        std::sync::LazyLock::new(|| openapi::build(routes::declared()));
    &DOCUMENT
}

/// The routes relative to the base path: those [`routes`] declares, the
/// ones under [`declare::API`] behind the guard, and `/mcp` behind it too.
fn app(state: AppState) -> Router {
    let declared = routes::declared();
    let api = declared
        .api_router()
        .fallback(ops::not_found)
        .method_not_allowed_fallback(ops::method_not_allowed)
        .layer(Extension(openapi_document()))
        .layer(middleware::from_fn_with_state(state.clone(), guard::guard));
    let mcp = Router::new()
        .route_service(mcp::ROUTE, mcp::service(&state))
        .layer(middleware::from_fn_with_state(state.clone(), guard::guard));
    declared
        .open_router()
        .nest(declare::API, api)
        .merge(mcp)
        .fallback(ops::not_found)
        .method_not_allowed_fallback(ops::method_not_allowed)
        .layer(DefaultBodyLimit::max(state.config.limits.max_body_bytes))
        .layer(middleware::from_fn_with_state(
            state.clone(),
            pages::security_headers,
        ))
        .layer(middleware::from_fn_with_state(
            state.clone(),
            guard::check_host,
        ))
        .with_state(state)
}

/// Serves the API on `listener` until `shutdown` completes, then ends every
/// session (hangup, kill after the grace period) and returns once they are
/// reaped and open requests are done (or after a short drain time).
pub async fn serve(
    settings: Settings,
    listener: TcpListener,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    serve_with(settings, listener, None, shutdown, None).await
}

/// [`serve`] over TLS: every connection's handshake presents the current
/// certificate of `tls` (see [`crate::tls::Certificates::reload`]).
pub async fn serve_tls(
    settings: Settings,
    listener: TcpListener,
    tls: TlsAcceptor,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    serve_with(settings, listener, Some(tls), shutdown, None).await
}

/// What [`serve_in_place`] needs to upgrade the server in place.
pub struct InPlace {
    /// The binary, arguments, listener and token, fixed at start.
    pub origin: crate::upgrade::Origin,
    /// SIGUSR2, installed before the server said it listens.
    pub signals: tokio::signal::unix::Signal,
    /// The state an earlier image handed over, when this start is an upgrade's.
    pub resumed: Option<crate::upgrade::resume::Resumed>,
    /// The cluster registry this node joined (`serve --cluster`), if any.
    pub cluster: Option<Arc<crate::cluster::Registry>>,
}

/// [`serve`] (over TLS with `tls`) that upgrades in place on SIGUSR2, and
/// first takes back the sessions an earlier image handed over, if any.
pub async fn serve_in_place(
    settings: Settings,
    listener: TcpListener,
    tls: Option<TlsAcceptor>,
    shutdown: impl Future<Output = ()>,
    in_place: InPlace,
) -> std::io::Result<()> {
    serve_with(settings, listener, tls, shutdown, Some(in_place)).await
}

/// The state the router shares, for `settings`, in `cluster` when this
/// node joined one, guarded by the access rules the routes declare; fails
/// when the configuration's keys or proxies are malformed, or a secret
/// cannot be read.
pub fn app_state(
    settings: Settings,
    cluster: Option<&crate::cluster::Registry>,
) -> Result<AppState, StateError> {
    AppState::new(settings, cluster, routes::policy())
}

async fn serve_with(
    settings: Settings,
    listener: TcpListener,
    tls: Option<TlsAcceptor>,
    shutdown: impl Future<Output = ()>,
    in_place: Option<InPlace>,
) -> std::io::Result<()> {
    let cluster = in_place.as_ref().and_then(|p| p.cluster.clone());
    let state = app_state(settings, cluster.as_deref()).map_err(std::io::Error::other)?;
    if state.trusted().without_proof() {
        tracing::warn!(
            "trusted_proxies are believed for their address alone: any program on those hosts \
             (a session's, on this one) can claim any client address and https; set \
             proxy_secret_file and have the proxy send its secret in X-Panecast-Proxy"
        );
    }
    let sessions = Arc::clone(state.sessions());
    if let Some(registry) = &cluster {
        sessions
            .join_cluster(Arc::clone(registry), state.gate())
            .await
            .map_err(std::io::Error::other)?;
    }
    let (accept_paused, paused) = tokio::sync::watch::channel(false);
    let upgrades = match in_place {
        Some(InPlace {
            origin,
            signals,
            resumed,
            cluster: _,
        }) => {
            if let Some(resumed) = resumed {
                resumed.take_in(&sessions, &state.access).await;
            }
            let server = crate::upgrade::Server {
                sessions: Arc::clone(&sessions),
                access: Arc::clone(&state.access),
                accept_paused: accept_paused.clone(),
            };
            Some(tokio::spawn(crate::upgrade::on_signal(
                origin, server, signals,
            )))
        }
        None => None,
    };
    if let Some(registry) = &cluster {
        // After an upgrade took its links in: they are shared too.
        let max_ttl = Duration::from_secs(state.config.limits.max_link_ttl_secs);
        registry
            .share_links(Arc::clone(&state.access), max_ttl)
            .await
            .map_err(std::io::Error::other)?;
    }
    let limits = listen::ConnectionLimits {
        max: state.config.limits.max_connections,
        per_address: state.config.limits.max_connections_per_address,
        proxies: state.trusted().clone(),
        header_timeout: state.config.limits.header_timeout(),
    };
    let boot = boot::start(state.clone());
    let retention = sessions.recordings().spawn_retention(RETENTION_PERIOD);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(listen::serve(
        listener,
        router(state),
        tls,
        limits,
        Arc::clone(sessions.metrics()),
        async move {
            // A dropped sender also means stop.
            let _ = stopped.await;
        },
        CONNECTION_DRAIN,
        paused,
    ));
    shutdown.await;
    tracing::info!("shutting down: ending every session");
    if let Some(upgrades) = upgrades {
        upgrades.abort();
    }
    drop(accept_paused);
    boot.abort();
    retention.abort();
    // Stop accepting first, so that readiness probes fail at once, then end
    // the sessions (their viewers get 1001) while open requests finish.
    let _ = stop.send(());
    sessions.shutdown().await;
    let _ = tokio::time::timeout(CONNECTION_DRAIN * 2, server).await;
    Ok(())
}

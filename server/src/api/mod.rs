//! The HTTP API: the router, assembled in one function, and [`serve`],
//! which runs it on a bound listener until a shutdown signal and then ends
//! every session.
//!
//! Every route is documented, with curl examples and error codes, in
//! `docs/api.md`.

mod alis;
mod auth;
mod body;
mod create;
mod error;
mod ops;
mod pages;
mod recordings;
mod sessions;
mod view;
mod ws;

use std::future::{Future, IntoFuture};
use std::sync::Arc;
use std::time::Duration;

use axum::extract::DefaultBodyLimit;
use axum::middleware;
use axum::routing::{get, post};
use axum::Router;
use tokio::net::TcpListener;
use tokio::sync::oneshot;

use crate::config::Config;
use crate::record::Recordings;
use crate::session::Sessions;

pub use auth::valid_token;
pub use error::ApiError;

/// Time between two runs of the recordings' retention.
const RETENTION_PERIOD: Duration = Duration::from_secs(3600);

/// How long open connections may take to finish after the sessions ended.
const CONNECTION_DRAIN: Duration = Duration::from_secs(1);

/// What the server runs with.
#[derive(Clone)]
pub struct Settings {
    /// Profiles and limits.
    pub config: Config,
    /// The token every `/api` request must carry.
    pub token: String,
    /// Whether requests may name their own argv and environment.
    pub allow_any_command: bool,
}

impl std::fmt::Debug for Settings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Settings")
            .field("config", &self.config)
            .field("token", &"<redacted>")
            .field("allow_any_command", &self.allow_any_command)
            .finish()
    }
}

/// The state every handler shares.
#[derive(Clone)]
pub struct AppState {
    sessions: Arc<Sessions>,
    config: Arc<Config>,
    token: Arc<str>,
    allow_any_command: bool,
}

impl AppState {
    /// State for `settings`, with an empty session registry.
    pub fn new(settings: Settings) -> AppState {
        AppState {
            sessions: Sessions::new(
                settings.config.limits.clone(),
                Recordings::new(
                    settings.config.recordings_dir.clone(),
                    settings.config.recordings.clone(),
                ),
            ),
            config: Arc::new(settings.config),
            token: Arc::from(settings.token),
            allow_any_command: settings.allow_any_command,
        }
    }

    /// The session registry.
    pub fn sessions(&self) -> &Arc<Sessions> {
        &self.sessions
    }
}

/// Every route: `/api/...` behind the token, `/healthz` and `/metrics` open.
pub fn router(state: AppState) -> Router {
    let api = Router::new()
        .route("/sessions", post(sessions::create).get(sessions::list))
        .route(
            "/sessions/{id}",
            get(sessions::show).delete(sessions::delete),
        )
        .route("/sessions/{id}/screen", get(sessions::screen))
        .route("/sessions/{id}/input", post(sessions::input))
        .route("/sessions/{id}/resize", post(sessions::resize))
        .route("/sessions/{id}/ws", get(ws::upgrade))
        .route("/sessions/{id}/recording", get(recordings::of_session))
        .route("/sessions/{id}/alis", get(alis::upgrade))
        .route("/recordings", get(recordings::list))
        .route(
            "/recordings/{name}",
            get(recordings::download).delete(recordings::delete),
        )
        .route("/profiles", get(pages::profiles))
        .fallback(ops::not_found);
    let protected = Router::new()
        .nest("/api", api)
        .route("/", get(pages::index))
        .route("/s/{id}", get(pages::terminal))
        .route("/embed/{id}", get(pages::embed))
        .layer(middleware::from_fn_with_state(
            state.clone(),
            auth::require_token,
        ));
    Router::new()
        .route("/healthz", get(ops::healthz))
        .route("/web/{name}", get(pages::web_file))
        .route("/metrics", get(ops::metrics))
        .merge(protected)
        .fallback(ops::not_found)
        .method_not_allowed_fallback(ops::method_not_allowed)
        .layer(DefaultBodyLimit::max(state.config.limits.max_body_bytes))
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
    let state = AppState::new(settings);
    let sessions = Arc::clone(state.sessions());
    let retention = sessions.recordings().spawn_retention(RETENTION_PERIOD);
    let (stop, stopped) = oneshot::channel::<()>();
    let server = axum::serve(listener, router(state)).with_graceful_shutdown(async move {
        // A dropped sender also means stop.
        let _ = stopped.await;
    });
    let mut server = tokio::spawn(server.into_future());
    tokio::select! {
        result = &mut server => return result.map_err(std::io::Error::other)?,
        () = shutdown => {}
    }
    tracing::info!("shutting down: ending every session");
    retention.abort();
    let _ = stop.send(());
    sessions.shutdown().await;
    match tokio::time::timeout(CONNECTION_DRAIN, &mut server).await {
        Ok(result) => result.map_err(std::io::Error::other)?,
        Err(_) => {
            server.abort();
            Ok(())
        }
    }
}

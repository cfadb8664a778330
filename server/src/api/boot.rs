//! The sessions the config declares (`[[sessions]]`): started with the
//! server, each under its name, and with `restart = "always"` started again
//! when its program exits, after a pause that grows while it keeps failing
//! fast. A dashboard's key scoped to that name keeps working across
//! restarts of the program and of the server.

use std::time::Duration;

use tokio::task::JoinSet;
use tokio::time::Instant;

use crate::access::Grant;
use crate::config::{BootSession, Restart};

use super::error::ApiError;
use super::spec::CreateRequest;
use super::state::AppState;

/// The first pause before a restart, and the longest.
const FIRST_PAUSE: Duration = Duration::from_secs(1);
const LONGEST_PAUSE: Duration = Duration::from_secs(30);
/// A program that ran this long before exiting resets the pause.
const HEALTHY_RUN: Duration = Duration::from_secs(10);

/// Starts a supervisor per declared session; aborting the handle stops
/// them (the sessions themselves end with the server).
pub fn start(state: AppState) -> tokio::task::AbortHandle {
    let mut supervisors = JoinSet::new();
    for declared in state.config.sessions.clone() {
        supervisors.spawn(supervise(state.clone(), declared));
    }
    let handle = tokio::spawn(async move { while supervisors.join_next().await.is_some() {} });
    handle.abort_handle()
}

async fn supervise(state: AppState, declared: BootSession) {
    let mut pause = FIRST_PAUSE;
    loop {
        let started = Instant::now();
        match start_one(&state, &declared).await {
            Ok(session) => {
                let mut status = session.watch_status();
                // An error means the session is gone: treat as exited.
                let _ = status.wait_for(|s| !s.running()).await;
                tracing::info!(name = %declared.name, "declared session exited");
                if declared.restart == Restart::Never {
                    return;
                }
            }
            Err(refused) => {
                tracing::warn!(
                    name = %declared.name,
                    code = refused.code.as_str(),
                    message = %refused.message,
                    "cannot start declared session"
                );
            }
        }
        pause = if started.elapsed() >= HEALTHY_RUN {
            FIRST_PAUSE
        } else {
            (pause * 2).min(LONGEST_PAUSE)
        };
        tokio::time::sleep(pause).await;
    }
}

async fn start_one(
    state: &AppState,
    declared: &BootSession,
) -> Result<crate::session::SessionHandle, ApiError> {
    // Handed over by an upgrade: the declared session runs already.
    if let Some(running) = state
        .sessions
        .get(&declared.name)
        .filter(|s| s.status().running())
    {
        return Ok(running);
    }
    let request = CreateRequest {
        name: Some(declared.name.clone()),
        profile: Some(declared.profile.clone()),
        ..CreateRequest::default()
    };
    let mut spec = request.resolve(&state.config, false, &Grant::admin())?;
    spec.owner = None;
    Ok(state.sessions.create(spec).await?)
}

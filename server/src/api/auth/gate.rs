//! This node's judgement of other nodes' requests ([`Gate`]): the
//! credentials and the configuration the API itself checks with, so a
//! request from the cluster bus is checked as if it came from outside.

use std::sync::Arc;

use crate::access::{Access, Grant, Principal};
use crate::config::Config;
use crate::session::{CreateError, Gate, SessionSpec};

use crate::api::spec::{self, CreateRequest};

/// The API's gate: its credentials and configuration.
pub(in crate::api) struct NodeGate {
    pub(in crate::api) access: Arc<Access>,
    pub(in crate::api) config: Arc<Config>,
    pub(in crate::api) allow_any_command: bool,
}

impl Gate for NodeGate {
    fn regrant(&self, principal: &Principal) -> Option<Grant> {
        self.access.regrant(principal)
    }

    fn admit(&self, request: &[u8], grant: &Grant) -> Result<SessionSpec, CreateError> {
        let denied = |message: String| CreateError::Denied(message);
        let request: CreateRequest = serde_json::from_slice(request)
            .map_err(|e| denied(format!("the request does not parse here: {e}")))?;
        spec::not_declared(&self.config, request.name.as_deref()).map_err(|e| denied(e.message))?;
        request
            .resolve(&self.config, self.allow_any_command, grant)
            .map_err(|e| denied(e.message))
    }
}

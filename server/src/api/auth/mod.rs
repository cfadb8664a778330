//! Who is calling and what they may do: the guard in front of every route,
//! its policy table, the limit on failed sign-ins, this node's judgement
//! of other nodes' requests, and sign-in at an OpenID provider.

pub(super) mod auth_state;
pub(super) mod caller;
pub(super) mod gate;
pub(super) mod guard;
pub mod oidc;
pub(super) mod policy;
pub(super) mod signin;

//! The HTTP layer under the routes: the accept loop, where a request comes
//! from, the cookies, the base path, request tracing, the JSON body
//! extractor and how the web client's files are answered.

pub(super) mod base_path;
pub(super) mod body;
pub(super) mod cookies;
pub(super) mod listen;
pub(super) mod origin;
pub(super) mod served;
pub(super) mod trace;

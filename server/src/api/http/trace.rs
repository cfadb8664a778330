//! A tracing span per request (`request` with its method and path, never
//! its query string, which may hold a token; the path as an escaped string
//! field), the response's status and
//! latency at `debug`, and server errors at `error`. The stream opens a
//! span of its own per connection (see `ws`).

use std::time::Duration;

use axum::extract::Request;
use axum::http::Response;
use tower_http::classify::{ServerErrorsAsFailures, ServerErrorsFailureClass, SharedClassifier};
use tower_http::trace::{
    DefaultOnBodyChunk, DefaultOnEos, MakeSpan, OnFailure, OnResponse, TraceLayer,
};
use tracing::Span;

/// The trace layer with this module's span and events.
pub type Layer = TraceLayer<
    SharedClassifier<ServerErrorsAsFailures>,
    RequestSpan,
    (),
    Responded,
    DefaultOnBodyChunk,
    DefaultOnEos,
    Failed,
>;

/// The layer the router is wrapped in.
pub fn layer() -> Layer {
    TraceLayer::new_for_http()
        .make_span_with(RequestSpan)
        .on_request(())
        .on_response(Responded)
        .on_failure(Failed)
}

/// Makes the `request` span: method and path only.
#[derive(Debug, Clone, Copy)]
pub struct RequestSpan;

impl<B> MakeSpan<B> for RequestSpan {
    fn make_span(&mut self, request: &Request<B>) -> Span {
        tracing::info_span!(
            "request",
            method = %request.method(),
            // A string value, not `%` Display: the text formatter quotes and
            // escapes it and the JSON one escapes it, so a path cannot forge
            // fields or lines in the log.
            path = request.uri().path(),
        )
    }
}

/// Logs the status and latency at `debug`.
#[derive(Debug, Clone, Copy)]
pub struct Responded;

impl<B> OnResponse<B> for Responded {
    fn on_response(self, response: &Response<B>, latency: Duration, _span: &Span) {
        tracing::debug!(
            status = response.status().as_u16(),
            latency_us = latency.as_micros() as u64,
            "answered"
        );
    }
}

/// Logs a 5xx at `error`.
#[derive(Debug, Clone, Copy)]
pub struct Failed;

impl OnFailure<ServerErrorsFailureClass> for Failed {
    fn on_failure(&mut self, failure: ServerErrorsFailureClass, latency: Duration, _span: &Span) {
        tracing::error!(%failure, latency_us = latency.as_micros() as u64, "request failed");
    }
}

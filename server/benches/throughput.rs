//! Placeholder replaced by the throughput benchmark.
fn main() {}

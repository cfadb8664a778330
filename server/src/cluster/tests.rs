//! Tests of replication: unit rules, a lossy-channel property test, and a
//! 1000x1000 screen in small chunks.

mod images;
mod lossy;
mod rules;
mod same;

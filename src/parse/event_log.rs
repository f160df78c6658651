//! Event logs in all their renderings, line by line.
//!
//! STUB: filled in by the log-frame work.

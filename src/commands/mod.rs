//! Command runners that live outside main.rs.

pub mod compare;

//! The integration tests of the terminal UI, driven through its library API, in one test binary.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods,
    clippy::disallowed_types,
    clippy::too_many_arguments
)]

mod common;
mod embedded;
mod features;
mod help_line;
mod keys;
mod languages;
mod snapshots;

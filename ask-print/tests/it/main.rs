//! The integration tests of the pending-file workflow, in one test binary.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods,
    clippy::disallowed_types,
    clippy::too_many_arguments
)]

mod hand_written;
mod workflow;

//! The integration tests of the schema: the dialect corpus, the generated files and round trips.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods,
    clippy::disallowed_types,
    clippy::too_many_arguments
)]

mod dialects;
mod generated;
mod roundtrip;

//! The integration tests of the page and the inbox, in one test binary.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods,
    clippy::disallowed_types,
    clippy::too_many_arguments
)]

mod bounds;
mod common;
mod crowding;
mod page;
mod reattach;
mod router;
mod sqlite;
mod store;
mod tls;
mod words;

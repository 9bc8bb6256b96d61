//! The end-to-end tests of the `ask-user` binary, one module per concern, in one test binary.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods,
    clippy::disallowed_types,
    clippy::too_many_arguments
)]

mod browser;
mod cli;
mod common;
mod corpus;
mod dialects;
mod disk;
mod docs;
mod durability;
mod embedded;
mod escaped;
mod files;
#[cfg(target_os = "linux")]
mod hardening;
mod host;
mod hosts;
mod inbox_torture;
mod inspector;
mod languages;
mod limits;
mod mcp;
mod mcp_node;
#[cfg(target_os = "linux")]
mod other_user;
mod packages;
mod pi;
mod print;
mod readme_wiring;
mod route_text;
mod rpc;
mod rpc_result;
mod secret;
mod session;
mod store;
mod terminal_faults;
mod tls;
mod tui;
mod tui_features;
mod tui_session;
mod validate;
mod web;

//! The library side of xtask holds only doc tests: the examples of `docs/rust.md`, the guide to
//! the crates as a Rust library, compile and run with `cargo test` (doc tests run only for a
//! library target).

/// The examples of `docs/rust.md`.
#[cfg(doctest)]
#[doc = include_str!("../../docs/rust.md")]
pub struct RustGuide;

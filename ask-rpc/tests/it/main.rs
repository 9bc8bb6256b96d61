//! The integration tests of the protocol: framing properties and message transcripts.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods,
    clippy::disallowed_types,
    clippy::too_many_arguments
)]

/// Asserts a snapshot under the file name and in the folder it had when each module was a test
/// binary of its own, `tests/snapshots/MODULE__NAME.snap`: insta would otherwise name it after the
/// module path of this one binary, `it::MODULE`, and look for it in `tests/it/snapshots/`.
macro_rules! assert_snapshot {
    ($name:expr, $value:expr $(,)?) => {{
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path("../snapshots");
        settings.set_prepend_module_to_snapshot(false);
        let module = module_path!().rsplit("::").next().unwrap_or_default();
        let name = format!("{module}__{}", $name);
        settings.bind(|| insta::assert_snapshot!(name, $value));
    }};
}

mod framing;
mod messages;

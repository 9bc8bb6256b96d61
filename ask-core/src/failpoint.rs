//! Failpoints: places where a debug build can be made to crash, for the tests that show that a
//! crash at any write step of any crate loses no answer. This is the one place `ask-core` reads
//! the environment, and only in debug builds; release builds compile it to nothing.

/// The environment variable that names the failpoint a debug build stops at.
pub const FAILPOINT_VARIABLE: &str = "ASK_USER_FAILPOINT";

/// A place where a debug build can be made to crash, for the tests that show that a crash at
/// any write step loses no answer: when the environment variable `ASK_USER_FAILPOINT` names
/// this point, the process aborts on the spot, as abruptly as `kill -9` (no destructor runs, no
/// buffer is flushed, no file is cleaned up).
///
/// Release builds compile this to nothing. It is the one place a library of the workspace reads
/// the environment (`clippy::disallowed_methods` is allowed here alone): the variable is a test
/// hook of debug builds, not a setting, so no caller passes it in.
#[cfg(debug_assertions)]
#[allow(clippy::disallowed_methods)]
pub fn failpoint(name: &str) {
    if std::env::var_os(FAILPOINT_VARIABLE).is_some_and(|chosen| chosen == name) {
        std::process::abort();
    }
}

/// A place where a debug build can be made to crash; release builds have none.
#[cfg(not(debug_assertions))]
#[inline(always)]
pub fn failpoint(_name: &str) {}

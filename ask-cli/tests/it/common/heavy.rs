//! The one lock of the heavy tests (the kill torture, the real hosts, pi and the packages), and
//! of the other tests that need more than the toolchain (the browser, the MCP SDKs, the full
//! disk): when each file of them was a test binary of its own, cargo ran them one after another;
//! in the one binary, the lock keeps them apart. The tests of one file (one group) still share
//! the machine as before, each file bounding its own stages where it needs to (`slots`).

use std::sync::{Condvar, Mutex};

/// The group holding the lock and how many of its tests do.
static HEAVY: Mutex<(Option<&'static str>, usize)> = Mutex::new((None, 0));
static FREED: Condvar = Condvar::new();

/// Held by a heavy test while it runs; dropping it lets the next group in.
#[derive(Debug)]
pub(crate) struct Heavy(());

/// Waits until no test of another group holds the lock, and holds it for `group` (the name of
/// the test's module) until the returned guard is dropped. A test that failed while holding it
/// does not stop the others: the lock ignores poisoning.
pub(crate) fn heavy(group: &'static str) -> Heavy {
    let mut held = HEAVY.lock().unwrap_or_else(|e| e.into_inner());
    while held.1 > 0 && held.0 != Some(group) {
        held = FREED.wait(held).unwrap_or_else(|e| e.into_inner());
    }
    *held = (Some(group), held.1 + 1);
    Heavy(())
}

impl Drop for Heavy {
    fn drop(&mut self) {
        let mut held = HEAVY.lock().unwrap_or_else(|e| e.into_inner());
        held.1 -= 1;
        if held.1 == 0 {
            held.0 = None;
            FREED.notify_all();
        }
    }
}

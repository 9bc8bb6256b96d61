//! A bound on how many heavy stages (a real host and its stand-in model) a test binary runs at
//! once: more of them at once on a small machine slow each past its own time limits.

use std::sync::{Condvar, Mutex};

/// At most `max` holders at a time; `take` waits for a free one.
#[derive(Debug)]
pub(crate) struct Slots {
    max: usize,
    taken: Mutex<usize>,
    freed: Condvar,
}

impl Slots {
    /// Room for `max` holders.
    pub(crate) const fn new(max: usize) -> Slots {
        Slots {
            max,
            taken: Mutex::new(0),
            freed: Condvar::new(),
        }
    }

    /// Waits for a free slot and holds it until the returned guard is dropped.
    pub(crate) fn take(&'static self) -> Slot {
        let mut taken = self.taken.lock().unwrap_or_else(|e| e.into_inner());
        while *taken >= self.max {
            taken = self.freed.wait(taken).unwrap_or_else(|e| e.into_inner());
        }
        *taken += 1;
        Slot(self)
    }
}

/// One slot, held while it lives.
#[derive(Debug)]
pub(crate) struct Slot(&'static Slots);

impl Drop for Slot {
    fn drop(&mut self) {
        *self.0.taken.lock().unwrap_or_else(|e| e.into_inner()) -= 1;
        self.0.freed.notify_one();
    }
}

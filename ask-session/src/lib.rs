//! The one ask path of `ask_user`, and what it keeps.
//!
//! Every way of answering goes through [`Ask::run`]: the caller is checked (a sub-agent is
//! refused before anything is shown), a call whose id already has a record in the session log
//! is replayed without asking, otherwise the chosen frontend presents the questions while the
//! state machine tells every observer (the `--events` file among them), and the final record is
//! written to the log, once per call id, with every secret answer redacted.
//!
//! This crate owns the session log (append, lookup, torn-line repair, the per-call-id lock) and
//! the events file, and reads a call from a file or stdin through a size cap; it never draws
//! anything and never talks a protocol.

mod ask;
mod events;
mod input;
mod log;
mod show;

pub use ask::{Ask, AskFailure, Finished, Replay, replay_of};
pub use input::{
    DEFAULT_MAX_INPUT_BYTES, InputOptions, ReadFailure, read_call_from, stdin_holds_input,
};
pub use log::{History, SessionLog};
pub use show::{render, summarize};

/// Runs `future` to its end on the calling thread, which sleeps whenever the future waits.
///
/// For the ask path of a frontend that needs no async runtime (the terminal UI on the calling
/// thread, print mode) and for [`Ask::record`]: a command that asks through one of them starts
/// no runtime and no thread. A future that needs tokio's reactor, timers or tasks must run on
/// a tokio runtime instead.
pub fn block_on<F: std::future::Future>(future: F) -> F::Output {
    use std::sync::Arc;
    use std::task::{Context, Poll, Wake, Waker};

    /// Wakes the thread that polls the future.
    struct Unpark(std::thread::Thread);

    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
    }

    let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut context = Context::from_waker(&waker);
    let mut future = std::pin::pin!(future);
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut context) {
            return output;
        }
        std::thread::park();
    }
}

/// Where the session tells people what happened on the way (a replay, a record that could not
/// be written): the binary writes these lines on stderr.
pub type Warn = std::sync::Arc<dyn Fn(&str) + Send + Sync>;

#[cfg(test)]
mod tests {
    use std::future::Future;
    use std::pin::Pin;
    use std::sync::{Arc, Mutex};
    use std::task::{Context, Poll};

    /// A value that another thread sets a little later, waking the waiting task.
    struct Later(Arc<Mutex<(Option<u32>, Option<std::task::Waker>)>>);

    impl Future for Later {
        type Output = u32;

        fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<u32> {
            let mut slot = self
                .0
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            match slot.0 {
                Some(value) => Poll::Ready(value),
                None => {
                    slot.1 = Some(cx.waker().clone());
                    Poll::Pending
                }
            }
        }
    }

    #[test]
    fn block_on_waits_for_a_wake_from_another_thread() {
        let shared = Arc::new(Mutex::new((None, None::<std::task::Waker>)));
        let setter = Arc::clone(&shared);
        let thread = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(20));
            let mut slot = setter
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            slot.0 = Some(42);
            if let Some(waker) = slot.1.take() {
                waker.wake();
            }
        });
        assert_eq!(super::block_on(Later(shared)), 42);
        assert!(thread.join().is_ok());
    }
}

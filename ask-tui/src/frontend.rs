//! [`TuiFrontend`]: the terminal UI as an `ask_core::Frontend`.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;

use ask_core::{AskRequest, Capabilities, Frontend, Outcome, PresentError, Presenter};
use async_trait::async_trait;

use crate::terminal::{HistoryProvider, RunOptions, TuiError, run};
use ask_core::lang::Lang;

/// Presents questions in the terminal UI on the controlling terminal.
///
/// The UI runs on a thread of its own, so `present` never blocks the async executor, and
/// dropping its future (the caller went away, a `select!` chose another branch) withdraws the
/// questions: the future's drop waits the tenth of a second or so that the UI takes to notice,
/// so the terminal is already restored when the drop returns. A caller that has nothing else to
/// run while the person answers can keep the UI on its own thread instead
/// ([`TuiFrontend::on_calling_thread`]).
///
/// When the questions appear it rings the terminal bell and sends a desktop notification, so
/// that a person working in another window knows the agent waits for them; turn that off with
/// [`TuiFrontend::with_notify`]. Its words are English unless [`TuiFrontend::with_lang`] names
/// another language.
#[derive(Clone)]
pub struct TuiFrontend {
    notify: bool,
    lang: Lang,
    history: Option<HistoryProvider>,
    calling_thread: bool,
}

impl std::fmt::Debug for TuiFrontend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TuiFrontend")
            .field("notify", &self.notify)
            .field("lang", &self.lang)
            .field("history", &self.history.is_some())
            .field("calling_thread", &self.calling_thread)
            .finish()
    }
}

impl Default for TuiFrontend {
    fn default() -> TuiFrontend {
        TuiFrontend {
            notify: true,
            lang: Lang::default(),
            history: None,
            calling_thread: false,
        }
    }
}

impl TuiFrontend {
    /// The terminal UI frontend, with notifications.
    pub fn new() -> TuiFrontend {
        TuiFrontend::default()
    }

    /// Turns the bell and the desktop notification on or off.
    #[must_use]
    pub fn with_notify(self, notify: bool) -> TuiFrontend {
        TuiFrontend { notify, ..self }
    }

    /// Shows the UI's words (help lines, "Other", confirmations, the notification) in `lang`.
    #[must_use]
    pub fn with_lang(self, lang: Lang) -> TuiFrontend {
        TuiFrontend { lang, ..self }
    }

    /// Runs the UI in `present` itself, on the thread that polls it, instead of on a thread of
    /// its own: for a caller that waits for the outcome and runs nothing else meanwhile (a
    /// command-line ask on a single-threaded executor). `present` then returns only when the UI
    /// has ended, so the questions cannot be withdrawn by dropping its future; the process
    /// starts no thread and its memory stays in one malloc arena.
    #[must_use]
    pub fn on_calling_thread(self) -> TuiFrontend {
        TuiFrontend {
            calling_thread: true,
            ..self
        }
    }

    /// Where ↑ in a text field finds earlier answers to the same question (a host passes the
    /// session log's); without it there are none.
    #[must_use]
    pub fn with_history(self, history: HistoryProvider) -> TuiFrontend {
        TuiFrontend {
            history: Some(history),
            ..self
        }
    }
}

#[async_trait]
impl Frontend for TuiFrontend {
    fn presenter(&self) -> Presenter {
        Presenter::Tui
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            needs_foreground: true,
            ..Capabilities::default()
        }
    }

    async fn present(&self, request: &AskRequest) -> Result<Outcome, PresentError> {
        let (notify, lang) = (self.notify, self.lang);
        if self.calling_thread {
            let options = RunOptions {
                given: &request.given,
                notify,
                lang,
                withdrawn: None,
                history: self.history.as_ref(),
            };
            return run(request.input.input(), &options).map_err(PresentError::from);
        }
        let input = request.input.input().clone();
        let given = request.given.clone();
        let history = self.history.clone();
        let withdrawn = Arc::new(AtomicBool::new(false));
        let (send, receive) = tokio::sync::oneshot::channel();
        let flag = Arc::clone(&withdrawn);
        let thread = std::thread::Builder::new()
            .name("ask-tui".to_string())
            .spawn(move || {
                // The receiver is gone only when the ask was withdrawn; nobody wants the outcome.
                let options = RunOptions {
                    given: &given,
                    notify,
                    lang,
                    withdrawn: Some(&flag),
                    history: history.as_ref(),
                };
                let _ = send.send(run(&input, &options));
            })
            .map_err(PresentError::from)?;
        let _ui = WithdrawOnDrop {
            withdrawn,
            thread: Some(thread),
        };
        match receive.await {
            Ok(outcome) => outcome.map_err(PresentError::from),
            Err(_) => Err(PresentError::failed(TuiError::Io(std::io::Error::other(
                "the terminal UI stopped without an outcome",
            )))),
        }
    }
}

/// The UI's thread, told to stop and waited for when the ask's future is dropped, whether the
/// ask is over (the thread has returned) or withdrawn.
struct WithdrawOnDrop {
    withdrawn: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Drop for WithdrawOnDrop {
    fn drop(&mut self) {
        self.withdrawn.store(true, Ordering::SeqCst);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

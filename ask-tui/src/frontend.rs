//! [`TuiFrontend`]: the terminal UI as an `ask_core::Frontend`.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;

use ask_core::{AskRequest, Capabilities, Frontend, Outcome, PresentError, Presenter};
use async_trait::async_trait;

use crate::terminal::{HistoryProvider, RunOptions, TuiError, run};
use ask_core::lang::Lang;

/// Presents questions in the terminal UI on the controlling terminal.
///
/// The UI's loop blocks on the terminal, so `present` runs it on tokio's blocking pool
/// (`spawn_blocking`) and awaits it: `present` must be polled within a tokio runtime, of
/// either flavour, and it never blocks the runtime's own thread. Dropping its future (the
/// caller went away, a `select!` chose another branch) withdraws the questions: the future's
/// drop waits the tenth of a second or so that the UI takes to notice, so the terminal is
/// already restored when the drop returns.
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
}

impl std::fmt::Debug for TuiFrontend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TuiFrontend")
            .field("notify", &self.notify)
            .field("lang", &self.lang)
            .field("history", &self.history.is_some())
            .finish()
    }
}

impl Default for TuiFrontend {
    fn default() -> TuiFrontend {
        TuiFrontend {
            notify: true,
            lang: Lang::default(),
            history: None,
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
        let runtime = tokio::runtime::Handle::try_current().map_err(PresentError::failed)?;
        let (notify, lang) = (self.notify, self.lang);
        let input = request.input.input().clone();
        let given = request.given.clone();
        let history = self.history.clone();
        let withdrawn = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&withdrawn);
        // Dropped when the UI has returned and the terminal is restored.
        let (running, ended) = mpsc::channel::<()>();
        let ui = runtime.spawn_blocking(move || {
            let _running = running;
            let options = RunOptions {
                given: &given,
                notify,
                lang,
                withdrawn: Some(&flag),
                history: history.as_ref(),
            };
            run(&input, &options)
        });
        let _ui = WithdrawOnDrop { withdrawn, ended };
        match ui.await {
            Ok(outcome) => outcome.map_err(PresentError::from),
            Err(_) => Err(PresentError::failed(TuiError::Io(std::io::Error::other(
                "the terminal UI stopped without an outcome",
            )))),
        }
    }
}

/// The UI, told to stop and waited for when the ask's future is dropped, whether the ask is
/// over (the UI has returned) or withdrawn.
struct WithdrawOnDrop {
    withdrawn: Arc<AtomicBool>,
    ended: mpsc::Receiver<()>,
}

impl Drop for WithdrawOnDrop {
    fn drop(&mut self) {
        self.withdrawn.store(true, Ordering::SeqCst);
        // Nothing is ever sent: this returns once the UI's end of the channel is dropped.
        let _ = self.ended.recv();
    }
}

//! [`TuiFrontend`]: the terminal UI as an `ask_core::Frontend`.

use ask_core::{AskRequest, BoxError, Frontend, Mode, Outcome};
use async_trait::async_trait;

/// Presents questions in the terminal UI on the controlling terminal.
///
/// `present` blocks the calling thread until the person answers or cancels; a host with other
/// async work runs it on a blocking thread (for example with `tokio::task::spawn_blocking`).
///
/// When the questions appear it rings the terminal bell and sends a desktop notification, so
/// that a person working in another window knows the agent waits for them; turn that off with
/// [`TuiFrontend::with_notify`].
#[derive(Debug, Clone, Copy)]
pub struct TuiFrontend {
    notify: bool,
}

impl Default for TuiFrontend {
    fn default() -> TuiFrontend {
        TuiFrontend { notify: true }
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
        TuiFrontend { notify }
    }
}

#[async_trait]
impl Frontend for TuiFrontend {
    fn mode(&self) -> Mode {
        Mode::Interactive
    }

    async fn present(&self, request: &AskRequest) -> Result<Outcome, BoxError> {
        Ok(crate::terminal::run(request.input.input(), self.notify)?)
    }
}

//! [`TuiFrontend`]: the terminal UI as an `ask_core::Frontend`.

use ask_core::{AskRequest, BoxError, Frontend, Mode, Outcome};
use async_trait::async_trait;

/// Presents questions in the terminal UI on the controlling terminal.
///
/// `present` blocks the calling thread until the person answers or cancels; a host with other
/// async work runs it on a blocking thread (for example with `tokio::task::spawn_blocking`).
#[derive(Debug, Clone, Copy, Default)]
pub struct TuiFrontend;

impl TuiFrontend {
    /// The terminal UI frontend.
    pub fn new() -> TuiFrontend {
        TuiFrontend
    }
}

#[async_trait]
impl Frontend for TuiFrontend {
    fn mode(&self) -> Mode {
        Mode::Interactive
    }

    async fn present(&self, request: &AskRequest) -> Result<Outcome, BoxError> {
        Ok(crate::terminal::run(request.input.input())?)
    }
}

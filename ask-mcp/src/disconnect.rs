//! The wrapper every presenter of a call runs in: the ask ends as connection lost when the client
//! withdraws the call or goes away. It is a module of its own so that the presenter it wraps (the
//! client's form, the server's pages, the presenter chain past the form) may call into the
//! presenter chain without coming back into a module already on the stack.

use ask_core::{AskRequest, Capabilities, Frontend, Outcome, PresentError, Presenter};
use async_trait::async_trait;
use tokio_util::sync::CancellationToken;

/// A frontend whose ask ends as connection lost when the client goes away or withdraws the call.
///
/// Dropping the inner frontend's future is what tells it to stop; the terminal UI restores the
/// terminal when that happens.
pub(crate) struct UntilDisconnect<'a> {
    pub(crate) inner: &'a dyn Frontend,
    /// Cancelled when the client withdraws the call, or once the session has ended.
    pub(crate) withdrawn: CancellationToken,
    /// Cancelled as soon as the input ends.
    pub(crate) gone: CancellationToken,
}

#[async_trait]
impl Frontend for UntilDisconnect<'_> {
    fn presenter(&self) -> Presenter {
        self.inner.presenter()
    }

    fn capabilities(&self) -> Capabilities {
        self.inner.capabilities()
    }

    async fn present(&self, request: &AskRequest) -> Result<Outcome, PresentError> {
        tokio::select! {
            outcome = self.inner.present(request) => outcome,
            () = self.withdrawn.cancelled() => Ok(Outcome::ConnectionLost),
            () = self.gone.cancelled() => Ok(Outcome::ConnectionLost),
        }
    }
}

//! The transport: serving one client on a reader and a writer (stdio in the binary, an
//! in-memory pipe in the tests), its input watched on the way (`input`), until the client closes
//! the connection or the host stops the server.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, PoisonError};
use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::service::ServerInitializeError;
use tokio::io::{AsyncRead, AsyncWrite};

use crate::input::{Watch, WatchedInput};
use crate::{Ended, McpError, McpServer};

impl McpServer {
    /// Serves one client on `read` and `write` until it closes the connection or the host stops
    /// the server.
    pub async fn serve<R, W>(self, read: R, write: W) -> Result<Ended, McpError>
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        let turn = Arc::clone(&self.turn);
        let stop = self.stop.clone();
        let stopped_by = Arc::clone(&self.stopped_by);
        let discovered = Arc::clone(&self.discovered);
        let max = self.max_message_bytes;
        let too_large = Arc::new(AtomicBool::new(false));
        let watch = Watch {
            closed: self.gone.clone(),
            max,
            too_large: Arc::clone(&too_large),
            repeated_keys: self.repeated_keys.clone(),
        };
        let read = WatchedInput::new(read, watch);
        // The handshake's future holds the whole server: boxed, so that it does not sit on the
        // stack of whoever awaits this one (the binary's `main`, for every command).
        let service = match Box::pin(ServiceExt::serve(self, (read, write))).await {
            Ok(service) => service,
            Err(_) if too_large.load(Ordering::SeqCst) => {
                return Err(McpError::MessageTooLarge(max));
            }
            // A client of 2026-07-28 that only asked what the server is, and left.
            Err(ServerInitializeError::ConnectionClosed(_))
                if discovered.load(Ordering::SeqCst) =>
            {
                return Ok(Ended::ClientClosed);
            }
            Err(error) => {
                return Err(McpError::Start(Box::new(error)));
            }
        };
        let quit = tokio::select! {
            quit = service.waiting() => quit,
            () = stop.cancelled() => {
                // No call takes a presenter after this (see the handler); wait for the one showing the
                // questions to end, so that a terminal is restored before the host exits.
                let _ = tokio::time::timeout(Duration::from_secs(2), turn.lock()).await;
                let signal = *stopped_by.lock().unwrap_or_else(PoisonError::into_inner);
                return Ok(Ended::Stopped { signal });
            }
        };
        // A call still being shown has been told that its client left; give it a moment to end
        // as connection lost (which also withdraws a terminal UI).
        let _ = tokio::time::timeout(Duration::from_secs(2), turn.lock()).await;
        if too_large.load(Ordering::SeqCst) {
            return Err(McpError::MessageTooLarge(max));
        }
        match quit {
            Ok(_) => Ok(Ended::ClientClosed),
            Err(error) => Err(McpError::Session(error)),
        }
    }
}

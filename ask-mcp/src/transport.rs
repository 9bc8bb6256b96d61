//! The transport: serving one client on a reader and a writer (stdio in the binary, an
//! in-memory pipe in the tests), and the input watched on its way to the protocol library: its
//! end, a message past the cap, and a `tools/call` whose arguments repeat a key.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex as StdMutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use rmcp::ServiceExt;
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio_util::sync::CancellationToken;

use crate::{Ended, McpError, McpServer};

/// The `tools/call` requests whose arguments repeat a key, by request id (as JSON text): the
/// repeated key (the JSON pointer of its object below the arguments, and the key), found by
/// [`WatchedInput`] in the raw message before the protocol library keeps only the last value.
pub(crate) type RepeatedKeys = Arc<StdMutex<HashMap<String, (String, String)>>>;

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
        let max = self.max_message_bytes;
        let too_large = Arc::new(AtomicBool::new(false));
        let read = WatchedInput {
            inner: read,
            closed: self.gone.clone(),
            line: Vec::new(),
            max,
            too_large: Arc::clone(&too_large),
            repeated_keys: Arc::clone(&self.repeated_keys),
        };
        // The handshake's future holds the whole server: boxed, so that it does not sit on the
        // stack of whoever awaits this one (the binary's `main`, for every command).
        let service = match Box::pin(ServiceExt::serve(self, (read, write))).await {
            Ok(service) => service,
            Err(_) if too_large.load(Ordering::SeqCst) => {
                return Err(McpError::MessageTooLarge(max));
            }
            Err(error) => {
                return Err(McpError::Start(Box::new(error)));
            }
        };
        let quit = tokio::select! {
            quit = service.waiting() => quit,
            () = stop.cancelled() => {
                // No call takes a presenter after this (see `call`); wait for the one showing the
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

    /// The key that the arguments of the `tools/call` request `id` repeat, if any (taken out of
    /// the table: each request is looked up once).
    pub(crate) fn repeated_key(&self, id: &rmcp::model::RequestId) -> Option<(String, String)> {
        let id = serde_json::to_string(id).ok()?;
        self.repeated_keys
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&id)
    }
}

/// The input, watched for its end, which tells a question being shown that nobody will read the
/// answer: the session itself only ends after in-flight calls have had a while to finish.
struct WatchedInput<R> {
    inner: R,
    closed: CancellationToken,
    /// The bytes of the current message (line) read so far.
    line: Vec<u8>,
    /// The most bytes one message may hold; one more ends the input with an error.
    max: u64,
    /// Set when a message passed `max`.
    too_large: Arc<AtomicBool>,
    /// Where a `tools/call` whose arguments repeat a key is noted, before the message is passed on.
    repeated_keys: RepeatedKeys,
}

impl<R> WatchedInput<R> {
    /// Notes the request in `line` when it is a `tools/call` whose arguments repeat a key: the
    /// protocol library reads the arguments into a map, which keeps the last of two equal keys
    /// without a word, while every other way in refuses such a call.
    fn check_repeated_keys(&self, line: &[u8]) {
        let Ok(text) = std::str::from_utf8(line) else {
            return;
        };
        let Some((path, key)) = ask_core::duplicate_key(text) else {
            return;
        };
        let Some(path) = path.strip_prefix("/params/arguments") else {
            return;
        };
        let Ok(message) = serde_json::from_str::<Value>(text) else {
            return;
        };
        if message.get("method").and_then(Value::as_str) != Some("tools/call") {
            return;
        }
        if let Some(id) = message.get("id") {
            self.repeated_keys
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(id.to_string(), (path.to_string(), key));
        }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for WatchedInput<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let poll = Pin::new(&mut self.inner).poll_read(cx, buf);
        if let Poll::Ready(result) = &poll {
            let ended = buf.filled().len() == before && buf.remaining() > 0;
            if result.is_err() || ended {
                self.closed.cancel();
            }
            // A message is one line: keep its bytes, refuse one past the cap before it is
            // buffered whole, and check a whole one for repeated keys before the protocol
            // library, which reads what this returns, parses it.
            let this = &mut *self;
            for byte in &buf.filled()[before..] {
                if *byte == b'\n' {
                    let line = std::mem::take(&mut this.line);
                    this.check_repeated_keys(&line);
                    continue;
                }
                this.line.push(*byte);
                if this.line.len() as u64 > this.max {
                    this.too_large.store(true, Ordering::SeqCst);
                    this.closed.cancel();
                    return Poll::Ready(Err(std::io::Error::new(
                        std::io::ErrorKind::InvalidData,
                        "a message is longer than the input cap",
                    )));
                }
            }
        }
        poll
    }
}

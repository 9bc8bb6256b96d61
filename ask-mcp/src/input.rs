//! The input, watched on its way to the protocol library: its end, a message past the cap, and
//! a `tools/call` whose arguments repeat a key.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};

use serde_json::Value;
use tokio::io::{AsyncRead, ReadBuf};
use tokio_util::sync::CancellationToken;

use crate::repeated_keys::RepeatedKeys;

/// What the input is watched for, and where what was seen is told.
pub(crate) struct Watch {
    /// Cancelled when the input ends.
    pub(crate) closed: CancellationToken,
    /// The most bytes one message may hold; one more ends the input with an error.
    pub(crate) max: u64,
    /// Set when a message passed `max`.
    pub(crate) too_large: Arc<AtomicBool>,
    /// Where a `tools/call` whose arguments repeat a key is noted, before the message is passed on.
    pub(crate) repeated_keys: RepeatedKeys,
}

/// The input, watched for its end, which tells a question being shown that nobody will read the
/// answer: the session itself only ends after in-flight calls have had a while to finish.
pub(crate) struct WatchedInput<R> {
    inner: R,
    /// The bytes of the current message (line) read so far.
    line: Vec<u8>,
    watch: Watch,
}

impl<R> WatchedInput<R> {
    /// `inner`, watched as `watch` says.
    pub(crate) fn new(inner: R, watch: Watch) -> WatchedInput<R> {
        WatchedInput {
            inner,
            line: Vec::new(),
            watch,
        }
    }

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
            self.watch.repeated_keys.note(id, (path.to_string(), key));
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
                self.watch.closed.cancel();
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
                if this.line.len() as u64 > this.watch.max {
                    this.watch.too_large.store(true, Ordering::SeqCst);
                    this.watch.closed.cancel();
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

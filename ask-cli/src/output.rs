//! Writing to stdout and stderr. stdout carries only result documents and protocol frames; a
//! closed stdout is an error only for the result of an ask, which then never reached its agent.
//! Every character of them that a terminal would obey or hide (C1 controls, DEL, bidi controls,
//! invisible characters) leaves as a `\uXXXX` escape (`ask_core::safe_json`), since stdout is
//! often a terminal and a person's answers may hold anything; a JSON reader gets the same
//! strings. Messages for people go to stderr a line at a time, each prefixed with `ask-user: `
//! and sanitised, since messages often quote the model's text (a label, an unknown field's name)
//! and stderr is usually a terminal.

use std::io::{self, IsTerminal, Write};
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use ask_core::{safe_json, sanitize_for_display};
use serde::Serialize;
use tokio::io::AsyncWrite;

use crate::exit::Exit;

/// Writes `value` to stdout as one compact JSON document and a newline.
pub(crate) fn emit<T: Serialize>(value: &T) -> io::Result<()> {
    write_stdout(&safe_json::to_string(value).map_err(io::Error::other)?)
}

/// Writes `value` to stdout as pretty JSON.
pub(crate) fn emit_pretty<T: Serialize>(value: &T) -> io::Result<()> {
    write_stdout(&safe_json::to_string_pretty(value).map_err(io::Error::other)?)
}

/// Writes `text`, a JSON document or text already sanitised for display, and a newline to
/// stdout, with the characters unsafe to display escaped.
pub(crate) fn write_stdout(text: &str) -> io::Result<()> {
    let text = safe_json::escape_text(text);
    let mut stdout = io::stdout().lock();
    stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.write_all(b"\n"))
        .and_then(|()| stdout.flush())
}

/// [`finish`] for the result of an ask: a closed stdout means its agent went away (exit 5).
pub(crate) fn finish_ask(written: io::Result<()>, exit: Exit) -> Exit {
    match written {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Exit::ConnectionLost,
        written => finish(written, exit),
    }
}

/// The exit of a finished command whose stdout write may have failed (`… | head -c0`: no error).
pub(crate) fn finish(written: io::Result<()>, exit: Exit) -> Exit {
    match written {
        Ok(()) => exit,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => exit,
        Err(error) => {
            say(&format!("cannot write the result: {error}"));
            Exit::Failure
        }
    }
}

/// Writes `message` to stderr, a line at a time, each prefixed with `ask-user: `; no control
/// sequence from the model reaches the terminal this way.
pub(crate) fn say(message: &str) {
    say_lines("ask-user: ", message);
}

/// Like [`say`], without the prefix: for text that has its own form, such as a usage error
/// that quotes the arguments (which may quote the model's text).
pub(crate) fn say_unprefixed(message: &str) {
    say_lines("", message);
}

/// Says that a call is invalid and lists its problems, in the same words in every command
/// (`validate`, the ask command, `mcp`).
pub(crate) fn say_invalid(problems: &ask_core::Problems) {
    say(&problems.heading());
    for problem in problems {
        say(&format!("  {problem}"));
    }
}

fn say_lines(prefix: &str, message: &str) {
    let mut stderr = io::stderr().lock();
    for line in message.lines() {
        let _ = writeln!(stderr, "{prefix}{}", sanitize_for_display(line));
    }
}

/// Writes `text` and a link to stderr, with the `ask-user: ` prefix. On a terminal the link is
/// also an OSC 8 hyperlink; elsewhere (a log file) it is plain text. `url` must be the
/// program's own text, never the model's: it goes into an escape sequence.
pub(crate) fn say_link(text: &str, url: &str) {
    let mut stderr = io::stderr().lock();
    let shown = if stderr.is_terminal() {
        format!("\x1b]8;;{url}\x1b\\{url}\x1b]8;;\x1b\\")
    } else {
        url.to_string()
    };
    let _ = writeln!(stderr, "ask-user: {}{shown}", sanitize_for_display(text));
}

/// Writes `block` to stderr as it is when stderr is a terminal; nothing otherwise. For the
/// program's own drawings (a link's QR code), never the model's text: it may hold escape
/// sequences.
pub(crate) fn show_on_terminal(block: &str) {
    let mut stderr = io::stderr().lock();
    if !stderr.is_terminal() {
        return;
    }
    for line in block.lines() {
        let _ = writeln!(stderr, "{line}");
    }
}

/// stdout for the protocols whose frames a library writes (RPC, embedded, MCP): each frame
/// leaves with the characters unsafe to display escaped, as the documents of [`emit`] do.
pub(crate) fn protocol_stdout() -> EscapingWriter<tokio::io::Stdout> {
    EscapingWriter::new(tokio::io::stdout())
}

/// A writer of JSON text that escapes, on the way to `W`, the characters unsafe to display
/// (`ask_core::safe_json::escape_text`). A character split between two writes is held until
/// its last byte comes; bytes that are not UTF-8 pass as they are.
pub(crate) struct EscapingWriter<W> {
    inner: W,
    /// Escaped text that `inner` has not taken yet: at most one write's worth, since a write
    /// waits until the one before it is out.
    out: Vec<u8>,
    /// The first bytes of a character whose rest has not been written yet.
    partial: Vec<u8>,
}

impl<W> EscapingWriter<W> {
    pub(crate) fn new(inner: W) -> EscapingWriter<W> {
        EscapingWriter {
            inner,
            out: Vec::new(),
            partial: Vec::new(),
        }
    }

    /// Escapes `bytes`, after any partial character held, onto `out`.
    fn push(&mut self, bytes: &[u8]) {
        let mut held = std::mem::take(&mut self.partial);
        held.extend_from_slice(bytes);
        let mut rest = held.as_slice();
        loop {
            let error = match std::str::from_utf8(rest) {
                Ok(text) => {
                    self.escape(text);
                    return;
                }
                Err(error) => error,
            };
            let (valid, after) = rest.split_at(error.valid_up_to());
            // The valid prefix is UTF-8 by the error's own account.
            self.escape(std::str::from_utf8(valid).unwrap_or_default());
            match error.error_len() {
                // An incomplete character at the end: held for the next write.
                None => {
                    self.partial = after.to_vec();
                    return;
                }
                Some(bad) => {
                    self.out.extend_from_slice(&after[..bad]);
                    rest = &after[bad..];
                }
            }
        }
    }

    fn escape(&mut self, text: &str) {
        self.out
            .extend_from_slice(safe_json::escape_text(text).as_bytes());
    }
}

impl<W: AsyncWrite + Unpin> EscapingWriter<W> {
    /// Writes what `out` holds to `inner`.
    fn poll_drain(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while !self.out.is_empty() {
            let n = ready!(Pin::new(&mut self.inner).poll_write(cx, &self.out))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            self.out.drain(..n);
        }
        Poll::Ready(Ok(()))
    }
}

impl<W: AsyncWrite + Unpin> AsyncWrite for EscapingWriter<W> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        ready!(this.poll_drain(cx))?;
        this.push(buf);
        // What `inner` does not take now goes out at the next write or flush.
        if let Poll::Ready(Err(error)) = this.poll_drain(cx) {
            return Poll::Ready(Err(error));
        }
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        ready!(this.poll_drain(cx))?;
        Pin::new(&mut this.inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let partial = std::mem::take(&mut this.partial);
        this.out.extend_from_slice(&partial);
        ready!(this.poll_drain(cx))?;
        Pin::new(&mut this.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncWriteExt;

    /// The bytes an [`EscapingWriter`] passes on when `text` comes in writes of `size` bytes.
    fn written_in_pieces(text: &[u8], size: usize) -> Vec<u8> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        runtime.block_on(async {
            let mut writer = EscapingWriter::new(Vec::new());
            for piece in text.chunks(size) {
                writer.write_all(piece).await.unwrap();
            }
            writer.shutdown().await.unwrap();
            writer.inner
        })
    }

    #[test]
    fn a_frame_leaves_escaped_however_its_writes_split_its_characters() {
        let frame = "{\"answer\":\"a\u{9b}2J\u{202e}\u{7f}\u{e0041}東京🙂\"}\n";
        let escaped = "{\"answer\":\"a\\u009b2J\\u202e\\u007f\\udb40\\udc41東京🙂\"}\n";
        for size in 1..=frame.len() {
            assert_eq!(
                String::from_utf8(written_in_pieces(frame.as_bytes(), size)).unwrap(),
                escaped,
                "in writes of {size} bytes"
            );
        }
    }

    #[test]
    fn bytes_that_are_not_utf8_pass_as_they_are() {
        let bytes = b"{\"a\":\"\xff\xc2\"}\xe2\x80";
        for size in 1..=bytes.len() {
            assert_eq!(
                written_in_pieces(bytes, size),
                bytes,
                "in writes of {size} bytes"
            );
        }
    }
}

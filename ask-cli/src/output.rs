//! Writing to stdout and stderr. stdout carries only result documents; a closed stdout is an
//! error only for the result of an ask, which then never reached its agent. Messages for people
//! go to stderr a line at a time, each prefixed with `ask-user: ` and sanitised, since messages
//! often quote the model's text (a label, an unknown field's name) and stderr is usually a
//! terminal.

use std::io::{self, IsTerminal, Write};

use ask_core::sanitize_for_display;
use serde::Serialize;

use crate::exit::Exit;

/// Writes `value` to stdout as one compact JSON document and a newline.
pub(crate) fn emit<T: Serialize>(value: &T) -> io::Result<()> {
    write_stdout(&serde_json::to_string(value).map_err(io::Error::other)?)
}

/// Writes `value` to stdout as pretty JSON.
pub(crate) fn emit_pretty<T: Serialize>(value: &T) -> io::Result<()> {
    write_stdout(&serde_json::to_string_pretty(value).map_err(io::Error::other)?)
}

/// Writes `text` and a newline to stdout.
pub(crate) fn write_stdout(text: &str) -> io::Result<()> {
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

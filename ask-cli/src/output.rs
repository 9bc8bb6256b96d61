//! Writing to stdout and stderr. stdout carries only result documents; a closed stdout (for
//! example `ask-user … | head -c0`) is not an error.

use std::io::{self, Write};

use ask_core::sanitize_for_display;
use serde::Serialize;

use crate::exit::Exit;

/// Writes `value` to stdout as one compact JSON document and a newline.
pub fn emit<T: Serialize>(value: &T) -> io::Result<()> {
    write_stdout(&serde_json::to_string(value).map_err(io::Error::other)?)
}

/// Writes `value` to stdout as pretty JSON.
pub fn emit_pretty<T: Serialize>(value: &T) -> io::Result<()> {
    write_stdout(&serde_json::to_string_pretty(value).map_err(io::Error::other)?)
}

/// Writes `text` and a newline to stdout; a closed stdout is not an error.
pub fn write_stdout(text: &str) -> io::Result<()> {
    let mut stdout = io::stdout().lock();
    let written = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.write_all(b"\n"))
        .and_then(|()| stdout.flush());
    match written {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

/// Writes a message for people to stderr, a line at a time, each prefixed with `ask-user: `.
///
/// Messages often quote the model's text (a label, an unknown field's name), and stderr is
/// usually a terminal, so every line goes through `sanitize_for_display`: no control sequence
/// from the model reaches the terminal this way either.
pub fn say(message: &str) {
    say_lines("ask-user: ", message);
}

/// Like [`say`], without the prefix: for text that has its own form, such as clap's usage
/// errors (which quote the arguments, and so may quote the model's text).
pub fn say_unprefixed(message: &str) {
    say_lines("", message);
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
pub fn say_link(text: &str, url: &str) {
    let mut stderr = io::stderr().lock();
    let shown = if io::IsTerminal::is_terminal(&stderr) {
        format!("\x1b]8;;{url}\x1b\\{url}\x1b]8;;\x1b\\")
    } else {
        url.to_string()
    };
    let _ = writeln!(stderr, "ask-user: {}{shown}", sanitize_for_display(text));
}

/// Writes `block` to stderr as it is, a line at a time, when stderr is a terminal; nothing
/// otherwise. For the program's own drawings (the link's QR code), never the model's text: it
/// may hold escape sequences.
pub fn show_on_terminal(block: &str) {
    let mut stderr = io::stderr().lock();
    if !io::IsTerminal::is_terminal(&stderr) {
        return;
    }
    for line in block.lines() {
        let _ = writeln!(stderr, "{line}");
    }
}

/// The exit for a finished command whose stdout write may have failed.
pub fn finish(written: io::Result<()>, exit: Exit) -> Exit {
    match written {
        Ok(()) => exit,
        Err(error) => {
            say(&format!("cannot write the result: {error}"));
            Exit::Failure
        }
    }
}

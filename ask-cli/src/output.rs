//! Writing to stdout and stderr. stdout carries only result documents; a closed stdout (for
//! example `ask-user … | head -c0`) is not an error.

use std::io::{self, Write};

use ask_core::sanitize_for_display;
use serde::Serialize;

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

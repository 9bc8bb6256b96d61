//! Writing to stdout and stderr. stdout carries only result documents; a closed stdout is an
//! error only for the result of an ask, which then never reached its agent. Messages for people
//! go to stderr through `ask_session::console`.

use std::io::{self, Write};

pub use ask_session::console::{say, say_invalid, say_unprefixed};
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

/// Writes `text` and a newline to stdout.
pub fn write_stdout(text: &str) -> io::Result<()> {
    let mut stdout = io::stdout().lock();
    stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.write_all(b"\n"))
        .and_then(|()| stdout.flush())
}

/// [`finish`] for the result of an ask: a closed stdout means its agent went away (exit 5).
pub fn finish_ask(written: io::Result<()>, exit: Exit) -> Exit {
    match written {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Exit::ConnectionLost,
        written => finish(written, exit),
    }
}

/// The exit of a finished command whose stdout write may have failed (`… | head -c0`: no error).
pub fn finish(written: io::Result<()>, exit: Exit) -> Exit {
    match written {
        Ok(()) => exit,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => exit,
        Err(error) => {
            say(&format!("cannot write the result: {error}"));
            Exit::Failure
        }
    }
}

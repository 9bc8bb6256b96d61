//! Writing to stdout and stderr. stdout carries only result documents; a closed stdout (for
//! example `ask-user … | head -c0`) is not an error. Messages for people go to stderr through
//! `ask_core::console`.

use std::io::{self, Write};

pub use ask_core::console::{say, say_unprefixed};
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

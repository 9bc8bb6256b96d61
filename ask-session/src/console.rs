//! Messages for people on stderr: a line at a time, each prefixed with `ask-user: ` and
//! sanitised, since messages often quote the model's text (a label, an unknown field's name)
//! and stderr is usually a terminal.

use std::io::{self, IsTerminal, Write};

use ask_core::sanitize_for_display;

/// What the standard library's start-up does for the process, for a binary that skips it
/// (`ask-user` on Linux with glibc):
/// - each standard stream that is closed is opened on `/dev/null`: otherwise the next file the
///   process opens would take the stream's number, and what is meant for stdout or stderr would
///   go into that file;
/// - SIGPIPE is ignored: a write to a closed pipe fails with EPIPE, which each command reports,
///   instead of killing the process. Child processes get the default action back.
///
/// Call it first, before any other thread exists.
#[cfg(unix)]
#[allow(unsafe_code)]
pub fn start_process() {
    use rustix::fs::{Mode, OFlags, open};
    use rustix::io::{Errno, fcntl_getfd};
    use std::os::fd::IntoRawFd;
    let streams = [
        fcntl_getfd(io::stdin()),
        fcntl_getfd(io::stdout()),
        fcntl_getfd(io::stderr()),
    ];
    for stream in streams {
        if stream == Err(Errno::BADF) {
            // The lowest free number, which is the stream's: kept open for the process's life.
            match open("/dev/null", OFlags::RDWR, Mode::empty()) {
                Ok(null) => drop(null.into_raw_fd()),
                Err(_) => std::process::abort(),
            }
        }
    }
    // SAFETY: ignoring a signal is a valid disposition, and no other thread is running that
    // could be changing it at the same time.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_IGN) };
}

/// Writes `message` to stderr, a line at a time, each prefixed with `ask-user: `; no control
/// sequence from the model reaches the terminal this way.
pub fn say(message: &str) {
    say_lines("ask-user: ", message);
}

/// Like [`say`], without the prefix: for text that has its own form, such as a usage error
/// that quotes the arguments (which may quote the model's text).
pub fn say_unprefixed(message: &str) {
    say_lines("", message);
}

/// Says that a call is invalid and lists its problems, in the same words in every command
/// (`validate`, the ask command, `mcp`).
pub fn say_invalid(problems: &ask_core::Problems) {
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
pub fn say_link(text: &str, url: &str) {
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
pub fn show_on_terminal(block: &str) {
    let mut stderr = io::stderr().lock();
    if !stderr.is_terminal() {
        return;
    }
    for line in block.lines() {
        let _ = writeln!(stderr, "{line}");
    }
}

//! Messages for people on stderr, as the web server's start-up still writes them: a line at a
//! time, each prefixed with `ask-user: ` and sanitised. The binary's own printer is in its
//! output module; this module goes once the web server's messages are printed there too.

use std::io::{self, IsTerminal, Write};

use ask_core::sanitize_for_display;

/// Writes `message` to stderr, a line at a time, each prefixed with `ask-user: `; no control
/// sequence from the model reaches the terminal this way.
pub fn say(message: &str) {
    let mut stderr = io::stderr().lock();
    for line in message.lines() {
        let _ = writeln!(stderr, "ask-user: {}", sanitize_for_display(line));
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

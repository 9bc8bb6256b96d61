//! Telling a person at this machine where a page waits: the lines a canonical terminal shows.
//! Whether a display exists and which browser opens the link are the host's to decide: it
//! passes them in as values (see [`crate::McpServer::pages`] and [`crate::McpServer::announce_to`]).

/// What a canonical terminal shows of a page's link: a plain line, which every terminal shows
/// and lets the person copy, and the same link as an OSC 8 hyperlink for terminals that open it
/// on a click. `link` is ask-user's own (an address and a token), never agent text.
pub fn terminal_lines(link: &str) -> String {
    format!(
        "ask-user: the agent asks you questions; answer them at {link}\n\
         ask-user: \x1b]8;;{link}\x1b\\open the questions\x1b]8;;\x1b\\ (the link works in one browser)\n"
    )
}

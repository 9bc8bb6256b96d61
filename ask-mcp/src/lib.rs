//! The `ask_user` tool served to a Model Context Protocol client.
//!
//! A call is validated, refused for a sub-agent, and then shown to the person by the first
//! presenter of the server's list that can reach them: `elicitation` (a form in the client, when
//! the client declared form elicitation), or one of the fallback presenters the caller gave as
//! [`Frontend`](ask_core::Frontend) values (`tui`, `file`), each used only when listed. A form
//! that comes back with a question left open is shown again with the answers given so far as its
//! fields' defaults; after three incomplete forms the call goes to the next presenter of the
//! list, with those answers pre-filled, so nothing the person gave is lost and nothing partial
//! reaches the model.
//! On the stateless protocol (2026-07-28 and later) the form travels in an input-required result;
//! the answers so far and the round count travel in its `requestState`, which is read back like a
//! form reply (never trusted further).
//! While a call waits for the person, a client that gave a progress token receives a progress
//! notification every few seconds, so that a request timeout reset by progress does not cut a
//! person who answers slowly.
//!
//! The crate takes no terminal or file presenter of its own: the host passes them in, so that a
//! Rust agent can embed this server with the presenters it has. Nor does it read the process's
//! environment or start programs: whether a page can reach the person and how its link is
//! announced (a browser, a terminal) are the host's, given as values.
//!
//! The modules, in the order a call answered by the client's form passes them: `transport` (the
//! session, whose input `input` watches), `handler` (a `tools/call` in, a tool result out),
//! `disconnect` (the presenter, ended when the client goes away), `elicit` (the client's form on
//! the wire), `rounds` (the one form stepper and its two drivers) and `form` (the form's fields,
//! schema and answers). `route` is the presenter chain: the handler asks it where a call goes,
//! `elicit` what takes a call past the form, and its `web` and `url` pages are presenters of
//! their own. `server` holds the settings, and `repeated_keys` what `input` noted for the
//! handler. No module calls back into one below it on the stack: a presenter gets what it needs
//! of its call as values when the handler builds it, and the form's drivers are stepped by their
//! caller, which does the sending.

mod announce;
mod disconnect;
mod elicit;
mod form;
mod handler;
mod input;
mod logging;
mod repeated_keys;
mod rounds;
mod route;
mod server;
mod transport;

pub use announce::terminal_lines;
pub use server::{DEFAULT_PRESENTERS, Fallback, McpServer, OpenPage, Page, PageError, UnspentLink};

use ask_core::{Presenter, sanitize_for_display};

/// A problem with how the server was set up or served.
#[derive(Debug, thiserror::Error)]
pub enum McpError {
    /// A presenter in the list that this server cannot use.
    #[error(
        "the presenter `{0}` is not available in the MCP server; use elicitation, url, tui, web \
         or file"
    )]
    Unsupported(Presenter),
    /// The tool descriptor could not be built.
    #[error("cannot build the ask_user tool descriptor: {0}")]
    Descriptor(#[source] serde_json::Error),
    /// A tool name a client could not call (as given; shown sanitised).
    #[error(
        "the tool name `{}` cannot be used; give 1 to 64 letters, digits, `_` or `-` (such as \
         ask_person)",
        sanitize_for_display(.0)
    )]
    ToolName(String),
    /// The client did not open a session.
    #[error(
        "the MCP client did not start a session: {}",
        sanitize_for_display(&.0.to_string())
    )]
    Start(#[source] Box<rmcp::service::ServerInitializeError>),
    /// The session ended with an error.
    #[error("the MCP session failed: {}", sanitize_for_display(&.0.to_string()))]
    Session(#[source] tokio::task::JoinError),
    /// A client message was longer than the cap; the session was ended.
    #[error(
        "a message from the MCP client is longer than {0} bytes, the most one message may hold; \
         the session was ended"
    )]
    MessageTooLarge(u64),
}

/// How [`McpServer::serve`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// The client closed the connection.
    ClientClosed,
    /// The server was stopped: by the host through [`McpServer::stopper`] (`signal` is
    /// `None`), or because a signal ended the presenter showing a call (the terminal UI
    /// restores the terminal first), which stops the whole server with that signal.
    Stopped {
        /// The signal that ended a presenter, if one did.
        signal: Option<ask_core::Signal>,
    },
}

/// What the tests of this crate's own `tests/` need besides its API: the tuning constants.
#[doc(hidden)]
pub mod testing {
    use std::time::Duration;

    /// How many forms may come back with a question left open before the call goes to the next
    /// presenter of the list.
    pub const MAX_INCOMPLETE_ROUNDS: usize = crate::rounds::MAX_INCOMPLETE_ROUNDS;

    /// How often a waiting call sends a progress notification by default.
    pub const PROGRESS_EVERY: Duration = crate::server::PROGRESS_EVERY;
}

//! The one ask path of `ask_user`, and what it keeps.
//!
//! Every way of answering goes through [`Ask::run`]: the caller is checked (a sub-agent is
//! refused before anything is shown), a call whose id already has a record in the session log
//! is replayed without asking, otherwise the chosen frontend presents the questions while the
//! state machine tells every observer (the `--events` file among them), and the final record is
//! written to the log, once per call id, with every secret answer redacted.
//!
//! This crate owns the session log (append, lookup, torn-line repair, the per-call-id lock) and
//! the events file, and reads a call from a file or stdin through a size cap; it never draws
//! anything and never talks a protocol.

mod ask;
mod events;
mod input;
mod log;
mod show;

pub use ask::{Ask, AskFailure, Finished, Replay, replay_of};
pub use input::{
    DEFAULT_MAX_INPUT_BYTES, InputOptions, ReadFailure, read_call_from, stdin_holds_input,
};
pub use log::{History, SessionLog};
pub use show::{render, summarize};

/// Where the session tells people what happened on the way (a replay, a record that could not
/// be written): the binary writes these lines on stderr.
pub type Warn = std::sync::Arc<dyn Fn(&str) + Send + Sync>;

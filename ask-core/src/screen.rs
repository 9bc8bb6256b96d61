//! The screen of an embedded presenter: questions drawn as styled lines inside a host's own
//! terminal UI, driven by the host's raw input bytes. The protocol that carries it (`ask-rpc`)
//! talks to this trait; the terminal UI's crate implements it.

use crate::result::Outcome;

/// Why a host's theme was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ThemeError {
    /// A role the screen does not have.
    #[error(
        "unknown theme role `{}`; the roles are {}",
        crate::display::sanitize_for_display(role),
        roles.join(", ")
    )]
    UnknownRole {
        /// The role given.
        role: String,
        /// The roles the screen has.
        roles: &'static [&'static str],
    },
    /// Parameters that are not SGR parameters (digits and `;`, at most 40 characters).
    #[error("theme role `{role}`: give SGR parameters such as \"38;5;39\" (digits and ;)")]
    NotSgr {
        /// The role given.
        role: String,
    },
}

/// What one input did to an embedded screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScreenStep {
    /// The questions are still open; draw the next frame.
    Continue,
    /// The ask ended with this outcome.
    Ended(Outcome),
    /// The person abandoned the call (Ctrl+C twice): nothing is answered or recorded.
    Abort,
}

/// A screen that draws the questions as lines for a host and reads the host's input.
pub trait EmbeddedScreen: Send {
    /// The current frame: lines with SGR styling, at most the height last given.
    fn frame(&self) -> Vec<String>;

    /// The room the host gives the questions.
    fn resize(&mut self, width: u16, max_height: u16);

    /// The host's colours, as SGR parameters by role; an error naming the role when a role or
    /// its parameters are not valid.
    fn set_theme(&mut self, roles: &[(&str, &str)]) -> Result<(), ThemeError>;

    /// Bytes the host's terminal sent.
    fn input(&mut self, bytes: &[u8]) -> ScreenStep;
}

//! The messages the state takes (keys decoded, and what the terminal read for it) and the
//! effects an update asks of the terminal module.

use ask_core::Outcome;

/// What the person asked for, decoded from a key or a paste.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Msg {
    /// Move the highlight up (↑ or k).
    Up,
    /// Move the highlight down (↓ or j).
    Down,
    /// Highlight the first row (Home).
    First,
    /// Highlight the last row, "Other" (End).
    Last,
    /// Move the highlight up by a page (PgUp).
    PageUp,
    /// Move the highlight down by a page (PgDn).
    PageDown,
    /// Scroll a question or description that does not fit back up (Shift+↑ or Ctrl+↑).
    ScrollUp,
    /// Scroll a question or description that does not fit further down (Shift+↓ or Ctrl+↓).
    ScrollDown,
    /// A digit: 1–9 pick that option, 0 picks "Other"; on the review, 1–9 open that question.
    Quick(u8),
    /// Tick or untick the highlighted option of a multi-select question (Space).
    Toggle,
    /// The next tab (Tab; → on a list or in an empty text field).
    NextTab,
    /// The previous tab (Shift+Tab; ← on a list or in an empty text field).
    PrevTab,
    /// Confirm (Enter).
    Enter,
    /// Go back or cancel (Esc).
    Cancel,
    /// Ctrl+C: like Esc, but a second one at the discard confirmation aborts.
    Interrupt,
    /// Yes at a dialog (y).
    Yes,
    /// No at a dialog (n).
    No,
    /// A typed character for the text field.
    Input(char),
    /// Pasted text for the text field.
    Paste(String),
    /// Delete the grapheme before the text cursor.
    Backspace,
    /// Delete the grapheme under the text cursor.
    Delete,
    /// Move the text cursor left.
    CursorLeft,
    /// Move the text cursor right.
    CursorRight,
    /// Move the text cursor to the start.
    CursorHome,
    /// Move the text cursor to the end.
    CursorEnd,
    /// Scroll the focused option's preview up ([).
    PreviewUp,
    /// Scroll the focused option's preview down (]).
    PreviewDown,
    /// Open the filter of a long option list (/).
    Filter,
    /// Tick every option of a multi-select question, or untick them all when all are ticked (a).
    ToggleAll,
    /// The earlier answers to the open question, newest first, as the terminal read them after
    /// [`Effect::Load`] asked for them; the recall that asked then happens.
    History(Vec<String>),
    /// Complete the typed path (Ctrl+T in a path question).
    Complete,
    /// Open the note on the open question's answer (Ctrl+N on every screen, or n on a list).
    Note,
    /// The paths that start with `typed`, as the terminal read them from the disk after
    /// [`Load::Complete`] asked: one is taken whole, several fill in what they share and are
    /// listed.
    Completions {
        /// The text they complete.
        typed: String,
        /// The matching paths, sorted; a folder ends in `/`.
        candidates: Vec<String>,
    },
    /// Show every key of the screen until the next key (? on a list).
    Keys,
    /// The terminal changed size: nothing changes but the next frame.
    Resize,
}

/// What the shell must do after an update.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// Draw the next frame and wait for the next key.
    Continue,
    /// The ask is over.
    Ended(Outcome),
    /// The person pressed Ctrl+C at the discard confirmation: the ask is abandoned as if the
    /// process had been interrupted, so nothing is answered or saved and the call is asked
    /// again from the beginning next time.
    Abort,
    /// The state needs something only the terminal module can read: it reads it, hands it in
    /// as the message named in [`Load`], and draws the next frame.
    Load(Load),
}

/// What the terminal module reads for the pure state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Load {
    /// The earlier answers to questions with this text in the session log (at most
    /// [`HISTORY_MAX`], newest first), answered with [`Msg::History`].
    History {
        /// The question's text.
        question: String,
    },
    /// The paths that start with the typed text, from the working folder (an absolute path
    /// from the root), answered with [`Msg::Completions`].
    Complete {
        /// The typed text.
        typed: String,
    },
}

/// How many earlier answers a field can recall.
pub const HISTORY_MAX: usize = 100;

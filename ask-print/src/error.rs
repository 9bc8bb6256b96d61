//! What can go wrong in print mode.
//!
//! Each way print mode fails leaves the pending file as it was: an error, like an incomplete
//! pass 2, never changes it.
//!
//! A message that names a command names its path shell-quoted, so the command runs as printed.

use std::path::{Path, PathBuf};

use ask_core::shell_quote;

/// ask-user's own commands, with ask-user run as `names` says.
fn own_commands(names: &crate::Names) -> crate::Commands {
    crate::Commands {
        host: crate::Host::AskUser,
        names: names.clone(),
    }
}

/// The command that clears the questions pending at `path`.
fn clear_command(path: &Path) -> String {
    crate::render::clear_command(&path.display().to_string())
}

/// An error of the pending-file workflow. Every variant leaves the pending file as it was.
#[derive(Debug, thiserror::Error)]
pub enum PrintError {
    /// A file could not be read or written.
    #[error("{action} `{}`: {source}", path.display())]
    Io {
        /// What was being done.
        action: &'static str,
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// Questions are already pending, so a new call is refused.
    #[error(
        "{} already pending in `{shown}`; answer {} first (edit the file, then run {edited}) or \
         clear {} ({clear})",
        match count { 0 => "questions are".to_string(), 1 => "1 question is".to_string(), n => format!("{n} questions are") },
        if *count == 1 { "it" } else { "them" },
        if *count == 1 { "it" } else { "them" },
        shown = path.display(),
        edited = own_commands(names).edited_command(&path.display().to_string()),
        clear = own_commands(names).clear_command(&path.display().to_string()),
    )]
    AlreadyPending {
        /// The pending file.
        path: PathBuf,
        /// How many questions wait in it (0 when the file cannot be read).
        count: usize,
        /// How ask-user is named in the commands.
        names: crate::Names,
    },
    /// Questions of an earlier call wait for the model's call of the same questions (a file
    /// written by `ask-user mcp`), so a different call is refused; the words are the model's.
    #[error(
        "The user was not asked: {} of an earlier {tool} call {} in {shown}{}. Call {tool} \
         again with exactly those questions to {}; or, if they are no longer needed, have \
         `{clear}` run and then ask these questions.",
        match count { 1 => "1 question".to_string(), n => format!("{n} questions") },
        if *count == 1 { "waits" } else { "wait" },
        if *answered { ", answered" } else { ", not yet answered" },
        if *answered { "receive the answers" } else { "receive the answers once the user has answered" },
        tool = names.tool(),
        shown = path.display(),
        clear = own_commands(names).clear_command(&path.display().to_string()),
    )]
    EarlierCallPending {
        /// The pending file.
        path: PathBuf,
        /// How many questions wait in it.
        count: usize,
        /// True when the file holds the answers (its `answered` state).
        answered: bool,
        /// How ask-user and its tool are named to the model.
        names: crate::Names,
    },
    /// The call has a secret question, which cannot go through a file or a command line.
    #[error(
        "print mode cannot ask question {number} (\"{question}\"): it is secret, and a secret \
         cannot go through a pending file or a command line; ask it in the terminal UI \
         (--mode tui), or through an RPC client (--rpc)"
    )]
    Secret {
        /// The 1-based number of the first secret question.
        number: usize,
        /// That question's text, sanitised for display.
        question: String,
    },
    /// Pass 2 found no pending file.
    #[error("no questions are pending: `{}` does not exist", path.display())]
    NoPending {
        /// The pending file looked for.
        path: PathBuf,
    },
    /// The pending file is not valid JSON or not in the expected shape.
    #[error("`{}` is not a valid pending-questions file: {reason} at line {line}, column {column}", path.display())]
    Malformed {
        /// The pending file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What is wrong.
        reason: String,
    },
    /// A field of the pending file is present with the wrong kind of value, or a required one
    /// is missing.
    #[error(
        "`{}` is not a valid pending-questions file: `{}` is {}; {}",
        path.display(),
        wrong.field,
        wrong.found,
        wrong.write
    )]
    WrongField {
        /// The pending file.
        path: PathBuf,
        /// The field, what it holds, and what to write.
        wrong: crate::pending::WrongField,
    },
    /// A file written by hand over one whose answers wait for the model's next call answers
    /// another number of questions than that call asked.
    #[error(
        "`{}` answers {shown} question{} but the agent asked {}, and its next call waits for \
         answers to those: {}. Write one entry per question, in this order, then run this again",
        path.display(),
        if *shown == 1 { "" } else { "s" },
        asked.len(),
        asked.iter().map(|q| format!("\"{}\"", ask_core::sanitize_for_display(q))).collect::<Vec<_>>().join(", "),
    )]
    NotTheAwaitedCall {
        /// The pending file.
        path: PathBuf,
        /// The words of the questions the agent asked.
        asked: Vec<String>,
        /// How many questions the file answers.
        shown: usize,
    },
    /// The pending file was written by a newer `ask-user`.
    #[error(
        "`{}` is in format version {found}, but this ask-user reads version {supported}; \
         answer it with a newer ask-user",
        path.display()
    )]
    NewerVersion {
        /// The pending file.
        path: PathBuf,
        /// The version in the file.
        found: u64,
        /// The version this build reads.
        supported: u32,
    },
    /// The questions in the pending file are not the ones the model asked: only the answers may
    /// be edited, because the result echoes the questions as they were asked.
    #[error(
        "{what} `{shown}` {how} after {it} asked; the answers go back to the model keyed by the \
         questions as it asked them, so only the \"answer\" fields may be edited: undo the \
         change, or clear the questions ({clear}) and have them asked again",
        what = match edited {
            crate::pending::Edited::Question(index) => format!("question {} (\"{}\") in", index + 1, question),
            crate::pending::Edited::Count { .. } => "the questions in".to_string(),
        },
        how = match edited {
            crate::pending::Edited::Question(_) => "was changed".to_string(),
            crate::pending::Edited::Count { asked, found } => format!("number {found} instead of {asked}: questions were added or removed"),
        },
        it = if matches!(edited, crate::pending::Edited::Question(_)) { "it was" } else { "they were" },
        shown = path.display(),
        clear = clear_command(path),
    )]
    QuestionsEdited {
        /// The pending file.
        path: PathBuf,
        /// What was edited.
        edited: crate::pending::Edited,
        /// The edited question's text as it is now (empty for a changed count).
        question: String,
    },
    /// The questions in the pending file no longer form a valid call.
    #[error("the questions in `{}` were edited into an invalid call:\n{problems}", path.display())]
    InvalidQuestions {
        /// The pending file.
        path: PathBuf,
        /// What is wrong.
        problems: ask_core::Problems,
    },
    /// An answer has the wrong JSON type.
    #[error(
        "the answer to question {} (\"{question}\") is {found}; {}",
        index + 1,
        if *multi_select {
            "write a string, or a list of strings for this multiSelect question"
        } else {
            "write one string (an option label or your own words)"
        }
    )]
    BadAnswer {
        /// The 0-based question index.
        index: usize,
        /// The question text.
        question: String,
        /// Whether the question is multi-select.
        multi_select: bool,
        /// The JSON type found.
        found: &'static str,
    },
    /// An answer, a note or the reply is over the cap of one answer
    /// ([`ask_core::MAX_ANSWER_BYTES`]); the call keeps waiting.
    #[error("{what} {too_long}; write a shorter one")]
    AnswerTooLong {
        /// What is too long, such as `the answer to question 1 ("Name?")`.
        what: String,
        /// How long it is.
        too_long: ask_core::AnswerTooLong,
    },
    /// `--answers` is not JSON.
    #[error("--answers is not valid JSON at line {line}, column {column}: {reason}")]
    InlineNotJson {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What is wrong.
        reason: String,
    },
    /// `--answers` is not an array.
    #[error("--answers must be a JSON array with one entry per question, not {found}")]
    InlineNotArray {
        /// The JSON type found.
        found: &'static str,
    },
    /// `--answers` has the wrong number of entries.
    #[error(
        "--answers has {given} {} for {expected} questions; give one entry per question, in \
         order (null to leave one unanswered)",
        if *given == 1 { "answer" } else { "answers" }
    )]
    WrongAnswerCount {
        /// Entries given.
        given: usize,
        /// Questions pending.
        expected: usize,
    },
    /// The natural-language reply is empty.
    #[error(
        "the reply is empty; write your answers after the pending file, e.g. ask-user -p @{} \
         \"use postgres, call it order-processor\"",
        shell_quote(&path.display().to_string())
    )]
    EmptyReply {
        /// The pending file.
        path: PathBuf,
    },
    /// The pending file changed between reading and writing.
    #[error(
        "`{}` changed while the answers were being recorded (revision {read} was read, the file \
         now differs); nothing was overwritten or removed: run the command again",
        path.display()
    )]
    Changed {
        /// The pending file.
        path: PathBuf,
        /// The revision that was read.
        read: u64,
    },
}

impl PrintError {
    /// True for errors caused by the person's input or the state of the pending file, as
    /// opposed to the disk failing.
    pub fn is_usage(&self) -> bool {
        !matches!(self, PrintError::Io { .. } | PrintError::Changed { .. })
    }
}

impl From<PrintError> for ask_core::PresentError {
    /// A file that cannot be used is a failure; anything the caller gave wrong (a secret
    /// question, questions already pending) is a refusal of the call as given.
    fn from(error: PrintError) -> ask_core::PresentError {
        if matches!(error, PrintError::EarlierCallPending { .. }) {
            // Written for the model, to act on as it is.
            ask_core::PresentError::Unasked(error.to_string())
        } else if error.is_usage() {
            ask_core::PresentError::Refused(error.to_string())
        } else {
            ask_core::PresentError::failed(error)
        }
    }
}

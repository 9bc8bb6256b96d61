//! The non-interactive workflow of `ask_user`: when nobody is at a terminal, the questions go
//! into a pending-questions file (pass 1) and the answers come back in a later run (pass 2), from
//! the edited file, an inline `--answers` array, or one natural-language reply.
//!
//! The crate never waits for a person and never guesses: an answer that matches an option label
//! is a selection, any other text is the person's own answer, and a natural-language reply goes
//! to the model verbatim. All disk access is in `store.rs`; writes are atomic and serialised by a
//! lock file beside the pending file.
//!
//! ```no_run
//! use ask_print::{PassTwo, PassTwoOutcome, pass_two};
//! # fn main() -> Result<(), ask_print::PrintError> {
//! match pass_two(".pi/pending-questions.json".as_ref(), PassTwo::Edited)? {
//!     PassTwoOutcome::Answered(record) => println!("{}", record.result().answer_map().to_json()),
//!     PassTwoOutcome::Incomplete { unanswered, .. } => println!("still open: {unanswered:?}"),
//! }
//! # Ok(())
//! # }
//! ```

mod answers;
mod error;
mod pending;
mod store;

use std::path::{Path, PathBuf};

use ask_core::{
    Answer, AskRequest, AskUserInput, BoxError, Frontend, Limits, Mode, Outcome, Record,
    ValidatedInput, now_ms,
};

pub use answers::{Progress, parse_inline, read_answer, read_file_answers};
pub use error::PrintError;
pub use pending::{
    Descriptions, Edited, FORMAT_VERSION, PendingFile, PendingQuestion, how_to_answer, rfc3339,
};
pub use store::{Loaded, Lock, Store, parse, write_atomic};

/// The default pending file, relative to the working folder.
pub const DEFAULT_PENDING_FILE: &str = ".pi/pending-questions.json";

/// The print-mode frontend: pass 1 writes the pending file and ends the ask as pending.
#[derive(Debug, Clone)]
pub struct PrintFrontend {
    path: PathBuf,
    call_id: Option<String>,
    session_id: String,
}

impl PrintFrontend {
    /// A frontend writing to `path`, with a generated session id.
    pub fn new(path: impl Into<PathBuf>) -> PrintFrontend {
        PrintFrontend {
            path: path.into(),
            call_id: None,
            session_id: generated_session_id(),
        }
    }

    /// Records the agent's tool-call id in the pending file.
    #[must_use]
    pub fn with_call_id(mut self, call_id: Option<String>) -> PrintFrontend {
        self.call_id = call_id;
        self
    }

    /// Records the agent session in the pending file.
    #[must_use]
    pub fn with_session_id(mut self, session_id: impl Into<String>) -> PrintFrontend {
        self.session_id = session_id.into();
        self
    }
}

#[async_trait::async_trait]
impl Frontend for PrintFrontend {
    fn mode(&self) -> Mode {
        Mode::Print
    }

    async fn present(&self, request: &AskRequest) -> Result<Outcome, BoxError> {
        let outcome = pass_one(
            &self.path,
            &request.input,
            self.call_id.clone(),
            &self.session_id,
        )?;
        Ok(outcome)
    }
}

/// A session id for a pending file when the host gives none: the time and process id in hex.
fn generated_session_id() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("{:x}{:x}", nanos & 0xffff_ffff_ffff, std::process::id())
}

/// Pass 1: writes the questions to the pending file and returns the pending outcome.
///
/// Refused while other questions are pending, so that nothing is overwritten.
pub fn pass_one(
    path: &Path,
    input: &ValidatedInput,
    call_id: Option<String>,
    session_id: &str,
) -> Result<Outcome, PrintError> {
    let store = Store::new(path);
    let _lock = store.lock()?;
    if let Some(existing) = existing_count(&store)? {
        return Err(PrintError::AlreadyPending {
            path: path.to_path_buf(),
            count: existing,
        });
    }
    let shown = absolute(path);
    let file = PendingFile::new(
        input,
        call_id,
        session_id.to_string(),
        rfc3339(now_ms()),
        &shown,
    );
    store.create(&file)?;
    Ok(Outcome::Pending { file: shown })
}

/// How many questions wait in the pending file, if there is one. A file that cannot be parsed
/// still counts as pending: it is never overwritten.
fn existing_count(store: &Store) -> Result<Option<usize>, PrintError> {
    match store.read() {
        Ok(Some(loaded)) => Ok(Some(loaded.file.questions.len())),
        Ok(None) => Ok(None),
        Err(PrintError::Io { .. }) if !store.path().exists() => Ok(None),
        Err(PrintError::Io {
            action,
            path,
            source,
        }) => Err(PrintError::Io {
            action,
            path,
            source,
        }),
        Err(_) => Ok(Some(0)),
    }
}

/// The form of a pass-2 answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PassTwo {
    /// The answers written into the pending file (`ask-user -c`).
    Edited,
    /// A JSON array of answers in question order (`--answers`).
    Inline(String),
    /// One natural-language reply covering every pending question (`@PENDING "text"`).
    Reply(String),
}

/// What pass 2 achieved.
#[derive(Debug, Clone)]
pub enum PassTwoOutcome {
    /// Every question is answered; the pending file is removed.
    Answered(Record),
    /// Some questions are still unanswered; the pending file is left as it was.
    Incomplete {
        /// The pending record (status `pending`) to report.
        record: Record,
        /// The unanswered questions, as (0-based index, question text).
        unanswered: Vec<(usize, String)>,
    },
}

/// Pass 2: takes the answers in `how` for the questions in the pending file at `path`.
///
/// A complete set of answers removes the pending file and returns the answered record. An
/// incomplete one, like any error, leaves the file as it was. In [`PassTwo::Inline`], a `null`
/// answer takes the answer written in the file for that question, if any.
pub fn pass_two(path: &Path, how: PassTwo) -> Result<PassTwoOutcome, PrintError> {
    let store = Store::new(path);
    let _lock = store.lock()?;
    let loaded = store.read()?.ok_or_else(|| PrintError::NoPending {
        path: path.to_path_buf(),
    })?;
    if let Some(edited) = loaded.file.edited() {
        let question = match edited {
            pending::Edited::Question(index) => loaded.file.questions[index].question.clone(),
            pending::Edited::Count { .. } => String::new(),
        };
        return Err(PrintError::QuestionsEdited {
            path: path.to_path_buf(),
            edited,
            question,
        });
    }
    let input = rebuilt_call(path, &loaded.file)?;
    let file_values: Vec<&serde_json::Value> =
        loaded.file.questions.iter().map(|q| &q.answer).collect();
    let (progress, reply) = match how {
        PassTwo::Edited => (read_file_answers(&input, &file_values)?, None),
        PassTwo::Inline(text) => {
            let inline = parse_inline(&text, input.questions.len())?;
            let merged: Vec<&serde_json::Value> = inline
                .iter()
                .zip(&file_values)
                .map(|(given, in_file)| if given.is_null() { *in_file } else { given })
                .collect();
            (read_file_answers(&input, &merged)?, None)
        }
        PassTwo::Reply(text) => {
            if text.trim().is_empty() {
                return Err(PrintError::EmptyReply {
                    path: path.to_path_buf(),
                });
            }
            let answers = input
                .questions
                .iter()
                .map(|q| Some(Answer::custom(&q.question, &text)))
                .collect();
            (Progress { answers }, Some(text))
        }
    };
    let call_id = loaded.file.call_id.clone();
    match progress.complete() {
        Some(answers) => {
            store.remove(&loaded)?;
            let mut record = Record::new(
                call_id,
                input,
                Mode::Print,
                Outcome::Answered(answers),
                now_ms(),
            );
            record.reply = reply;
            Ok(PassTwoOutcome::Answered(record))
        }
        None => {
            let unanswered = progress
                .unanswered()
                .into_iter()
                .map(|i| (i, input.questions[i].question.clone()))
                .collect();
            let outcome = Outcome::Pending {
                file: absolute(path),
            };
            let record = Record::new(call_id, input, Mode::Print, outcome, now_ms());
            Ok(PassTwoOutcome::Incomplete { record, unanswered })
        }
    }
}

/// `path` made absolute against the working folder, as the instructions and results name it, so
/// that the commands they give work from any folder.
fn absolute(path: &Path) -> String {
    std::path::absolute(path)
        .unwrap_or_else(|_| path.to_path_buf())
        .display()
        .to_string()
}

/// The call held in a pending file, checked again: the person may have edited the questions.
fn rebuilt_call(path: &Path, file: &PendingFile) -> Result<AskUserInput, PrintError> {
    let input = file.to_input();
    let most_options = input
        .questions
        .iter()
        .map(|q| q.options().len())
        .max()
        .unwrap_or(0);
    let limits = Limits::default()
        .with_max_questions(input.questions.len().max(4))
        .with_max_options(most_options.max(4));
    ask_core::validate(input, &limits)
        .map(ValidatedInput::into_inner)
        .map_err(|problems| PrintError::InvalidQuestions {
            path: path.to_path_buf(),
            problems,
        })
}

/// The pending questions at `path`, if any (`ask-user questions`).
pub fn show(path: &Path) -> Result<Option<PendingFile>, PrintError> {
    Ok(Store::new(path).read()?.map(|loaded| loaded.file))
}

/// Removes the pending questions at `path` (`ask-user questions clear`). Returns whether there
/// were any.
pub fn clear(path: &Path) -> Result<bool, PrintError> {
    let store = Store::new(path);
    let _lock = store.lock()?;
    let existed = path.exists();
    store.remove_unchecked()?;
    Ok(existed)
}

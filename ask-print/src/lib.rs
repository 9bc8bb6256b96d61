//! The non-interactive workflow of `ask_user`: when nobody is at a terminal, the questions go
//! into a pending-questions file (pass 1) and the answers come back in a later run (pass 2), from
//! the edited file, an inline `--answers` array, or one natural-language reply.
//!
//! The crate never waits for a person and never guesses: an answer that matches an option label
//! is a selection, any other text is the person's own answer, and a natural-language reply goes
//! to the model verbatim. All disk access is in `store.rs`; writes are atomic and serialised by a
//! lock file beside the pending file.
//!
//! The host that runs `ask-user` ([`Host`]) names the commands of pass 2, with ask-user itself
//! run as [`Names`] says (the path of the running binary, given by the binary), and print mode
//! writes them ([`Commands`]) into its instructions ([`Outcome::Pending`]), the pending file's
//! `howToAnswer` and its messages ([`show_text`], [`PrintError`]), every path in them
//! shell-quoted. The tool result of an MCP call whose questions wait in the file is worded for
//! the host that called and the way it runs ([`pending_instructions`], [`Session::observe`]).
//!
//! ```no_run
//! use ask_print::{Host, PassTwo, PassTwoOutcome, pass_two};
//! # fn main() -> Result<(), ask_print::PrintError> {
//! match pass_two(".pi/pending-questions.json".as_ref(), PassTwo::Edited, &Host::AskUser.into())? {
//!     PassTwoOutcome::Answered(record) => println!("{}", record.result().answer_map().to_json()),
//!     PassTwoOutcome::Incomplete { unanswered, .. } => println!("still open: {unanswered:?}"),
//! }
//! # Ok(())
//! # }
//! ```

mod again;
mod answers;
mod error;
mod host;
pub mod notes;
mod pending;
mod relay;
mod render;
mod store;

use std::path::{Path, PathBuf};

use ask_core::{
    Answer, AskRequest, AskUserInput, Capabilities, Frontend, Limits, Mode, Outcome, PresentError,
    Presenter, Record, ValidatedInput, now_ms, rfc3339,
};

use answers::{Progress, parse_inline, read_file_answers};
pub use error::PrintError;
pub use host::{Commands, Host, Names, UnknownHost};
pub use pending::{Descriptions, Edited, FORMAT_VERSION, PendingFile, PendingQuestion, WrongField};
pub use relay::{PendingCall, Relay, Session, Terminal, pending_instructions};
use render::render;
use store::{Loaded, Lock, Store};

/// The pending file's store and parsers, for tests that edit the file between a read and a
/// write and for the fuzz targets.
#[doc(hidden)]
pub mod testing {
    pub use crate::answers::{Progress, parse_inline, read_file_answers};
    pub use crate::store::{Loaded, Lock, Store, parse};
}

/// The default pending file, relative to the working folder.
pub const DEFAULT_PENDING_FILE: &str = ".pi/pending-questions.json";

/// The print-mode frontend: pass 1 writes the pending file and ends the ask as pending, with
/// the instructions of its host.
#[derive(Debug, Clone)]
pub struct PrintFrontend {
    path: PathBuf,
    call_id: Option<String>,
    session_id: String,
    commands: Commands,
    awaits_call: bool,
}

impl PrintFrontend {
    /// A frontend writing to `path`, with a generated session id.
    pub fn new(path: impl Into<PathBuf>) -> PrintFrontend {
        PrintFrontend {
            path: path.into(),
            call_id: None,
            session_id: generated_session_id(),
            commands: Commands::default(),
            awaits_call: false,
        }
    }

    /// The answers go back to the model through its next call of the same questions, as an MCP
    /// server needs (no command's output reaches the model there): the pending file says so
    /// (`awaitsCall`), pass 2 stops at its `answered` state, and a call of the same questions
    /// delivers the answers (taking complete answers written into the file too) and removes
    /// it, or, while they are missing, gives the same instructions again. A call of other
    /// questions is refused in words the model can act on.
    #[must_use]
    pub fn awaiting_call(mut self, awaits: bool) -> PrintFrontend {
        self.awaits_call = awaits;
        self
    }

    /// Records the agent's tool-call id in the pending file.
    #[must_use]
    pub fn with_call_id(mut self, call_id: Option<String>) -> PrintFrontend {
        self.call_id = call_id;
        self
    }

    /// Names the pass-2 commands of `host` in the instructions and the pending file's
    /// `howToAnswer` note.
    #[must_use]
    pub fn with_host(mut self, host: Host) -> PrintFrontend {
        self.commands.host = host;
        self
    }

    /// Names ask-user's own commands and its tool as `names` says, in the instructions, the
    /// pending file's `howToAnswer` note and the refusal of another call.
    #[must_use]
    pub fn with_names(mut self, names: Names) -> PrintFrontend {
        self.commands.names = names;
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
    fn presenter(&self) -> Presenter {
        Presenter::File
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            // What the person writes into the file stays on disk until pass 2.
            carries_secrets: false,
            returns_pending: true,
            ..Capabilities::default()
        }
    }

    async fn present(&self, request: &AskRequest) -> Result<Outcome, PresentError> {
        self.pass_one(&request.input, &request.given)
            .map_err(PresentError::from)
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

impl PrintFrontend {
    /// Pass 1: writes the questions to the pending file and returns the pending outcome, with
    /// the answers the person already gave elsewhere (in question order, `None` for an open
    /// question) written into the file, so that they only fill in what is still open.
    ///
    /// Refused while other questions are pending, so that nothing is overwritten.
    pub fn pass_one(
        &self,
        input: &ValidatedInput,
        given: &[Option<Answer>],
    ) -> Result<Outcome, PrintError> {
        pass_one(self, input, given)
    }
}

fn pass_one(
    frontend: &PrintFrontend,
    input: &ValidatedInput,
    given: &[Option<Answer>],
) -> Result<Outcome, PrintError> {
    let PrintFrontend {
        path,
        call_id,
        session_id,
        commands: host,
        awaits_call,
    } = frontend;
    let path = path.as_path();
    // Refused before the file is touched: a secret never reaches the disk.
    if let Some((index, question)) = input
        .input()
        .questions
        .iter()
        .enumerate()
        .find(|(_, question)| question.secret)
    {
        return Err(PrintError::Secret {
            number: index + 1,
            question: ask_core::sanitize_for_display(&question.question).into_owned(),
        });
    }
    if *awaits_call && let Some(outcome) = again::call_again(path, input, host)? {
        return Ok(outcome);
    }
    let store = Store::new(path);
    let mut lock = store.lock()?;
    let shown = absolute(path);
    match existing(&store)? {
        None => {}
        // The same call asked again (a retry after a crash, or a concurrent ask): its questions
        // already wait in this file.
        Some(Existing::Call { id, .. }) if id.is_some() && id == *call_id => {
            let instructions = host.instructions(&shown, input.questions.len());
            return Ok(Outcome::Pending {
                file: shown,
                instructions,
            });
        }
        Some(Existing::Call { count, .. }) => {
            return Err(PrintError::AlreadyPending {
                path: path.to_path_buf(),
                count,
                names: host.names.clone(),
            });
        }
        Some(Existing::Unreadable) => {
            return Err(PrintError::AlreadyPending {
                path: path.to_path_buf(),
                count: 0,
                names: host.names.clone(),
            });
        }
    }
    let mut file = PendingFile::new(input);
    file.call_id.clone_from(call_id);
    file.session_id.clone_from(session_id);
    file.timestamp = rfc3339(now_ms());
    file.how_to_answer = Some(host.how_to_answer(&shown));
    file.awaits_call = *awaits_call;
    for (question, answer) in file.questions.iter_mut().zip(given) {
        if let Some(answer) = answer {
            question.answer = serde_json::to_value(&answer.answer).unwrap_or_default();
            question.notes.clone_from(&answer.notes);
        }
    }
    store.create(&file)?;
    // A mark that cannot be written only loses pass 2's note on a file written over this one.
    let awaited = store::Awaited {
        tool: host.names.tool().to_string(),
        questions: file.questions.iter().map(|q| q.question.clone()).collect(),
    };
    let _ = lock.mark_awaits_call(file.awaits_call.then_some(&awaited));
    let instructions = host.instructions(&shown, input.questions.len());
    Ok(Outcome::Pending {
        file: shown,
        instructions,
    })
}

/// What an existing pending file holds.
enum Existing {
    /// A call: its call id and how many questions it asks.
    Call { id: Option<String>, count: usize },
    /// A file that cannot be parsed.
    Unreadable,
}

/// The pending file already there, if any. A file that cannot be parsed still counts as
/// pending: it is never overwritten.
fn existing(store: &Store) -> Result<Option<Existing>, PrintError> {
    match store.read() {
        Ok(Some(loaded)) => Ok(Some(Existing::Call {
            count: loaded.file.questions.len(),
            id: loaded.file.call_id,
        })),
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
        Err(_) => Ok(Some(Existing::Unreadable)),
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

/// The first step of pass 2: what [`answer`] found.
#[derive(Debug)]
pub enum PassTwoStep {
    /// The answers are complete and safe in the pending file (its `answered` state); deliver
    /// them, then call [`Answering::mark_delivered`].
    Answered(Box<Answering>),
    /// Some questions are still unanswered; the pending file is left as it was.
    Incomplete {
        /// The pending record (status `pending`) to report.
        record: Box<Record>,
        /// The unanswered questions, as (0-based index, question text).
        unanswered: Vec<(usize, String)>,
    },
}

/// A pass 2 whose complete answers are in the pending file, in its `answered` state, and not
/// yet delivered. It holds the pending file's lock until it is marked delivered or dropped;
/// dropped without [`Answering::mark_delivered`] (the answers could not be recorded or
/// printed), it leaves the
/// file in the `answered` state, and the next pass-2 command delivers the same record.
#[derive(Debug)]
pub struct Answering {
    store: Store,
    written: Loaded,
    record: Record,
    resumed: bool,
    kept: bool,
    replaced_awaiting: bool,
    tool: Option<String>,
    _lock: Lock,
}

impl Answering {
    /// The answered record to deliver.
    pub fn record(&self) -> &Record {
        &self.record
    }

    /// True when an earlier pass 2 had already put the file in the `answered` state (it was
    /// ended before it could deliver the answers); this one delivers the same record.
    pub fn resumed(&self) -> bool {
        self.resumed && !self.awaits_call()
    }

    /// True when the answers go back to the model through its next call of the same questions
    /// (the file's `awaitsCall`): [`Answering::mark_delivered`] keeps the file in its `answered` state
    /// for that call.
    pub fn awaits_call(&self) -> bool {
        self.written.file.awaits_call
    }

    /// True when the pending file was written by hand (it has no fingerprints) over one whose
    /// answers waited for the model's next call (a file `ask-user mcp` wrote): its answers wait
    /// in the file for that call too ([`Answering::awaits_call`]), which takes them by the words
    /// of its questions.
    pub fn replaced_awaiting(&self) -> bool {
        self.replaced_awaiting
    }

    /// The tool, as the model knows it, whose next call takes the answers, when a frontend whose
    /// answers wait for that call wrote the file this one answers.
    pub fn awaited_tool(&self) -> Option<&str> {
        self.tool.as_deref()
    }

    /// True when the answers are in the pending file (its `answered` state). False only when
    /// the disk refused that write: the answers are then delivered all the same, and until they
    /// are, the file holds the questions as before.
    pub fn kept(&self) -> bool {
        self.kept
    }

    /// Removes the pending file, once the answers are recorded and delivered, unless it was
    /// edited since it was put in the `answered` state, or its answers wait for the model's
    /// next call ([`Answering::awaits_call`]), which removes it.
    pub fn mark_delivered(self) -> Result<Record, PrintError> {
        if self.awaits_call() && self.kept {
            return Ok(self.record);
        }
        self.remove()
    }

    /// Removes the pending file whatever waits for it, unless it was edited since it was read.
    fn remove(self) -> Result<Record, PrintError> {
        self.store.remove(&self.written)?;
        Ok(self.record)
    }
}

/// Pass 2: takes the answers in `how` for the questions in the pending file at `path`.
///
/// A complete set of answers removes the pending file and returns the answered record. An
/// incomplete one, like any error, leaves the file as it was. In [`PassTwo::Inline`], a `null`
/// answer takes the answer written in the file for that question, if any.
///
/// This is [`answer`] and [`Answering::mark_delivered`] in one step, for a caller that has nothing to
/// do with the answers before the file is removed.
pub fn pass_two(path: &Path, how: PassTwo, host: &Commands) -> Result<PassTwoOutcome, PrintError> {
    match answer(path, how, host)? {
        PassTwoStep::Answered(answering) => {
            Ok(PassTwoOutcome::Answered(answering.mark_delivered()?))
        }
        PassTwoStep::Incomplete { record, unanswered } => Ok(PassTwoOutcome::Incomplete {
            record: *record,
            unanswered,
        }),
    }
}

/// The first step of a crash-safe pass 2: takes the answers in `how` and, when they are
/// complete, writes them into the pending file as its `answered` state (atomically) before
/// anything else happens. The caller then records and prints the record and calls
/// [`Answering::mark_delivered`], which removes the file: a crash at any moment leaves the answers in
/// the file or delivered.
///
/// A file already in the `answered` state (an earlier pass 2 was ended before it finished) is
/// delivered as it is, whatever `how` says. Answers still missing leave the questions pending,
/// with the instructions of `host`.
pub fn answer(path: &Path, how: PassTwo, host: &Commands) -> Result<PassTwoStep, PrintError> {
    let store = Store::new(path);
    let mut lock = store.lock()?;
    let loaded = store.read()?.ok_or_else(|| PrintError::NoPending {
        path: path.to_path_buf(),
    })?;
    // A file written by hand over one whose answers wait for the model's next call: its
    // answers, question by question in order, wait for that call too, under the questions as the
    // model asked them, so that the call finds them by their words.
    let awaited_call = lock.awaited_call();
    let tool = awaited_call
        .as_ref()
        .map(|awaited| awaited.tool.clone())
        .filter(|tool| !tool.is_empty());
    let awaited = awaited_call
        .filter(|_| !loaded.file.awaits_call && loaded.file.fingerprints.is_empty())
        .map(|awaited| awaited.questions);
    if let Some(asked) = awaited.as_ref().filter(|asked| !asked.is_empty())
        && asked.len() != loaded.file.questions.len()
    {
        return Err(PrintError::NotTheAwaitedCall {
            path: path.to_path_buf(),
            asked: asked.clone(),
            shown: loaded.file.questions.len(),
        });
    }
    let replaced_awaiting = awaited.is_some();
    if let Some(record) = loaded.file.answered.clone() {
        return Ok(PassTwoStep::Answered(Box::new(Answering {
            store,
            written: loaded,
            record,
            resumed: true,
            kept: true,
            replaced_awaiting,
            tool,
            _lock: lock,
        })));
    }
    let input = checked_call(path, &loaded.file)?;
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
            answers::check_reply(&text)?;
            let answers = input
                .questions
                .iter()
                .map(|q| Some(Answer::custom(&q.question, &text)))
                .collect();
            (Progress { answers }, Some(text))
        }
    };
    let progress = answers::with_file_notes(progress, &loaded.file.questions)?;
    let call_id = loaded.file.call_id.clone();
    match progress.complete() {
        Some(answers) => {
            let mut record = Record::new(input, Mode::Print, Outcome::Answered(answers))
                .with_call_id(call_id)
                .with_answered_at(now_ms());
            record.reply = reply;
            let mut answered = loaded.file.clone().into_answered(record.clone());
            // Written by hand over a file whose answers waited for the model's next call: they
            // wait for that call here too, which takes them by the questions' words.
            if let Some(asked) = awaited.filter(|asked| !asked.is_empty()) {
                for (question, words) in answered.questions.iter_mut().zip(asked) {
                    question.question = words;
                }
            }
            answered.awaits_call |= replaced_awaiting;
            // A disk that cannot take the answered state (full, read-only) must not keep the
            // answers from the agent: they are still delivered, and the file stays as it was
            // until they are.
            let (written, kept) = match store.replace(&loaded, answered) {
                Ok(written) => (written, true),
                Err(PrintError::Io { .. }) => (loaded, false),
                Err(error) => return Err(error),
            };
            Ok(PassTwoStep::Answered(Box::new(Answering {
                store,
                written,
                record,
                resumed: false,
                kept,
                replaced_awaiting,
                tool,
                _lock: lock,
            })))
        }
        None => {
            let unanswered = progress
                .unanswered()
                .into_iter()
                .map(|i| (i, input.questions[i].question.clone()))
                .collect();
            let file = absolute(path);
            let outcome = Outcome::Pending {
                instructions: host.instructions(&file, input.questions.len()),
                file,
            };
            let record = Record::new(input, Mode::Print, outcome)
                .with_call_id(call_id)
                .with_answered_at(now_ms());
            Ok(PassTwoStep::Incomplete {
                record: Box::new(record),
                unanswered,
            })
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

/// The call held in a pending file, refused when its questions differ from the ones asked
/// (their fingerprints) or no longer form a valid call.
fn checked_call(path: &Path, file: &PendingFile) -> Result<AskUserInput, PrintError> {
    if let Some(edited) = file.edited() {
        let question = match edited {
            pending::Edited::Question(index) => file.questions[index].question.clone(),
            pending::Edited::Count { .. } => String::new(),
        };
        return Err(PrintError::QuestionsEdited {
            path: path.to_path_buf(),
            edited,
            question,
        });
    }
    rebuilt_call(path, file)
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

/// What `ask-user questions show` prints: the pending questions for people, with the commands
/// that answer or clear them run as `names` says, or with `json` the pending file as JSON
/// (`null` when none is pending).
pub fn show_text(path: &Path, json: bool, names: &Names) -> Result<String, PrintError> {
    Ok(match show(path)? {
        None if json => "null".to_string(),
        None => "No questions are pending.".to_string(),
        Some(file) if json => serde_json::to_string_pretty(&file).unwrap_or_default(),
        Some(file) => render(&file, path, names),
    })
}

/// The pending questions at `path`, if any (`ask-user questions`).
pub fn show(path: &Path) -> Result<Option<PendingFile>, PrintError> {
    Ok(Store::new(path).read()?.map(|loaded| loaded.file))
}

/// What a host needs to know about a pending file without answering it
/// (`ask-user questions state`): whether questions wait, for which call, and whether the
/// answers written into the file are complete, so that `ask-user -c` would deliver them.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PendingState {
    /// True when the file exists.
    pub pending: bool,
    /// The pending file, absolute.
    pub pending_file: String,
    /// The call id the questions belong to, when the file names one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
    /// The number of questions waiting.
    pub questions: usize,
    /// The 0-based indexes of the questions the file leaves unanswered.
    pub unanswered: Vec<usize>,
    /// True when every question has an answer in the file (or the file is in the `answered`
    /// state): a pass 2 from the edited file would deliver them.
    pub complete: bool,
    /// True when an earlier pass 2 took the answers (the `answered` state) and was ended before
    /// it could deliver them; any pass 2 delivers that record.
    pub answered: bool,
    /// Why a pass 2 from the file would be refused (edited questions, an answer of the wrong
    /// type), when it would.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
}

/// The state of the pending file at `path`; reads it and nothing else.
pub fn state(path: &Path) -> Result<PendingState, PrintError> {
    let pending_file = absolute(path);
    let Some(loaded) = Store::new(path).read()? else {
        return Ok(PendingState {
            pending: false,
            pending_file,
            call_id: None,
            questions: 0,
            unanswered: Vec::new(),
            complete: false,
            answered: false,
            problem: None,
        });
    };
    let file = loaded.file;
    let mut state = PendingState {
        pending: true,
        pending_file,
        call_id: file.call_id.clone(),
        questions: file.questions.len(),
        unanswered: Vec::new(),
        complete: false,
        answered: file.answered.is_some(),
        problem: None,
    };
    if state.answered {
        state.complete = true;
        return Ok(state);
    }
    let values: Vec<&serde_json::Value> = file.questions.iter().map(|q| &q.answer).collect();
    match checked_call(path, &file).and_then(|input| read_file_answers(&input, &values)) {
        Ok(progress) => {
            state.unanswered = progress.unanswered();
            state.complete = state.unanswered.is_empty();
        }
        Err(error) => {
            state.unanswered = (0..file.questions.len())
                .filter(|&i| file.questions[i].answer.is_null())
                .collect();
            state.problem = Some(error.to_string());
        }
    }
    Ok(state)
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

/// [`clear`], and what to tell the person it did.
pub fn clear_and_say(path: &Path) -> Result<String, PrintError> {
    Ok(if clear(path)? {
        format!("cleared the pending questions in {}", path.display())
    } else {
        "no questions were pending".to_string()
    })
}

//! The domain of the `ask_user` tool: the input contract, its validation, the result shapes,
//! the ask state machine and the [`Frontend`] trait every presenter implements.
//!
//! This crate does no IO: no files, no terminal, no network, no async runtime. Frontends (the
//! terminal UI, the pending file, RPC) live in their own crates and plug in through [`Frontend`].
//!
//! ```
//! use ask_core::{Answer, AskUserInput, Limits, Mode, Outcome, Question, Record, ToolOutput, validate};
//!
//! let input = AskUserInput {
//!     questions: vec![
//!         Question::choice("Which database should we use?", ["PostgreSQL (Recommended)", "SQLite"])
//!             .with_header("Database"),
//!     ],
//!     metadata: None,
//! };
//! let input = validate(input, &Limits::default()).expect("a valid call");
//!
//! // A frontend collects the answer...
//! let answer = Answer::from_text(&input.questions[0], "SQLite");
//! let record = Record::new(input.into_inner(), Mode::Interactive, Outcome::Answered(vec![answer]));
//!
//! // ...and the agent gets the tool output.
//! let output = ToolOutput::from_record(record);
//! assert_eq!(output.content, r#"{"answers":{"Which database should we use?":"SQLite"}}"#);
//! ```

mod answer_input;
mod caller;
mod display;
mod failpoint;
mod frontend;
mod input;
mod json;
pub mod lang;
mod prefill;
mod presenter;
mod result;
pub mod safe_json;
mod screen;
mod state;
mod summary;
mod time;
mod validate;

pub use answer_input::{
    AnswerError, AnswerInput, AnswerTooLong, MAX_ANSWER_BYTES, SelectedOptionError,
    check_answer_bytes, to_answers,
};
pub use caller::{Caller, Refusal};
pub use display::{
    CharClass, RECOMMENDED_SUFFIX, classify, classify_in_context, describe_char, is_recommended,
    sanitize_for_display, shell_quote,
};
pub use failpoint::{FAILPOINT_VARIABLE, failpoint};
pub use frontend::{
    AskCall, AskRequest, BoxError, Capabilities, Frontend, Given, PresentError, Signal,
};
pub use input::{AskUserInput, Limits, Question, QuestionKind, QuestionOption, RaisedWith};
pub use json::{duplicate_key, unique_value};
pub use prefill::Prefill;
pub use presenter::{Presenter, PresenterError};
pub use result::{
    Answer, AnswerMap, AnswerValue, AskUserResult, ChosenPreview, MULTI_SELECT_PREFIX, Mode,
    Outcome, Picks, ProblemReport, Record, SECRET_PLACEHOLDER, SUBAGENT_REFUSAL, Status,
    ToolOutput, answer_mask, any_secret, interrupted_text, multi_select_line,
};
pub use screen::{EmbeddedScreen, ScreenStep, ThemeError};
pub use state::{AskState, InvalidTransition, StateMachine, StateObserver, WireState};
pub use time::{now_ms, rfc3339};
pub use validate::{
    JsonType, MAX_PROBLEMS, Problem, ProblemKind, Problems, TextField, ValidatedInput,
    check_metadata, check_questions, validate,
};

/// Items the integration tests of the workspace reach; not part of the API.
#[doc(hidden)]
pub mod testing {
    pub use crate::frontend::NO_CALL_ID;
    pub use crate::input::normalize_label;
}

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
//! let record = Record::new(None, input.into_inner(), Mode::Interactive, Outcome::Answered(vec![answer]), 0);
//!
//! // ...and the agent gets the tool output.
//! let output = ToolOutput::from_record(record);
//! assert_eq!(output.content, r#"{"answers":{"Which database should we use?":"SQLite"}}"#);
//! ```

mod caller;
mod display;
mod frontend;
mod host;
mod input;
mod json;
mod presenter;
mod result;
mod state;
mod summary;
mod validate;

pub use caller::{Caller, Refusal};
pub use display::{
    CharClass, RECOMMENDED_SUFFIX, classify, classify_in_context, describe_char, is_recommended,
    sanitize_for_display, strip_recommended,
};
pub use frontend::{AskCall, AskError, AskRequest, BoxError, Frontend, Given, ask, now_ms};
pub use host::Host;
pub use input::{
    AskUserInput, Limits, Question, QuestionKind, QuestionOption, YES_NO_LABELS, normalize_label,
};
pub use json::{duplicate_key, unique_value};
pub use presenter::Presenter;
pub use result::{
    Answer, AnswerMap, AnswerValue, AskUserResult, ChosenPreview, Mode, Outcome, Record,
    SECRET_PLACEHOLDER, SUBAGENT_REFUSAL, Status, ToolOutput, interrupted_text,
    pending_instructions, pending_instructions_for,
};
pub use state::{AskState, InvalidTransition, StateMachine, StateObserver};
pub use summary::summary_sentence;
pub use validate::{
    JsonType, MAX_PROBLEMS, Problem, ProblemKind, Problems, TextField, ValidatedInput, check_input,
    check_metadata, check_questions, validate,
};

#[cfg(test)]
mod tests {
    use super::*;
    use std::future::Future;
    use std::pin::pin;
    use std::sync::{Arc, Mutex};
    use std::task::{Context, Poll, Waker};

    /// Runs a future that never waits on anything outside itself.
    fn block_on<F: Future>(future: F) -> F::Output {
        let mut future = pin!(future);
        let mut cx = Context::from_waker(Waker::noop());
        loop {
            if let Poll::Ready(out) = future.as_mut().poll(&mut cx) {
                return out;
            }
        }
    }

    struct Scripted {
        outcome: Outcome,
        shown: Arc<Mutex<usize>>,
    }

    #[async_trait::async_trait]
    impl Frontend for Scripted {
        fn mode(&self) -> Mode {
            Mode::Rpc
        }
        async fn present(&self, _request: &AskRequest) -> Result<Outcome, BoxError> {
            *self.shown.lock().unwrap() += 1;
            Ok(self.outcome.clone())
        }
    }

    fn call() -> ValidatedInput {
        let input = AskUserInput {
            questions: vec![Question::choice("Which?", ["A", "B"])],
            metadata: None,
        };
        validate(input, &Limits::default()).unwrap()
    }

    #[test]
    fn ask_drives_the_state_machine_and_builds_the_record() {
        let shown = Arc::new(Mutex::new(0));
        let frontend = Scripted {
            outcome: Outcome::Answered(vec![Answer::selected("Which?", "B")]),
            shown: Arc::clone(&shown),
        };
        let states = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&states);
        let mut machine = StateMachine::new();
        machine.observe(move |_: &AskState, to: &AskState| log.lock().unwrap().push(to.clone()));
        let mut ask_call = AskCall::new(call());
        ask_call.call_id = Some("toolu_9".into());
        let record = block_on(ask(&frontend, ask_call, &mut machine)).unwrap();
        assert_eq!(record.status, Status::Answered);
        assert_eq!(record.call_id.as_deref(), Some("toolu_9"));
        assert_eq!(record.mode, Mode::Rpc);
        assert_eq!(
            *states.lock().unwrap(),
            [
                AskState::WaitingForUser {
                    questions: vec![Question::choice("Which?", ["A", "B"])]
                },
                AskState::Answered
            ]
        );
        assert_eq!(*shown.lock().unwrap(), 1);
    }

    #[test]
    fn sub_agent_is_refused_before_anything_is_shown() {
        let shown = Arc::new(Mutex::new(0));
        let frontend = Scripted {
            outcome: Outcome::Cancelled,
            shown: Arc::clone(&shown),
        };
        let mut machine = StateMachine::new();
        let mut ask_call = AskCall::new(call());
        ask_call.caller = Caller::SubAgent;
        let err = block_on(ask(&frontend, ask_call, &mut machine)).unwrap_err();
        assert_eq!(err.to_string(), SUBAGENT_REFUSAL);
        assert_eq!(*shown.lock().unwrap(), 0);
        assert_eq!(machine.state(), &AskState::Idle);
    }

    #[test]
    fn frontend_is_object_safe() {
        let shown = Arc::new(Mutex::new(0));
        let boxed: Box<dyn Frontend> = Box::new(Scripted {
            outcome: Outcome::Cancelled,
            shown,
        });
        assert_eq!(boxed.mode(), Mode::Rpc);
    }
}

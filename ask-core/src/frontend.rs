//! The `Frontend` trait every presenter implements, and [`ask`], which drives one call through
//! the refusal check, the state machine and a frontend.

use std::time::{SystemTime, UNIX_EPOCH};

use async_trait::async_trait;

use crate::caller::{Caller, Refusal};
use crate::result::{Answer, Mode, Outcome, Record};
use crate::state::{AskState, InvalidTransition, StateMachine};
use crate::validate::ValidatedInput;

/// A boxed error from a frontend.
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// One call as a frontend sees it.
#[derive(Debug, Clone)]
pub struct AskRequest {
    /// An id for this ask, unique among the asks in flight (the tool-call id when known).
    pub request_id: String,
    /// The validated call.
    pub input: ValidatedInput,
    /// Answers the person already gave elsewhere (an earlier form that came back incomplete), in
    /// question order, `None` for a question still open; empty when nothing was given. A frontend
    /// that can show them as pre-filled answers does, so nothing the person gave is lost.
    pub given: Vec<Option<Answer>>,
}

/// Something that presents questions to a person and collects the answers: the terminal UI, the
/// pending file, an RPC client.
///
/// The trait is object safe, so hosts can pick a frontend at run time.
#[async_trait]
pub trait Frontend: Send + Sync {
    /// Where this frontend's answers come from, for the record.
    fn mode(&self) -> Mode;

    /// Shows the questions and waits, without a timeout, for the outcome.
    async fn present(&self, request: &AskRequest) -> Result<Outcome, BoxError>;
}

/// A frontend shown with answers the person already gave elsewhere (an incomplete form, the
/// answers a call carries): each ask through it gets them in [`AskRequest::given`].
pub struct Given<'a> {
    /// The frontend that presents the questions.
    pub inner: &'a dyn Frontend,
    /// The answers already given, in question order.
    pub given: Vec<Option<Answer>>,
}

impl std::fmt::Debug for Given<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Given")
            .field("mode", &self.inner.mode())
            .field("given", &self.given)
            .finish()
    }
}

#[async_trait]
impl Frontend for Given<'_> {
    fn mode(&self) -> Mode {
        self.inner.mode()
    }

    async fn present(&self, request: &AskRequest) -> Result<Outcome, BoxError> {
        let mut request = request.clone();
        request.given.clone_from(&self.given);
        self.inner.present(&request).await
    }
}

/// Why [`ask`] failed.
#[derive(Debug, thiserror::Error)]
pub enum AskError {
    /// The caller is a sub-agent.
    #[error(transparent)]
    Refused(#[from] Refusal),
    /// The frontend failed.
    #[error("the {mode} frontend failed: {source}")]
    Frontend {
        /// Which frontend.
        mode: &'static str,
        /// What went wrong.
        #[source]
        source: BoxError,
    },
    /// A frontend drove the state machine wrongly.
    #[error(transparent)]
    State(#[from] InvalidTransition),
}

/// Everything about one call besides the frontend.
#[derive(Debug, Clone)]
pub struct AskCall {
    /// The agent's tool-call id, when known.
    pub call_id: Option<String>,
    /// Who is calling.
    pub caller: Caller,
    /// The validated call.
    pub input: ValidatedInput,
}

impl AskCall {
    /// A call from the parent conversation, with no call id.
    pub fn new(input: ValidatedInput) -> AskCall {
        AskCall {
            call_id: None,
            caller: Caller::Parent,
            input,
        }
    }
}

/// Asks one call through `frontend`: refuses a sub-agent before anything is shown, moves
/// `machine` to waiting (with the questions), waits for the outcome, moves `machine` to the
/// final state and returns the record to persist.
///
/// `machine` must be idle; attach observers to it first to watch the ask.
pub async fn ask(
    frontend: &dyn Frontend,
    call: AskCall,
    machine: &mut StateMachine,
) -> Result<Record, AskError> {
    call.caller.check()?;
    let questions = call.input.questions.clone();
    machine.transition(AskState::WaitingForUser { questions })?;
    let request = AskRequest {
        request_id: call.call_id.clone().unwrap_or_else(|| "ask-1".to_string()),
        input: call.input,
        given: Vec::new(),
    };
    let outcome = match frontend.present(&request).await {
        Ok(outcome) => outcome,
        Err(source) => {
            machine.transition(AskState::Failed)?;
            return Err(AskError::Frontend {
                mode: frontend.mode().as_str(),
                source,
            });
        }
    };
    machine.transition(AskState::after(&outcome))?;
    let input = request.input.into_inner();
    Ok(Record::new(
        call.call_id,
        input,
        frontend.mode(),
        outcome,
        now_ms(),
    ))
}

impl Record {
    /// A record of `input` ending in `outcome` at `answered_at`.
    pub fn new(
        call_id: Option<String>,
        input: crate::AskUserInput,
        mode: Mode,
        outcome: Outcome,
        answered_at: u64,
    ) -> Record {
        let status = outcome.status();
        let (answers, pending_file) = match outcome {
            Outcome::Answered(answers) => (answers, None),
            Outcome::Pending { file } => (Vec::new(), Some(file)),
            Outcome::Cancelled | Outcome::ConnectionLost => (Vec::new(), None),
        };
        let previews = crate::ChosenPreview::of(&input.questions, &answers);
        Record {
            call_id,
            questions: input.questions,
            answers,
            answered_at,
            mode,
            metadata: input.metadata,
            status,
            pending_file,
            reply: None,
            previews,
        }
    }
}

/// Milliseconds since the Unix epoch, by the system clock.
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

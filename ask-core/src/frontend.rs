//! The seam every presenter plugs into: the [`Frontend`] trait, the request it is shown, what it
//! declares it can do ([`Capabilities`]), and how it fails ([`PresentError`]).
//!
//! The one path that drives a call through a frontend (refusal, replay, state machine, record)
//! is `ask_session::Ask`; this module only says what a frontend is.

use async_trait::async_trait;

use crate::caller::Caller;
use crate::presenter::Presenter;
use crate::result::{Answer, Outcome};
use crate::validate::ValidatedInput;

/// A boxed error from a frontend's own machinery (a socket, a terminal, a file).
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// One call as a frontend sees it.
#[derive(Debug, Clone)]
pub struct AskRequest {
    /// An id for this ask, unique among the asks in flight (the tool-call id when known).
    pub request_id: String,
    /// The validated call.
    pub input: ValidatedInput,
    /// Answers the person already gave elsewhere (an earlier form that came back incomplete, the
    /// answers a call carries), in question order, `None` for a question still open; empty when
    /// nothing was given. Every frontend whose [`Capabilities::shows_given`] is true shows them
    /// as pre-filled answers, so nothing the person gave is lost.
    pub given: Vec<Option<Answer>>,
}

/// The request id of a call that has no call id.
pub const NO_CALL_ID: &str = "ask-1";

impl AskRequest {
    /// The host's id of the tool call, when the call has one (its request id is then that id).
    pub fn call_id(&self) -> Option<&str> {
        (self.request_id != NO_CALL_ID).then_some(self.request_id.as_str())
    }
}

/// The signal that ended a presenter, as the process saw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Signal {
    /// The signal's number (SIGTERM is 15).
    pub number: i32,
    /// Its name, such as `SIGTERM`.
    pub name: &'static str,
}

/// Why a frontend gave no outcome. An outcome (answered, cancelled, connection lost, pending)
/// is never an error; these are the ends that leave nothing to record.
///
/// A frontend fails only with one of these, and its callers match on the variant: nothing
/// recovers a frontend's error by its type (no downcast of the boxed error of
/// [`PresentError::Failed`]).
#[derive(Debug, thiserror::Error)]
pub enum PresentError {
    /// The person's session was interrupted: by a signal, or by Ctrl+C twice (`signal: None`).
    /// Nothing was answered or recorded; the call is asked again next time.
    #[error("{}", interrupted_message(*.signal))]
    Interrupted {
        /// The signal, when one ended it.
        signal: Option<Signal>,
    },
    /// The person was not asked, for a reason written for the model (the MCP server's tool
    /// error carries it as it is).
    #[error("{0}")]
    Unasked(String),
    /// The frontend refuses this call as given (print mode refuses a secret question): a usage
    /// error of the caller's.
    #[error("{0}")]
    Refused(String),
    /// The frontend could not be used (a terminal that cannot be opened, a socket that fails).
    #[error(transparent)]
    Failed(BoxError),
}

fn interrupted_message(signal: Option<Signal>) -> String {
    match signal {
        Some(signal) => format!("interrupted by {}", signal.name),
        None => "interrupted with Ctrl+C twice".to_string(),
    }
}

impl PresentError {
    /// A frontend that failed with `error`.
    pub fn failed(error: impl Into<BoxError>) -> PresentError {
        PresentError::Failed(error.into())
    }
}

impl From<std::io::Error> for PresentError {
    fn from(error: std::io::Error) -> PresentError {
        PresentError::Failed(Box::new(error))
    }
}

/// What a frontend can do, declared by the frontend itself; a chain of presenters decides from
/// these, never from the frontend's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capabilities {
    /// A secret answer can be typed without it being kept anywhere but the result (the pending
    /// file keeps what is written into it, and a client's form may keep its fields).
    pub carries_secrets: bool,
    /// The answers of [`AskRequest::given`] are shown pre-filled.
    pub shows_given: bool,
    /// The frontend draws on the controlling terminal, so it may run only while its process
    /// group is the terminal's foreground group.
    pub needs_foreground: bool,
    /// The frontend returns at once with the questions pending ([`Outcome::Pending`]) instead of
    /// blocking until the person answers.
    pub returns_pending: bool,
}

impl Default for Capabilities {
    /// A frontend that blocks until the person answers, carries secrets and shows given answers.
    fn default() -> Capabilities {
        Capabilities {
            carries_secrets: true,
            shows_given: true,
            needs_foreground: false,
            returns_pending: false,
        }
    }
}

/// Something that presents questions to a person and collects the answers: the terminal UI, the
/// pending file, an RPC client, an MCP client's form, a web page.
///
/// The trait is object safe, so hosts can pick a frontend at run time and hand frontends to
/// each other as values.
#[async_trait]
pub trait Frontend: Send + Sync {
    /// Where the person answers; the record's `mode` follows from it
    /// ([`Presenter::record_mode`]).
    fn presenter(&self) -> Presenter;

    /// What this frontend can do.
    fn capabilities(&self) -> Capabilities {
        Capabilities::default()
    }

    /// Shows the questions and waits, without a timeout, for the outcome.
    async fn present(&self, request: &AskRequest) -> Result<Outcome, PresentError>;

    /// Waits until every line this frontend queued on a channel of its own (a protocol's state
    /// lines) is written, so that what the host prints after the ask comes after them. The ask
    /// path calls it once the ask has ended, however it ended; a frontend that queues nothing
    /// returns at once.
    async fn flush_queued_lines(&self) {}
}

/// A frontend shown with answers the person already gave elsewhere (an incomplete form): each
/// ask through it gets them in [`AskRequest::given`].
pub struct Given<'a> {
    /// The frontend that presents the questions.
    pub inner: &'a dyn Frontend,
    /// The answers already given, in question order.
    pub given: Vec<Option<Answer>>,
}

impl std::fmt::Debug for Given<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Given")
            .field("presenter", &self.inner.presenter())
            .field("given", &self.given)
            .finish()
    }
}

#[async_trait]
impl Frontend for Given<'_> {
    fn presenter(&self) -> Presenter {
        self.inner.presenter()
    }

    fn capabilities(&self) -> Capabilities {
        self.inner.capabilities()
    }

    async fn present(&self, request: &AskRequest) -> Result<Outcome, PresentError> {
        let mut request = request.clone();
        request.given.clone_from(&self.given);
        self.inner.present(&request).await
    }
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
    /// Answers the call already carries or the person gave elsewhere, in question order.
    pub given: Vec<Option<Answer>>,
}

impl AskCall {
    /// A call from the parent conversation, with no call id and nothing given.
    pub fn new(input: ValidatedInput) -> AskCall {
        AskCall {
            call_id: None,
            caller: Caller::Parent,
            input,
            given: Vec::new(),
        }
    }

    /// The request id frontends see: the call id, or `ask-1` when the call has none.
    pub fn request_id(&self) -> String {
        self.call_id
            .clone()
            .unwrap_or_else(|| NO_CALL_ID.to_string())
    }
}

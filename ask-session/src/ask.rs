//! The one ask path: [`Ask::run`] and [`Ask::record`].

use std::path::PathBuf;
use std::sync::Arc;

use ask_core::{
    AskCall, AskRequest, AskState, Caller, Frontend, InvalidTransition, PresentError, Presenter,
    Record, Refusal, StateMachine, StateObserver, Status, now_ms,
};

use crate::Warn;
use crate::events::EventLog;
use crate::log::{Appended, CallLock, Kept, SessionLog, is_final};

/// One call on its way to a person and back: who asks, where it is recorded, who watches.
///
/// `S` is where the outcome comes from: an [`AskCall`] that a frontend presents
/// ([`Ask::run`]), or a [`Record`] whose outcome is already known ([`Ask::record`]: print
/// mode's pass 2, an MCP form's last round).
///
/// Every way of answering reaches a record through this type, so the sub-agent refusal,
/// replay, the `--events` lines and the record are the same in every form. A call is recorded
/// only once its outcome is final (answered or cancelled): a pending or interrupted
/// call leaves no record and is asked again.
pub struct Ask<S = AskCall> {
    source: S,
    caller: Caller,
    session: Option<SessionLog>,
    events: Option<PathBuf>,
    observers: Vec<Box<dyn StateObserver>>,
    warn: Warn,
}

impl<S> std::fmt::Debug for Ask<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ask")
            .field("caller", &self.caller)
            .field("session", &self.session)
            .field("events", &self.events)
            .finish_non_exhaustive()
    }
}

/// How a call ended, with the record to hand the model.
#[derive(Debug)]
pub struct Finished {
    /// The record: the answers as the model gets them (a secret answer is here, and only here).
    pub record: Record,
    /// True when the record was replayed from the session log without asking.
    pub replayed: bool,
    /// Whether the record reached the session log: `false` when the log could not be written
    /// (the answers are still returned, and the caller says that they were not saved).
    pub saved: bool,
    /// The call's lock, held until the caller has delivered the record.
    _lock: Option<CallLock>,
}

/// Why a call gave no record.
#[derive(Debug, thiserror::Error)]
pub enum AskFailure {
    /// The caller is a sub-agent; nothing was shown.
    #[error(transparent)]
    Refused(#[from] Refusal),
    /// The frontend gave no outcome.
    #[error("{error}")]
    Present {
        /// Where the person was to answer.
        presenter: Presenter,
        /// What happened.
        error: PresentError,
    },
    /// A session log was given for a call without a call id.
    #[error("a session log keys its records by call id, and the call has none")]
    NoCallId,
    /// The session log could not be read or locked.
    #[error("cannot {action} the session log `{}`: {error}", path.display())]
    Session {
        /// What was being done.
        action: &'static str,
        /// The log.
        path: PathBuf,
        /// Why it failed.
        error: std::io::Error,
    },
    /// The events file could not be opened.
    #[error("cannot open the events file `{}`: {error}", path.display())]
    Events {
        /// The file.
        path: PathBuf,
        /// Why it failed.
        error: std::io::Error,
    },
    /// A frontend drove the state machine wrongly.
    #[error(transparent)]
    State(#[from] InvalidTransition),
}

impl AskFailure {
    /// The explicit error a host hands its agent for this failure, when the agent must hear of
    /// it: a sub-agent's refusal, or questions interrupted (by a signal, or Ctrl+C twice) with
    /// nothing answered or saved.
    pub fn tool_output(&self) -> Option<ask_core::ToolOutput> {
        match self {
            AskFailure::Refused(_) => Some(ask_core::ToolOutput::refused()),
            AskFailure::Present {
                error: PresentError::Interrupted { signal },
                ..
            } => Some(ask_core::ToolOutput::interrupted(signal.map(|s| s.name))),
            _ => None,
        }
    }
}

impl Ask<AskCall> {
    /// The path of `call`, with no session log, no events file and warnings dropped.
    pub fn new(call: AskCall) -> Ask<AskCall> {
        let caller = call.caller;
        Ask::with_source(call, caller)
    }

    /// Asks the call through `frontend`: refuses a sub-agent before anything is shown, replays
    /// a call whose id has a record in the session log (unless it asks a secret question, whose
    /// answer is never kept), otherwise presents the questions while the state machine tells
    /// every observer, and records a final outcome once per call id. However it ends, the
    /// frontend's queued lines are written ([`Frontend::flush_queued_lines`]) before this
    /// returns.
    pub async fn run(self, frontend: &dyn Frontend) -> Result<Finished, AskFailure> {
        let asked = self.ask(frontend).await;
        frontend.flush_queued_lines().await;
        asked
    }

    async fn ask(mut self, frontend: &dyn Frontend) -> Result<Finished, AskFailure> {
        self.caller.check()?;
        let lock = match &self.session {
            Some(log) => {
                let call_id = self.source.call_id.as_deref().ok_or(AskFailure::NoCallId)?;
                let lock = lock_call(log, call_id)?;
                if let Some(record) = replayable(log, &self.source, &self.warn)? {
                    log.forget_call_lock(call_id);
                    return Ok(Finished {
                        record,
                        replayed: true,
                        saved: true,
                        _lock: Some(lock),
                    });
                }
                Some(lock)
            }
            None => None,
        };
        let mut machine = self.machine(self.source.call_id.clone())?;
        let call = self.source;
        machine.transition(AskState::WaitingForUser {
            questions: call.input.questions.clone(),
        })?;
        let request = AskRequest {
            request_id: call.request_id(),
            input: call.input,
            given: call.given,
        };
        let outcome = match frontend.present(&request).await {
            Ok(outcome) => outcome,
            Err(error) => {
                machine.transition(AskState::Failed)?;
                return Err(AskFailure::Present {
                    presenter: frontend.presenter(),
                    error,
                });
            }
        };
        let record = Record::new(
            request.input.into_inner(),
            frontend.presenter().record_mode(),
            outcome,
        )
        .with_call_id(call.call_id)
        .with_answered_at(now_ms());
        machine.transition(AskState::after(&record.outcome()))?;
        let keeping = Keeping {
            session: self.session.as_ref(),
            warn: &self.warn,
        };
        Ok(keeping.finished(record, lock))
    }
}

impl Ask<Record> {
    /// The path of a call whose outcome `record` already holds.
    pub fn known(record: Record, caller: Caller) -> Ask<Record> {
        Ask::with_source(record, caller)
    }

    /// Records the call whose outcome is known: the same refusal, state transitions, events and
    /// recording as [`Ask::run`], without presenting anything. A call id the log already has a
    /// record of keeps that record, which is returned.
    pub async fn record(mut self) -> Result<Finished, AskFailure> {
        self.caller.check()?;
        let lock = match (&self.session, self.source.call_id.as_deref()) {
            (Some(_), None) => return Err(AskFailure::NoCallId),
            (Some(log), Some(call_id)) => Some(lock_call(log, call_id)?),
            (None, _) => None,
        };
        let mut machine = self.machine(self.source.call_id.clone())?;
        let record = self.source;
        machine.transition(AskState::WaitingForUser {
            questions: record.questions.clone(),
        })?;
        machine.transition(AskState::after(&record.outcome()))?;
        let keeping = Keeping {
            session: self.session.as_ref(),
            warn: &self.warn,
        };
        Ok(keeping.finished(record, lock))
    }
}

impl<S> Ask<S> {
    fn with_source(source: S, caller: Caller) -> Ask<S> {
        Ask {
            source,
            caller,
            session: None,
            events: None,
            observers: Vec::new(),
            warn: Arc::new(|_: &str| {}),
        }
    }

    /// Records the call in `log` (keyed by its call id) and replays a recorded call from it.
    #[must_use]
    pub fn session(mut self, log: Option<SessionLog>) -> Ask<S> {
        self.session = log;
        self
    }

    /// Appends every state transition to the events file at `path`.
    #[must_use]
    pub fn events(mut self, path: Option<PathBuf>) -> Ask<S> {
        self.events = path;
        self
    }

    /// Adds an observer of the state machine.
    #[must_use]
    pub fn observe(mut self, observer: impl StateObserver + 'static) -> Ask<S> {
        self.observers.push(Box::new(observer));
        self
    }

    /// Where sentences for people go (a replay, a record that could not be written).
    #[must_use]
    pub fn warn(mut self, warn: Warn) -> Ask<S> {
        self.warn = warn;
        self
    }

    /// The state machine of this ask, with the events file and every observer watching it.
    fn machine(&mut self, call_id: Option<String>) -> Result<StateMachine, AskFailure> {
        let mut machine = StateMachine::new();
        if let Some(path) = &self.events {
            let log = EventLog::open(path, call_id, Arc::clone(&self.warn)).map_err(|error| {
                AskFailure::Events {
                    path: path.clone(),
                    error,
                }
            })?;
            machine.observe(log);
        }
        for observer in self.observers.drain(..) {
            machine.observe(BoxedObserver(observer));
        }
        Ok(machine)
    }
}

fn lock_call(log: &SessionLog, call_id: &str) -> Result<CallLock, AskFailure> {
    log.lock_call(call_id).map_err(|error| AskFailure::Session {
        action: "lock a call beside",
        path: log.path().to_path_buf(),
        error,
    })
}

/// Where an ask's record is kept, and where sentences about it go.
struct Keeping<'a> {
    session: Option<&'a SessionLog>,
    warn: &'a Warn,
}

impl Keeping<'_> {
    /// The end of an ask: `record` kept in the session log when there is one.
    fn finished(&self, record: Record, lock: Option<CallLock>) -> Finished {
        let (record, saved) = match self.session {
            Some(log) => keep(log, record, self.warn),
            None => (record, true),
        };
        Finished {
            record,
            replayed: false,
            saved,
            _lock: lock,
        }
    }
}

/// The record of `call` in `log` to replay instead of asking, if there is one.
fn replayable(log: &SessionLog, call: &AskCall, warn: &Warn) -> Result<Option<Record>, AskFailure> {
    let replay = Replay {
        call_id: call.call_id.as_deref().unwrap_or_default(),
        asks_secret: ask_core::any_secret(&call.input.questions),
        instead: "asking again",
    };
    replay_of(log, replay, &**warn).map_err(|error| AskFailure::Session {
        action: "read",
        path: log.path().to_path_buf(),
        error,
    })
}

/// A call whose record may be given again instead of an answer ([`replay_of`]).
#[derive(Debug, Clone, Copy)]
pub struct Replay<'a> {
    /// The call's id.
    pub call_id: &'a str,
    /// True when the call asks a secret question, whose answer is never kept.
    pub asks_secret: bool,
    /// What is done instead when there is no record to give again, as the warning says it
    /// (`"asking again"`).
    pub instead: &'a str,
}

/// The record of the call `replay.call_id` in `log` to give again instead of an answer, if
/// there is one; what happens is said through `warn`. A call that asks a secret question or
/// whose record holds a secret answer has none, since a secret answer is never kept: `warn`
/// then says so and what is done instead.
pub fn replay_of(
    log: &SessionLog,
    replay: Replay<'_>,
    warn: &dyn Fn(&str),
) -> std::io::Result<Option<Record>> {
    let Replay {
        call_id,
        asks_secret,
        instead,
    } = replay;
    let (found, warnings) = log.find(call_id)?;
    warnings.iter().for_each(|w| warn(w));
    let Some(record) = found else {
        return Ok(None);
    };
    let shown = log.path().display();
    if asks_secret || record.has_secret() {
        warn(&format!(
            "call {call_id} has a record in {shown}, but it asks a secret question whose answer \
             is never kept: {instead}"
        ));
        return Ok(None);
    }
    warn(&format!(
        "replaying the answer recorded for call {call_id} in {shown}"
    ));
    Ok(Some(record))
}

/// Writes a final `record` to `log` once per call id, and gives the record to return and
/// whether it was saved. When the log already holds a record of the call (another process
/// answered first), that one stands and is returned, unless the call asked a secret question:
/// then the fresh answer is returned and the log keeps its first record.
fn keep(log: &SessionLog, record: Record, warn: &Warn) -> (Record, bool) {
    let shown = log.path().display();
    let Some(call_id) = record.call_id.clone() else {
        return (record, true);
    };
    if !is_final(&record) {
        if record.status == Status::Pending {
            warn(&format!(
                "the call is recorded in the session log once it is answered: give the answering \
                 command --session {shown} too"
            ));
        }
        return (record, true);
    }
    let kept = Kept::of(&record);
    match log.append_once(&kept) {
        Ok(Appended::Written) => {
            log.forget_call_lock(&call_id);
            (record, true)
        }
        Ok(Appended::Existing(_)) if record.has_secret() => {
            log.forget_call_lock(&call_id);
            (record, true)
        }
        Ok(Appended::Existing(first)) => {
            log.forget_call_lock(&call_id);
            if *first != *kept.record() {
                warn(&format!(
                    "call {call_id} already has a record in {shown}; that answer stands and is \
                     the one returned"
                ));
            }
            (*first, true)
        }
        Err(error) => {
            warn(&format!(
                "the answer was not saved to the session log `{shown}`: {error}"
            ));
            (record, false)
        }
    }
}

/// An observer handed over as a box.
struct BoxedObserver(Box<dyn StateObserver>);

impl StateObserver for BoxedObserver {
    fn on_transition(&self, from: &AskState, to: &AskState) {
        self.0.on_transition(from, to);
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;
    use std::future::Future;
    use std::pin::pin;
    use std::sync::Mutex;
    use std::task::{Context, Poll, Waker};

    use ask_core::{
        Answer, AskUserInput, Limits, Mode, Outcome, Question, SUBAGENT_REFUSAL, ValidatedInput,
        validate,
    };

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

    /// The given answers of every request a scripted frontend was shown.
    type Shown = Arc<Mutex<Vec<Vec<Option<Answer>>>>>;

    struct Scripted {
        outcome: Outcome,
        shown: Shown,
    }

    #[async_trait::async_trait]
    impl Frontend for Scripted {
        fn presenter(&self) -> Presenter {
            Presenter::Rpc
        }
        async fn present(&self, request: &AskRequest) -> Result<Outcome, PresentError> {
            self.shown.lock().unwrap().push(request.given.clone());
            Ok(self.outcome.clone())
        }
    }

    fn scripted(outcome: Outcome) -> (Scripted, Shown) {
        let shown = Arc::new(Mutex::new(Vec::new()));
        let frontend = Scripted {
            outcome,
            shown: Arc::clone(&shown),
        };
        (frontend, shown)
    }

    fn input(secret: bool) -> ValidatedInput {
        let mut question = Question::choice("Which?", ["A", "B"]);
        question.secret = secret;
        let input = AskUserInput {
            questions: vec![question],
            metadata: None,
        };
        validate(input, &Limits::default()).unwrap()
    }

    fn call(id: &str, secret: bool) -> AskCall {
        let mut call = AskCall::new(input(secret));
        call.call_id = Some(id.to_string());
        call
    }

    fn states() -> (Arc<Mutex<Vec<String>>>, impl StateObserver + 'static) {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&seen);
        let observer = move |_: &AskState, to: &AskState| log.lock().unwrap().push(to.to_string());
        (seen, observer)
    }

    #[test]
    fn a_call_is_presented_with_its_given_answers_and_recorded_with_the_presenters_mode() {
        let (frontend, shown) = scripted(Outcome::Answered(vec![Answer::selected("Which?", "B")]));
        let (seen, observer) = states();
        let mut ask_call = call("toolu_9", false);
        ask_call.given = vec![Some(Answer::selected("Which?", "A"))];
        let finished = block_on(Ask::new(ask_call).observe(observer).run(&frontend)).unwrap();
        assert_eq!(finished.record.status, Status::Answered);
        assert_eq!(finished.record.call_id.as_deref(), Some("toolu_9"));
        assert_eq!(finished.record.mode, Mode::Rpc);
        assert!(!finished.replayed);
        assert_eq!(*seen.lock().unwrap(), ["waiting_for_user", "answered"]);
        assert_eq!(
            *shown.lock().unwrap(),
            [vec![Some(Answer::selected("Which?", "A"))]]
        );
    }

    #[test]
    fn a_sub_agent_is_refused_before_anything_is_shown_or_watched() {
        let (frontend, shown) = scripted(Outcome::Cancelled);
        let (seen, observer) = states();
        let mut ask_call = call("toolu_1", false);
        ask_call.caller = Caller::SubAgent;
        let error = block_on(Ask::new(ask_call).observe(observer).run(&frontend)).unwrap_err();
        assert_eq!(error.to_string(), SUBAGENT_REFUSAL);
        assert!(shown.lock().unwrap().is_empty());
        assert!(seen.lock().unwrap().is_empty());
    }

    #[test]
    fn a_recorded_call_is_replayed_without_asking_and_its_secret_twin_is_asked_again() {
        let dir = tempfile::tempdir().unwrap();
        let log = SessionLog::new(dir.path().join("session.jsonl"));
        let (frontend, shown) = scripted(Outcome::Answered(vec![Answer::selected("Which?", "B")]));
        let first = block_on(
            Ask::new(call("c1", false))
                .session(Some(log.clone()))
                .run(&frontend),
        )
        .unwrap();
        assert!(!first.replayed && first.saved);
        let again = block_on(
            Ask::new(call("c1", false))
                .session(Some(log.clone()))
                .run(&frontend),
        )
        .unwrap();
        assert!(again.replayed);
        assert_eq!(again.record, first.record);
        assert_eq!(shown.lock().unwrap().len(), 1, "the replay asked nothing");
        // A secret answer is never kept, so such a call is asked every time, and the log holds
        // the placeholder only.
        for _ in 0..2 {
            let finished = block_on(
                Ask::new(call("c2", true))
                    .session(Some(log.clone()))
                    .run(&frontend),
            )
            .unwrap();
            assert!(!finished.replayed);
            assert_eq!(finished.record.answers[0].answer.joined(), "B");
        }
        assert_eq!(shown.lock().unwrap().len(), 3);
        let kept = std::fs::read_to_string(log.path()).unwrap();
        assert_eq!(kept.lines().count(), 2, "{kept}");
        let secret = log.find("c2").unwrap().0.unwrap();
        assert_eq!(secret.answers[0].answer.joined(), "[secret]");
        assert_eq!(
            secret.answers[0].selected_option.as_deref(),
            Some("[secret]")
        );
    }

    #[test]
    fn a_known_record_passes_the_same_states_events_and_log() {
        let dir = tempfile::tempdir().unwrap();
        let log = SessionLog::new(dir.path().join("session.jsonl"));
        let events = dir.path().join("events.jsonl");
        let record = Record::new(
            input(false).into_inner(),
            Mode::Print,
            Outcome::Answered(vec![Answer::selected("Which?", "A")]),
        )
        .with_call_id(Some("c3".into()))
        .with_answered_at(7);
        let finished = block_on(
            Ask::known(record.clone(), Caller::Parent)
                .session(Some(log.clone()))
                .events(Some(events.clone()))
                .record(),
        )
        .unwrap();
        assert_eq!(finished.record, record);
        let lines: Vec<serde_json::Value> = std::fs::read_to_string(&events)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let states: Vec<&str> = lines.iter().map(|l| l["state"].as_str().unwrap()).collect();
        assert_eq!(states, ["waiting_for_user", "answered"]);
        assert_eq!(lines[0]["callId"], "c3");
        assert_eq!(log.find("c3").unwrap().0, Some(record));
    }

    #[test]
    fn a_session_without_a_call_id_is_refused_before_anything_is_shown() {
        let dir = tempfile::tempdir().unwrap();
        let log = SessionLog::new(dir.path().join("session.jsonl"));
        let (frontend, shown) = scripted(Outcome::Cancelled);
        let ask = Ask::new(AskCall::new(input(false))).session(Some(log));
        let error = block_on(ask.run(&frontend)).unwrap_err();
        assert!(matches!(error, AskFailure::NoCallId), "{error}");
        assert!(shown.lock().unwrap().is_empty());
    }
}

//! The one state machine of an ask, which every frontend drives and any observer can watch.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::input::Question;
use crate::result::Outcome;

/// Where an ask stands.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum AskState {
    /// Nothing asked yet.
    #[default]
    Idle,
    /// The questions are shown and the agent waits for the person.
    WaitingForUser {
        /// The questions being asked.
        questions: Vec<Question>,
    },
    /// The person answered.
    Answered,
    /// The person cancelled.
    Cancelled,
    /// The client presenting the questions went away.
    ConnectionLost,
    /// The questions were handed to a pending file; the answer comes in a later run.
    Pending,
    /// The frontend failed (for example, the terminal could not be used).
    Failed,
}

impl AskState {
    /// The snake_case name used on the wire: `idle`, `waiting_for_user`, `answered`,
    /// `cancelled`, `connection_lost`, `pending`, `failed`.
    pub fn name(&self) -> &'static str {
        match self {
            AskState::Idle => "idle",
            AskState::WaitingForUser { .. } => "waiting_for_user",
            AskState::Answered => "answered",
            AskState::Cancelled => "cancelled",
            AskState::ConnectionLost => "connection_lost",
            AskState::Pending => "pending",
            AskState::Failed => "failed",
        }
    }

    /// True for the states an ask ends in.
    pub fn is_final(&self) -> bool {
        !matches!(self, AskState::Idle | AskState::WaitingForUser { .. })
    }

    /// The final state an outcome leads to.
    pub fn after(outcome: &Outcome) -> AskState {
        match outcome {
            Outcome::Answered(_) => AskState::Answered,
            Outcome::Cancelled => AskState::Cancelled,
            Outcome::ConnectionLost => AskState::ConnectionLost,
            Outcome::Pending { .. } => AskState::Pending,
        }
    }
}

impl fmt::Display for AskState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The states a client of a protocol is told about: the four an ask passes through that a
/// person can see.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WireState {
    /// The agent waits for the person; the questions come with it.
    WaitingForUser,
    /// The person answered.
    Answered,
    /// The person cancelled.
    Cancelled,
    /// The connection went away before an answer.
    ConnectionLost,
}

impl WireState {
    /// The state an ask that ended with `outcome` is in: answered, cancelled, or (for a lost
    /// connection, or questions left pending elsewhere) gone from this client.
    pub fn of(outcome: &Outcome) -> WireState {
        match outcome {
            Outcome::Answered(_) => WireState::Answered,
            Outcome::Cancelled => WireState::Cancelled,
            Outcome::ConnectionLost | Outcome::Pending { .. } => WireState::ConnectionLost,
        }
    }
}

/// Watches the transitions of an ask.
///
/// Any `Fn(&AskState, &AskState) + Send + Sync` closure is an observer.
pub trait StateObserver: Send + Sync {
    /// Called after each transition, with the state left and the state entered.
    fn on_transition(&self, from: &AskState, to: &AskState);
}

impl<F> StateObserver for F
where
    F: Fn(&AskState, &AskState) + Send + Sync,
{
    fn on_transition(&self, from: &AskState, to: &AskState) {
        self(from, to);
    }
}

/// A transition the machine does not allow.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("an ask cannot go from `{from}` to `{to}`")]
pub struct InvalidTransition {
    /// The state the machine was in.
    pub from: &'static str,
    /// The state asked for.
    pub to: &'static str,
}

/// The state machine: idle → waiting for user → answered | cancelled | connection lost |
/// pending | failed.
#[derive(Default)]
pub struct StateMachine {
    state: AskState,
    observers: Vec<Box<dyn StateObserver>>,
}

impl fmt::Debug for StateMachine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StateMachine")
            .field("state", &self.state)
            .field("observers", &self.observers.len())
            .finish()
    }
}

impl StateMachine {
    /// A machine in the idle state.
    pub fn new() -> StateMachine {
        StateMachine::default()
    }

    /// Adds an observer, called on every later transition.
    pub fn observe(&mut self, observer: impl StateObserver + 'static) {
        self.observers.push(Box::new(observer));
    }

    /// The current state.
    pub fn state(&self) -> &AskState {
        &self.state
    }

    /// Moves to `to` and tells every observer, or refuses a transition the machine does not
    /// allow (leaving the state as it was).
    ///
    /// ```
    /// use ask_core::{AskState, StateMachine};
    /// let mut machine = StateMachine::new();
    /// machine.transition(AskState::WaitingForUser { questions: vec![] }).unwrap();
    /// machine.transition(AskState::Answered).unwrap();
    /// assert!(machine.transition(AskState::Cancelled).is_err());
    /// ```
    pub fn transition(&mut self, to: AskState) -> Result<(), InvalidTransition> {
        let allowed = match (&self.state, &to) {
            (AskState::Idle, AskState::WaitingForUser { .. }) => true,
            (AskState::Idle, AskState::Failed) => true,
            (AskState::WaitingForUser { .. }, next) => next.is_final(),
            _ => false,
        };
        if !allowed {
            return Err(InvalidTransition {
                from: self.state.name(),
                to: to.name(),
            });
        }
        let from = std::mem::replace(&mut self.state, to);
        for observer in &self.observers {
            observer.on_transition(&from, &self.state);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    #[test]
    fn observers_see_every_transition() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let mut machine = StateMachine::new();
        let log = Arc::clone(&seen);
        machine.observe(move |from: &AskState, to: &AskState| {
            log.lock().unwrap().push(format!("{from}->{to}"));
        });
        machine
            .transition(AskState::WaitingForUser {
                questions: vec![Question::text("Q?")],
            })
            .unwrap();
        machine.transition(AskState::Cancelled).unwrap();
        assert_eq!(
            *seen.lock().unwrap(),
            ["idle->waiting_for_user", "waiting_for_user->cancelled"]
        );
    }

    #[test]
    fn final_states_are_final() {
        for end in [
            AskState::Answered,
            AskState::Cancelled,
            AskState::ConnectionLost,
            AskState::Pending,
        ] {
            let mut machine = StateMachine::new();
            assert_eq!(
                machine.transition(end.clone()).unwrap_err().to_string(),
                format!("an ask cannot go from `idle` to `{end}`")
            );
            machine
                .transition(AskState::WaitingForUser { questions: vec![] })
                .unwrap();
            machine.transition(end.clone()).unwrap();
            assert!(
                machine
                    .transition(AskState::WaitingForUser { questions: vec![] })
                    .is_err()
            );
            assert_eq!(machine.state(), &end);
        }
    }
}

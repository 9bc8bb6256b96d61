//! Who is calling: the parent conversation may ask; a sub-agent may not.

use crate::result::SUBAGENT_REFUSAL;

/// The caller of `ask_user`, as the host states it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Caller {
    /// The conversation the person is part of.
    #[default]
    Parent,
    /// An autonomous sub-agent, which must not block on the person.
    SubAgent,
}

impl Caller {
    /// The caller a host names by saying whether it is a sub-agent.
    pub fn of(sub_agent: bool) -> Caller {
        if sub_agent {
            Caller::SubAgent
        } else {
            Caller::Parent
        }
    }

    /// Refuses a sub-agent; lets the parent through.
    ///
    /// ```
    /// use ask_core::Caller;
    /// assert!(Caller::Parent.check().is_ok());
    /// let refusal = Caller::SubAgent.check().unwrap_err();
    /// assert!(refusal.to_string().starts_with("ask_user is only available to the parent"));
    /// ```
    pub fn check(self) -> Result<(), Refusal> {
        match self {
            Caller::Parent => Ok(()),
            Caller::SubAgent => Err(Refusal),
        }
    }
}

/// The refusal of a sub-agent's call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{}", SUBAGENT_REFUSAL)]
pub struct Refusal;

//! Where `ask-user serve --store PATH` keeps its asks and their outcomes, so that a restarted
//! inbox shows the same waiting asks and its agents re-attach: the [`AskStore`] trait, which a
//! store on a database server can implement too, and [`SqliteStore`], its implementation in one
//! SQLite database on this machine.
//!
//! The inbox writes an ask before it shows it, and an answer before it tells the person that
//! the answer is safe. A secret answer is never written: an ask with a secret question keeps
//! only its other answers, and comes back after a restart waiting, with the secret empty.

use ask_core::{Answer, Question};
use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use crate::Asker;

mod sqlite;

pub use sqlite::{SCHEMA_VERSION, SqliteStore};

/// One ask as the store keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoredAsk {
    /// The request id the page answers with: derived from the agent and its call id when the
    /// call has one, so that the same call finds its ask again.
    pub id: String,
    /// The SHA-256 of the ask's capability, in hex: what the agent that holds the capability
    /// re-attaches with.
    pub capability: String,
    /// Who asks.
    #[serde(flatten)]
    pub asker: Asker,
    /// The questions, as checked when the ask arrived.
    pub questions: Vec<Question>,
    /// The answers given before the ask reached the inbox (never a secret one), one per
    /// question in order; empty when none were.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub given: Vec<Option<Answer>>,
    /// When the ask arrived, in milliseconds since the Unix epoch.
    pub since: u64,
    /// Where the ask stands.
    pub state: KeptState,
}

/// Where a kept ask stands.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "is", rename_all = "snake_case")]
pub enum KeptState {
    /// Waiting for the person.
    Waiting,
    /// The person answered; `delivered` once the agent confirmed it has the answers. The
    /// answers to secret questions are left out.
    Answered {
        /// The answers, without those of secret questions.
        answers: Vec<Answer>,
        /// True once the agent confirmed it has them.
        delivered: bool,
    },
    /// The person cancelled; `delivered` once the agent confirmed it knows.
    Cancelled {
        /// True once the agent confirmed it knows.
        delivered: bool,
    },
    /// The agent withdrew its ask.
    Withdrawn,
}

/// A store that could not be read or written.
#[derive(Debug, thiserror::Error)]
#[error("the store of the inbox at `{path}`: {fault}")]
pub struct StoreError {
    /// The store's place.
    pub path: String,
    /// What went wrong.
    pub fault: StoreFault,
}

/// What went wrong with a store.
#[derive(Debug, thiserror::Error)]
pub enum StoreFault {
    /// It, its folder or a file beside it could not be opened, or was refused: a symbolic
    /// link, a file that is not regular, another user's, or a folder others may write.
    #[error("cannot open it: {0}")]
    Open(#[source] std::io::Error),
    /// Another process holds its lock.
    #[error("another process has it open: one inbox per store")]
    Locked,
    /// Its lock could not be taken.
    #[error("cannot lock it: {0}")]
    Lock(#[source] rustix::io::Errno),
    /// It could not be read.
    #[error("cannot read it: {0}")]
    Read(#[source] std::io::Error),
    /// It is not a store of ask-user.
    #[error("it is not a store of ask-user: not a SQLite database that ask-user made")]
    NotAStore,
    /// An ask could not be written as JSON.
    #[error("{0}")]
    Json(#[source] serde_json::Error),
    /// Its thread could not be started.
    #[error("cannot start its thread: {0}")]
    Thread(#[source] std::io::Error),
    /// Its thread has ended.
    #[error("its thread has ended")]
    Ended,
    /// A change failed before it ended.
    #[error("the change failed before it ended")]
    Interrupted,
    /// It is a journal of an earlier build.
    #[error(
        "it is a journal of an earlier build of ask-user (its first line is `ask-user inbox \
         store 1`), a format this build no longer reads; move it away or delete it, and \
         `serve --store` creates the store anew in SQLite"
    )]
    JournalGone,
    /// A newer build wrote it.
    #[error(
        "its schema is version {file}, newer than version {build}, the newest this build of \
         ask-user knows: run a build at least as new as the one that wrote it"
    )]
    NewerSchema {
        /// The schema version of the file.
        file: usize,
        /// The newest schema version this build knows.
        build: usize,
    },
    /// SQLite would not keep it in write-ahead-log mode (a file system without the shared
    /// memory WAL needs, as many network file systems are).
    #[error("SQLite keeps it in `{mode}` mode, not `wal`: put the store on a local file system")]
    NotWal {
        /// The journal mode SQLite kept.
        mode: String,
    },
    /// SQLite failed.
    #[error("{0}")]
    Sqlite(#[source] rusqlite::Error),
    /// An ask could not be read back.
    #[error("the ask `{id}` cannot be read: {problem}")]
    Damaged {
        /// The ask's id.
        id: String,
        /// What is wrong with it.
        problem: String,
    },
}

/// What a store gives an inbox that starts.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Kept {
    /// The asks that may still need the inbox, in the order they arrived: waiting, or ended
    /// with an outcome their agent has not confirmed.
    pub open: Vec<StoredAsk>,
    /// The highest number an `ask-N` id ever took in the store, so that new asks are numbered
    /// after it even once the asks that had them are deleted.
    pub taken: u64,
}

/// Where an inbox keeps its asks. Each method is one atomic, durable change: once it returns,
/// the change survives the process being killed.
#[async_trait]
pub trait AskStore: Send + Sync + std::fmt::Debug {
    /// What an inbox takes back when it starts: the asks that may still need it, and the ids
    /// of those that ended for good.
    async fn load(&self) -> Result<Kept, StoreError>;

    /// The ask `id`, if it is kept.
    async fn get(&self, id: &str) -> Result<Option<StoredAsk>, StoreError>;

    /// Keeps `ask`, in place of any ask with its id.
    async fn put(&self, ask: &StoredAsk) -> Result<(), StoreError>;

    /// Sets the capability of the ask `id` to `capability` (the digest held by the agent that
    /// attached again), leaving the rest as it is, in one change: an outcome written meanwhile
    /// stays. False when the ask is not kept.
    async fn set_capability(&self, id: &str, capability: &str) -> Result<bool, StoreError>;

    /// Sets the state of the ask `id` to `state`, its outcome as its agent confirmed it,
    /// leaving the rest as it is, in one change. False when the ask is not kept.
    async fn mark_delivered(&self, id: &str, state: KeptState) -> Result<bool, StoreError>;

    /// The first outcome wins: sets the state of the ask `id` to `state` only while it is
    /// [`KeptState::Waiting`]. True when it was (and now is `state`); false when it had
    /// already ended or is not kept.
    async fn record_first_outcome(&self, id: &str, state: KeptState) -> Result<bool, StoreError>;

    /// Deletes the asks that ended for good (their outcome delivered, or withdrawn) before
    /// `before`, in milliseconds since the Unix epoch; how many it deleted.
    async fn forget_ended(&self, before: u64) -> Result<u64, StoreError>;
}

impl KeptState {
    /// True once nothing is left to do for the ask: its outcome was delivered, or its agent
    /// withdrew it.
    pub fn ended_for_good(&self) -> bool {
        matches!(
            self,
            KeptState::Answered {
                delivered: true,
                ..
            } | KeptState::Cancelled { delivered: true }
                | KeptState::Withdrawn
        )
    }

    /// The same end, confirmed by the agent.
    pub fn delivered(self) -> KeptState {
        match self {
            KeptState::Answered { answers, .. } => KeptState::Answered {
                answers,
                delivered: true,
            },
            KeptState::Cancelled { .. } => KeptState::Cancelled { delivered: true },
            other => other,
        }
    }
}

/// How an ask that ended in `outcome` is kept, not yet delivered: the answers of secret
/// questions are left out.
pub(crate) fn kept_state(questions: &[Question], outcome: &ask_core::Outcome) -> KeptState {
    match outcome {
        ask_core::Outcome::Answered(answers) => KeptState::Answered {
            answers: without_secrets(questions, answers),
            delivered: false,
        },
        ask_core::Outcome::Cancelled => KeptState::Cancelled { delivered: false },
        _ => KeptState::Withdrawn,
    }
}

/// The answers given before an ask arrived, one per question, with those of secret questions
/// left out (`None`), as every store keeps them.
pub(crate) fn given_without_secrets(
    questions: &[Question],
    given: &[Option<Answer>],
) -> Vec<Option<Answer>> {
    given
        .iter()
        .zip(questions)
        .map(|(answer, question)| answer.clone().filter(|_| !question.secret))
        .collect()
}

/// `answers` with those of secret questions left out, as every store keeps them.
pub(crate) fn without_secrets(questions: &[Question], answers: &[Answer]) -> Vec<Answer> {
    answers
        .iter()
        .filter(|answer| {
            !questions
                .iter()
                .any(|question| question.secret && question.question == answer.question)
        })
        .cloned()
        .collect()
}

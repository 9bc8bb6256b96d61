//! Where `ask-user serve --store PATH` keeps its asks and their outcomes, so that a restarted
//! inbox shows the same waiting asks and its agents re-attach: the [`AskStore`] trait, and
//! [`FileStore`], its implementation in one file on this machine.
//!
//! The inbox writes an ask before it shows it, and an answer before it tells the person that
//! the answer is safe. A secret answer is never written: an ask with a secret question keeps
//! only its other answers, and comes back after a restart waiting, with the secret empty.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use ask_core::{Answer, Question};
use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use crate::Asker;

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
#[error("the store of the inbox at `{path}`: {message}")]
pub struct StoreError {
    /// The store's place.
    pub path: String,
    /// What went wrong.
    pub message: String,
}

/// Where an inbox keeps its asks. Each method is one atomic, durable change: once it returns,
/// the change survives the process being killed.
#[async_trait]
pub trait AskStore: Send + Sync + std::fmt::Debug {
    /// Every ask kept, in the order they arrived.
    async fn load(&self) -> Result<Vec<StoredAsk>, StoreError>;

    /// The ask `id`, if it is kept.
    async fn get(&self, id: &str) -> Result<Option<StoredAsk>, StoreError>;

    /// Keeps `ask`, in place of any ask with its id.
    async fn put(&self, ask: &StoredAsk) -> Result<(), StoreError>;

    /// Sets the capability of the ask `id` to `capability` (the digest held by the agent that
    /// attached again), leaving the rest as it is, in one change: an outcome written meanwhile
    /// stays. False when the ask is not kept.
    async fn set_capability(&self, id: &str, capability: &str) -> Result<bool, StoreError>;

    /// The first outcome wins: sets the state of the ask `id` to `state` only while it is
    /// [`KeptState::Waiting`]. True when it was (and now is `state`); false when it had
    /// already ended or is not kept.
    async fn settle(&self, id: &str, state: KeptState) -> Result<bool, StoreError>;
}

impl KeptState {
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
pub fn given_without_secrets(
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
pub fn without_secrets(questions: &[Question], answers: &[Answer]) -> Vec<Answer> {
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

/// The table of asks: the request id, then the ask as JSON.
const ASKS: redb::TableDefinition<'_, &str, &[u8]> = redb::TableDefinition::new("asks");

/// The order the asks arrived in: a sequence number, then the request id.
const ORDER: redb::TableDefinition<'_, u64, &str> = redb::TableDefinition::new("order");

/// An [`AskStore`] in one file, readable by this user only, which one process at a time may
/// open. Every change is a transaction written through to the disk before it returns.
#[derive(Clone)]
pub struct FileStore {
    db: Arc<redb::Database>,
    path: PathBuf,
}

impl std::fmt::Debug for FileStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileStore")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl FileStore {
    /// Opens the store at `path`, creating it (and its folder) when it does not exist.
    pub fn open(path: &Path) -> Result<FileStore, StoreError> {
        let failed = |message: String| StoreError {
            path: path.display().to_string(),
            message,
        };
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)
                .map_err(|error| failed(format!("cannot create its folder: {error}")))?;
        }
        // The answers are the person's: the file is this user's alone from its first byte.
        {
            use std::os::unix::fs::OpenOptionsExt;
            std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .mode(0o600)
                .open(path)
                .map_err(|error| failed(format!("cannot open it: {error}")))?;
        }
        let db = redb::Database::create(path).map_err(|error| {
            failed(match error {
                redb::DatabaseError::DatabaseAlreadyOpen => {
                    "another process has it open: one inbox per store".to_string()
                }
                error => format!("cannot read it as a store: {error}"),
            })
        })?;
        let store = FileStore {
            db: Arc::new(db),
            path: path.to_path_buf(),
        };
        // Both tables exist from the start, so that reading never meets a missing one.
        store.write(|txn| {
            txn.open_table(ASKS)?;
            txn.open_table(ORDER)?;
            Ok(())
        })?;
        Ok(store)
    }

    fn failed(&self, error: impl std::fmt::Display) -> StoreError {
        StoreError {
            path: self.path.display().to_string(),
            message: error.to_string(),
        }
    }

    /// Runs `change` in one write transaction and commits it to the disk.
    fn write<T>(
        &self,
        change: impl FnOnce(&redb::WriteTransaction) -> Result<T, redb::Error>,
    ) -> Result<T, StoreError> {
        let txn = self.db.begin_write().map_err(|e| self.failed(e))?;
        let value = change(&txn).map_err(|e| self.failed(e))?;
        txn.commit().map_err(|e| self.failed(e))?;
        Ok(value)
    }

    fn read_ask(
        table: &impl redb::ReadableTable<&'static str, &'static [u8]>,
        id: &str,
    ) -> Result<Option<StoredAsk>, redb::Error> {
        let Some(bytes) = table.get(id)? else {
            return Ok(None);
        };
        serde_json::from_slice(bytes.value())
            .map(Some)
            .map_err(|error| redb::Error::Corrupted(format!("the ask `{id}`: {error}")))
    }

    fn load_now(&self) -> Result<Vec<StoredAsk>, StoreError> {
        use redb::{ReadableDatabase, ReadableTable};
        let read = || -> Result<Vec<StoredAsk>, redb::Error> {
            let txn = self.db.begin_read()?;
            let asks = txn.open_table(ASKS)?;
            let order = txn.open_table(ORDER)?;
            let mut kept = Vec::new();
            for entry in order.iter()? {
                let (_, id) = entry?;
                if let Some(ask) = Self::read_ask(&asks, id.value())? {
                    kept.push(ask);
                }
            }
            Ok(kept)
        };
        read().map_err(|e| self.failed(e))
    }

    fn get_now(&self, id: &str) -> Result<Option<StoredAsk>, StoreError> {
        use redb::ReadableDatabase;
        let read = || -> Result<Option<StoredAsk>, redb::Error> {
            let txn = self.db.begin_read()?;
            let asks = txn.open_table(ASKS)?;
            Self::read_ask(&asks, id)
        };
        read().map_err(|e| self.failed(e))
    }

    fn put_now(&self, ask: &StoredAsk) -> Result<(), StoreError> {
        use redb::ReadableTable;
        let bytes = serde_json::to_vec(ask).map_err(|e| self.failed(e))?;
        self.write(|txn| {
            let mut asks = txn.open_table(ASKS)?;
            let new = asks.insert(ask.id.as_str(), bytes.as_slice())?.is_none();
            if new {
                let mut order = txn.open_table(ORDER)?;
                let next = order.last()?.map_or(0, |(at, _)| at.value() + 1);
                order.insert(next, ask.id.as_str())?;
            }
            Ok(())
        })
    }

    fn settle_now(&self, id: &str, state: KeptState) -> Result<bool, StoreError> {
        self.write(|txn| {
            let mut asks = txn.open_table(ASKS)?;
            let Some(mut ask) = Self::read_ask(&asks, id)? else {
                return Ok(false);
            };
            if ask.state != KeptState::Waiting {
                return Ok(false);
            }
            ask.state = state;
            let bytes = serde_json::to_vec(&ask)
                .map_err(|error| redb::Error::Corrupted(error.to_string()))?;
            asks.insert(id, bytes.as_slice())?;
            Ok(true)
        })
    }

    fn set_capability_now(&self, id: &str, capability: &str) -> Result<bool, StoreError> {
        self.write(|txn| {
            let mut asks = txn.open_table(ASKS)?;
            let Some(mut ask) = Self::read_ask(&asks, id)? else {
                return Ok(false);
            };
            ask.capability = capability.to_string();
            let bytes = serde_json::to_vec(&ask)
                .map_err(|error| redb::Error::Corrupted(error.to_string()))?;
            asks.insert(id, bytes.as_slice())?;
            Ok(true)
        })
    }

    /// Runs `work` on a thread of the blocking pool: a write waits for the disk.
    async fn off_thread<T: Send + 'static>(
        &self,
        work: impl FnOnce(FileStore) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, StoreError> {
        let store = self.clone();
        tokio::task::spawn_blocking(move || work(store))
            .await
            .map_err(|error| self.failed(error))?
    }
}

#[async_trait]
impl AskStore for FileStore {
    async fn load(&self) -> Result<Vec<StoredAsk>, StoreError> {
        self.off_thread(|store| store.load_now()).await
    }

    async fn get(&self, id: &str) -> Result<Option<StoredAsk>, StoreError> {
        let id = id.to_string();
        self.off_thread(move |store| store.get_now(&id)).await
    }

    async fn put(&self, ask: &StoredAsk) -> Result<(), StoreError> {
        let ask = ask.clone();
        self.off_thread(move |store| store.put_now(&ask)).await
    }

    async fn set_capability(&self, id: &str, capability: &str) -> Result<bool, StoreError> {
        let (id, capability) = (id.to_string(), capability.to_string());
        self.off_thread(move |store| store.set_capability_now(&id, &capability))
            .await
    }

    async fn settle(&self, id: &str, state: KeptState) -> Result<bool, StoreError> {
        let id = id.to_string();
        self.off_thread(move |store| store.settle_now(&id, state))
            .await
    }
}

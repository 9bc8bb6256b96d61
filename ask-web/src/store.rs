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
    /// Its folder could not be made.
    #[error("cannot create its folder: {0}")]
    CreateFolder(#[source] std::io::Error),
    /// It could not be opened.
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
    /// It could not be written.
    #[error("cannot write it: {0}")]
    Write(#[source] std::io::Error),
    /// Its first line is not the store's.
    #[error(
        "it is not a store of ask-user: its first line is not `{}`",
        String::from_utf8_lossy(&HEADER[..HEADER.len() - 1])
    )]
    NotAStore,
    /// A line before its last is damaged.
    #[error("cannot read it as a store: line {line} is damaged")]
    Damaged {
        /// The line's number, from 1.
        line: usize,
    },
    /// A line read again is not what was written.
    #[error("cannot read it: a line changed under it")]
    Changed,
    /// A write failed earlier and its part could not be taken back.
    #[error("an earlier write failed and could not be taken back")]
    Broken,
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
    /// It is a symbolic link.
    #[error(
        "it is a symbolic link, which the store never follows: give the path of the file itself"
    )]
    Symlink,
    /// It is not a regular file.
    #[error("it is not a regular file")]
    NotAFile,
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
    /// SQLite failed.
    #[error("{0}")]
    Sqlite(#[source] rusqlite::Error),
    /// An ask could not be read back.
    #[error("the ask `{id}` cannot be read: {problem}")]
    DamagedAsk {
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

/// The first line of every store file: what the file is, and the version of its format.
const HEADER: &[u8] = b"ask-user inbox store 1\n";

/// A journal is written anew, with one line per ask, once it is over this size and the lines
/// that later lines replaced make up more than half of it.
const COMPACT_OVER: u64 = 1 << 20;

/// An [`AskStore`] in one file, readable by this user only, which one process at a time may
/// open (an exclusive `flock`).
///
/// The file is a journal: after the line `ask-user inbox store 1`, one line per change,
/// `DIGEST JSON`, where JSON is the whole ask after the change and DIGEST the first 16 hex
/// digits of its SHA-256. The last line of an ask holds its state; the asks come back in the order of their first
/// lines. Each line is written through to the disk (`fdatasync`) before the change returns, and
/// before the next line is written, so a crash can cut only the last line, which was never
/// acknowledged: opening the store drops it. A damaged line anywhere else means the file is not
/// what this program wrote, and opening it fails rather than guess. Once lines that later lines
/// replaced make up more than half of a file over 1 MiB, the file is written anew, one line per
/// ask, into a new file renamed over the old one.
///
/// Only the asks that may still need the inbox are held in memory; of an ask that ended for
/// good the store holds where its last line is, and reads that line when asked for it, so a
/// long-running inbox's memory does not grow with every ask it ever had.
#[derive(Clone)]
pub struct FileStore {
    journal: Arc<std::sync::Mutex<Journal>>,
    /// The store's own thread, which runs every read and change.
    worker: Arc<std::sync::mpsc::Sender<Job>>,
    path: PathBuf,
}

/// A read or change of the store, run on its thread.
type Job = Box<dyn FnOnce() + Send>;

/// The open journal and what it holds.
struct Journal {
    file: std::fs::File,
    /// The asks in the order they arrived.
    asks: Vec<Slot>,
    /// Where each ask is in `asks`, by id.
    index: std::collections::HashMap<Box<str>, usize>,
    /// The length of the file.
    len: u64,
    /// The length the file would have written anew: the header and the last line of each ask.
    live: u64,
    /// Set when a failed write could not be taken back: no more writes.
    broken: bool,
}

/// One ask of the journal: where its last line is, and the ask itself while it may still need
/// the inbox.
struct Slot {
    at: u64,
    len: u64,
    open: Option<Box<StoredAsk>>,
}

impl std::fmt::Debug for FileStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileStore")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

/// The first 16 hex digits of the SHA-256 of `json`.
fn digest_hex(json: &[u8]) -> [u8; 16] {
    use sha2::Digest;
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let digest = sha2::Sha256::digest(json);
    let mut hex = [0; 16];
    for (at, byte) in digest[..8].iter().enumerate() {
        hex[2 * at] = HEX[usize::from(byte >> 4)];
        hex[2 * at + 1] = HEX[usize::from(byte & 15)];
    }
    hex
}

/// One line of the journal for `ask`.
fn journal_line(ask: &StoredAsk) -> Result<Vec<u8>, StoreFault> {
    let json = serde_json::to_vec(ask).map_err(StoreFault::Json)?;
    let mut line = Vec::with_capacity(json.len() + 18);
    line.extend_from_slice(&digest_hex(&json));
    line.push(b' ');
    line.extend_from_slice(&json);
    line.push(b'\n');
    Ok(line)
}

/// The ask on one line of the journal (without its newline), or `None` when the line is
/// damaged.
fn read_line(line: &[u8]) -> Option<StoredAsk> {
    let (digest, json) = (line.get(..16)?, line.get(17..)?);
    if line[16] != b' ' || digest != digest_hex(json) {
        return None;
    }
    serde_json::from_slice(json).ok()
}

/// Takes the only lock on `file`, or says that another process holds it.
fn lock(file: &std::fs::File) -> Result<(), StoreFault> {
    use rustix::fs::{FlockOperation, flock};
    flock(file, FlockOperation::NonBlockingLockExclusive).map_err(|error| {
        if error == rustix::io::Errno::WOULDBLOCK {
            StoreFault::Locked
        } else {
            StoreFault::Lock(error)
        }
    })
}

/// Makes the entries of `path`'s folder durable: a file created or renamed there survives a
/// crash of the machine.
fn sync_folder(path: &Path) -> std::io::Result<()> {
    let folder = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::File::open(folder)?.sync_all()
}

/// Where the journal at `path` is written anew before it is renamed over `path`.
fn new_journal_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".new");
    path.with_file_name(name)
}

/// Opens (or creates) `path` for this user alone.
fn open_private(path: &Path, truncate: bool) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(truncate)
        .mode(0o600)
        .open(path)
}

impl FileStore {
    /// Opens the store at `path`, creating it (and its folder) when it does not exist.
    pub fn open(path: &Path) -> Result<FileStore, StoreError> {
        use std::io::{BufRead, Read};
        use std::os::unix::fs::FileExt;
        let failed = |fault: StoreFault| StoreError {
            path: path.display().to_string(),
            fault,
        };
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)
                .map_err(|error| failed(StoreFault::CreateFolder(error)))?;
        }
        // The answers are the person's: the file is this user's alone from its first byte.
        let file = open_private(path, false).map_err(|error| failed(StoreFault::Open(error)))?;
        lock(&file).map_err(failed)?;
        // What a crash left of writing the journal anew: the journal itself is whole.
        let _ = std::fs::remove_file(new_journal_path(path));
        let header_read = {
            let mut header = Vec::with_capacity(HEADER.len());
            (&file)
                .take(HEADER.len() as u64)
                .read_to_end(&mut header)
                .map(|_| header)
        };
        let header = header_read.map_err(|error| failed(StoreFault::Read(error)))?;
        let mut journal = Journal {
            file,
            asks: Vec::new(),
            index: std::collections::HashMap::new(),
            len: 0,
            live: HEADER.len() as u64,
            broken: false,
        };
        if header.len() < HEADER.len() && HEADER.starts_with(&header) {
            // New, or its creation was cut short: it holds nothing yet.
            let created = journal
                .file
                .set_len(0)
                .and_then(|()| journal.file.write_all_at(HEADER, 0))
                .and_then(|()| journal.file.sync_all())
                .and_then(|()| sync_folder(path));
            created.map_err(|error| failed(StoreFault::Write(error)))?;
            journal.len = HEADER.len() as u64;
        } else {
            if header != HEADER {
                return Err(failed(StoreFault::NotAStore));
            }
            // Read a line at a time: a large journal is never held whole.
            let cannot_read = |error: std::io::Error| failed(StoreFault::Read(error));
            let reading = journal.file.try_clone().map_err(cannot_read)?;
            let mut lines = std::io::BufReader::with_capacity(1 << 16, reading);
            let mut at = HEADER.len() as u64;
            let mut line = Vec::new();
            let mut number = 1;
            loop {
                line.clear();
                let read = lines.read_until(b'\n', &mut line).map_err(cannot_read)?;
                if read == 0 {
                    break;
                }
                number += 1;
                let whole = line.last() == Some(&b'\n');
                match read_line(&line[..line.len() - usize::from(whole)]).filter(|_| whole) {
                    Some(ask) => journal.keep(ask, (at, read as u64)),
                    // The last line, cut short by a crash before it was acknowledged.
                    None if !whole || lines.fill_buf().map_err(cannot_read)?.is_empty() => break,
                    None => {
                        return Err(failed(StoreFault::Damaged { line: number }));
                    }
                }
                at += read as u64;
            }
            drop(lines);
            let file_len = journal
                .file
                .metadata()
                .map_err(|error| failed(StoreFault::Read(error)))?
                .len();
            if at < file_len {
                let dropped = journal
                    .file
                    .set_len(at)
                    .and_then(|()| journal.file.sync_all());
                dropped.map_err(|error| failed(StoreFault::Write(error)))?;
            }
            journal.len = at;
        }
        // The thread ends when the last handle on the store is gone: with it, the last sender.
        let (worker, jobs) = std::sync::mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name("ask-user-store".to_string())
            .spawn(move || {
                for job in jobs {
                    // A job that panics ends as an error of its change, not as the thread.
                    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
                }
            })
            .map_err(|error| failed(StoreFault::Thread(error)))?;
        Ok(FileStore {
            journal: Arc::new(std::sync::Mutex::new(journal)),
            worker: Arc::new(worker),
            path: path.to_path_buf(),
        })
    }

    /// Blocks until every change asked for before this call has ended, written or failed. A
    /// process that stops calls it last, once nothing asks for changes any more, so that its
    /// exit cuts no change short.
    pub fn finish_writes(&self) {
        let (done, finished) = std::sync::mpsc::channel();
        let sent = self.worker.send(Box::new(move || {
            let _ = done.send(());
        }));
        if sent.is_ok() {
            let _ = finished.recv();
        }
    }

    fn failed(&self, fault: StoreFault) -> StoreError {
        StoreError {
            path: self.path.display().to_string(),
            fault,
        }
    }

    fn journal(&self) -> std::sync::MutexGuard<'_, Journal> {
        self.journal
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn load_now(&self) -> Kept {
        let journal = self.journal();
        let mut kept = Kept::default();
        let mut ids: Vec<(usize, &str)> =
            journal.index.iter().map(|(id, &at)| (at, &**id)).collect();
        ids.sort_unstable();
        for (at, id) in ids {
            if let Some(ask) = &journal.asks[at].open {
                kept.open.push(StoredAsk::clone(ask));
            }
            let number = id.strip_prefix("ask-").and_then(|n| n.parse().ok());
            kept.taken = kept.taken.max(number.unwrap_or(0));
        }
        kept
    }

    fn get_now(&self, id: &str) -> Result<Option<StoredAsk>, StoreError> {
        let journal = self.journal();
        let Some(&at) = journal.index.get(id) else {
            return Ok(None);
        };
        journal.current(at).map(Some).map_err(|e| self.failed(e))
    }

    /// Writes the ask `id` as `change` leaves it, when `change` returns true.
    fn change_now(
        &self,
        id: &str,
        change: impl FnOnce(&mut StoredAsk) -> bool,
    ) -> Result<bool, StoreError> {
        let mut journal = self.journal();
        let Some(&at) = journal.index.get(id) else {
            return Ok(false);
        };
        let mut ask = journal.current(at).map_err(|e| self.failed(e))?;
        if !change(&mut ask) {
            return Ok(false);
        }
        journal
            .append(ask, &self.path)
            .map_err(|e| self.failed(e))?;
        Ok(true)
    }

    /// Runs `work` on the store's thread: a write waits for the disk. One at a time, in the
    /// order they came: the others wait in the thread's queue, without a thread each, and the
    /// store's memory stays with one thread's allocator. The work runs to its end even when the
    /// caller gave up meanwhile.
    async fn off_thread<T: Send + 'static>(
        &self,
        work: impl FnOnce(FileStore) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, StoreError> {
        let (done, result) = tokio::sync::oneshot::channel();
        let store = self.clone();
        self.worker
            .send(Box::new(move || {
                let _ = done.send(work(store));
            }))
            .map_err(|_| self.failed(StoreFault::Ended))?;
        result
            .await
            .map_err(|_| self.failed(StoreFault::Interrupted))?
    }
}

impl Journal {
    /// Holds `ask`, whose last line is the `len` bytes at `at` (`(at, len)`), in place of its last state;
    /// in memory only while it may still need the inbox.
    fn keep(&mut self, ask: StoredAsk, (at, len): (u64, u64)) {
        let known = self.index.get(ask.id.as_str()).copied();
        if known.is_none() {
            self.index.insert(ask.id.as_str().into(), self.asks.len());
        }
        let open = (!ask.state.ended_for_good()).then(|| Box::new(ask));
        let slot = Slot { at, len, open };
        match known {
            Some(known) => {
                self.live = self.live - self.asks[known].len + len;
                self.asks[known] = slot;
            }
            None => {
                self.asks.push(slot);
                self.live += len;
            }
        }
    }

    /// The ask at `slot` as its last line left it.
    fn current(&self, slot: usize) -> Result<StoredAsk, StoreFault> {
        use std::os::unix::fs::FileExt;
        let Slot { at, len, open } = &self.asks[slot];
        if let Some(ask) = open {
            return Ok(StoredAsk::clone(ask));
        }
        let mut line = vec![0; *len as usize];
        self.file
            .read_exact_at(&mut line, *at)
            .map_err(StoreFault::Read)?;
        line.pop();
        read_line(&line).ok_or(StoreFault::Changed)
    }

    /// Writes `ask` as the journal's next line, through to the disk, then holds it.
    fn append(&mut self, ask: StoredAsk, path: &Path) -> Result<(), StoreFault> {
        use std::io::{Seek, SeekFrom, Write};
        if self.broken {
            return Err(StoreFault::Broken);
        }
        let line = journal_line(&ask)?;
        let written = self
            .file
            .seek(SeekFrom::Start(self.len))
            .and_then(|_| self.file.write_all(&line))
            .and_then(|()| self.file.sync_data());
        if let Err(error) = written {
            // A part of the line may be in the file: take it back, so that the next line does
            // not follow a damaged one.
            let undone = self
                .file
                .set_len(self.len)
                .and_then(|()| self.file.sync_data());
            self.broken = undone.is_err();
            return Err(StoreFault::Write(error));
        }
        self.keep(ask, (self.len, line.len() as u64));
        self.len += line.len() as u64;
        if self.len > COMPACT_OVER && self.len > 2 * self.live {
            // A failure leaves the journal as it was, longer than it needs to be.
            let _ = self.compact(path);
        }
        Ok(())
    }

    /// Writes the journal anew with one line per ask, each copied from its last line: into a
    /// new file, locked before it is renamed over the old one, so that no other process can
    /// open the store meanwhile.
    fn compact(&mut self, path: &Path) -> std::io::Result<()> {
        use std::io::Write;
        use std::os::unix::fs::FileExt;
        let new_path = new_journal_path(path);
        let file = open_private(&new_path, true)?;
        lock(&file).map_err(std::io::Error::other)?;
        let mut moved = Vec::with_capacity(self.asks.len());
        let written = (|| {
            let mut out = std::io::BufWriter::with_capacity(1 << 16, &file);
            out.write_all(HEADER)?;
            let mut at = HEADER.len() as u64;
            let mut line = Vec::new();
            for slot in &self.asks {
                line.resize(slot.len as usize, 0);
                self.file.read_exact_at(&mut line, slot.at)?;
                out.write_all(&line)?;
                moved.push(at);
                at += slot.len;
            }
            out.flush()?;
            drop(out);
            file.sync_all()?;
            std::fs::rename(&new_path, path)?;
            sync_folder(path)?;
            Ok(at)
        })();
        let len = match written {
            Ok(len) => len,
            Err(error) => {
                let _ = std::fs::remove_file(&new_path);
                return Err(error);
            }
        };
        for (slot, at) in self.asks.iter_mut().zip(moved) {
            slot.at = at;
        }
        self.file = file;
        self.len = len;
        Ok(())
    }
}

#[async_trait]
impl AskStore for FileStore {
    // Off the runtime's threads too: a write holds the journal while it waits for the disk.
    async fn load(&self) -> Result<Kept, StoreError> {
        self.off_thread(|store| Ok(store.load_now())).await
    }

    async fn get(&self, id: &str) -> Result<Option<StoredAsk>, StoreError> {
        let id = id.to_string();
        self.off_thread(move |store| store.get_now(&id)).await
    }

    async fn put(&self, ask: &StoredAsk) -> Result<(), StoreError> {
        let ask = ask.clone();
        self.off_thread(move |store| {
            let mut journal = store.journal();
            journal
                .append(ask, &store.path)
                .map_err(|e| store.failed(e))
        })
        .await
    }

    async fn set_capability(&self, id: &str, capability: &str) -> Result<bool, StoreError> {
        let (id, capability) = (id.to_string(), capability.to_string());
        self.off_thread(move |store| {
            store.change_now(&id, |ask| {
                ask.capability = capability;
                true
            })
        })
        .await
    }

    async fn mark_delivered(&self, id: &str, state: KeptState) -> Result<bool, StoreError> {
        let id = id.to_string();
        self.off_thread(move |store| {
            store.change_now(&id, |ask| {
                ask.state = state;
                true
            })
        })
        .await
    }

    async fn record_first_outcome(&self, id: &str, state: KeptState) -> Result<bool, StoreError> {
        let id = id.to_string();
        self.off_thread(move |store| {
            store.change_now(&id, |ask| {
                let waiting = ask.state == KeptState::Waiting;
                if waiting {
                    ask.state = state;
                }
                waiting
            })
        })
        .await
    }

    async fn forget_ended(&self, _before: u64) -> Result<u64, StoreError> {
        Ok(0)
    }
}

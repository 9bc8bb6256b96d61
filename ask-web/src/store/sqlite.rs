//! [`SqliteStore`]: the asks of `ask-user serve --store PATH` in one SQLite database, which the
//! `sqlite3` shell can read, back up and query while the inbox runs.

use std::ffi::OsStr;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Arc, mpsc};
use std::time::Duration;

use ask_fs::Dir;
use async_trait::async_trait;
use rusqlite::{
    Connection, OpenFlags, OptionalExtension, Transaction, TransactionBehavior, params,
};

use super::{AskStore, Kept, KeptState, StoreError, StoreFault, StoredAsk};
use crate::Asker;

/// The migrations, in order, each one SQL script run in one transaction: a store's schema
/// version (its `user_version`) is how many of them it has had.
const MIGRATIONS: [&str; 1] = [include_str!("migrations/001_asks.sql")];

/// The schema version this build of ask-user reads and writes.
pub const SCHEMA_VERSION: usize = MIGRATIONS.len();

/// The `application_id` of every store of ask-user: `AskU` in ASCII.
const APPLICATION_ID: i64 = 0x4173_6b55;

/// The first line of the journal (checksummed JSON lines) that earlier builds kept their asks
/// in, which this one no longer reads.
const JOURNAL_HEADER: &[u8] = b"ask-user inbox store 1\n";

/// How many ended asks one transaction of [`AskStore::forget_ended`] deletes, so that the
/// changes waiting behind it wait at most that long.
const FORGET_BATCH: i64 = 1000;

/// An [`AskStore`] in one SQLite database on this machine, readable by this user only, which
/// one inbox at a time may open.
///
/// The database is in WAL mode with `synchronous=FULL`: each change is one transaction, on the
/// disk before it returns, so that an ask its agent holds a capability for, and an answer the
/// person was told is saved, survive the process and the machine being killed. Only the changes
/// nobody is told of (an outcome its agent confirmed, asks deleted after their retention)
/// commit without waiting for the disk. Its schema is versioned: the migrations this build knows are
/// applied when it opens the store, and a store written by a newer build is refused, naming
/// both versions. One inbox per store is enforced by an exclusive `flock` on the file beside
/// it, `PATH.lock`, not by SQLite's exclusive locking mode, so that the `sqlite3` shell can
/// read the store while the inbox runs.
///
/// Every read and change runs on the store's own thread, off the async runtime, one at a time
/// in the order they came; only the asks that may still need the inbox are ever loaded whole.
#[derive(Clone)]
pub struct SqliteStore {
    worker: Arc<Worker>,
    path: PathBuf,
}

/// The store's thread and the way to it. Dropping the last handle on the store waits for the
/// thread to finish the changes already asked for and close the database, so that the store can
/// be opened again as soon as it is gone.
struct Worker {
    jobs: Option<mpsc::Sender<Job>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Worker {
    fn send(&self, job: Job) -> Result<(), ()> {
        match &self.jobs {
            Some(jobs) => jobs.send(job).map_err(|_| ()),
            None => Err(()),
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        drop(self.jobs.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// A read or change of the store, run on its thread with its connection.
type Job = Box<dyn FnOnce(&mut Connection) + Send>;

impl std::fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteStore")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

/// Milliseconds since the Unix epoch, now.
fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| {
            i64::try_from(since.as_millis()).unwrap_or(i64::MAX)
        })
}

/// Takes the only lock of the store named `name` in `dir` (an exclusive `flock` on
/// `NAME.lock`, created for this user alone and never through a symbolic link), or says that
/// another process holds it.
fn take_lock(dir: &Dir, name: &OsStr) -> Result<std::fs::File, StoreFault> {
    use rustix::fs::{FlockOperation, flock};
    let mut lock = name.to_os_string();
    lock.push(".lock");
    let file = dir.lock_file(&lock).map_err(StoreFault::Open)?;
    flock(&file, FlockOperation::NonBlockingLockExclusive).map_err(|error| {
        if error == rustix::io::Errno::WOULDBLOCK {
            StoreFault::Locked
        } else {
            StoreFault::Lock(error)
        }
    })?;
    Ok(file)
}

/// Makes sure the file `name` in `dir` is one SQLite may open as the store, creating it empty
/// for this user alone (mode 0600, never through a symbolic link) when it does not exist: a
/// symbolic link, a file that is not regular, another user's or one others may write, or a
/// journal of an earlier build is refused. The descriptor it opens is closed before it
/// returns, before SQLite opens the file: closing a descriptor of a file drops every POSIX lock
/// the process holds on it, SQLite's too.
fn check_or_create(dir: &Dir, name: &OsStr) -> Result<(), StoreFault> {
    let Some(mut file) = dir.open_acted_on(name).map_err(StoreFault::Open)? else {
        dir.create_new(name).map_err(StoreFault::Open)?;
        return Ok(());
    };
    let mut first = Vec::with_capacity(JOURNAL_HEADER.len());
    (&mut file)
        .take(JOURNAL_HEADER.len() as u64)
        .read_to_end(&mut first)
        .map_err(StoreFault::Read)?;
    if first == JOURNAL_HEADER {
        return Err(StoreFault::JournalGone);
    }
    Ok(())
}

/// The open database of a store, and the lock that keeps other inboxes off it, which must be
/// let go only after the connection is closed.
struct Opened {
    conn: Connection,
    lock: std::fs::File,
}

/// Opens the store at `path`: the one place its folder and files are made and opened. The
/// folder is made 0700 when absent, and must be the user's alone (`ask_fs::check_store`: no
/// sticky exception, since SQLite creates its `-wal` and `-shm` files beside the database,
/// where another user could create them first); the database and those files, where they
/// exist, must be regular files of the user's. The lock `PATH.lock` is taken; the database is
/// created for this user alone when it is absent. SQLite then opens the files itself, never
/// through a symbolic link (its `-wal` and `-shm` with the database's mode): the one writer
/// outside ask-fs.
fn open_database(path: &Path) -> Result<Opened, StoreFault> {
    let (dir, name) = ask_fs::check_store(path).map_err(StoreFault::Open)?;
    let lock = take_lock(&dir, &name)?;
    check_or_create(&dir, &name)?;
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_NOFOLLOW
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(path, flags).map_err(StoreFault::Sqlite)?;
    Ok(Opened { conn, lock })
}

/// Sets the connection up (WAL, synchronous commits, foreign keys) and brings the schema to
/// [`SCHEMA_VERSION`], refusing a database that is not a store of ask-user or was written by
/// a newer build.
fn prepare(conn: &mut Connection) -> Result<(), StoreFault> {
    let not_a_store = |error: rusqlite::Error| match error.sqlite_error_code() {
        Some(rusqlite::ErrorCode::NotADatabase) => StoreFault::NotAStore,
        _ => StoreFault::Sqlite(error),
    };
    conn.busy_timeout(Duration::from_secs(5))
        .map_err(StoreFault::Sqlite)?;
    let pragma = |conn: &Connection, name: &str| -> rusqlite::Result<i64> {
        conn.pragma_query_value(None, name, |row| row.get(0))
    };
    let application = pragma(conn, "application_id").map_err(not_a_store)?;
    let version = pragma(conn, "user_version").map_err(StoreFault::Sqlite)?;
    let tables: i64 = conn
        .query_row("SELECT count(*) FROM sqlite_schema", [], |row| row.get(0))
        .map_err(StoreFault::Sqlite)?;
    if application != APPLICATION_ID && !(application == 0 && version == 0 && tables == 0) {
        return Err(StoreFault::NotAStore);
    }
    let version = usize::try_from(version).unwrap_or(usize::MAX);
    if version > SCHEMA_VERSION {
        return Err(StoreFault::NewerSchema {
            file: version,
            build: SCHEMA_VERSION,
        });
    }
    let mode: String = conn
        .pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get(0))
        .map_err(StoreFault::Sqlite)?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(StoreFault::NotWal { mode });
    }
    for (name, value) in [("synchronous", "FULL"), ("foreign_keys", "ON")] {
        conn.pragma_update(None, name, value)
            .map_err(StoreFault::Sqlite)?;
    }
    for (at, migration) in MIGRATIONS.iter().enumerate().skip(version) {
        let tx = conn.transaction().map_err(StoreFault::Sqlite)?;
        tx.execute_batch(migration).map_err(StoreFault::Sqlite)?;
        tx.pragma_update(None, "user_version", at + 1)
            .map_err(StoreFault::Sqlite)?;
        tx.pragma_update(None, "application_id", APPLICATION_ID)
            .map_err(StoreFault::Sqlite)?;
        tx.commit().map_err(StoreFault::Sqlite)?;
    }
    Ok(())
}

/// The number of an `ask-N` id.
fn numbered(id: &str) -> Option<i64> {
    id.strip_prefix("ask-")?.parse().ok()
}

/// The row of the agent `asker`, added when it is new.
fn agent_row(tx: &Transaction<'_>, asker: &Asker) -> rusqlite::Result<i64> {
    let known = tx
        .prepare_cached("SELECT id FROM agents WHERE name IS ?1 AND folder IS ?2")?
        .query_row(params![asker.agent, asker.cwd], |row| row.get(0))
        .optional()?;
    if let Some(id) = known {
        return Ok(id);
    }
    tx.prepare_cached("INSERT INTO agents (name, folder) VALUES (?1, ?2)")?
        .execute(params![asker.agent, asker.cwd])?;
    Ok(tx.last_insert_rowid())
}

/// The outcome of a state as the `outcomes` table keeps it.
struct OutcomeRow {
    /// The answers as JSON; `None` when cancelled.
    answers: Option<String>,
    delivered: bool,
}

/// The columns of a state: its name, and its outcome when it has one.
fn state_columns(state: &KeptState) -> Result<(&'static str, Option<OutcomeRow>), StoreFault> {
    Ok(match state {
        KeptState::Waiting => ("waiting", None),
        KeptState::Answered { answers, delivered } => {
            let json = serde_json::to_string(answers).map_err(StoreFault::Json)?;
            let outcome = OutcomeRow {
                answers: Some(json),
                delivered: *delivered,
            };
            ("answered", Some(outcome))
        }
        KeptState::Cancelled { delivered } => {
            let outcome = OutcomeRow {
                answers: None,
                delivered: *delivered,
            };
            ("cancelled", Some(outcome))
        }
        KeptState::Withdrawn => ("withdrawn", None),
    })
}

/// Writes `state` as the state of the ask of row `seq`.
fn write_state(tx: &Transaction<'_>, seq: i64, state: &KeptState) -> Result<(), StoreFault> {
    let (name, outcome) = state_columns(state)?;
    let ended_at = state.ended_for_good().then(now_ms);
    let sql = |error| StoreFault::Sqlite(error);
    tx.prepare_cached("UPDATE asks SET state = ?1, ended_at = ?2 WHERE seq = ?3")
        .and_then(|mut update| update.execute(params![name, ended_at, seq]))
        .map_err(sql)?;
    tx.prepare_cached("DELETE FROM outcomes WHERE ask = ?1")
        .and_then(|mut delete| delete.execute([seq]))
        .map_err(sql)?;
    if let Some(OutcomeRow { answers, delivered }) = outcome {
        tx.prepare_cached("INSERT INTO outcomes (ask, answers, delivered) VALUES (?1, ?2, ?3)")
            .and_then(|mut insert| insert.execute(params![seq, answers, delivered]))
            .map_err(sql)?;
    }
    Ok(())
}

/// Keeps `ask` in place of any ask with its id.
fn put_now(conn: &mut Connection, ask: &StoredAsk) -> Result<(), StoreFault> {
    let sql = |error| StoreFault::Sqlite(error);
    let questions = serde_json::to_string(&ask.questions).map_err(StoreFault::Json)?;
    let given = (!ask.given.is_empty())
        .then(|| serde_json::to_string(&ask.given))
        .transpose()
        .map_err(StoreFault::Json)?;
    let since = i64::try_from(ask.since).unwrap_or(i64::MAX);
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(sql)?;
    let agent = agent_row(&tx, &ask.asker).map_err(sql)?;
    tx.prepare_cached("DELETE FROM asks WHERE id = ?1")
        .and_then(|mut delete| delete.execute([&ask.id]))
        .map_err(sql)?;
    tx.prepare_cached(
        "INSERT INTO asks (id, agent, questions, given, since, state) \
         VALUES (?1, ?2, ?3, ?4, ?5, 'waiting')",
    )
    .and_then(|mut insert| insert.execute(params![ask.id, agent, questions, given, since]))
    .map_err(sql)?;
    let seq = tx.last_insert_rowid();
    write_state(&tx, seq, &ask.state)?;
    tx.prepare_cached("INSERT INTO capabilities (ask, digest) VALUES (?1, ?2)")
        .and_then(|mut insert| insert.execute(params![seq, ask.capability]))
        .map_err(sql)?;
    if let Some(number) = numbered(&ask.id) {
        tx.prepare_cached("UPDATE numbering SET taken = max(taken, ?1)")
            .and_then(|mut update| update.execute([number]))
            .map_err(sql)?;
    }
    tx.commit().map_err(sql)
}

/// The columns [`read_ask`] reads, in its order.
const ASK_COLUMNS: &str = "asks.id, capabilities.digest, agents.name, agents.folder, \
     asks.questions, asks.given, asks.since, asks.state, outcomes.answers, outcomes.delivered \
     FROM asks JOIN agents ON agents.id = asks.agent \
     LEFT JOIN capabilities ON capabilities.ask = asks.seq \
     LEFT JOIN outcomes ON outcomes.ask = asks.seq";

/// The ask on a row of [`ASK_COLUMNS`].
fn read_ask(row: &rusqlite::Row<'_>) -> rusqlite::Result<Result<StoredAsk, StoreFault>> {
    let id: String = row.get(0)?;
    let capability: Option<String> = row.get(1)?;
    let asker = Asker {
        agent: row.get(2)?,
        cwd: row.get(3)?,
    };
    let questions: String = row.get(4)?;
    let given: Option<String> = row.get(5)?;
    let since: i64 = row.get(6)?;
    let state: String = row.get(7)?;
    let answers: Option<String> = row.get(8)?;
    let delivered: Option<bool> = row.get(9)?;
    let parsed = (|| {
        let damaged = |problem: String| StoreFault::Damaged {
            id: id.clone(),
            problem,
        };
        let json = |error: serde_json::Error| damaged(error.to_string());
        let delivered = delivered.unwrap_or(false);
        let state = match state.as_str() {
            "waiting" => KeptState::Waiting,
            "answered" => KeptState::Answered {
                answers: serde_json::from_str(answers.as_deref().unwrap_or("[]")).map_err(json)?,
                delivered,
            },
            "cancelled" => KeptState::Cancelled { delivered },
            "withdrawn" => KeptState::Withdrawn,
            other => return Err(damaged(format!("unknown state `{other}`"))),
        };
        Ok(StoredAsk {
            id: id.clone(),
            capability: capability.unwrap_or_default(),
            asker,
            questions: serde_json::from_str(&questions).map_err(json)?,
            given: given
                .as_deref()
                .map(serde_json::from_str)
                .transpose()
                .map_err(json)?
                .unwrap_or_default(),
            since: u64::try_from(since).unwrap_or(0),
            state,
        })
    })();
    Ok(parsed)
}

/// The asks that may still need the inbox, in the order they arrived, and the highest number
/// an `ask-N` id took.
fn load_now(conn: &mut Connection) -> Result<Kept, StoreFault> {
    let sql = |error| StoreFault::Sqlite(error);
    let mut open = Vec::new();
    {
        let mut select = conn
            .prepare(&format!(
                "SELECT {ASK_COLUMNS} WHERE asks.ended_at IS NULL ORDER BY asks.seq"
            ))
            .map_err(sql)?;
        let mut rows = select.query([]).map_err(sql)?;
        while let Some(row) = rows.next().map_err(sql)? {
            open.push(read_ask(row).map_err(sql)??);
        }
    }
    let taken: i64 = conn
        .query_row("SELECT taken FROM numbering", [], |row| row.get(0))
        .map_err(sql)?;
    Ok(Kept {
        open,
        taken: u64::try_from(taken).unwrap_or(0),
    })
}

/// The ask `id`, if it is kept.
fn get_now(conn: &mut Connection, id: &str) -> Result<Option<StoredAsk>, StoreFault> {
    let sql = |error| StoreFault::Sqlite(error);
    let mut select = conn
        .prepare_cached(&format!("SELECT {ASK_COLUMNS} WHERE asks.id = ?1"))
        .map_err(sql)?;
    let ask = select.query_row([id], read_ask).optional().map_err(sql)?;
    ask.transpose()
}

/// Runs `change` on the state of the ask `id`, in one transaction, and writes the state it
/// returns; false when the ask is not kept or `change` returns `None`.
fn change_state(
    conn: &mut Connection,
    id: &str,
    change: impl FnOnce(&str) -> Option<KeptState>,
) -> Result<bool, StoreFault> {
    let sql = |error| StoreFault::Sqlite(error);
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(sql)?;
    let row: Option<(i64, String)> = tx
        .prepare_cached("SELECT seq, state FROM asks WHERE id = ?1")
        .and_then(|mut select| {
            select
                .query_row([id], |row| Ok((row.get(0)?, row.get(1)?)))
                .optional()
        })
        .map_err(sql)?;
    let Some((seq, state)) = row else {
        return Ok(false);
    };
    let Some(state) = change(&state) else {
        return Ok(false);
    };
    write_state(&tx, seq, &state)?;
    tx.commit().map_err(sql)?;
    Ok(true)
}

/// Runs `change` with commits that do not wait for the disk (`synchronous=NORMAL`, which in
/// WAL mode still keeps the database whole), for a change nobody is told of: the next
/// synchronous commit writes it through with itself, as the WAL is written in order.
fn unsynced<T>(
    conn: &mut Connection,
    change: impl FnOnce(&mut Connection) -> Result<T, StoreFault>,
) -> Result<T, StoreFault> {
    conn.pragma_update(None, "synchronous", "NORMAL")
        .map_err(StoreFault::Sqlite)?;
    let changed = change(conn);
    let restored = conn.pragma_update(None, "synchronous", "FULL");
    let changed = changed?;
    restored.map_err(StoreFault::Sqlite)?;
    Ok(changed)
}

/// Deletes the asks that ended for good before `before` (milliseconds since the Unix epoch),
/// and the agents left without asks; how many asks it deleted.
fn forget_now(conn: &mut Connection, before: i64) -> Result<u64, StoreFault> {
    let sql = |error| StoreFault::Sqlite(error);
    let mut forgotten = 0;
    loop {
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sql)?;
        let deleted = tx
            .prepare_cached(
                "DELETE FROM asks WHERE seq IN (SELECT seq FROM asks \
                 WHERE ended_at IS NOT NULL AND ended_at < ?1 LIMIT ?2)",
            )
            .and_then(|mut delete| delete.execute(params![before, FORGET_BATCH]))
            .map_err(sql)?;
        if deleted > 0 {
            tx.execute(
                "DELETE FROM agents WHERE NOT EXISTS \
                 (SELECT 1 FROM asks WHERE asks.agent = agents.id)",
                [],
            )
            .map_err(sql)?;
        }
        tx.commit().map_err(sql)?;
        forgotten += u64::try_from(deleted).unwrap_or(0);
        if deleted < usize::try_from(FORGET_BATCH).unwrap_or(usize::MAX) {
            return Ok(forgotten);
        }
    }
}

impl SqliteStore {
    /// Opens the store at `path`, creating it (and its folder) when it does not exist, and
    /// brings its schema to [`SCHEMA_VERSION`].
    pub fn open(path: &Path) -> Result<SqliteStore, StoreError> {
        let failed = |fault: StoreFault| StoreError {
            path: path.display().to_string(),
            fault,
        };
        let Opened { mut conn, lock } = open_database(path).map_err(failed)?;
        prepare(&mut conn).map_err(failed)?;
        // The thread ends when the last handle on the store is gone: with it, the last sender.
        // The connection closes before the lock is let go.
        let (worker, jobs) = mpsc::channel::<Job>();
        let thread = std::thread::Builder::new()
            .name("ask-user-store".to_string())
            .spawn(move || {
                for job in jobs {
                    // A job that panics ends as an error of its change, not as the thread.
                    let run = std::panic::AssertUnwindSafe(|| job(&mut conn));
                    let _ = std::panic::catch_unwind(run);
                }
                drop(conn);
                drop(lock);
            })
            .map_err(|error| failed(StoreFault::Thread(error)))?;
        Ok(SqliteStore {
            worker: Arc::new(Worker {
                jobs: Some(worker),
                thread: Some(thread),
            }),
            path: path.to_path_buf(),
        })
    }

    /// Blocks until every change asked for before this call has ended, written or failed. A
    /// process that stops calls it last, once nothing asks for changes any more, so that its
    /// exit cuts no change short.
    pub fn finish_writes(&self) {
        let (done, finished) = mpsc::channel();
        let sent = self.worker.send(Box::new(move |_: &mut Connection| {
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

    /// Runs `work` on the store's thread, which waits for the disk. One at a time, in the
    /// order they came; the work runs to its end even when the caller gave up meanwhile.
    async fn off_thread<T: Send + 'static>(
        &self,
        work: impl FnOnce(&mut Connection) -> Result<T, StoreFault> + Send + 'static,
    ) -> Result<T, StoreError> {
        let (done, result) = tokio::sync::oneshot::channel();
        self.worker
            .send(Box::new(move |conn: &mut Connection| {
                let _ = done.send(work(conn));
            }))
            .map_err(|_| self.failed(StoreFault::Ended))?;
        result
            .await
            .map_err(|_| self.failed(StoreFault::Interrupted))?
            .map_err(|fault| self.failed(fault))
    }
}

#[async_trait]
impl AskStore for SqliteStore {
    async fn load(&self) -> Result<Kept, StoreError> {
        self.off_thread(load_now).await
    }

    async fn get(&self, id: &str) -> Result<Option<StoredAsk>, StoreError> {
        let id = id.to_string();
        self.off_thread(move |conn| get_now(conn, &id)).await
    }

    async fn put(&self, ask: &StoredAsk) -> Result<(), StoreError> {
        let ask = ask.clone();
        self.off_thread(move |conn| put_now(conn, &ask)).await
    }

    async fn set_capability(&self, id: &str, capability: &str) -> Result<bool, StoreError> {
        let (id, capability) = (id.to_string(), capability.to_string());
        self.off_thread(move |conn| {
            conn.prepare_cached(
                "UPDATE capabilities SET digest = ?1 \
                 WHERE ask = (SELECT seq FROM asks WHERE id = ?2)",
            )
            .and_then(|mut update| update.execute([capability, id]))
            .map(|changed| changed > 0)
            .map_err(StoreFault::Sqlite)
        })
        .await
    }

    async fn mark_delivered(&self, id: &str, state: KeptState) -> Result<bool, StoreError> {
        let id = id.to_string();
        self.off_thread(move |conn| {
            // Nobody is told of this change: were it lost with the machine, the agent would be
            // offered the outcome once more. Its commit does not wait for the disk; the next
            // synchronous one writes it through with itself.
            unsynced(conn, |conn| change_state(conn, &id, |_| Some(state)))
        })
        .await
    }

    async fn record_first_outcome(&self, id: &str, state: KeptState) -> Result<bool, StoreError> {
        let id = id.to_string();
        self.off_thread(move |conn| {
            change_state(conn, &id, |now| (now == "waiting").then_some(state))
        })
        .await
    }

    async fn forget_ended(&self, before: u64) -> Result<u64, StoreError> {
        let before = i64::try_from(before).unwrap_or(i64::MAX);
        self.off_thread(move |conn| unsynced(conn, |conn| forget_now(conn, before)))
            .await
    }
}

//! `ask-user serve --store` on its SQLite file: `--migrate` brings a store up to date and exits,
//! a journal of an earlier build is refused with exit 2 and what to do, `--retention` deletes
//! the asks that ended that long ago while `serve` runs, and the `sqlite3` command of
//! docs/inbox.md reads a store that `serve` holds.

use crate::common;

use std::path::Path;
use std::process::{Child, Output, Stdio};
use std::time::{Duration, Instant};

/// How long a test waits for something before it fails: a bound, never a pace.
const PATIENCE: Duration = Duration::from_secs(20);

/// `ask-user serve --store STORE ARGS` run to its end, its tokens in `dir`.
fn serve_once(dir: &Path, store: &Path, args: &[&str]) -> Output {
    common::serve_in(common::ask_user(), "127.0.0.1:0", dir)
        .arg("--store")
        .arg(store)
        .args(args)
        .output()
        .unwrap()
}

/// A running `ask-user serve --store STORE`, killed when dropped.
struct Running(Child);

impl Running {
    /// Starts `serve` on `store` and returns once it listens.
    fn start(dir: &Path, store: &Path) -> Running {
        use std::io::BufRead;
        let mut child = common::serve_in(common::ask_user(), "127.0.0.1:0", dir)
            .arg("--store")
            .arg(store)
            .spawn()
            .unwrap();
        let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
        let mut first = String::new();
        stderr.read_line(&mut first).unwrap();
        assert!(first.contains("inbox at "), "{first}");
        std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
        Running(child)
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Keeps an ask `id` in the store at `path` through the store's own code, ended for good
/// `ended_ago` ago when given; the store is closed again when this returns.
fn keep_ask(path: &Path, id: &str, ended_ago: Option<Duration>) {
    use ask_web::{AskStore, Asker, KeptState, SqliteStore, StoredAsk};
    // A process another test starts meanwhile holds a copy of the lock until it runs `serve`.
    let deadline = Instant::now() + PATIENCE;
    let store = loop {
        match SqliteStore::open(path) {
            Ok(store) => break store,
            Err(error) => assert!(Instant::now() < deadline, "{error}"),
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let question = serde_json::from_value(serde_json::json!({
        "question": "Which database should we use?", "header": "Database",
        "options": [{"label": "SQLite", "description": "One file"},
                    {"label": "PostgreSQL", "description": "A server"}]}))
    .unwrap();
    let ask = StoredAsk {
        id: id.to_string(),
        capability: "0".repeat(64),
        asker: Asker {
            agent: Some("claude".to_string()),
            cwd: Some("/work/app".to_string()),
        },
        questions: vec![question],
        given: Vec::new(),
        since: 1_700_000_000_000,
        state: KeptState::Waiting,
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    runtime.block_on(store.put(&ask)).unwrap();
    if ended_ago.is_some() {
        runtime
            .block_on(store.mark_delivered(id, KeptState::Withdrawn))
            .unwrap();
    }
    store.finish_writes();
    drop(store);
    if let Some(ago) = ended_ago {
        let ended = std::time::SystemTime::now() - ago;
        let ended = ended.duration_since(std::time::UNIX_EPOCH).unwrap();
        let conn = rusqlite::Connection::open(path).unwrap();
        conn.execute(
            "UPDATE asks SET ended_at = ?1 WHERE id = ?2",
            rusqlite::params![i64::try_from(ended.as_millis()).unwrap(), id],
        )
        .unwrap();
    }
}

/// The ids of the asks in the store at `path`, read beside a running `serve`.
fn ids(path: &Path) -> Vec<String> {
    let conn = rusqlite::Connection::open(path).unwrap();
    let mut select = conn.prepare("SELECT id FROM asks ORDER BY seq").unwrap();
    let ids = select.query_map([], |row| row.get(0)).unwrap();
    ids.collect::<Result<_, _>>().unwrap()
}

#[test]
fn serve_migrate_brings_a_store_up_to_date_and_exits() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("state/asks.db");
    let migrated = serve_once(dir.path(), &store, &["--migrate"]);
    let said = String::from_utf8_lossy(&migrated.stderr);
    assert_eq!(migrated.status.code(), Some(0), "{said}");
    assert!(
        said.contains(&format!("is at schema version {}", ask_web::SCHEMA_VERSION)),
        "{said}"
    );
    assert!(!said.contains("inbox at"), "it only migrates: {said}");
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&store).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    // The store it made opens as the inbox's.
    keep_ask(&store, "ask-1", None);
    assert_eq!(ids(&store), ["ask-1"]);
    // Without a store, --migrate has nothing to do.
    let alone = common::serve_in(common::ask_user(), "127.0.0.1:0", dir.path())
        .arg("--migrate")
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&alone.stderr);
    assert_eq!(alone.status.code(), Some(2), "{said}");
    assert!(said.contains("--store"), "{said}");
}

#[test]
fn serve_on_a_journal_of_an_earlier_build_exits_2_saying_the_format_is_gone() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("asks.db");
    let journal = "ask-user inbox store 1\n0123456789abcdef {\"id\":\"ask-1\"}\n";
    std::fs::write(&store, journal).unwrap();
    let refused = serve_once(dir.path(), &store, &[]);
    let said = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{said}");
    assert!(
        said.contains("asks.db")
            && said.contains("a format this build no longer reads")
            && said.contains("move it away or delete it"),
        "{said}"
    );
    assert_eq!(std::fs::read_to_string(&store).unwrap(), journal);
}

#[test]
fn serve_retention_must_be_a_duration() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("asks.db");
    for wrong in ["7", "week", "7 d", "99999999999999999999d"] {
        let refused = serve_once(dir.path(), &store, &["--retention", wrong]);
        let said = String::from_utf8_lossy(&refused.stderr);
        assert_eq!(refused.status.code(), Some(2), "{wrong}: {said}");
        assert!(
            said.contains("--retention") && said.contains("is not a duration"),
            "{wrong}: {said}"
        );
    }
}

#[test]
fn serve_deletes_the_asks_that_ended_longer_ago_than_the_retention() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("asks.db");
    keep_ask(&store, "ask-1", Some(Duration::from_secs(8 * 86_400)));
    keep_ask(&store, "ask-2", Some(Duration::from_secs(86_400)));
    keep_ask(&store, "ask-3", None);
    // The default retention, 7 days: the ask that ended 8 days ago goes when serve starts.
    let serve = Running::start(dir.path(), &store);
    let deadline = Instant::now() + PATIENCE;
    while ids(&store).len() == 3 {
        assert!(
            Instant::now() < deadline,
            "the old ask stays: {:?}",
            ids(&store)
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(ids(&store), ["ask-2", "ask-3"]);
    drop(serve);
    // With one of 2 s, the ask that ended a day ago goes too, and the waiting one stays.
    let mut child = common::serve_in(common::ask_user(), "127.0.0.1:0", dir.path())
        .arg("--store")
        .arg(&store)
        .args(["--retention", "2s"])
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + PATIENCE;
    while ids(&store).len() == 2 {
        assert!(Instant::now() < deadline, "{:?}", ids(&store));
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(ids(&store), ["ask-3"]);
}

/// The `sqlite3` command of docs/inbox.md, for the store at `path`.
fn documented_query(path: &Path) -> Vec<String> {
    let docs =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/inbox.md")).unwrap();
    let lines: Vec<&str> = docs
        .lines()
        .skip_while(|line| !line.starts_with("sqlite3 "))
        .collect();
    let end = lines.iter().position(|line| line.ends_with('"'));
    let line = lines[..=end.expect("docs/inbox.md shows a sqlite3 command")]
        .join("\n")
        .replace(" \\\n", " ");
    let (_, rest) = line
        .split_once(" ~/.local/state/ask-user/inbox.db ")
        .unwrap();
    let query = rest.trim().trim_matches('"');
    let mut args: Vec<String> = line
        .split_whitespace()
        .skip(1)
        .take_while(|word| word.starts_with('-'))
        .map(str::to_string)
        .collect();
    args.push(path.display().to_string());
    args.push(query.to_string());
    args
}

#[test]
#[ignore = "needs sqlite3; run by .ci/run"]
fn the_sqlite3_command_of_the_docs_lists_the_waiting_asks_while_serve_runs() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("asks.db");
    keep_ask(&store, "ask-1", None);
    keep_ask(&store, "ask-2", Some(Duration::from_secs(60)));
    let _serve = Running::start(dir.path(), &store);
    let listed = std::process::Command::new("sqlite3")
        .args(documented_query(&store))
        .output()
        .expect("sqlite3 runs");
    let said = String::from_utf8_lossy(&listed.stderr);
    assert!(listed.status.success(), "{said}");
    let out = String::from_utf8(listed.stdout).unwrap();
    assert_eq!(
        out, "ask-1|claude|/work/app|waiting|2023-11-14 22:13:20\n",
        "only the ask that may still need the inbox"
    );
}

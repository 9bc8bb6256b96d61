//! The SQLite store itself: its file and its neighbours are this user's alone and never reached
//! through a symbolic link, one inbox opens it at a time, its schema is versioned, files that
//! are not a store (a journal of an earlier build among them) are refused as they are, and
//! ended asks are forgotten after their retention.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use ask_core::{Answer, Question};
use ask_web::{AskStore, Asker, KeptState, SCHEMA_VERSION, SqliteStore, StoredAsk};

fn question() -> Question {
    serde_json::from_value(serde_json::json!({
        "question": "Which database?",
        "header": "Database",
        "options": [
            {"label": "SQLite", "description": "One file"},
            {"label": "PostgreSQL", "description": "A server"}
        ],
        "multiSelect": false
    }))
    .unwrap()
}

fn ask(id: &str, agent: &str) -> StoredAsk {
    StoredAsk {
        id: id.to_string(),
        capability: ask_web::testing::auth::digest(&[id]),
        asker: Asker {
            agent: Some(agent.to_string()),
            cwd: Some("/work/project".to_string()),
        },
        questions: vec![question()],
        given: Vec::new(),
        since: 1_700_000_000_000,
        state: KeptState::Waiting,
    }
}

fn answered(delivered: bool) -> KeptState {
    KeptState::Answered {
        answers: vec![Answer::selected("Which database?", "SQLite")],
        delivered,
    }
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

fn beside(path: &Path, suffix: &str) -> std::path::PathBuf {
    let mut name = path.as_os_str().to_os_string();
    name.push(suffix);
    name.into()
}

#[tokio::test]
async fn the_database_and_its_wal_and_shm_are_this_users_alone_and_one_inbox_opens_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("inbox/asks.db");
    let store = SqliteStore::open(&path).unwrap();
    store.put(&ask("ask-1", "claude")).await.unwrap();
    for file in [
        path.clone(),
        beside(&path, "-wal"),
        beside(&path, "-shm"),
        beside(&path, ".lock"),
    ] {
        assert_eq!(mode(&file), 0o600, "{}", file.display());
    }
    let second = SqliteStore::open(&path).unwrap_err().to_string();
    assert!(
        second.contains("asks.db") && second.contains("another process has it open"),
        "{second}"
    );
    drop(store);
    // Once the first is gone, the store opens again at once with what it kept.
    let store = SqliteStore::open(&path).unwrap();
    let kept = store.load().await.unwrap();
    assert_eq!(kept.open, [ask("ask-1", "claude")]);
    assert_eq!(kept.taken, 1);
}

#[test]
fn a_symbolic_link_is_never_followed() {
    let dir = tempfile::tempdir().unwrap();
    let elsewhere = dir.path().join("elsewhere.db");
    let path = dir.path().join("asks.db");
    std::os::unix::fs::symlink(&elsewhere, &path).unwrap();
    let error = SqliteStore::open(&path).unwrap_err().to_string();
    assert!(error.contains("symbolic link"), "{error}");
    assert!(!elsewhere.exists(), "nothing was created through the link");
    // The same for a link to an existing store.
    drop(SqliteStore::open(&elsewhere).unwrap());
    let error = SqliteStore::open(&path).unwrap_err().to_string();
    assert!(error.contains("symbolic link"), "{error}");
}

#[test]
fn a_journal_of_an_earlier_build_or_another_file_is_refused_and_left_as_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("asks.db");
    let lines = "ask-user inbox store 1\n0123456789abcdef {\"id\":\"ask-1\"}\n";
    std::fs::write(&journal, lines).unwrap();
    let error = SqliteStore::open(&journal).unwrap_err().to_string();
    assert!(
        error.contains("a format this build no longer reads")
            && error.contains("move it away or delete it"),
        "{error}"
    );
    assert_eq!(std::fs::read_to_string(&journal).unwrap(), lines);
    let notes = dir.path().join("notes.txt");
    std::fs::write(
        &notes,
        "my notes, long enough to be read as a header of a database file",
    )
    .unwrap();
    let error = SqliteStore::open(&notes).unwrap_err().to_string();
    assert!(error.contains("is not a store of ask-user"), "{error}");
    assert!(
        std::fs::read_to_string(&notes)
            .unwrap()
            .starts_with("my notes")
    );
    let folder = dir.path().join("folder");
    std::fs::create_dir(&folder).unwrap();
    let error = SqliteStore::open(&folder).unwrap_err().to_string();
    assert!(error.contains("not a regular file"), "{error}");
    let fifo = dir.path().join("fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let error = SqliteStore::open(&fifo).unwrap_err().to_string();
    assert!(error.contains("not a regular file"), "{error}");
}

#[test]
fn a_store_written_by_a_newer_build_is_refused_naming_both_versions() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("asks.db");
    drop(SqliteStore::open(&path).unwrap());
    let newer = SCHEMA_VERSION + 1;
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.pragma_update(None, "user_version", newer).unwrap();
    drop(conn);
    let error = SqliteStore::open(&path).unwrap_err().to_string();
    assert!(
        error.contains(&format!(
            "its schema is version {newer}, newer than version {SCHEMA_VERSION}"
        )),
        "{error}"
    );
}

#[tokio::test]
async fn outcomes_capabilities_and_agents_are_kept_and_the_first_outcome_wins() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("asks.db");
    let store = SqliteStore::open(&path).unwrap();
    for (id, agent) in [("ask-1", "claude"), ("ask-2", "codex"), ("ask-3", "claude")] {
        store.put(&ask(id, agent)).await.unwrap();
    }
    assert!(
        store
            .record_first_outcome("ask-2", answered(false))
            .await
            .unwrap()
    );
    let cancelled = KeptState::Cancelled { delivered: false };
    assert!(
        !store
            .record_first_outcome("ask-2", cancelled)
            .await
            .unwrap()
    );
    assert!(
        !store
            .record_first_outcome("ask-9", KeptState::Withdrawn)
            .await
            .unwrap()
    );
    assert!(store.set_capability("ask-2", "fresh").await.unwrap());
    assert!(!store.set_capability("ask-9", "fresh").await.unwrap());
    assert!(
        store
            .record_first_outcome("ask-3", KeptState::Withdrawn)
            .await
            .unwrap()
    );
    drop(store);
    let store = SqliteStore::open(&path).unwrap();
    let kept = store.load().await.unwrap();
    let open: Vec<_> = kept
        .open
        .iter()
        .map(|a| (a.id.as_str(), &a.state))
        .collect();
    assert_eq!(
        open,
        [("ask-1", &KeptState::Waiting), ("ask-2", &answered(false))]
    );
    assert_eq!(kept.open[1].capability, "fresh");
    assert_eq!(kept.open[1].asker.agent.as_deref(), Some("codex"));
    // An ask that ended for good is not loaded, but read when asked for.
    assert_eq!(kept.taken, 3);
    let withdrawn = store.get("ask-3").await.unwrap().unwrap();
    assert_eq!(withdrawn.state, KeptState::Withdrawn);
    assert!(store.mark_delivered("ask-2", answered(true)).await.unwrap());
    assert_eq!(
        store.get("ask-2").await.unwrap().unwrap().state,
        answered(true)
    );
    assert_eq!(store.get("ask-9").await.unwrap(), None);
}

#[tokio::test]
async fn ended_asks_are_forgotten_after_their_retention_and_numbering_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("asks.db");
    let store = SqliteStore::open(&path).unwrap();
    for n in 1..=2500 {
        store
            .put(&ask(&format!("ask-{n}"), &format!("agent-{}", n % 7)))
            .await
            .unwrap();
    }
    for n in 1..=2400 {
        let id = format!("ask-{n}");
        let end = if n % 2 == 0 {
            answered(true)
        } else {
            KeptState::Withdrawn
        };
        assert!(store.mark_delivered(&id, end).await.unwrap());
    }
    // Ended just now: a retention that has not passed keeps them.
    let long_ago = 1_000;
    assert_eq!(store.forget_ended(long_ago).await.unwrap(), 0);
    let later = u64::MAX / 2;
    assert_eq!(store.forget_ended(later).await.unwrap(), 2400);
    assert_eq!(store.get("ask-2").await.unwrap(), None);
    let kept = store.load().await.unwrap();
    assert_eq!(
        kept.open.len(),
        100,
        "the asks that may still need the inbox stay"
    );
    assert_eq!(kept.taken, 2500);
    drop(store);
    let conn = rusqlite::Connection::open(&path).unwrap();
    let count = |sql: &str| -> i64 { conn.query_row(sql, [], |row| row.get(0)).unwrap() };
    assert_eq!(count("SELECT count(*) FROM asks"), 100);
    assert_eq!(count("SELECT count(*) FROM outcomes"), 0);
    assert_eq!(count("SELECT count(*) FROM capabilities"), 100);
    assert_eq!(count("SELECT count(*) FROM agents"), 7);
}

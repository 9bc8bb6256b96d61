//! No answer is lost: the binary is crashed at each write step of print mode (a failpoint that
//! only debug builds compile in, chosen by `ASK_USER_FAILPOINT`), and the next run delivers the
//! answers exactly once. Also: concurrent asks of one call id leave one record.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::common::SpawnPiped;

use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Output, Stdio};

use common::{ask_user_without_terminal, example, run_in, stderr, stdout_json};
use serde_json::{Value, json};

const PENDING: &str = ".pi/pending-questions.json";

/// Every write step of a pass 2 with a session log, in the order they happen.
const PASS_TWO_STEPS: [&str; 6] = [
    // The `answered` state is complete in its temporary file, not yet renamed.
    "pending:before-rename",
    // The `answered` state replaced the file; its folder is not yet synced.
    "pending:after-rename",
    // The record is written to the log, not yet synced.
    "session:before-sync",
    // The record is in the log; nothing is printed yet.
    "session:after-append",
    // The result is printed; the pending file is not yet removed.
    "pending:before-remove",
    // The pending file is removed; its folder is not yet synced.
    "pending:after-remove",
];

fn run_crashing_at(dir: &Path, failpoint: &str, args: &[&str]) -> Output {
    ask_user_without_terminal()
        .args(args)
        .env("ASK_USER_FAILPOINT", failpoint)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// The project-setup call, pending as call `c1`, with its answers written into the file.
fn answered_in_the_file(dir: &Path, session: bool) {
    let setup = example("project-setup.json");
    let mut args = vec!["-p", "--call-id", "c1", setup.to_str().unwrap()];
    if session {
        args.extend(["--session", "s.jsonl"]);
    }
    let first = run_in(dir, &args);
    assert_eq!(first.status.code(), Some(4), "{}", stderr(&first));
    let mut file: Value =
        serde_json::from_slice(&std::fs::read(dir.join(PENDING)).unwrap()).unwrap();
    file["questions"][0]["answer"] = json!("SQLite");
    file["questions"][1]["answer"] = json!("orders");
    std::fs::write(dir.join(PENDING), serde_json::to_vec_pretty(&file).unwrap()).unwrap();
}

fn records(dir: &Path) -> Vec<Value> {
    match std::fs::read_to_string(dir.join("s.jsonl")) {
        Ok(text) => text
            .lines()
            .map(|l| serde_json::from_str(l).expect("every line is a whole record"))
            .collect(),
        Err(_) => Vec::new(),
    }
}

fn assert_delivered(output: &Output) {
    assert_eq!(output.status.code(), Some(0), "{}", stderr(output));
    let result = stdout_json(output);
    assert_eq!(result["answered"], true);
    assert_eq!(result["answers"][0]["answer"], "SQLite");
    assert_eq!(result["answers"][1]["answer"], "orders");
}

#[test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "failpoints exist only in debug builds"
)]
fn a_pass_two_crashed_at_any_write_step_loses_no_answer() {
    let _heavy = common::heavy::heavy("durability");
    for step in PASS_TWO_STEPS {
        let dir = tempfile::tempdir().unwrap();
        answered_in_the_file(dir.path(), true);
        let crashed = run_crashing_at(dir.path(), step, &["-c", "--session", "s.jsonl"]);
        assert_eq!(
            crashed.status.signal(),
            Some(6),
            "{step}: the run did not stop at its failpoint: {}",
            stderr(&crashed)
        );
        // At this instant the answers are in the pending file or in the log.
        let in_log = records(dir.path())
            .iter()
            .any(|r| r["answers"][0]["answer"] == "SQLite");
        let in_file = std::fs::read(dir.path().join(PENDING))
            .ok()
            .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok())
            .is_some_and(|file| file["questions"][1]["answer"] == "orders");
        assert!(in_log || in_file, "{step}: the answers are lost");
        // The next pass 2 delivers them, and the log holds one record.
        let retry = run_in(
            dir.path(),
            &["-c", "--session", "s.jsonl", "--call-id", "c1"],
        );
        assert_delivered(&retry);
        let log = records(dir.path());
        assert_eq!(log.len(), 1, "{step}: {log:?}");
        assert_eq!(log[0]["callId"], "c1");
        assert_eq!(log[0]["answers"][1]["answer"], "orders");
        assert!(
            !dir.path().join(PENDING).exists(),
            "{step}: the pending file is left behind"
        );
        // The call is finished: asking it again replays the record.
        let setup = example("project-setup.json");
        let replay = run_in(
            dir.path(),
            &[
                "-p",
                "--session",
                "s.jsonl",
                "--call-id",
                "c1",
                setup.to_str().unwrap(),
            ],
        );
        assert_delivered(&replay);
        assert_eq!(records(dir.path()).len(), 1);
    }
}

#[test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "failpoints exist only in debug builds"
)]
fn without_a_session_a_crashed_pass_two_is_finished_by_the_next() {
    let _heavy = common::heavy::heavy("durability");
    for step in [
        "pending:before-rename",
        "pending:after-rename",
        "pending:before-remove",
    ] {
        let dir = tempfile::tempdir().unwrap();
        answered_in_the_file(dir.path(), false);
        let crashed = run_crashing_at(dir.path(), step, &["-c"]);
        assert_eq!(crashed.status.signal(), Some(6), "{step}");
        let retry = run_in(dir.path(), &["-c"]);
        assert_delivered(&retry);
        assert!(!dir.path().join(PENDING).exists(), "{step}");
    }
}

#[test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "failpoints exist only in debug builds"
)]
fn any_form_of_pass_two_delivers_answers_already_taken() {
    let _heavy = common::heavy::heavy("durability");
    let dir = tempfile::tempdir().unwrap();
    answered_in_the_file(dir.path(), false);
    let crashed = run_crashing_at(dir.path(), "pending:before-remove", &["-c"]);
    assert_eq!(crashed.status.signal(), Some(6));
    let file: Value =
        serde_json::from_slice(&std::fs::read(dir.path().join(PENDING)).unwrap()).unwrap();
    assert_eq!(file["answered"]["status"], "answered", "{file}");
    assert_eq!(file["revision"], 2);
    // Another form of answer does not replace the answers already taken.
    let retry = run_in(
        dir.path(),
        &["--answers", r#"["PostgreSQL (Recommended)", "x"]"#],
    );
    assert_delivered(&retry);
    assert!(
        stderr(&retry).contains("delivering the answers already taken"),
        "{}",
        stderr(&retry)
    );
}

#[test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "failpoints exist only in debug builds"
)]
fn a_pass_one_crashed_after_writing_is_pending_on_retry() {
    let _heavy = common::heavy::heavy("durability");
    let dir = tempfile::tempdir().unwrap();
    let setup = example("project-setup.json");
    let args = ["-p", "--call-id", "c1", setup.to_str().unwrap()];
    let crashed = run_crashing_at(dir.path(), "pending:after-rename", &args);
    assert_eq!(crashed.status.signal(), Some(6));
    let written = std::fs::read(dir.path().join(PENDING)).unwrap();
    let retry = run_in(dir.path(), &args);
    assert_eq!(retry.status.code(), Some(4), "{}", stderr(&retry));
    let absolute = dir.path().join(PENDING).display().to_string();
    assert_eq!(stdout_json(&retry)["pendingFile"], absolute);
    assert_eq!(std::fs::read(dir.path().join(PENDING)).unwrap(), written);
    // Another call is still refused while these questions wait.
    let other = run_in(
        dir.path(),
        &["-p", "--call-id", "c2", setup.to_str().unwrap()],
    );
    assert_eq!(other.status.code(), Some(2));
}

/// 20 processes ask call `c1` over RPC at once, each client answering with its own service
/// name: one record is written, and every process returns that one answer.
#[test]
fn concurrent_asks_of_one_call_id_write_one_record() {
    let _heavy = common::heavy::heavy("durability");
    let dir = tempfile::tempdir().unwrap();
    let setup = example("project-setup.json");
    let count = 20;
    let children: Vec<_> = (0..count)
        .map(|i| {
            let mut child = ask_user_without_terminal()
                .args(["--rpc", "--session", "s.jsonl", "--call-id", "c1"])
                .arg(&setup)
                .current_dir(dir.path())
                .spawn_piped();
            let mut stdin = child.stdin.take().unwrap();
            let stdout = child.stdout.take().unwrap();
            let client = std::thread::spawn(move || {
                let mut result = None;
                for line in BufReader::new(stdout).lines() {
                    let message: Value = serde_json::from_str(&line.unwrap()).unwrap();
                    if message["state"] == "waiting_for_user" {
                        let response = json!({
                            "type": "ask_user_response",
                            "requestId": message["requestId"],
                            "answers": [{"answer": "SQLite"}, {"answer": format!("service-{i}")}],
                        });
                        writeln!(stdin, "{response}").unwrap();
                    }
                    if message["type"] == "ask_user_result" {
                        result = Some(message["result"].clone());
                    }
                }
                result
            });
            (child, client)
        })
        .collect();
    let mut results = Vec::new();
    for (child, client) in children {
        let output = child.wait_with_output().unwrap();
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        results.push(client.join().unwrap().expect("a result line"));
    }
    let log = records(dir.path());
    assert_eq!(log.len(), 1, "{log:?}");
    let recorded = &log[0]["answers"][1]["answer"];
    for result in &results {
        assert_eq!(&result["answers"][1]["answer"], recorded);
    }
}

//! Sessions end to end: records, replay, torn logs, concurrent writers, history, sub-agents.

#![allow(clippy::unwrap_used, clippy::expect_used)]

/// Runs `ask-user` in `dir` with no terminal and no stdin.
fn run(dir: &Path, args: &[&str]) -> Output {
    common::run_in(dir, args)
}

use crate::common;

use std::path::Path;
use std::process::{Command, Output, Stdio};

use common::{example, stderr, stdout_json};

use serde_json::{Value, json};

/// Asks the project-setup questions as call `id` and answers them through print mode.
fn answer_call(dir: &Path, id: &str, pending: &str, answers: &str) -> Output {
    let setup = example("project-setup.json");
    let first = run(
        dir,
        &[
            "-p",
            "--session",
            "s.jsonl",
            "--call-id",
            id,
            "--pending-file",
            pending,
            setup.to_str().unwrap(),
        ],
    );
    assert_eq!(first.status.code(), Some(4), "{}", stderr(&first));
    run(
        dir,
        &[
            "--session",
            "s.jsonl",
            "--pending-file",
            pending,
            "--answers",
            answers,
        ],
    )
}

fn log_lines(dir: &Path) -> Vec<Value> {
    std::fs::read_to_string(dir.join("s.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("every line is a whole record"))
        .collect()
}

#[test]
fn an_answered_call_replays_without_asking() {
    let dir = tempfile::tempdir().unwrap();
    let answered = answer_call(dir.path(), "toolu_1", "p.json", r#"["SQLite", "orders"]"#);
    assert_eq!(answered.status.code(), Some(0), "{}", stderr(&answered));
    let lines = log_lines(dir.path());
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["callId"], "toolu_1");
    assert_eq!(lines[0]["status"], "answered");
    assert_eq!(lines[0]["mode"], "print");
    assert_eq!(lines[0]["metadata"], json!({"source": "project-setup"}));

    // The same call again: the recorded result, no pending file, nothing new in the log.
    let setup = example("project-setup.json");
    let replay = run(
        dir.path(),
        &[
            "-p",
            "--session",
            "s.jsonl",
            "--call-id",
            "toolu_1",
            "--pending-file",
            "p.json",
            setup.to_str().unwrap(),
        ],
    );
    assert_eq!(replay.status.code(), Some(0), "{}", stderr(&replay));
    assert_eq!(stdout_json(&replay), stdout_json(&answered));
    assert!(stderr(&replay).contains("replaying the answer recorded for call toolu_1"));
    assert!(!dir.path().join("p.json").exists());
    assert_eq!(log_lines(dir.path()).len(), 1);

    // Another call id is asked.
    let other = run(
        dir.path(),
        &[
            "-p",
            "--session",
            "s.jsonl",
            "--call-id",
            "toolu_2",
            "--pending-file",
            "p.json",
            setup.to_str().unwrap(),
        ],
    );
    assert_eq!(other.status.code(), Some(4));
}

#[test]
fn an_envelope_id_is_the_call_id() {
    let dir = tempfile::tempdir().unwrap();
    let call = example("tool-call.json");
    let first = run(
        dir.path(),
        &["-p", "--session", "s.jsonl", call.to_str().unwrap()],
    );
    assert_eq!(first.status.code(), Some(4));
    assert!(
        stderr(&first).contains("give the answering command --session s.jsonl too"),
        "{}",
        stderr(&first)
    );
    let second = run(
        dir.path(),
        &["--session", "s.jsonl", "--answers", r#"["API keys"]"#],
    );
    assert_eq!(second.status.code(), Some(0));
    assert_eq!(
        log_lines(dir.path())[0]["callId"],
        "toolu_01A09q90qw90lq917835lq9"
    );
    let replay = run(
        dir.path(),
        &["-p", "--session", "s.jsonl", call.to_str().unwrap()],
    );
    assert_eq!(replay.status.code(), Some(0));
    assert_eq!(
        stdout_json(&replay)["answers"][0]["selectedOption"],
        "API keys"
    );
}

#[test]
fn a_session_without_a_call_id_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let output = run(
        dir.path(),
        &[
            "-p",
            "--session",
            "s.jsonl",
            example("features.json").to_str().unwrap(),
        ],
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("--session needs a call id"));
    assert!(!dir.path().join(".pi/pending-questions.json").exists());
}

#[test]
fn a_torn_last_line_keeps_the_earlier_records_and_the_next_append_repairs_it() {
    let dir = tempfile::tempdir().unwrap();
    answer_call(dir.path(), "toolu_1", "p.json", r#"["SQLite", "a"]"#);
    answer_call(dir.path(), "toolu_2", "p.json", r#"["MongoDB", "b"]"#);
    // A crash while a third record was being written.
    let mut text = std::fs::read_to_string(dir.path().join("s.jsonl")).unwrap();
    text.push_str(r#"{"callId":"toolu_3","questions":[{"quest"#);
    std::fs::write(dir.path().join("s.jsonl"), text).unwrap();
    let setup = example("project-setup.json");
    let replay = run(
        dir.path(),
        &[
            "-p",
            "--session",
            "s.jsonl",
            "--call-id",
            "toolu_1",
            setup.to_str().unwrap(),
        ],
    );
    assert_eq!(replay.status.code(), Some(0));
    assert_eq!(stdout_json(&replay)["answers"][0]["answer"], "SQLite");
    let summary = run(dir.path(), &["session", "summary", "s.jsonl"]);
    assert!(
        stderr(&summary).contains("skipped the last line of s.jsonl (line 3)"),
        "{}",
        stderr(&summary)
    );
    assert_eq!(
        String::from_utf8(summary.stdout).unwrap(),
        "User was asked \"Which database should we use?\" and chose SQLite.\n\
         User was asked \"What should we name this service?\" and answered \"a\".\n\
         User was asked \"Which database should we use?\" and chose MongoDB.\n\
         User was asked \"What should we name this service?\" and answered \"b\".\n"
    );
    // The next append cuts the torn line off: every line is a whole record again, and reading
    // the log warns no more.
    let answered = answer_call(dir.path(), "toolu_3", "p.json", r#"["SQLite", "c"]"#);
    assert_eq!(answered.status.code(), Some(0), "{}", stderr(&answered));
    let ids: Vec<Value> = log_lines(dir.path())
        .iter()
        .map(|r| r["callId"].clone())
        .collect();
    assert_eq!(ids, [json!("toolu_1"), json!("toolu_2"), json!("toolu_3")]);
    let summary = run(dir.path(), &["session", "summary", "s.jsonl"]);
    assert_eq!(stderr(&summary), "");
}

#[test]
fn concurrent_writers_append_whole_lines() {
    let dir = tempfile::tempdir().unwrap();
    let setup = example("project-setup.json");
    let count = 12;
    for i in 0..count {
        let first = run(
            dir.path(),
            &[
                "-p",
                "--session",
                "s.jsonl",
                "--call-id",
                &format!("c{i}"),
                "--pending-file",
                &format!("p{i}.json"),
                setup.to_str().unwrap(),
            ],
        );
        assert_eq!(first.status.code(), Some(4));
    }
    let children: Vec<_> = (0..count)
        .map(|i| {
            Command::new(env!("CARGO_BIN_EXE_ask-user"))
                .args([
                    "--session",
                    "s.jsonl",
                    "--pending-file",
                    &format!("p{i}.json"),
                ])
                .args([
                    "--answers",
                    &format!(r#"["SQLite", "{}"]"#, "x".repeat(3000 + i)),
                ])
                .current_dir(dir.path())
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut child in children {
        assert!(child.wait().unwrap().success());
    }
    let lines = log_lines(dir.path());
    assert_eq!(lines.len(), count);
    let mut ids: Vec<String> = lines
        .iter()
        .map(|l| l["callId"].as_str().unwrap().to_string())
        .collect();
    ids.sort();
    let mut expected: Vec<String> = (0..count).map(|i| format!("c{i}")).collect();
    expected.sort();
    assert_eq!(ids, expected);
}

#[test]
fn session_show_is_readable() {
    let dir = tempfile::tempdir().unwrap();
    answer_call(
        dir.path(),
        "toolu_1",
        "p.json",
        r#"["postgresql (recommended)", "order-processor"]"#,
    );
    let shown = run(dir.path(), &["session", "show", "s.jsonl"]);
    assert_eq!(shown.status.code(), Some(0));
    let text = String::from_utf8(shown.stdout).unwrap();
    assert!(text.starts_with("toolu_1 · 20"), "{text}");
    assert!(text.contains(" · print · answered\n"), "{text}");
    assert!(
        text.contains("  Which database should we use? → PostgreSQL (Recommended)\n"),
        "{text}"
    );
    assert!(
        text.contains("  What should we name this service? → order-processor (typed)"),
        "{text}"
    );
    let empty = run(dir.path(), &["session", "show", "missing.jsonl"]);
    assert_eq!(
        String::from_utf8(empty.stdout).unwrap(),
        "The session log holds no calls.\n"
    );
}

#[test]
fn a_sub_agent_is_refused_in_print_mode_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let call = example("features.json");
    for args in [
        vec![
            "-p",
            "--sub-agent",
            "--output",
            "tool",
            call.to_str().unwrap(),
        ],
        vec!["--output", "tool", call.to_str().unwrap()],
    ] {
        let output = Command::new("setsid")
            .arg(env!("CARGO_BIN_EXE_ask-user"))
            .args(&args)
            .current_dir(dir.path())
            .env(
                "ASK_USER_SUBAGENT",
                if args.contains(&"--sub-agent") {
                    "0"
                } else {
                    "1"
                },
            )
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(3), "{args:?}");
        assert_eq!(
            stdout_json(&output),
            json!({"content": "ask_user is only available to the parent conversation; sub-agents cannot ask the user questions", "isError": true})
        );
        assert!(stderr(&output).contains("sub-agents cannot ask the user questions"));
        assert!(
            !dir.path().join(".pi").exists(),
            "nothing is written for a sub-agent"
        );
    }
}

#[test]
fn events_show_waiting_with_the_questions_then_pending() {
    let dir = tempfile::tempdir().unwrap();
    let output = run(
        dir.path(),
        &[
            "-p",
            "--events",
            "events.jsonl",
            "--call-id",
            "c9",
            example("features.json").to_str().unwrap(),
        ],
    );
    assert_eq!(output.status.code(), Some(4));
    let events: Vec<Value> = std::fs::read_to_string(dir.path().join("events.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(events.len(), 2);
    assert_eq!(events[0]["state"], "waiting_for_user");
    assert_eq!(events[0]["callId"], "c9");
    assert_eq!(
        events[0]["questions"][0]["question"],
        "Which features should we include?"
    );
    assert_eq!(events[1]["state"], "pending");
    assert!(events[1].get("questions").is_none());
}

/// The states of the events file at `path`, in order.
fn event_states(path: &Path) -> Vec<(String, Option<String>)> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .map(|e| {
            let state = e["state"].as_str().unwrap().to_string();
            (state, e["callId"].as_str().map(str::to_string))
        })
        .collect()
}

#[test]
fn every_form_of_pass_two_writes_its_events() {
    let setup = example("project-setup.json");
    let forms: [&[&str]; 3] = [
        &["-c"],
        &["-p", "--answers", r#"["SQLite", "orders"]"#],
        &["-p", "@p.json", "SQLite, call it orders"],
    ];
    for form in forms {
        let dir = tempfile::tempdir().unwrap();
        let first = run(
            dir.path(),
            &[
                "-p",
                "--pending-file",
                "p.json",
                "--call-id",
                "toolu_e",
                "--events",
                "events.jsonl",
                setup.to_str().unwrap(),
            ],
        );
        assert_eq!(first.status.code(), Some(4), "{}", stderr(&first));
        if form == ["-c"] {
            // The person writes the answers into the file.
            let path = dir.path().join("p.json");
            let mut file: Value =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            file["questions"][0]["answer"] = json!("SQLite");
            file["questions"][1]["answer"] = json!("orders");
            std::fs::write(&path, serde_json::to_string_pretty(&file).unwrap()).unwrap();
        }
        let mut args = vec!["--pending-file", "p.json", "--events", "pass2.jsonl"];
        args.extend_from_slice(form);
        let second = run(dir.path(), &args);
        assert_eq!(
            second.status.code(),
            Some(0),
            "{form:?}: {}",
            stderr(&second)
        );
        assert_eq!(
            event_states(&dir.path().join("events.jsonl")),
            [
                ("waiting_for_user".to_string(), Some("toolu_e".to_string())),
                ("pending".to_string(), Some("toolu_e".to_string()))
            ],
            "pass 1 of {form:?}"
        );
        assert_eq!(
            event_states(&dir.path().join("pass2.jsonl")),
            [
                ("waiting_for_user".to_string(), Some("toolu_e".to_string())),
                ("answered".to_string(), Some("toolu_e".to_string()))
            ],
            "pass 2 {form:?} watches the same call through to its answer"
        );
    }
}

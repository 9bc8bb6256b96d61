//! `ask-user --rpc` end to end, played by a Python client that shares no code with the project.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::Path;
use std::process::{Command, Stdio};

use common::{example, stderr};
use serde_json::{Value, json};

/// Plays `scenario` with the Python client and returns its report and the events written.
fn play(scenario: &str, call: &str) -> (Value, Vec<Value>) {
    let dir = tempfile::tempdir().unwrap();
    let events = dir.path().join("events.jsonl");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/rpc_client.py");
    let output = Command::new("python3")
        .arg(script)
        .args([
            scenario,
            env!("CARGO_BIN_EXE_ask-user"),
            example(call).to_str().unwrap(),
        ])
        .arg(&events)
        .env_remove("ASK_USER_SUBAGENT")
        .env_remove("ASK_USER_SESSION")
        .output()
        .expect("python3 runs");
    assert!(
        output.status.success(),
        "the client failed: {}",
        stderr(&output)
    );
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let events = std::fs::read_to_string(&events)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (report, events)
}

fn states(events: &[Value]) -> Vec<&str> {
    events
        .iter()
        .map(|e| e["state"].as_str().unwrap())
        .collect()
}

#[test]
fn answer_with_multi_select_and_custom_text() {
    let (report, events) = play("answer", "features.json");
    assert_eq!(report["exit"], 0, "{report}");
    let lines = report["lines"].as_array().unwrap();
    let types: Vec<&str> = lines.iter().map(|l| l["type"].as_str().unwrap()).collect();
    assert_eq!(
        types,
        [
            "ask_user_request",
            "ask_user_state",
            "ask_user_state",
            "ask_user_result"
        ]
    );
    assert_eq!(lines[2]["state"], "answered");
    assert_eq!(
        lines[3],
        json!({"type": "ask_user_result", "requestId": "ask-1", "result": {"answered": true, "answers": [
            {"question": "Which features should we include?",
             "answer": ["Authentication", "Admin Dashboard", "GraphQL"], "wasCustom": true}]}})
    );
    assert_eq!(states(&events), ["waiting_for_user", "answered"]);
    assert_eq!(
        events[0]["questions"][0]["question"],
        "Which features should we include?"
    );
}

#[test]
fn cancel() {
    let (report, events) = play("cancel", "project-setup.json");
    assert_eq!(report["exit"], 130);
    let last = report["lines"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(
        last["result"],
        json!({"answered": false, "cancelled": true, "answers": [],
               "message": "The user cancelled the questions without answering. Proceed without \
                           these answers; do not ask the same questions again unless the user \
                           asks you to."})
    );
    assert_eq!(states(&events), ["waiting_for_user", "cancelled"]);
}

#[test]
fn a_bad_line_then_an_answer() {
    let (report, _) = play("bad-line", "project-setup.json");
    assert_eq!(report["exit"], 0, "{report}");
    let result = &report["lines"].as_array().unwrap().last().unwrap()["result"];
    assert_eq!(
        result["answers"][0]["answer"],
        "I would rather use DynamoDB"
    );
    assert_eq!(result["answers"][0]["wasCustom"], true);
}

#[test]
fn client_disconnect_is_connection_lost() {
    let (report, events) = play("disconnect", "project-setup.json");
    assert_eq!(report["exit"], 5);
    let lines = report["lines"].as_array().unwrap();
    assert_eq!(
        lines[2],
        json!({"type": "ask_user_state", "requestId": "ask-1", "state": "connection_lost"})
    );
    assert_eq!(
        lines[3]["result"],
        json!({"answered": false, "connectionLost": true, "answers": [],
               "message": "The client that was showing the questions disconnected before the \
                           user answered. No answers were given."})
    );
    assert_eq!(states(&events), ["waiting_for_user", "connection_lost"]);
}

#[test]
fn a_sub_agent_sends_no_request() {
    let output = common::ask_user()
        .args(["--rpc", example("features.json").to_str().unwrap()])
        .env("ASK_USER_SUBAGENT", "1")
        .stdin(Stdio::piped())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(3));
    // No request: the only line is the result that says the call was refused.
    let stdout = String::from_utf8_lossy(&output.stdout);
    let lines: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 1, "{stdout}");
    assert_eq!(lines[0]["type"], "ask_user_result");
    assert_eq!(lines[0]["result"]["refused"], true);
    assert!(stderr(&output).contains("sub-agents cannot ask the user questions"));
}

#[test]
fn stdin_cannot_be_both_the_call_and_the_protocol() {
    let output = common::ask_user()
        .args(["--rpc", "-"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    assert!(stderr(&output).contains("INPUT must be a file"));
}

#[test]
fn the_answers_a_claude_code_call_carries_go_out_with_the_request_as_given() {
    use std::io::{BufRead, BufReader, Write};
    let dir = tempfile::tempdir().unwrap();
    let call = dir.path().join("call.json");
    std::fs::write(
        &call,
        json!({"questions": [
            {"question": "Which database should we use?", "header": "Database", "multiSelect": false,
             "options": [{"label": "PostgreSQL (Recommended)", "description": "Relational"},
                         {"label": "SQLite", "description": "File-based"}]},
            {"question": "Which features should we include?", "header": "Features", "multiSelect": true,
             "options": [{"label": "Authentication", "description": "OAuth2"},
                         {"label": "REST API", "description": "JSON"}]}],
            "answers": {"Which database should we use?": "SQLite"}})
        .to_string(),
    )
    .unwrap();
    let mut child = common::ask_user()
        .args(["--rpc", call.to_str().unwrap()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let request: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    assert_eq!(request["type"], "ask_user_request");
    // The answer the call carried, for the client to show pre-filled; null for the open one.
    assert_eq!(
        request["given"],
        json!([{"question": "Which database should we use?", "answer": "SQLite",
                "selectedOption": "SQLite", "wasCustom": false}, null])
    );
    let mut stdin = child.stdin.take().unwrap();
    writeln!(
        stdin,
        "{}",
        json!({"type": "ask_user_response", "requestId": request["requestId"],
               "answers": [{"answer": "SQLite"}, {"answer": ["REST API"]}]})
    )
    .unwrap();
    let result: Value = lines
        .map(|line| serde_json::from_str::<Value>(&line.unwrap()).unwrap())
        .find(|line| line["type"] == "ask_user_result")
        .unwrap();
    drop(stdin);
    assert_eq!(child.wait().unwrap().code(), Some(0));
    assert_eq!(result["result"]["answers"][0]["answer"], "SQLite");
}

//! What an agent host that runs `ask-user` needs (the pi package of `integrations/pi` among
//! them): its own pass-2 commands in print mode's instructions, the state of the pending file,
//! a recorded call rendered by call id, and the tool output at the end of RPC mode.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::Path;

use common::{example, run_in, stderr, stdout_json};
use serde_json::{Value, json};

const PENDING: &str = ".pi/pending-questions.json";

fn pending_in(dir: &Path) -> String {
    dir.join(PENDING).display().to_string()
}

#[test]
fn under_pi_the_instructions_and_the_pending_file_name_pi_commands_only() {
    let dir = tempfile::tempdir().unwrap();
    let call = example("project-setup.json");
    let output = run_in(
        dir.path(),
        &[
            "-p",
            "--host",
            "pi",
            "--output",
            "tool",
            call.to_str().unwrap(),
        ],
    );
    assert_eq!(output.status.code(), Some(4), "{}", stderr(&output));
    let tool = stdout_json(&output);
    let file = pending_in(dir.path());
    assert_eq!(
        tool["content"],
        format!(
            "Questions pending. User input required.\n\n\
             To answer, re-run with:\n  pi -c -p @{file} \"your answers\"\n\n\
             Or edit the JSON file and run:\n  pi -c -p \"continue\"\n\n\
             Or give the answers in question order:\n  \
             pi -c -p --answers '[\"answer 1\", \"answer 2\"]' \"continue\"\n\n\
             Questions saved to: {file}"
        )
    );
    assert!(
        !stderr(&output).contains("ask-user -"),
        "{}",
        stderr(&output)
    );
    let pending: Value =
        serde_json::from_slice(&std::fs::read(dir.path().join(PENDING)).unwrap()).unwrap();
    assert!(
        pending["howToAnswer"]
            .as_str()
            .unwrap()
            .ends_with("Then run: pi -c -p \"continue\""),
        "{pending}"
    );

    // The environment variable does the same, and an incomplete pass 2 repeats pi's command.
    let output = common::ask_user_without_terminal()
        .args(["-p", "--answers", "[\"SQLite\", null]"])
        .env("ASK_USER_HOST", "pi")
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(4));
    assert!(
        stderr(&output).contains("or write them into the file and run pi -c -p \"continue\""),
        "{}",
        stderr(&output)
    );
    assert!(
        stdout_json(&output)["message"]
            .as_str()
            .unwrap()
            .contains("pi -c -p @")
    );

    // Without a host, the commands are ask-user's, as before.
    let plain = tempfile::tempdir().unwrap();
    let output = run_in(plain.path(), &["-p", call.to_str().unwrap()]);
    let message = stdout_json(&output)["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(message.contains("ask-user -c --pending-file"), "{message}");
    assert!(!message.contains("pi -c"), "{message}");
}

#[test]
fn an_unknown_host_is_a_usage_error_naming_the_known_ones() {
    let dir = tempfile::tempdir().unwrap();
    let output = run_in(dir.path(), &["-p", "--host", "emacs", "call.json"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("unknown host `emacs`; known: ask-user, pi"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn questions_state_follows_the_pending_file_without_changing_it() {
    let dir = tempfile::tempdir().unwrap();
    let file = pending_in(dir.path());
    let state = |dir: &Path| {
        let output = run_in(dir, &["questions", "state"]);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        stdout_json(&output)
    };
    assert_eq!(
        state(dir.path()),
        json!({"pending": false, "pendingFile": file, "questions": 0, "unanswered": [],
               "complete": false, "answered": false})
    );
    let call = example("project-setup.json");
    let output = run_in(
        dir.path(),
        &["-p", "--call-id", "call_7", call.to_str().unwrap()],
    );
    assert_eq!(output.status.code(), Some(4));
    assert_eq!(
        state(dir.path()),
        json!({"pending": true, "pendingFile": file, "callId": "call_7", "questions": 2,
               "unanswered": [0, 1], "complete": false, "answered": false})
    );
    let mut pending: Value =
        serde_json::from_slice(&std::fs::read(dir.path().join(PENDING)).unwrap()).unwrap();
    pending["questions"][0]["answer"] = json!("sqlite");
    pending["questions"][1]["answer"] = json!("orders");
    let text = serde_json::to_string_pretty(&pending).unwrap();
    std::fs::write(dir.path().join(PENDING), &text).unwrap();
    let now = state(dir.path());
    assert_eq!(now["complete"], true, "{now}");
    assert_eq!(now["unanswered"], json!([]));
    assert_eq!(
        std::fs::read_to_string(dir.path().join(PENDING)).unwrap(),
        text,
        "reading the state changes nothing"
    );

    // An answer of the wrong type: not complete, and the problem is named.
    pending["questions"][1]["answer"] = json!(7);
    std::fs::write(dir.path().join(PENDING), pending.to_string()).unwrap();
    let now = state(dir.path());
    assert_eq!(now["complete"], false);
    assert!(
        now["problem"].as_str().unwrap().contains(
            "the answer to question 2 (\"What should we name this service?\") is a number"
        ),
        "{now}"
    );
}

#[test]
fn session_get_renders_a_recorded_call_in_each_output_shape() {
    let dir = tempfile::tempdir().unwrap();
    let call = example("project-setup.json");
    let ask = |args: &[&str]| run_in(dir.path(), args);
    assert_eq!(
        ask(&["-p", "--call-id", "call_8", call.to_str().unwrap()])
            .status
            .code(),
        Some(4)
    );
    let answered = ask(&[
        "-p",
        "--answers",
        "[\"SQLite\", \"orders\"]",
        "--session",
        "s.jsonl",
        "--output",
        "tool",
    ]);
    assert_eq!(answered.status.code(), Some(0), "{}", stderr(&answered));
    let tool = stdout_json(&answered);

    let get = |call_id: &str, output: &str| {
        let got = ask(&["session", "get", "s.jsonl", call_id, "--output", output]);
        assert_eq!(got.status.code(), Some(0), "{}", stderr(&got));
        stdout_json(&got)
    };
    assert_eq!(
        get("call_8", "tool"),
        tool,
        "the same tool output, without asking"
    );
    assert_eq!(
        get("call_8", "answers"),
        json!({"answers": {"Which database should we use?": "SQLite",
                           "What should we name this service?": "orders"}})
    );
    assert_eq!(get("call_8", "result")["answered"], true);
    assert_eq!(get("call_9", "tool"), Value::Null, "no record: null");
    // A missing log holds no records.
    let none = ask(&["session", "get", "missing.jsonl", "call_8"]);
    assert_eq!(none.status.code(), Some(0));
    assert_eq!(stdout_json(&none), Value::Null);
}

#[test]
fn rpc_with_output_tool_ends_with_the_tool_output() {
    let dir = tempfile::tempdir().unwrap();
    let call = example("project-setup.json");
    // The client goes away at once: connection lost, and the last line carries the tool output.
    let output = run_in(
        dir.path(),
        &[
            "--rpc",
            "--output",
            "tool",
            "--call-id",
            "r1",
            call.to_str().unwrap(),
        ],
    );
    assert_eq!(output.status.code(), Some(5), "{}", stderr(&output));
    let last: Value = serde_json::from_str(
        String::from_utf8_lossy(&output.stdout)
            .lines()
            .last()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(last["type"], "ask_user_result");
    assert_eq!(last["result"]["connectionLost"], true);
    assert_eq!(last["toolOutput"]["isError"], false);
    assert_eq!(last["toolOutput"]["content"], last["result"]["message"]);
    assert_eq!(last["toolOutput"]["details"]["status"], "connection_lost");

    // Without --output tool the line is as before.
    let output = run_in(
        dir.path(),
        &["--rpc", "--call-id", "r2", call.to_str().unwrap()],
    );
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    let last: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert!(last.get("toolOutput").is_none(), "{last}");
}

#[test]
fn rpc_with_output_tool_replays_a_recorded_call_as_its_tool_output() {
    let dir = tempfile::tempdir().unwrap();
    let call = example("project-setup.json");
    let ask = |args: &[&str]| run_in(dir.path(), args);
    ask(&["-p", "--call-id", "r3", call.to_str().unwrap()]);
    let answered = ask(&[
        "-p",
        "--answers",
        "[\"SQLite\", \"orders\"]",
        "--session",
        "s.jsonl",
        "--output",
        "tool",
    ]);
    let tool = stdout_json(&answered);
    let replay = ask(&[
        "--rpc",
        "--output",
        "tool",
        "--session",
        "s.jsonl",
        "--call-id",
        "r3",
        call.to_str().unwrap(),
    ]);
    assert_eq!(replay.status.code(), Some(0), "{}", stderr(&replay));
    let line = stdout_json(&replay);
    assert_eq!(line["type"], "ask_user_result");
    assert_eq!(line["toolOutput"], tool);
}

#[test]
fn questions_take_the_pending_file_before_or_after_the_action() {
    let dir = tempfile::tempdir().unwrap();
    let call = example("project-setup.json");
    let output = run_in(
        dir.path(),
        &["-p", "--pending-file", "q/p.json", call.to_str().unwrap()],
    );
    assert_eq!(output.status.code(), Some(4));
    for args in [
        ["questions", "state", "--pending-file", "q/p.json"],
        ["questions", "--pending-file", "q/p.json", "state"],
    ] {
        let output = run_in(dir.path(), &args);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{args:?}: {}",
            stderr(&output)
        );
        assert_eq!(stdout_json(&output)["questions"], 2);
    }
    let output = run_in(
        dir.path(),
        &["questions", "show", "--pending-file", "q/p.json"],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    // A flag of the ask command only is still refused with a subcommand.
    let output = run_in(dir.path(), &["--answers", "[]", "questions"]);
    assert_eq!(output.status.code(), Some(2));
}

//! Secret questions and notes through the real binary: a secret answer reaches the model in the
//! result only, and every file and stream beside it (the session log, the events, stderr, the
//! tool output's details, the pending file) holds "[secret]" or nothing; a call with a secret
//! question is asked again instead of replayed, print mode refuses it, and the MCP server never
//! puts it in a form. Notes return beside the answer from every way in.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::common::SpawnPiped;

use std::io::{BufRead, BufReader, Write};

use common::pty::{ENTER, Session};
use serde_json::{Value, json};

const TOKEN: &str = "tok-7f3a-SECRET";

fn secret_call() -> String {
    json!({"questions": [
        {"question": "Paste the deploy token", "secret": true},
        {"question": "Which environment?", "options": [
            {"label": "staging"},
            {"label": "production", "preview": "host: prod.example.com"}
        ]}
    ]})
    .to_string()
}

/// Asserts that none of `texts` holds `secret`.
#[track_caller]
fn absent(secret: &str, texts: &[(&str, &str)]) {
    for (name, text) in texts {
        assert!(!text.contains(secret), "{name} holds the secret: {text}");
    }
}

#[test]
fn a_secret_typed_in_the_terminal_reaches_stdout_only_and_is_asked_again_next_time() {
    let call = secret_call();
    let ask = "\"$ASK\" --mode tui --no-notify --session s.jsonl --call-id toolu_s --events events.jsonl --output tool call.json";
    let mut session = Session::start(
        &format!("{ask} > first.json 2> first.txt; {ask} > stdout.json 2> stderr.txt"),
        &[("call.json", &call)],
    );
    session.wait_for("Paste the deploy token");
    session.send(TOKEN);
    session.send(ENTER);
    session.wait_for("Which environment?");
    session.send("2");
    session.wait_for("All answered");
    session.send(ENTER);
    let first: Value = serde_json::from_str(&session.wait_for_file("first.json")).unwrap();
    // The model gets the secret in the content; the details, kept by the harness, do not.
    let content = first["content"].as_str().unwrap();
    assert!(content.contains(TOKEN), "{content}");
    assert_eq!(first["details"]["answers"][0]["answer"], "[secret]");
    assert_eq!(first["details"]["answers"][1]["answer"], "production");
    assert_eq!(
        first["details"]["previews"],
        json!([{"question": "Which environment?", "option": "production",
                "preview": "host: prod.example.com"}])
    );
    let log = std::fs::read_to_string(session.path("s.jsonl")).unwrap();
    assert!(log.contains("[secret]"), "{log}");

    // The same call id again: the secret was not kept, so it is asked again.
    session.wait_for("Paste the deploy token");
    session.send("tok-second");
    session.send(ENTER);
    session.wait_for("Which environment?");
    session.send("1");
    session.wait_for("All answered");
    session.send(ENTER);
    assert_eq!(session.exit_code(), 0);
    let stdout = std::fs::read_to_string(session.path("stdout.json")).unwrap();
    let second: Value = serde_json::from_str(&stdout).unwrap();
    assert!(second["content"].as_str().unwrap().contains("tok-second"));
    let stderr = std::fs::read_to_string(session.path("stderr.txt")).unwrap();
    assert!(
        stderr.contains("asks a secret question whose answer is never kept: asking again"),
        "{stderr}"
    );
    // One record per call id, and no secret in any file beside stdout.
    let log = std::fs::read_to_string(session.path("s.jsonl")).unwrap();
    assert_eq!(log.lines().count(), 1, "{log}");
    let events = std::fs::read_to_string(session.path("events.jsonl")).unwrap();
    let first_stderr = std::fs::read_to_string(session.path("first.txt")).unwrap();
    for secret in [TOKEN, "tok-second"] {
        absent(
            secret,
            &[
                ("the session log", &log),
                ("the events", &events),
                ("stderr", &first_stderr),
                ("stderr", &stderr),
                ("the details", &first["details"].to_string()),
                ("the details", &second["details"].to_string()),
            ],
        );
    }
    // `session show` reads the log: "[secret]", never the answer.
    let shown = common::run_in(&session.path(""), &["session", "show", "s.jsonl"]);
    let shown = String::from_utf8_lossy(&shown.stdout).into_owned();
    assert!(shown.contains("[secret]"), "{shown}");
    absent(TOKEN, &[("session show", &shown)]);
    // A pass 2 that finds no pending file never replays a record whose secret was not kept.
    let args = ["-c", "--session", "s.jsonl", "--call-id", "toolu_s"];
    let replay = common::run_in(&session.path(""), &args);
    let said = common::stderr(&replay);
    assert!(
        said.contains("asks a secret question whose answer is never kept: not replayed"),
        "{said}"
    );
    assert!(said.contains("no questions are pending"), "{said}");
    assert_ne!(replay.status.code(), Some(0), "{said}");
    assert!(replay.stdout.is_empty(), "no answer to give");
}

#[test]
fn print_mode_refuses_a_secret_question_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("call.json"), secret_call()).unwrap();
    // Explicitly, and by auto mode without a terminal.
    for args in [&["-p", "call.json"][..], &["call.json"]] {
        let output = common::run_in(dir.path(), args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = common::stderr(&output);
        assert!(
            stderr.contains(
                "print mode cannot ask question 1 (\"Paste the deploy token\"): it is secret, and a \
                 secret cannot go through a pending file or a command line"
            ),
            "{stderr}"
        );
        assert!(output.stdout.is_empty());
        assert!(!dir.path().join(".pi").exists(), "no pending file");
    }
}

/// `ask-user --rpc` with the call, the session log and the events, answered by `answers`:
/// every line of stdout and the files beside it.
fn rpc(answers: Value) -> (Vec<Value>, String, String, String) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("call.json"), secret_call()).unwrap();
    let mut child = common::ask_user()
        .args([
            "--rpc",
            "--session",
            "s.jsonl",
            "--call-id",
            "toolu_r",
            "--events",
            "events.jsonl",
            "call.json",
        ])
        .current_dir(dir.path())
        .spawn_piped();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let request: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    assert_eq!(request["type"], "ask_user_request");
    let response = json!({"type": "ask_user_response", "requestId": request["requestId"],
                          "answers": answers});
    writeln!(stdin, "{response}").unwrap();
    drop(stdin);
    let mut out = vec![request];
    out.extend(lines.map(|line| serde_json::from_str(&line.unwrap()).unwrap()));
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", common::stderr(&output));
    let read = |name: &str| std::fs::read_to_string(dir.path().join(name)).unwrap();
    (
        out,
        read("s.jsonl"),
        read("events.jsonl"),
        common::stderr(&output),
    )
}

#[test]
fn an_rpc_client_gives_notes_and_a_secret_that_only_the_result_holds() {
    let (lines, log, events, stderr) = rpc(json!([
        {"answer": TOKEN, "notes": "rotate it on Friday"},
        {"answer": "production", "notes": "after the backup"}
    ]));
    let result = &lines.last().unwrap()["result"];
    assert_eq!(
        result["answers"],
        json!([
            {"question": "Paste the deploy token", "answer": TOKEN, "wasCustom": true,
             "notes": "rotate it on Friday"},
            {"question": "Which environment?", "answer": "production",
             "selectedOption": "production", "wasCustom": false, "notes": "after the backup"}
        ])
    );
    let record: Value = serde_json::from_str(log.trim()).unwrap();
    assert_eq!(
        record["answers"][0],
        json!({"question": "Paste the deploy token", "answer": "[secret]", "wasCustom": true,
               "notes": "[secret]"})
    );
    assert_eq!(record["answers"][1]["notes"], "after the backup");
    let states: Vec<String> = lines[..lines.len() - 1]
        .iter()
        .map(Value::to_string)
        .collect();
    absent(
        TOKEN,
        &[
            ("the log", &log),
            ("the events", &events),
            ("stderr", &stderr),
        ],
    );
    absent("rotate it", &[("the log", &log), ("the events", &events)]);
    for line in &states {
        absent(TOKEN, &[("a state line", line)]);
    }
}

#[test]
fn notes_written_in_the_pending_file_return_beside_the_answers() {
    let dir = tempfile::tempdir().unwrap();
    let call = json!({"questions": [
        {"question": "Which database?", "options": [{"label": "PostgreSQL"}, {"label": "SQLite"}]},
        {"question": "Service name?"}
    ]});
    std::fs::write(dir.path().join("call.json"), call.to_string()).unwrap();
    assert_eq!(
        common::run_in(dir.path(), &["-p", "call.json"])
            .status
            .code(),
        Some(4)
    );
    let path = dir.path().join(".pi/pending-questions.json");
    let mut file: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    file["questions"][0]["answer"] = json!("sqlite");
    file["questions"][0]["notes"] = json!("only for the tests");
    file["questions"][1]["answer"] = json!("orders");
    std::fs::write(&path, file.to_string()).unwrap();
    let output = common::run_in(dir.path(), &["-c", "--output", "answers"]);
    assert_eq!(output.status.code(), Some(0), "{}", common::stderr(&output));
    assert_eq!(
        common::stdout_json(&output),
        json!({"answers": {"Which database?": "SQLite", "Service name?": "orders"},
               "notes": {"Which database?": "only for the tests"}})
    );
}

#[test]
fn the_mcp_server_puts_no_secret_in_a_form_or_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = common::ask_user()
        .args(["mcp", "--present", "elicitation,file"])
        .current_dir(dir.path())
        .env("ASK_USER_NO_TTY", "1")
        .spawn_piped();
    let mut stdin = server.stdin.take().unwrap();
    let mut lines = BufReader::new(server.stdout.take().unwrap()).lines();
    let send = |stdin: &mut std::process::ChildStdin, message: Value| {
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    };
    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {"elicitation": {"form": {}}},
            "clientInfo": {"name": "raw", "version": "1"}
        }}),
    );
    let init: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    assert_eq!(init["id"], 1);
    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
    let arguments: Value = serde_json::from_str(&secret_call()).unwrap();
    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "ask_user", "arguments": arguments}}),
    );
    // The next message is the tool's answer: no elicitation request came first.
    let reply: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    assert_eq!(reply["id"], 2, "{reply}");
    assert_eq!(reply["result"]["isError"], true, "{reply}");
    let text = reply["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("a question is secret, and a secret cannot go through an MCP form"),
        "{text}"
    );
    assert!(!dir.path().join(".pi").exists(), "no pending file");
    drop(stdin);
    server.wait().unwrap();
}

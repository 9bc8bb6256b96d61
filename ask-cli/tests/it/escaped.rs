//! What ask-user writes to stdout holds no raw character that a terminal would obey or hide: a
//! person's answer with C1 controls, DEL, bidi controls, invisible or tag characters leaves in
//! `\uXXXX` escapes, and reads back as the same string.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Write};

use crate::common::mcp_raw::{raw_session, read_message, send_line};
use crate::common::{SpawnPiped, ask_user, example, run_in, stderr};

use serde_json::{Value, json};

/// An answer holding one character of each kind, among plain text and an emoji sequence: CSI
/// as a C1 control, DEL, NEL, a bidi override and isolate, a zero-width space, a byte order
/// mark, a tag character and the line separator.
const ANSWER: &str =
    "svc\u{9b}2J\u{7f}\u{85}\u{202e}txt\u{2066}\u{200b}\u{feff}\u{e0041}\u{2028}👩\u{200d}💻";

/// The characters of [`ANSWER`] that may not reach stdout raw.
const UNSAFE: [char; 10] = [
    '\u{9b}',
    '\u{7f}',
    '\u{85}',
    '\u{202e}',
    '\u{2066}',
    '\u{200b}',
    '\u{feff}',
    '\u{e0041}',
    '\u{2028}',
    '\u{200d}',
];

/// Fails when `stdout` holds one of [`UNSAFE`] raw, or lacks its escape.
#[track_caller]
fn check_escaped(stdout: &[u8]) {
    let text = String::from_utf8(stdout.to_vec()).expect("stdout is UTF-8");
    for c in UNSAFE {
        assert!(!text.contains(c), "{c:?} is raw on stdout: {text:?}");
    }
    for escape in [r"\u009b", r"\u007f", r"\u202e", r"\udb40\udc41"] {
        assert!(text.contains(escape), "{escape} is missing: {text}");
    }
}

#[test]
fn pass_two_prints_the_answers_escaped_and_they_read_back_the_same() {
    for form in ["result", "answers", "tool"] {
        let dir = tempfile::tempdir().unwrap();
        let first = run_in(
            dir.path(),
            &["-p", example("project-setup.json").to_str().unwrap()],
        );
        assert_eq!(first.status.code(), Some(4), "{}", stderr(&first));
        let pending = dir.path().join(".pi/pending-questions.json");
        let mut file: Value = serde_json::from_slice(&std::fs::read(&pending).unwrap()).unwrap();
        file["questions"][0]["answer"] = json!(ANSWER);
        file["questions"][1]["answer"] = json!(ANSWER);
        std::fs::write(&pending, serde_json::to_string_pretty(&file).unwrap()).unwrap();

        let output = run_in(dir.path(), &["-c", "--output", form]);
        assert_eq!(output.status.code(), Some(0), "{form}: {}", stderr(&output));
        check_escaped(&output.stdout);
        let printed: Value = serde_json::from_slice(&output.stdout).unwrap();
        let answers = match form {
            "result" => vec![
                &printed["answers"][0]["answer"],
                &printed["answers"][1]["answer"],
            ],
            "answers" => vec![
                &printed["answers"]["Which database should we use?"],
                &printed["answers"]["What should we name this service?"],
            ],
            _ => vec![
                &printed["details"]["answers"][0]["answer"],
                &printed["details"]["answers"][1]["answer"],
            ],
        };
        assert_eq!(answers, [ANSWER, ANSWER], "{form}: {printed}");
        if form == "tool" {
            // The text the model reads is JSON inside a string: once decoded, the same answer.
            let content: Value =
                serde_json::from_str(printed["content"].as_str().unwrap()).unwrap();
            assert_eq!(
                content["answers"]["What should we name this service?"],
                ANSWER
            );
        }
    }
}

#[test]
fn an_rpc_result_line_carries_the_answer_escaped() {
    let mut child = ask_user()
        .args(["--rpc", example("project-setup.json").to_str().unwrap()])
        .spawn_piped();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let request: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    assert_eq!(request["type"], "ask_user_request", "{request}");
    let response = json!({"type": "ask_user_response", "requestId": request["requestId"],
        "answers": [{"answer": ANSWER}, {"answer": ANSWER}]});
    writeln!(stdin, "{response}").unwrap();
    stdin.flush().unwrap();
    let mut all = Vec::new();
    let result = loop {
        let line = lines.next().expect("a result line").unwrap();
        all.extend_from_slice(line.as_bytes());
        let message: Value = serde_json::from_str(&line).unwrap();
        if message["type"] == "ask_user_result" {
            break message;
        }
    };
    drop(stdin);
    assert!(child.wait().unwrap().success());
    check_escaped(&all);
    assert_eq!(result["result"]["answers"][1]["answer"], ANSWER, "{result}");
}

#[test]
fn an_mcp_tool_result_carries_the_answer_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let (mut server, mut stdin, mut lines) =
        raw_session(&[], dir.path(), json!({"elicitation": {"form": {}}}));
    send_line(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "ask_user",
            "arguments": {"questions": [{"question": "What should we name this service?"}]}
        }}),
    );
    let form = read_message(&mut lines);
    assert_eq!(form["method"], "elicitation/create", "{form}");
    let fields = form["params"]["requestedSchema"]["properties"]
        .as_object()
        .unwrap();
    let content: serde_json::Map<String, Value> = fields
        .iter()
        .filter(|(_, field)| field["type"] == "string")
        .map(|(name, _)| (name.clone(), json!(ANSWER)))
        .collect();
    send_line(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": form["id"], "result": {"action": "accept", "content": content}}),
    );
    let mut all = Vec::new();
    let reply = loop {
        let line = lines.next().expect("the tool's result").unwrap();
        all.extend_from_slice(line.as_bytes());
        let message: Value = serde_json::from_str(&line).unwrap();
        if message["id"] == 2 {
            break message;
        }
    };
    drop(stdin);
    assert!(server.wait().unwrap().success());
    check_escaped(&all);
    assert_eq!(
        reply["result"]["structuredContent"]["answers"][0]["answer"], ANSWER,
        "{reply}"
    );
}

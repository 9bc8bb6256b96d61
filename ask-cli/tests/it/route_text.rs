//! The sentence a model reads when a call passes a limit, on every route of the binary: the
//! command line, RPC, MCP and the inbox. The library names no flag; the binary passes
//! `--max-options` in, so each route names the flag that raises the limit.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::Stdio;

use serde_json::{Value, json};

use crate::common;
use crate::common::mcp_raw::{raw_session, read_message, send_line};

/// What the model reads of a call with five options, the JSON pointer first.
const SENTENCE: &str = "/questions/0/options: 5 options given; give 2 to 4 (the person can always \
                        type another answer through \"Other\"; a host that wants more raises the \
                        limit with `--max-options 5`)";

/// One question with five options: one more than the default limit.
fn five_options() -> Value {
    let options: Vec<Value> = ["a", "b", "c", "d", "e"]
        .iter()
        .map(|label| json!({"label": label, "description": format!("Option {label}")}))
        .collect();
    json!({"questions": [{"question": "Which one?", "header": "Pick", "options": options}]})
}

/// The call written into `dir`.
fn call_file(dir: &Path) -> PathBuf {
    let path = dir.join("five.json");
    std::fs::write(&path, five_options().to_string()).unwrap();
    path
}

/// `PATH: MESSAGE` of each problem of a list of `{path, message}`.
fn problem_lines(problems: &Value) -> Vec<String> {
    problems
        .as_array()
        .unwrap_or_else(|| panic!("a list of problems: {problems}"))
        .iter()
        .map(|p| {
            format!(
                "{}: {}",
                p["path"].as_str().unwrap(),
                p["message"].as_str().unwrap()
            )
        })
        .collect()
}

#[test]
fn on_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let call = call_file(dir.path());
    let validated = common::ask_user()
        .arg("validate")
        .arg(&call)
        .output()
        .unwrap();
    assert_eq!(validated.status.code(), Some(2));
    let report: Value = serde_json::from_slice(&validated.stdout).unwrap();
    assert_eq!(problem_lines(&report["problems"]), [SENTENCE]);

    let asked = common::ask_user()
        .arg(&call)
        .env("ASK_USER_NO_TTY", "1")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(asked.status.code(), Some(2));
    assert!(asked.stdout.is_empty());
    assert!(
        common::stderr(&asked).contains(&format!("ask-user:   {SENTENCE}\n")),
        "{}",
        common::stderr(&asked)
    );
}

#[test]
fn over_rpc() {
    let dir = tempfile::tempdir().unwrap();
    let output = common::ask_user()
        .arg("--rpc")
        .arg(call_file(dir.path()))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let line: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(line["type"], "ask_user_result", "{line}");
    assert_eq!(problem_lines(&line["result"]["problems"]), [SENTENCE]);
    assert_eq!(
        line["result"]["message"],
        format!("The ask_user call is invalid:\n{SENTENCE}")
    );
}

#[test]
fn over_mcp() {
    let dir = tempfile::tempdir().unwrap();
    let (mut server, mut stdin, mut lines) = raw_session(&[], dir.path(), json!({}));
    send_line(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "ask_user", "arguments": five_options()}}),
    );
    let reply = read_message(&mut lines);
    let result = &reply["result"];
    assert_eq!(result["isError"], true, "{reply}");
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(text.ends_with(&format!("\n{SENTENCE}")), "{text}");
    drop(stdin);
    assert!(server.wait().unwrap().success());
}

#[test]
fn through_the_inbox() {
    // The agent's own limits let the call through, so the inbox's are the ones it passes.
    let dir = tempfile::tempdir().unwrap();
    let mut serve = common::serve_in(common::ask_user(), "127.0.0.1:0", dir.path())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(serve.stderr.take().unwrap());
    let mut first = String::new();
    stderr.read_line(&mut first).unwrap();
    let base = first
        .strip_prefix("ask-user: inbox at ")
        .and_then(|rest| rest.split(": ").next())
        .unwrap_or_else(|| panic!("{first}"))
        .to_string();
    std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));

    let asked = common::ask_user()
        .args(["--via", &base, "--max-options", "8"])
        .arg(call_file(dir.path()))
        .env("XDG_RUNTIME_DIR", dir.path())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    serve.kill().unwrap();
    serve.wait().unwrap();
    assert_eq!(
        common::stderr(&asked).trim_end(),
        format!("ask-user: the ask-user inbox refused the questions (422): {SENTENCE}")
    );
}

//! `ask-user --rpc` ends with one `ask_user_result` line for every outcome: answered, cancelled,
//! connection lost, an invalid call and a sub-agent's refusal. A client written here plays the
//! protocol, so these run with the Rust toolchain alone.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::common::SpawnPiped;

use std::io::{BufRead, BufReader, Write};

use common::{ask_user, example, run_with_stdin, stderr};
use serde_json::{Value, json};

/// Every stdout line of `output` as JSON.
fn lines(stdout: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// Runs `ask-user --rpc --call-id r1 ARGS INPUT`; once the request is out, writes `reply` (when
/// given) and closes stdin. Gives the exit code and every stdout line.
fn play(input: &str, args: &[&str], reply: Option<Value>) -> (i32, Vec<Value>) {
    let mut child = ask_user()
        .args(["--rpc", "--call-id", "r1"])
        .args(args)
        .arg(example(input))
        .spawn_piped();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut seen = Vec::new();
    let mut line = String::new();
    while stdout.read_line(&mut line).unwrap() > 0 {
        let value: Value = serde_json::from_str(&line).unwrap();
        line.clear();
        let request = value["type"] == "ask_user_request";
        seen.push(value);
        if request {
            if let Some(reply) = &reply {
                writeln!(stdin, "{reply}").unwrap();
            }
            break;
        }
    }
    drop(stdin);
    while stdout.read_line(&mut line).unwrap() > 0 {
        seen.push(serde_json::from_str(&line).unwrap());
        line.clear();
    }
    let code = child.wait().unwrap().code().unwrap();
    (code, seen)
}

#[test]
fn an_answer_ends_with_the_answered_result() {
    let reply = json!({"type": "ask_user_response", "requestId": "r1",
                       "answers": [{"answer": "SQLite"}, {"answer": "orders"}]});
    let (code, seen) = play("project-setup.json", &[], Some(reply));
    assert_eq!(code, 0);
    let last = seen.last().unwrap();
    assert_eq!(last["type"], "ask_user_result");
    assert_eq!(last["requestId"], "r1");
    assert_eq!(last["result"]["answered"], true);
    assert_eq!(last["result"]["answers"][0]["answer"], "SQLite");
}

#[test]
fn a_cancel_ends_with_the_cancelled_result() {
    let reply = json!({"type": "ask_user_cancel", "requestId": "r1"});
    let (code, seen) = play("project-setup.json", &[], Some(reply));
    assert_eq!(code, 130);
    let last = seen.last().unwrap();
    assert_eq!(last["type"], "ask_user_result");
    assert_eq!(last["result"]["cancelled"], true);
}

#[test]
fn a_client_that_goes_away_ends_with_the_connection_lost_result() {
    let (code, seen) = play("project-setup.json", &[], None);
    assert_eq!(code, 5);
    let last = seen.last().unwrap();
    assert_eq!(last["type"], "ask_user_result");
    assert_eq!(last["result"]["connectionLost"], true);
}

#[test]
fn an_invalid_call_ends_with_a_result_that_lists_its_problems() {
    let dir = tempfile::tempdir().unwrap();
    let call = dir.path().join("call.json");
    std::fs::write(
        &call,
        r#"{"questions": [{"question": "Which?", "options": [{"label": "Only one"}]}]}"#,
    )
    .unwrap();
    for tool in [false, true] {
        let mut args = vec!["--rpc", "--call-id", "r2"];
        if tool {
            args.extend(["--output", "tool"]);
        }
        args.push(call.to_str().unwrap());
        let output = run_with_stdin(&args, b"");
        assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
        let seen = lines(&output.stdout);
        assert_eq!(seen.len(), 1, "one line: {seen:?}");
        let line = &seen[0];
        assert_eq!(line["type"], "ask_user_result");
        assert_eq!(line["requestId"], "r2");
        assert_eq!(line["result"]["answered"], false);
        assert_eq!(line["result"]["invalid"], true);
        assert_eq!(line["result"]["answers"], json!([]));
        assert_eq!(
            line["result"]["problems"][0]["path"],
            "/questions/0/options"
        );
        assert!(
            line["result"]["message"]
                .as_str()
                .unwrap()
                .contains("1 option given")
        );
        assert_eq!(
            line["toolOutput"]["isError"],
            if tool { json!(true) } else { Value::Null }
        );
    }
}

#[test]
fn a_sub_agent_ends_with_the_refused_result_and_nothing_asked() {
    let path = example("project-setup.json");
    for args in [
        vec![
            "--rpc",
            "--sub-agent",
            "--call-id",
            "r3",
            path.to_str().unwrap(),
        ],
        vec!["--mode", "embedded", "--sub-agent", path.to_str().unwrap()],
    ] {
        let output = run_with_stdin(&args, b"");
        assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
        let seen = lines(&output.stdout);
        assert_eq!(seen.len(), 1, "no request, one result: {seen:?}");
        assert_eq!(seen[0]["type"], "ask_user_result");
        assert_eq!(seen[0]["result"]["refused"], true);
        assert_eq!(
            seen[0]["result"]["message"],
            "ask_user is only available to the parent conversation; sub-agents cannot ask the user questions"
        );
    }
}

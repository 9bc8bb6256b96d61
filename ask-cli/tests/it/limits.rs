//! Bounded resources: inputs past the size cap are refused early, long lists are refused by
//! their count, and a flood of bad RPC lines ends with every reply written.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::process::Stdio;

use common::{ask_user, example, run_with_stdin, stderr};
use serde_json::Value;

#[test]
fn an_endless_file_is_refused_at_the_cap() {
    let output = ask_user()
        .args(["validate", "/dev/zero"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output),
        "ask-user: `/dev/zero` is longer than 16777216 bytes, the most one input may hold; \
         nothing was asked (raise the cap with --max-input-bytes BYTES)\n"
    );
    assert!(output.stdout.is_empty());
}

#[test]
fn an_endless_stdin_is_refused_at_the_cap() {
    let zero = std::fs::File::open("/dev/zero").unwrap();
    let output = ask_user().args(["-p", "-"]).stdin(zero).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("stdin is longer than 16777216 bytes"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn the_cap_can_be_lowered_and_raised() {
    let call = example("project-setup.json");
    let size = std::fs::metadata(&call).unwrap().len();
    let low = ask_user()
        .args(["validate", "--max-input-bytes", &(size - 1).to_string()])
        .arg(&call)
        .output()
        .unwrap();
    assert_eq!(low.status.code(), Some(2), "{}", stderr(&low));
    let exact = ask_user()
        .args(["validate", "--max-input-bytes", &size.to_string()])
        .arg(&call)
        .output()
        .unwrap();
    assert_eq!(exact.status.code(), Some(0), "{}", stderr(&exact));
}

#[test]
fn an_mcp_message_past_the_cap_ends_the_server_with_exit_2() {
    let line = format!("{{\"jsonrpc\":\"2.0\",\"x\":\"{}\"}}\n", "a".repeat(300));
    let output = run_with_stdin(&["mcp", "--max-input-bytes", "100"], line.as_bytes());
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("a message from the MCP client is longer than 100 bytes"),
        "{}",
        stderr(&output)
    );
    assert!(output.stdout.is_empty());
}

#[test]
fn a_hundred_thousand_repeated_labels_list_a_hundred_problems() {
    let options: Vec<Value> = (0..100_000)
        .map(|_| serde_json::json!({"label": "Same"}))
        .collect();
    let call = serde_json::json!({"questions": [{"question": "Pick?", "options": options}]});
    let output = run_with_stdin(&["validate"], call.to_string().as_bytes());
    assert_eq!(output.status.code(), Some(2));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let problems = report["problems"].as_array().unwrap();
    assert_eq!(problems.len(), 101);
    assert_eq!(
        problems[100]["message"],
        "and 99900 more problems, not listed; fix the ones above and check the call again"
    );
}

/// A flood of garbage lines: each gets its `error` line (none is dropped), the ask still ends
/// as connection lost when the input ends, and the process exits with 5. Its peak memory is
/// measured by `bench/run.py` (the `rpc flood` row), not here.
#[test]
fn a_flood_of_bad_rpc_lines_is_answered_line_by_line() {
    let lines = 50_000;
    let output = run_with_stdin(
        &["--rpc", example("project-setup.json").to_str().unwrap()],
        "x\n".repeat(lines).as_bytes(),
    );
    assert_eq!(output.status.code(), Some(5), "{}", stderr(&output));
    let messages: Vec<Value> = output
        .stdout
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect();
    assert_eq!(messages.len(), lines + 4);
    let errors = messages
        .iter()
        .filter(|m| m["type"] == "error" && m["code"] == "invalid_json")
        .count();
    assert_eq!(errors, lines);
    let request = messages
        .iter()
        .position(|m| m["type"] == "ask_user_request")
        .unwrap();
    assert_eq!(messages[request + 1]["state"], "waiting_for_user");
    assert_eq!(messages[lines + 2]["state"], "connection_lost");
    assert_eq!(messages[lines + 3]["type"], "ask_user_result");
    assert_eq!(messages[lines + 3]["result"]["connectionLost"], true);
}

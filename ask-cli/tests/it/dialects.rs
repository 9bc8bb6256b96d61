//! Round trips in each agent's dialect: a call in the agent's shape goes in, the questions wait
//! in the pending file, the person's answers come back, and the result is printed in the
//! agent's own result shape (`--dialect X`). The shapes follow the versions named in
//! `ask-schema/tests/dialects/*.json`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::common::SpawnPiped;

use std::path::Path;
use std::process::Output;

use common::{run_in, stderr, stdout_json};
use serde_json::{Value, json};

/// Writes `call` into `dir` and runs pass 1 in print mode with `--dialect`, then pass 2 with
/// `answers`; returns both outputs.
fn round_trip(dialect: &str, call: &Value, answers: &Value, extra: &[&str]) -> (Output, Output) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("call.json"), call.to_string()).unwrap();
    let first = run(
        dir.path(),
        &["-p", "--dialect", dialect, "call.json"],
        extra,
    );
    assert_eq!(first.status.code(), Some(4), "{}", stderr(&first));
    let answers = answers.to_string();
    let second = run(
        dir.path(),
        &["-p", "--dialect", dialect, "--answers", &answers],
        extra,
    );
    assert_eq!(second.status.code(), Some(0), "{}", stderr(&second));
    (first, second)
}

fn run(dir: &Path, args: &[&str], extra: &[&str]) -> Output {
    let args: Vec<&str> = args.iter().chain(extra).copied().collect();
    run_in(dir, &args)
}

#[test]
fn claude_code_round_trip_is_its_updated_input() {
    let call = json!({"questions": [
        {"question": "Which features?", "header": "Features", "multiSelect": true,
         "options": [{"label": "Auth", "description": "Log in"}, {"label": "Search", "description": "Find"}]},
        {"question": "Which database?", "header": "Database", "multiSelect": false,
         "options": [{"label": "Postgres", "description": "Server"}, {"label": "SQLite", "description": "File"}]}
    ]});
    let (first, second) = round_trip("claude", &call, &json!([["Auth", "Search"], "MySQL"]), &[]);
    let pending = stdout_json(&first);
    assert_eq!(pending["answers"], json!({}));
    assert!(
        pending["pendingFile"]
            .as_str()
            .unwrap()
            .ends_with("pending-questions.json")
    );
    assert!(
        pending["message"]
            .as_str()
            .unwrap()
            .starts_with("Questions pending.")
    );
    let result = stdout_json(&second);
    assert_eq!(
        result["answers"],
        json!({"Which features?": "Auth, Search", "Which database?": "MySQL"})
    );
    // The questions as asked, so an Agent SDK host returns this as `updatedInput`.
    assert_eq!(result["questions"][1]["question"], "Which database?");
    assert_eq!(result["questions"][1]["options"][1]["label"], "SQLite");
}

#[test]
fn claude_code_answers_in_the_input_are_pre_filled() {
    let dir = tempfile::tempdir().unwrap();
    let call = json!({"questions": [
        {"question": "Which features?", "header": "Features", "multiSelect": true,
         "options": [{"label": "Auth", "description": "Log in"}, {"label": "Search", "description": "Find"}]},
        {"question": "Which database?", "header": "Database", "multiSelect": false,
         "options": [{"label": "Postgres", "description": "Server"}, {"label": "SQLite", "description": "File"}]}
    ], "answers": {"Which features?": "Auth, Search", "Which database?": "SQLite"}});
    std::fs::write(dir.path().join("call.json"), call.to_string()).unwrap();
    let first = run_in(dir.path(), &["-p", "call.json"]);
    assert_eq!(first.status.code(), Some(4), "{}", stderr(&first));
    assert!(
        stderr(&first).contains("read as the Claude Code AskUserQuestion shape"),
        "{}",
        stderr(&first)
    );
    // Nothing edited: the pre-filled answers are the person's answers.
    let second = run_in(dir.path(), &["-c", "--dialect", "claude"]);
    assert_eq!(second.status.code(), Some(0), "{}", stderr(&second));
    assert_eq!(
        stdout_json(&second)["answers"],
        json!({"Which features?": "Auth, Search", "Which database?": "SQLite"})
    );
}

#[test]
fn codex_round_trip_is_keyed_by_id() {
    let call = json!({"questions": [
        {"id": "db", "header": "DB", "question": "Which database?", "isOther": false, "isSecret": false,
         "options": [{"label": "Postgres", "description": "Server"}, {"label": "SQLite", "description": "File"}]},
        {"id": "svc_name", "header": "Name", "question": "What is the service called?", "isOther": true, "isSecret": false}
    ]});
    let (first, second) = round_trip("codex", &call, &json!(["sqlite", "order-processor"]), &[]);
    assert!(
        stderr(&first).contains(
            "/questions/0/isOther: `isOther`, a field of an older Codex request_user_input \
             (Codex 0.169 has none), is ignored"
        ),
        "{}",
        stderr(&first)
    );
    assert_eq!(
        stdout_json(&second),
        json!({"answers": {"db": {"answers": ["SQLite"]}, "svc_name": {"answers": ["order-processor"]}}})
    );
}

#[test]
fn opencode_round_trip_is_lists_of_labels_in_question_order() {
    let call = json!({"questions": [
        {"question": "Which features?", "header": "Features", "multiple": true,
         "options": [{"label": "Auth", "description": "Log in"}, {"label": "Search", "description": "Find"}, {"label": "Billing", "description": "Pay"}]},
        {"question": "Which database?", "header": "Database",
         "options": [{"label": "Postgres", "description": "Server"}, {"label": "SQLite", "description": "File"}]}
    ]});
    let (_, second) = round_trip(
        "opencode",
        &call,
        &json!([["Billing", "Auth"], "Postgres"]),
        &[],
    );
    assert_eq!(
        stdout_json(&second),
        json!({"answers": [["Auth", "Billing"], ["Postgres"]]})
    );
}

#[test]
fn gemini_round_trip_is_keyed_by_index() {
    let call = json!({"questions": [
        {"question": "Run the migrations now?", "header": "Migrate", "type": "yesno"},
        {"question": "What is the service called?", "header": "Name", "type": "text", "placeholder": "order-processor"}
    ]});
    let (_, second) = round_trip("gemini", &call, &json!(["yes", "billing"]), &[]);
    assert_eq!(
        stdout_json(&second),
        json!({"answers": {"0": "Yes", "1": "billing"}})
    );
}

#[test]
fn roo_cline_and_simple_round_trips_are_one_answer() {
    let roo = json!({"question": "Implement it now?", "follow_up": [
        {"text": "Yes, implement it now", "mode": "code"}, {"text": "No, just plan it", "mode": "architect"}]});
    let (_, second) = round_trip("roo", &roo, &json!(["No, just plan it"]), &[]);
    assert_eq!(stdout_json(&second), json!({"answer": "No, just plan it"}));
    let cline = json!({"question": "Which package manager?", "options": "[\"npm\", \"pnpm\"]"});
    let (_, second) = round_trip("cline", &cline, &json!(["pnpm"]), &["--output", "tool"]);
    let tool = stdout_json(&second);
    assert_eq!(tool["content"], "<answer>\npnpm\n</answer>");
    assert_eq!(tool["details"], json!({"answer": "pnpm"}));
    let simple = json!({"question": "Should I proceed?", "suggestions": ["Yes", "No"]});
    let (first, second) = round_trip("simple", &simple, &json!(["Not yet"]), &[]);
    assert_eq!(stdout_json(&first)["answer"], Value::Null);
    assert_eq!(stdout_json(&second), json!({"answer": "Not yet"}));
}

#[test]
fn dialect_tool_output_speaks_the_agents_words() {
    let call = json!({"questions": [{"question": "Which database?", "header": "DB", "multiSelect": false,
        "options": [{"label": "Postgres", "description": "Server"}, {"label": "SQLite", "description": "File"}]}]});
    let (first, second) = round_trip("claude", &call, &json!(["SQLite"]), &["--output", "tool"]);
    let pending = stdout_json(&first);
    assert!(
        pending["content"]
            .as_str()
            .unwrap()
            .starts_with("Questions pending.")
    );
    assert_eq!(pending["details"]["answers"], json!({}));
    let tool = stdout_json(&second);
    assert_eq!(
        tool["content"],
        "User has answered your questions: \"Which database?\"=\"SQLite\". You can now continue with the user's answers in mind."
    );
    assert_eq!(tool["isError"], false);
}

#[test]
fn an_auto_detected_call_is_answered_in_the_canonical_shape() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("call.json"),
        r#"{"question": "Should I proceed?", "suggestions": ["Yes", "No"]}"#,
    )
    .unwrap();
    let first = run_in(dir.path(), &["-p", "call.json"]);
    assert_eq!(first.status.code(), Some(4), "{}", stderr(&first));
    let second = run_in(dir.path(), &["-p", "--answers", r#"["yes"]"#]);
    let result = stdout_json(&second);
    assert_eq!(result["answered"], true);
    assert_eq!(result["answers"][0]["question"], "Should I proceed?");
    assert_eq!(result["answers"][0]["answer"], "Yes");
}

#[test]
fn validate_reports_the_dialect_and_each_lenient_form() {
    let dir = tempfile::tempdir().unwrap();
    let call = r#"{"questions": "[{\"question\": \"Which database?\", \"options\": [\"Postgres\", \"SQLite\"]}]"}"#;
    std::fs::write(dir.path().join("call.json"), call).unwrap();
    let output = run_in(dir.path(), &["validate", "call.json"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let report = stdout_json(&output);
    assert_eq!(report["dialect"], "canonical");
    let paths: Vec<&str> = report["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        paths,
        [
            "/questions",
            "/questions/0/options/0",
            "/questions/0/options/1"
        ]
    );
    assert!(
        stderr(&output)
            .contains("warning: /questions/0/options/1: an option given as a plain string")
    );
    // --strict takes only the canonical shape.
    let strict = run_in(dir.path(), &["validate", "--strict", "call.json"]);
    assert_eq!(strict.status.code(), Some(2));
    assert_eq!(
        stdout_json(&strict)["problems"][0]["path"],
        "/questions",
        "{}",
        stderr(&strict)
    );
    // ... unless --dialect names another.
    std::fs::write(
        dir.path().join("roo.json"),
        r#"{"question": "Which?", "follow_up": [{"text": "A"}, {"text": "B"}]}"#,
    )
    .unwrap();
    let named = run_in(
        dir.path(),
        &["validate", "--strict", "--dialect", "roo", "roo.json"],
    );
    assert_eq!(named.status.code(), Some(0), "{}", stderr(&named));
    let refused = run_in(dir.path(), &["validate", "--strict", "roo.json"]);
    assert_eq!(refused.status.code(), Some(2));
}

#[test]
fn a_dialect_problem_names_the_callers_path_in_the_ask_command() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("call.json"),
        r#"{"question": "Which?", "follow_up": [{"text": "A"}, {"text": "Other"}]}"#,
    )
    .unwrap();
    let output = run_in(dir.path(), &["-p", "--output", "tool", "call.json"]);
    assert_eq!(output.status.code(), Some(2));
    let tool = stdout_json(&output);
    assert!(
        tool["content"]
            .as_str()
            .unwrap()
            .contains("/follow_up/1/text: this label reads as \"Other\""),
        "{tool}"
    );
    assert!(!dir.path().join(".pi/pending-questions.json").exists());
}

#[test]
fn rpc_result_carries_the_lenient_forms_in_its_details() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("call.json"),
        r#"{"questions": [{"question": "Which?", "options": ["A", "B"]}]}"#,
    )
    .unwrap();
    let mut child = common::ask_user()
        .args(["--rpc", "call.json"])
        .current_dir(dir.path())
        .spawn_piped();
    let mut stdin = child.stdin.take().unwrap();
    std::io::Write::write_all(
        &mut stdin,
        b"{\"type\": \"ask_user_cancel\", \"requestId\": \"ask-1\"}\n",
    )
    .unwrap();
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(130), "{}", stderr(&output));
    let text = String::from_utf8(output.stdout).unwrap();
    let last: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(last["type"], "ask_user_result");
    assert_eq!(last["result"]["cancelled"], true);
    let paths: Vec<&str> = last["details"]["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["/questions/0/options/0", "/questions/0/options/1"]);
}

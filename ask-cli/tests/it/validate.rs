//! `ask-user validate` and `ask-user schema` as a script sees them: stdout, stderr, exit code.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use common::stdout_json;

fn bin() -> Command {
    common::ask_user()
}

fn examples() -> PathBuf {
    common::example("")
}

fn run(args: &[&str]) -> Output {
    bin()
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("the binary runs")
}

#[test]
fn valid_examples_exit_zero() {
    for name in ["project-setup.json", "features.json", "tool-call.json"] {
        let output = run(&["validate", examples().join(name).to_str().unwrap()]);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{name}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert_eq!(stdout_json(&output)["valid"], true);
        assert!(output.stderr.is_empty());
    }
}

#[test]
fn envelope_reports_its_call_id() {
    let output = run(&[
        "validate",
        examples().join("tool-call.json").to_str().unwrap(),
    ]);
    assert_eq!(
        stdout_json(&output),
        serde_json::json!({"valid": true, "dialect": "canonical", "questions": 1, "callId": "toolu_01A09q90qw90lq917835lq9"})
    );
}

#[test]
fn long_list_needs_max_options() {
    let path = examples().join("frameworks.json");
    let refused = run(&["validate", path.to_str().unwrap()]);
    assert_eq!(refused.status.code(), Some(2));
    let accepted = run(&["validate", "--max-options", "8", path.to_str().unwrap()]);
    assert_eq!(accepted.status.code(), Some(0));
}

/// Each invalid example: exit 2, the problem on stdout as JSON and on stderr as a sentence.
#[track_caller]
fn check_invalid(name: &str, path: &str, message: &str) {
    let output = run(&[
        "validate",
        examples().join("invalid").join(name).to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(2), "{name}");
    let report = stdout_json(&output);
    assert_eq!(report["valid"], false);
    assert_eq!(report["problems"][0]["path"], path, "{name}: {report}");
    assert_eq!(
        report["problems"][0]["message"], message,
        "{name}: {report}"
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains(message), "{name}: {stderr}");
}

#[test]
fn invalid_examples() {
    check_invalid(
        "not-json.json",
        "",
        "not valid JSON at line 1, column 85: trailing comma",
    );
    check_invalid(
        "no-questions.json",
        "/questions",
        "no questions given; give at least 1",
    );
    check_invalid(
        "too-many-questions.json",
        "/questions",
        "5 questions given; give 1 to 4, and ask the rest in a later call (a host that wants more raises the limit with `--max-questions 5`)",
    );
    check_invalid(
        "one-option.json",
        "/questions/0/options",
        "1 option given; give 2 to 4, or omit options for a free-text question",
    );
    check_invalid(
        "too-many-options.json",
        "/questions/0/options",
        "5 options given; give 2 to 4 (the person can always type another answer through \"Other\"; a host that wants more raises the limit with `--max-options 5`)",
    );
    check_invalid(
        "unknown-field.json",
        "/questions/0/choices",
        "unknown field `choices`; did you mean `options`? The fields allowed here are `question`, `header`, `options`, `multiSelect`, `kind`, `placeholder`, `secret` and `id`",
    );
    check_invalid(
        "missing-question.json",
        "/questions/0",
        "missing required field `question`",
    );
    check_invalid(
        "wrong-type.json",
        "/questions/0/options/0/label",
        "expected a string, found a number",
    );
    check_invalid(
        "empty-question.json",
        "/questions/0/question",
        "the question is empty; write some text",
    );
    check_invalid(
        "duplicate-question.json",
        "/questions/1/question",
        "this question repeats question 0; answers are keyed by the question text, so make each one unique",
    );
    check_invalid(
        "duplicate-label.json",
        "/questions/0/options/1/label",
        "this label repeats option 0 (labels are compared ignoring case and runs of spaces); make each label distinct",
    );
    check_invalid(
        "other-label.json",
        "/questions/0/options/1/label",
        "this label reads as \"Other\"; remove this option: the person always gets an \"Other\" choice to type their own answer, and a multi-select question also a \"None of these\" choice",
    );
    check_invalid(
        "multi-select-without-options.json",
        "/questions/0/multiSelect",
        "multiSelect is true but the question has no options; add options or set multiSelect to false",
    );
    check_invalid(
        "control-character.json",
        "/questions/0/question",
        "the question contains the control character U+001B (ESC) at character 15; remove it (only newline and tab are allowed)",
    );
    check_invalid(
        "long-header.json",
        "/questions/0/header",
        "the header is 66 characters long; shorten it to 60 (12 or fewer reads best)",
    );
    check_invalid(
        "large-metadata.json",
        "/metadata",
        "metadata is 20011 bytes of JSON; keep it to 16384 bytes (it is for tracking, not for content)",
    );
    check_invalid(
        "wrong-tool.json",
        "/name",
        "the tool call is for `run_shell`, not `ask_user`",
    );
}

#[test]
fn every_invalid_example_is_covered() {
    let count = std::fs::read_dir(examples().join("invalid"))
        .unwrap()
        .count();
    assert_eq!(count, 17, "add a check_invalid line for the new example");
}

#[test]
fn validate_reads_stdin() {
    let output =
        common::run_with_stdin(&["validate"], br#"{"questions": [{"question": "Name?"}]}"#);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        stdout_json(&output),
        serde_json::json!({"valid": true, "dialect": "canonical", "questions": 1})
    );
}

#[test]
fn missing_file_is_a_usage_error() {
    let output = run(&["validate", "/nonexistent/call.json"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("cannot read `/nonexistent/call.json`"),
        "{stderr}"
    );
}

#[test]
fn schema_formats() {
    let output = run(&["schema"]);
    assert_eq!(output.status.code(), Some(0));
    let checked_in =
        std::fs::read_to_string(examples().join("../schema/input.schema.json")).unwrap();
    assert_eq!(String::from_utf8_lossy(&output.stdout), checked_in);
    let anthropic = stdout_json(&run(&["schema", "--format", "anthropic"]));
    assert_eq!(anthropic["name"], "ask_user");
    let openai = stdout_json(&run(&[
        "schema",
        "--format",
        "openai",
        "--max-options",
        "8",
    ]));
    assert_eq!(
        openai["function"]["parameters"]["properties"]["questions"]["items"]["properties"]["options"]
            ["maxItems"],
        8
    );
    let bad = run(&["schema", "--format", "yaml"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(bad.stdout.is_empty());
}

#[test]
fn a_byte_order_mark_before_the_json_is_ignored() {
    let call = std::fs::read(examples().join("project-setup.json")).unwrap();
    let with_bom = [b"\xef\xbb\xbf".as_slice(), &call].concat();
    let output = common::run_with_stdin(&["validate", "-"], &with_bom);
    assert_eq!(output.status.code(), Some(0), "{}", common::stderr(&output));
    assert_eq!(stdout_json(&output)["valid"], true);
}

#[test]
fn openai_chat_completions_tool_calls_are_read() {
    let call = std::fs::read_to_string(examples().join("project-setup.json")).unwrap();
    let envelope = serde_json::json!({"id": "call_abc", "type": "function",
        "function": {"name": "ask_user", "arguments": call}});
    let output = common::run_with_stdin(&["validate", "-"], envelope.to_string().as_bytes());
    assert_eq!(output.status.code(), Some(0), "{}", common::stderr(&output));
    assert_eq!(
        stdout_json(&output),
        serde_json::json!({"valid": true, "dialect": "canonical", "questions": 2, "callId": "call_abc"})
    );
}

#[test]
fn a_usage_error_never_echoes_control_characters() {
    let output = run(&["--mode", "x\u{1b}]0;pwned\u{7}"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = common::stderr(&output);
    assert!(stderr.contains("invalid value 'x^[]0;pwned^G'"), "{stderr}");
    assert!(!stderr.contains('\u{1b}') && !stderr.contains('\u{7}'));
}

/// The mistakes models make most (a bare list of questions, one question not wrapped in
/// `questions`, options as plain strings, an empty header) are answered with the shape to write,
/// under the same heading in `validate` and in the ask command.
#[test]
fn common_shape_mistakes_show_the_expected_shape() {
    for (call, message) in [
        (
            r#"[{"question": "A?"}]"#,
            r#"(root): expected an object, found an array; write it as {"questions": [ … ]}"#,
        ),
        (
            r#"{"question": "A?"}"#,
            r#"(root): missing required field `questions`; the call is an object holding the list of questions: {"questions": [{"question": "…", "options": [ … ]}]}"#,
        ),
        (
            r#"{"questions": [{"question": "A?", "options": ["x", "y"]}]}"#,
            r#"/questions/0/options/0: expected an object, found a string; write it as {"label": "…", "description": "…"}"#,
        ),
        (
            r#"{"questions": [{"question": "A?", "header": ""}]}"#,
            "/questions/0/header: the header is empty; write some text, or leave the header out",
        ),
    ] {
        // Without --strict the first three are read as lenient forms, with warnings (tested
        // with the dialects); --strict keeps to the canonical shape and shows it.
        let validated = common::run_with_stdin(&["validate", "--strict"], call.as_bytes());
        let asked = common::run_with_stdin(
            &["-p", "--strict", "--pending-file", "/nonexistent/p.json"],
            call.as_bytes(),
        );
        for output in [&validated, &asked] {
            assert_eq!(output.status.code(), Some(2), "{call}");
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert!(stderr.contains(message), "{call}: {stderr}");
            assert!(
                stderr.starts_with("ask-user: the call is invalid ("),
                "{call}: {stderr}"
            );
        }
    }
}

#[test]
fn empty_input_is_named_as_empty() {
    for input in [&b""[..], b"\n  \n"] {
        let output = common::run_with_stdin(&["validate"], input);
        assert_eq!(output.status.code(), Some(2));
        let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(report["problems"][0]["path"], "");
        let message = report["problems"][0]["message"].as_str().unwrap();
        assert!(
            message.starts_with("the input is empty; give the ask_user call as JSON"),
            "{message}"
        );
    }
}

#[test]
fn via_without_an_inbox_says_how_to_start_one() {
    // A port nothing listens on: bind one, then let it go.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}");
    let output = common::ask_user()
        .args([
            "--via",
            &url,
            common::example("features.json").to_str().unwrap(),
        ])
        .env("ASK_USER_VIA_TOKEN", "t")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_ne!(output.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("start one with `ask-user serve`"),
        "{stderr}"
    );
}

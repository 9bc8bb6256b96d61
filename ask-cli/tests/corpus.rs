//! The hostile-input corpus: every entry gets a clear validation error or is accepted as safe to
//! show. Small entries live in `tests/corpus/` with their expected outcome in
//! `tests/corpus/expected.json`; huge ones are generated here.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus")
}

fn validate(bytes: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ask-user"))
        .arg("validate")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let bytes = bytes.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&bytes);
    });
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap();
    output
}

/// Checks one entry: a valid one exits 0; an invalid one exits 2 with its first problem at
/// `path` saying `message`. Either way the process ends normally (no crash, no signal).
#[track_caller]
fn check(name: &str, bytes: &[u8], expected: &Value) {
    let output = validate(bytes);
    let code = output.status.code();
    assert!(code.is_some(), "{name}: killed by a signal");
    let report: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{name}: stdout is not JSON ({e})"));
    if expected["valid"] == true {
        assert_eq!(code, Some(0), "{name}: {report}");
        return;
    }
    assert_eq!(code, Some(2), "{name}: {report}");
    let problem = &report["problems"][0];
    assert_eq!(problem["path"], expected["path"], "{name}: {report}");
    assert_eq!(problem["message"], expected["message"], "{name}: {report}");
    // The message on stderr never carries the hostile bytes themselves.
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !stderr.contains('\u{1b}') && !stderr.contains('\u{202e}'),
        "{name}: {stderr:?}"
    );
}

#[test]
fn every_corpus_entry_has_its_expected_outcome() {
    let expected: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(corpus().join("expected.json")).unwrap())
            .unwrap();
    let files = std::fs::read_dir(corpus()).unwrap().count() - 1;
    assert_eq!(
        files,
        expected.len(),
        "every file in tests/corpus has an entry in expected.json"
    );
    for case in &expected {
        let name = case["name"].as_str().unwrap();
        let bytes = std::fs::read(corpus().join(format!("{name}.json"))).unwrap();
        check(name, &bytes, case);
    }
}

#[test]
fn a_ten_megabyte_question() {
    let call = json!({"questions": [{"question": "x".repeat(10 * 1024 * 1024)}]});
    check(
        "10 MB question",
        call.to_string().as_bytes(),
        &json!({"valid": false, "path": "/questions/0/question",
                "message": "the question is 10485760 characters long; shorten it to 1000"}),
    );
}

#[test]
fn ten_thousand_options() {
    let options: Vec<Value> = (0..10_000)
        .map(|i| json!({"label": format!("Option {i}")}))
        .collect();
    let call = json!({"questions": [{"question": "Which?", "options": options}]});
    check(
        "10,000 options",
        call.to_string().as_bytes(),
        &json!({"valid": false, "path": "/questions/0/options",
                "message": "10000 options given; give 2 to 4 (the person can always type another answer through \"Other\")"}),
    );
}

#[test]
fn nesting_ten_thousand_deep() {
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let call =
        format!(r#"{{"questions": [{{"question": "Q?"}}], "metadata": {{"deep": {deep}}}}}"#);
    check(
        "nesting 10,000 deep",
        call.as_bytes(),
        &json!({"valid": false, "path": "",
                "message": "not valid JSON at line 1, column 183: recursion limit exceeded"}),
    );
}

#[test]
fn a_closed_stdout_is_a_clean_exit() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ask-user"))
        .args(["schema", "--format", "mcp"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The reader goes away before reading anything.
    drop(child.stdout.take());
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert!(
        output.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

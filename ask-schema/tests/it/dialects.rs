//! The corpus of calls per dialect (`tests/dialects/*.json`), shaped after each agent's published
//! tool definition (the file's `source` names the version), with their typical mistakes: each
//! call is read and its outcome compared with the one written beside it (`expect`: the dialect
//! read, the number of questions, the warnings and pre-filled answers; or every problem with its
//! path in the caller's shape).
//!
//! A call marked `native` is valid against the agent's own descriptor (`schema --format
//! <dialect>`), and is accepted. After a deliberate change, `ASK_USER_BLESS=1 cargo test -p
//! ask-schema --test it dialects::` rewrites the expectations; review the diff before committing.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use ask_core::{AnswerValue, Limits, RaisedWith};
use ask_schema::testing::{dialect_descriptor, read_value};
use ask_schema::{Dialect, ReadOptions, read_call};
use serde_json::{Value, json};

/// The limits a call is read with: the defaults, raised with the binary's flags, whose names the
/// expected problems carry.
fn limits() -> Limits {
    Limits::default().raised_with(RaisedWith {
        questions: "--max-questions",
        options: "--max-options",
    })
}

fn outcome(case: &Value, dialect: Dialect) -> Value {
    let options = ReadOptions {
        dialect: case["named"].as_bool().unwrap_or(false).then_some(dialect),
        strict: case["strict"].as_bool().unwrap_or(false),
    };
    let text = serde_json::to_string(&case["input"]).unwrap();
    let read = read_call(&text, options, &limits());
    if !options.strict {
        // The value path (which names problems, and reads RPC and MCP values) agrees with the
        // text path, whose valid agent calls take a typed fast path.
        let by_value = read_value(&case["input"], options, &limits());
        assert_eq!(
            summary(by_value),
            summary(read_call(&text, options, &limits())),
            "{text}"
        );
    }
    summary(read)
}

fn summary(read: Result<ask_schema::DialectCall, ask_core::Problems>) -> Value {
    match read {
        Ok(read) => {
            let mut out = json!({
                "dialect": read.dialect.name(),
                "questions": read.call.input.questions.len(),
            });
            if !read.warnings.is_empty() {
                out["warnings"] = read.warnings.iter().map(ToString::to_string).collect();
            }
            if !read.given.is_empty() {
                out["given"] = read
                    .given
                    .iter()
                    .map(|a| match a.as_ref().map(|a| &a.answer) {
                        None => Value::Null,
                        Some(AnswerValue::Text(t)) => json!(t),
                        Some(AnswerValue::Choices(c)) => json!(c),
                    })
                    .collect();
            }
            if let Some(id) = read.call.call_id {
                out["callId"] = json!(id);
            }
            out
        }
        Err(problems) => json!({
            "problems": problems.iter().map(ToString::to_string).collect::<Vec<_>>(),
        }),
    }
}

#[test]
fn corpus_of_each_dialect() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/dialects");
    let bless = std::env::var_os("ASK_USER_BLESS").is_some();
    let mut failures = Vec::new();
    let mut seen = Vec::new();
    for dialect in Dialect::ALL {
        let path = dir.join(format!("{}.json", dialect.name()));
        let text = std::fs::read_to_string(&path).expect("a corpus file per dialect");
        let mut corpus: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(corpus["dialect"], dialect.name());
        let cases = corpus["cases"].as_array_mut().unwrap();
        assert!(cases.len() >= 10, "{}: {} calls", dialect, cases.len());
        let descriptor = dialect_descriptor(dialect, &Limits::default());
        let schema = descriptor
            .get("input_schema")
            .or_else(|| descriptor.get("parameters"))
            .unwrap()
            .clone();
        let validator = jsonschema::validator_for(&schema).unwrap();
        for case in cases.iter_mut() {
            let name = format!("{dialect}: {}", case["name"].as_str().unwrap());
            let got = outcome(case, dialect);
            if case["native"] == true {
                let errors: Vec<String> = validator
                    .iter_errors(&case["input"])
                    .map(|e| e.to_string())
                    .collect();
                assert!(
                    errors.is_empty(),
                    "{name}: not valid against the descriptor: {errors:?}"
                );
                if !bless {
                    assert!(got.get("problems").is_none(), "{name}: refused: {got}");
                }
            }
            if bless {
                case["expect"] = got.clone();
            } else if case["expect"] != got {
                failures.push(format!(
                    "{name}\n  expected {}\n  got      {got}",
                    case["expect"]
                ));
            }
            seen.push(got);
        }
        if bless {
            std::fs::write(&path, serde_json::to_string_pretty(&corpus).unwrap() + "\n").unwrap();
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Every dialect is both accepted and refused somewhere in the corpus.
    assert!(seen.iter().any(|o| o.get("problems").is_some()));
}

//! Property tests: every valid call survives serialise → parse unchanged, and the JSON Schema
//! accepts every call the fast path accepts.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use ask_core::{AskUserInput, Limits, Question, QuestionOption};
use proptest::prelude::*;
use serde_json::Value;

/// Printable text of 1 to `max` characters, including non-ASCII, newlines and tabs inside.
fn text(max: usize) -> impl Strategy<Value = String> {
    printable(max, true)
}

/// Like [`text`] without line breaks: headers and labels are one line.
fn line(max: usize) -> impl Strategy<Value = String> {
    printable(max, false)
}

fn printable(max: usize, newlines: bool) -> impl Strategy<Value = String> {
    proptest::string::string_regex(&format!("[a-zA-Z0-9 éß世界🎉?!.,'\"\\\\/-]{{0,{max}}}"))
        .expect("valid regex")
        .prop_flat_map(move |s| {
            let broken = if newlines {
                format!("{s}\nline")
            } else {
                format!("{s} line")
            };
            prop_oneof![Just(s.clone()), Just(broken), Just(format!("{s}\tcol"))]
        })
        .prop_map(|s| format!("x{s}"))
}

fn option() -> impl Strategy<Value = QuestionOption> {
    (
        line(30),
        proptest::option::of(text(60)),
        proptest::option::of(text(200)),
    )
        .prop_map(|(label, description, preview)| QuestionOption {
            label,
            description,
            preview,
        })
}

fn question() -> impl Strategy<Value = Question> {
    (
        text(80),
        proptest::option::of(line(11)),
        proptest::option::of(proptest::collection::vec(option(), 2..=4)),
        any::<bool>(),
        proptest::option::of(line(40)),
        any::<bool>(),
    )
        .prop_map(
            |(question, header, options, multi, placeholder, secret)| Question {
                question,
                header,
                multi_select: multi && options.is_some(),
                options,
                placeholder,
                secret,
                ..Question::default()
            },
        )
}

/// A valid call: question texts and labels are made unique by numbering them.
fn call() -> impl Strategy<Value = AskUserInput> {
    (proptest::collection::vec(question(), 1..=4), any::<bool>()).prop_map(
        |(mut questions, meta)| {
            for (i, q) in questions.iter_mut().enumerate() {
                q.question = format!("{i}. {}", q.question);
                q.id = (i % 2 == 0).then(|| format!("q_{i}"));
                if let Some(options) = &mut q.options {
                    for (j, o) in options.iter_mut().enumerate() {
                        o.label = format!("{j} {}", o.label);
                    }
                }
            }
            let metadata = meta.then(|| {
                serde_json::json!({"source": "proptest", "n": 1})
                    .as_object()
                    .cloned()
                    .unwrap_or_default()
            });
            AskUserInput {
                questions,
                metadata,
            }
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn valid_calls_round_trip(input in call()) {
        let text = serde_json::to_string(&input).unwrap();
        let parsed = ask_schema::parse(text.as_str(), &Limits::default());
        prop_assert!(parsed.is_ok(), "{text}\n{:?}", parsed.err());
        prop_assert_eq!(&parsed.unwrap().into_inner(), &input);
        let value: Value = serde_json::from_str(&text).unwrap();
        prop_assert_eq!(&ask_schema::parse(&value, &Limits::default()).unwrap().into_inner(), &input);
    }

    #[test]
    fn schema_accepts_what_the_fast_path_accepts(input in call()) {
        let schema = ask_schema::input_schema(&Limits::default());
        let validator = jsonschema::validator_for(&schema).unwrap();
        let value = serde_json::to_value(&input).unwrap();
        let errors: Vec<String> = validator.iter_errors(&value).map(|e| e.to_string()).collect();
        prop_assert!(errors.is_empty(), "{errors:?}");
    }

    #[test]
    fn garbage_never_panics(text in "\\PC{0,200}") {
        let _ = ask_schema::parse(text.as_str(), &Limits::default());
        let _ = ask_schema::parse_call(text.as_str(), &Limits::default());
    }

    #[test]
    fn mangled_calls_report_problems_not_panics(input in call(), cut in 0usize..400) {
        // Cut a valid call short: the result is an error with at least one problem, never a panic.
        let text = serde_json::to_string(&input).unwrap();
        let cut = text.char_indices().map(|(i, _)| i).take_while(|i| *i <= cut).last().unwrap_or(0);
        if cut < text.len() {
            let err = ask_schema::parse(&text[..cut], &Limits::default()).unwrap_err();
            prop_assert!(!err.is_empty());
        }
    }
}

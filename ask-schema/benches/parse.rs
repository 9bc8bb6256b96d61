//! Raw JSON → validated input. Run with `cargo bench -p ask-schema`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use ask_core::Limits;

fn main() {
    divan::main();
}

/// A 4-question call with 4 options each, with descriptions and headers.
fn four_by_four() -> String {
    let question = |i: usize| {
        let options: Vec<_> = (0..4)
            .map(|j| {
                serde_json::json!({
                    "label": format!("Option {j} for question {i}{}", if j == 0 { " (Recommended)" } else { "" }),
                    "description": "A sentence that explains what this choice implies for the project."
                })
            })
            .collect();
        serde_json::json!({
            "question": format!("Which approach should we take for part {i} of the project?"),
            "header": format!("Part {i}"),
            "options": options,
            "multiSelect": i % 2 == 1,
        })
    };
    serde_json::json!({
        "questions": (0..4).map(question).collect::<Vec<_>>(),
        "metadata": {"source": "bench"}
    })
    .to_string()
}

#[divan::bench]
fn parse_valid_4x4(bencher: divan::Bencher<'_, '_>) {
    let text = four_by_four();
    let limits = Limits::default();
    bencher.bench(|| ask_schema::parse(divan::black_box(text.as_str()), &limits));
}

/// The same call in French with Japanese headers: every label holds a non-ASCII character, so
/// the look-alike check (NFKC and confusable skeletons) runs for every option.
#[divan::bench]
fn parse_valid_4x4_non_ascii(bencher: divan::Bencher<'_, '_>) {
    let text = four_by_four()
        .replace("Option ", "Réponse ")
        .replace("Which approach", "Quelle façon")
        .replace("Part ", "部分 ");
    let limits = Limits::default();
    assert!(ask_schema::parse(&text, &limits).is_ok());
    bencher.bench(|| ask_schema::parse(divan::black_box(text.as_str()), &limits));
}

/// The 4 × 4 call in each agent's dialect, read with the dialect detected (the canonical reading
/// fails first, then the input is converted and parsed). Roo Code, Cline and the simplified form
/// hold one question, so theirs is one question of 4 options.
fn in_dialect(dialect: ask_schema::Dialect) -> String {
    use ask_schema::Dialect;
    let canonical: serde_json::Value = serde_json::from_str(&four_by_four()).unwrap();
    let mut questions = canonical["questions"].as_array().unwrap().clone();
    let labels = |q: &serde_json::Value| -> Vec<serde_json::Value> {
        q["options"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["label"].clone())
            .collect()
    };
    let call = match dialect {
        Dialect::Canonical | Dialect::Claude => {
            serde_json::json!({"questions": questions, "answers": {}})
        }
        Dialect::Codex => {
            for (i, q) in questions.iter_mut().enumerate() {
                let q = q.as_object_mut().unwrap();
                q.remove("multiSelect");
                q.insert("id".into(), format!("part_{i}").into());
                q.insert("isOther".into(), true.into());
                q.insert("isSecret".into(), false.into());
            }
            serde_json::json!({"questions": questions})
        }
        Dialect::OpenCode => {
            for q in &mut questions {
                let q = q.as_object_mut().unwrap();
                let multi = q.remove("multiSelect").unwrap();
                q.insert("multiple".into(), multi);
            }
            serde_json::json!({"questions": questions})
        }
        Dialect::Gemini => {
            for q in &mut questions {
                q["type"] = "choice".into();
            }
            serde_json::json!({"questions": questions})
        }
        Dialect::Roo => {
            let follow_up: Vec<_> = labels(&questions[0])
                .into_iter()
                .map(|text| serde_json::json!({"text": text, "mode": null}))
                .collect();
            serde_json::json!({"question": questions[0]["question"], "follow_up": follow_up})
        }
        Dialect::Cline => {
            serde_json::json!({"question": questions[0]["question"], "options": labels(&questions[0])})
        }
        Dialect::Simple => {
            serde_json::json!({"question": questions[0]["question"], "suggestions": labels(&questions[0])})
        }
    };
    call.to_string()
}

/// Reading the 4 × 4 call of each dialect (detected, converted, validated).
#[divan::bench(args = ["claude", "codex", "opencode", "gemini", "roo", "cline", "simple"])]
fn parse_dialect_4x4(bencher: divan::Bencher<'_, '_>, name: &str) {
    let dialect = ask_schema::Dialect::from_name(name).unwrap();
    let text = in_dialect(dialect);
    let limits = Limits::default();
    let options = ask_schema::ReadOptions::default();
    let read = ask_schema::read_call(&text, options, &limits).unwrap();
    assert_eq!(read.dialect, dialect, "{text}");
    bencher.bench(|| ask_schema::read_call(divan::black_box(text.as_str()), options, &limits));
}

#[divan::bench]
fn parse_invalid_after_warm_up(bencher: divan::Bencher<'_, '_>) {
    let text = four_by_four().replace("\"header\"", "\"heading\"");
    let limits = Limits::default();
    ask_schema::testing::warm_up(&limits);
    bencher.bench(|| ask_schema::parse(divan::black_box(text.as_str()), &limits));
}

#[divan::bench(sample_count = 20)]
fn build_schema_validator() -> jsonschema::Validator {
    let schema = ask_schema::input_schema(&Limits::default());
    jsonschema::validator_for(&schema).expect("the schema compiles")
}

/// A call with 100,000 options (the default limit is 4): refused by its count, with every check
/// linear in the size of the call.
#[divan::bench(sample_count = 20)]
fn refuse_100k_options(bencher: divan::Bencher<'_, '_>) {
    let options: Vec<_> = (0..100_000)
        .map(|i| serde_json::json!({"label": format!("Option {i}")}))
        .collect();
    let text = serde_json::json!({"questions": [{"question": "Which one?", "options": options}]})
        .to_string();
    let limits = Limits::default();
    bencher.bench(|| {
        let refused = ask_schema::parse(divan::black_box(text.as_str()), &limits);
        assert!(refused.is_err());
    });
}

/// The same with one label repeated 100,000 times: 100 problems listed, the rest counted.
#[divan::bench(sample_count = 20)]
fn refuse_100k_repeated_labels(bencher: divan::Bencher<'_, '_>) {
    let options: Vec<_> = (0..100_000)
        .map(|_| serde_json::json!({"label": "Same"}))
        .collect();
    let text = serde_json::json!({"questions": [{"question": "Which one?", "options": options}]})
        .to_string();
    let limits = Limits::default();
    bencher.bench(|| {
        let refused = ask_schema::parse(divan::black_box(text.as_str()), &limits);
        assert!(refused.is_err());
    });
}

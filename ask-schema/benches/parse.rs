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

#[divan::bench]
fn parse_invalid_after_warm_up(bencher: divan::Bencher<'_, '_>) {
    let text = four_by_four().replace("\"header\"", "\"heading\"");
    let limits = Limits::default();
    ask_schema::warm_up(&limits);
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

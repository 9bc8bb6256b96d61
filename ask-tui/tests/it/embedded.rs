//! The embedded backend: raw terminal bytes in, SGR-styled frames out, at 80 and 40 columns.
//!
//! Review changes with `cargo insta review` or `cargo xtask snapshots`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use ask_core::{AnswerValue, Outcome};
use ask_tui::{Embedded, Step, Theme};
use common::*;

/// The frame with escapes shown as `\e`, one line per row, for a readable snapshot.
fn shown(embedded: &Embedded) -> String {
    embedded.frame().join("\n").replace('\x1b', "\\e")
}

#[track_caller]
fn answered(step: Step) -> Vec<AnswerValue> {
    match step {
        Step::Ended(Outcome::Answered(answers)) => answers.into_iter().map(|a| a.answer).collect(),
        other => panic!("not answered: {other:?}"),
    }
}

#[test]
fn frames_at_80_and_40_columns_take_only_the_rows_they_need() {
    let mut embedded = Embedded::new(&single(0));
    embedded.resize(80, 30);
    let frame = embedded.frame();
    assert!(frame.len() < 30, "{} rows", frame.len());
    assert_snapshot!("embedded_single_choice_80", shown(&embedded));
    embedded.resize(40, 12);
    assert!(embedded.frame().len() <= 12);
    assert_snapshot!("embedded_single_choice_40", shown(&embedded));
}

#[test]
fn every_line_fits_the_width() {
    for width in [20, 40, 80] {
        let mut embedded = Embedded::new(&demo());
        embedded.resize(width, 20);
        for line in embedded.frame() {
            let text = strip_sgr(&line);
            assert!(
                unicode_width::UnicodeWidthStr::width(text.as_str()) <= usize::from(width),
                "{width}: {text:?}"
            );
        }
    }
}

fn strip_sgr(line: &str) -> String {
    let mut out = String::new();
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            for c in chars.by_ref() {
                if c == 'm' {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[test]
fn arrow_keys_and_enter_as_raw_bytes_answer() {
    let mut embedded = Embedded::new(&single(0));
    assert_eq!(embedded.input(b"\x1b[B"), Step::Continue);
    let answers = answered(embedded.input(b"\r"));
    assert_eq!(answers, [AnswerValue::Text("SQLite".into())]);
}

#[test]
fn enter_with_nothing_ticked_asks_and_y_answers_none_of_these() {
    let mut embedded = Embedded::new(&single(2));
    embedded.resize(80, 20);
    assert_eq!(embedded.input(b"\r"), Step::Continue);
    let frame = embedded.frame().join("\n");
    assert!(frame.contains("None of these? [y/N]"), "{frame}");
    assert_eq!(
        answered(embedded.input(b"y")),
        [AnswerValue::Choices(vec![])]
    );
}

#[test]
fn a_sequence_split_across_inputs_is_one_key() {
    let mut embedded = Embedded::new(&single(0));
    assert_eq!(embedded.input(b"\x1b["), Step::Continue);
    assert_eq!(embedded.input(b"B"), Step::Continue);
    assert_eq!(
        answered(embedded.input(b"\r")),
        [AnswerValue::Text("SQLite".into())]
    );
}

#[test]
fn typed_text_pasted_text_and_split_utf8_reach_the_field() {
    let mut embedded = Embedded::new(&single(0));
    embedded.input(b"0");
    embedded.input(b"caf");
    embedded.input(&[0xc3]);
    embedded.input(&[0xa9]);
    embedded.input(b" \x1b[200~and a paste");
    embedded.input(b"\r\nthat spans inputs\x1b[201~");
    let answers = answered(embedded.input(b"\r"));
    assert_eq!(
        answers,
        [AnswerValue::Text(
            "café and a paste\nthat spans inputs".into()
        )]
    );
}

#[test]
fn ctrl_c_twice_aborts_and_esc_cancels() {
    let mut embedded = Embedded::new(&demo());
    embedded.input(b"1");
    assert_eq!(embedded.input(b"\x03"), Step::Continue);
    assert!(shown(&embedded).contains("Discard 1 answer?"));
    assert_eq!(embedded.input(b"\x03"), Step::Abort);

    let mut embedded = Embedded::new(&single(0));
    assert_eq!(embedded.input(b"\x1b"), Step::Ended(Outcome::Cancelled));
}

#[test]
fn a_host_theme_restyles_each_role_and_bad_values_are_refused() {
    let mut embedded = Embedded::new(&single(0));
    let theme = Theme::new([
        ("accent", "38;5;39"),
        ("success", "38;2;0;200;0"),
        ("dim", "90"),
    ])
    .unwrap();
    embedded.set_theme(theme);
    let frame = embedded.frame().join("\n");
    assert!(
        frame.contains("\x1b[1;38;5;39mPostgreSQL \x1b[0m"),
        "{frame:?}"
    );
    assert!(
        frame.contains("\x1b[1;38;2;0;200;0m(Recommended)\x1b[0m"),
        "{frame:?}"
    );
    assert!(
        frame.contains("\x1b[90mBattle-tested relational DB\x1b[0m"),
        "{frame:?}"
    );
    assert!(!frame.contains("\x1b[2m"), "no default dim left: {frame:?}");

    assert_eq!(
        Theme::new([("accent", "31m\x1b[2J")]).map_err(|e| e.to_string()),
        Err("theme role `accent`: give SGR parameters such as \"38;5;39\" (digits and ;)".into())
    );
    assert!(
        Theme::new([("border", "31")])
            .unwrap_err()
            .to_string()
            .starts_with("unknown theme role `border`")
    );
}

#[test]
fn answers_given_elsewhere_are_shown_as_choices() {
    let input = demo();
    let given = vec![Some(ask_core::Answer::from_text(
        &input.questions[0],
        "SQLite",
    ))];
    let embedded = Embedded::new(&input).with_given(&given);
    let frame = embedded.frame().join("\n");
    assert!(
        frame.contains("■ "),
        "the first question shows as answered: {frame:?}"
    );
}

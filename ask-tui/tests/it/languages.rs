//! The UI in every shipped language: a few screens per language at 80 columns and at 40
//! (where double-width scripts must still fit), the language's yes key, and the built-in
//! "Other" that no option may imitate in any language.
//!
//! English is covered by every other snapshot test.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use ask_core::{AskUserInput, Limits, Outcome, Question};
use ask_tui::{Effect, Lang, Msg, State, update};
use common::*;
use crossterm::event::KeyCode;
use unicode_width::UnicodeWidthStr;

/// Snapshots `state` at 80×24 and at 40×12 as `LANG_NAME_80` and `LANG_NAME_40`, and checks
/// that no row is wider than the terminal.
#[track_caller]
fn check(name: &str, state: &State) {
    let code = state.lang().code();
    for (width, height) in [(80, 24), (40, 12)] {
        let text = screen(state, width, height);
        for row in text.lines() {
            assert!(
                row.width() <= usize::from(width),
                "{code} {name}: a row wider than {width} columns: {row:?}"
            );
        }
        assert_snapshot!(format!("{code}_{name}_{width}"), text);
    }
}

/// The five translated languages.
fn translated() -> impl Iterator<Item = Lang> {
    Lang::ALL.into_iter().filter(|lang| *lang != Lang::En)
}

fn state(input: &AskUserInput, lang: Lang) -> State {
    State::new(input).with_lang(lang)
}

#[test]
fn a_single_question_with_its_other_row_and_help_line() {
    for lang in translated() {
        check("choice", &state(&single(0), lang));
    }
}

#[test]
fn tabs_a_multi_select_and_typed_other_text() {
    for lang in translated() {
        let mut state = state(&demo(), lang);
        keys(
            &mut state,
            &[
                KeyCode::Enter,
                KeyCode::Tab,
                KeyCode::Char('1'),
                KeyCode::Char('0'),
            ],
        );
        type_text(&mut state, "Rate limiting");
        keys(&mut state, &[KeyCode::Enter]);
        check("multi_other", &state);
    }
}

#[test]
fn the_review_with_an_unanswered_question() {
    for lang in translated() {
        let mut state = state(&demo(), lang);
        keys(
            &mut state,
            &[
                KeyCode::Char('2'),
                KeyCode::Tab,
                KeyCode::Char('1'),
                KeyCode::Enter,
            ],
        );
        check("review", &state);
    }
}

#[test]
fn the_discard_confirmation() {
    for lang in translated() {
        let mut state = state(&demo(), lang);
        keys(&mut state, &[KeyCode::Enter, KeyCode::Esc]);
        check("discard", &state);
    }
}

#[test]
fn a_long_list_with_rows_above_and_below() {
    for lang in translated() {
        let mut state = state(&frameworks(), lang);
        keys(&mut state, &[KeyCode::PageDown, KeyCode::Up, KeyCode::Up]);
        check("long_list", &state);
    }
}

#[test]
fn the_long_answer_confirmation() {
    for lang in translated() {
        let mut state = state(&single(1), lang);
        update(&mut state, Msg::Paste("x".repeat(2847)));
        keys(&mut state, &[KeyCode::Enter]);
        check("long_answer", &state);
    }
}

/// Headers and labels in a double-width script beside the UI's own double-width words: the
/// tab bar, the list and the help line still fit at 40 columns.
#[test]
fn double_width_text_fits_beside_double_width_words() {
    let input = AskUserInput {
        questions: vec![
            Question::choice("使用哪个数据库？", ["PostgreSQL（推荐）", "SQLite 轻量级"])
                .with_header("数据库选择"),
            Question::text("服务叫什么名字？").with_header("服务名称"),
        ],
        metadata: None,
    };
    for lang in [Lang::Ja, Lang::Zh] {
        check("double_width", &state(&input, lang));
    }
}

#[test]
fn the_language_yes_key_and_y_both_confirm() {
    for lang in Lang::ALL {
        let yes = lang.text().yes_key;
        for key_char in [yes, yes.to_ascii_uppercase(), 'y'] {
            let mut state = state(&demo(), lang);
            keys(&mut state, &[KeyCode::Enter, KeyCode::Esc]);
            assert!(state.dialog().is_some(), "{lang}: the confirmation opens");
            assert_eq!(
                keys(&mut state, &[KeyCode::Char(key_char)]),
                Effect::Ended(Outcome::Cancelled),
                "{lang}: {key_char:?} confirms the discard"
            );
        }
        // Any other letter neither confirms nor closes it.
        let mut state = state(&demo(), lang);
        keys(
            &mut state,
            &[KeyCode::Enter, KeyCode::Esc, KeyCode::Char('x')],
        );
        assert!(state.dialog().is_some(), "{lang}");
        keys(&mut state, &[KeyCode::Char('n')]);
        assert!(state.dialog().is_none(), "{lang}: n says no");
    }
}

#[test]
fn answers_do_not_depend_on_the_language() {
    let answers = |lang: Lang| {
        let mut state = state(&demo(), lang);
        keys(&mut state, &[KeyCode::Char('2')]);
        type_text(&mut state, "orders");
        keys(&mut state, &[KeyCode::Enter, KeyCode::Char('0')]);
        type_text(&mut state, "Metrics");
        keys(&mut state, &[KeyCode::Enter, KeyCode::Enter]);
        match keys(&mut state, &[KeyCode::Enter]) {
            Effect::Ended(Outcome::Answered(answers)) => answers,
            other => panic!("{lang}: {other:?}"),
        }
    };
    let english = answers(Lang::En);
    assert_eq!(english[2].answer.joined(), "Metrics");
    for lang in translated() {
        assert_eq!(answers(lang), english, "{lang}");
    }
}

/// The words the UI uses for "Other", on its row and as the lead of typed text, are refused
/// as option labels in every shipped language: a model cannot add a second "Other" that the
/// person would take for the built-in one, whatever language the person reads.
#[test]
fn no_option_may_imitate_other_in_any_language() {
    for lang in Lang::ALL {
        let text = lang.text();
        let lead = text
            .other_lead
            .trim_end()
            .trim_end_matches([':', '：'])
            .trim_end();
        for label in [text.other, lead] {
            let input = AskUserInput {
                questions: vec![Question::choice("Which one?", [label, "PostgreSQL"])],
                metadata: None,
            };
            let problems = ask_core::validate(input, &Limits::default())
                .expect_err(&format!("{lang}: {label:?} is refused"));
            assert!(
                problems
                    .iter()
                    .any(|problem| problem.to_string().contains("reads as \"Other\"")),
                "{lang}: {label:?}: {problems:?}"
            );
        }
    }
}

/// A yes/no question shows its two options as validation made them, and the answer is "Yes" or
/// "No" whatever the language of the UI.
#[test]
fn yes_no_answers_are_yes_or_no_in_every_language() {
    let input = ask_core::validate(
        AskUserInput {
            questions: vec![Question::yes_no("Deploy to staging?")],
            metadata: None,
        },
        &Limits::default(),
    )
    .unwrap()
    .input()
    .clone();
    for lang in Lang::ALL {
        for (key, expected) in [(KeyCode::Char('1'), "Yes"), (KeyCode::Char('2'), "No")] {
            let mut state = state(&input, lang);
            match keys(&mut state, &[key]) {
                Effect::Ended(Outcome::Answered(answers)) => {
                    assert_eq!(answers[0].answer.joined(), expected, "{lang}");
                    assert_eq!(
                        answers[0].selected_option.as_deref(),
                        Some(expected),
                        "{lang}"
                    );
                }
                other => panic!("{lang}: {other:?}"),
            }
        }
    }
}

//! The keys of the second round: the `/` filter and select-all.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use ask_core::{Answer, Outcome};
use ask_tui::{Effect, State};
use common::*;
use crossterm::event::KeyCode;

fn answered(effect: Effect) -> Vec<Answer> {
    match effect {
        Effect::Finish(Outcome::Answered(answers)) => answers,
        other => panic!("expected answers, got {other:?}"),
    }
}

const FRAMEWORK: &str = "Which framework should we use?";
const FEATURES: &str = "Which features should we include?";

#[test]
fn slash_filters_case_insensitively_and_enter_picks_the_match() {
    let mut state = State::new(&frameworks());
    keys(&mut state, &[KeyCode::Char('/')]);
    assert!(state.is_filtering());
    type_text(&mut state, "JS");
    // Express.js, NestJS, AdonisJS, Sails.js, then Other.
    assert_eq!(state.visible_rows(), [0, 4, 6, 7, 8]);
    let answers = answered(keys(&mut state, &[KeyCode::Down, KeyCode::Enter]));
    assert_eq!(answers, [Answer::selected(FRAMEWORK, "NestJS")]);
}

#[test]
fn digits_and_letters_are_filter_text_while_filtering() {
    let mut state = State::new(&hundred(false));
    keys(&mut state, &[KeyCode::Char('/')]);
    // "1" and "j" would pick option 1 and move down outside the filter.
    type_text(&mut state, "1j");
    assert_eq!(state.pages()[0].filter.as_ref().unwrap().text(), "1j");
    assert_eq!(
        state.visible_rows(),
        [100],
        "nothing matches: only Other is left"
    );
    keys(&mut state, &[KeyCode::Backspace]);
    type_text(&mut state, "00");
    assert_eq!(state.visible_rows(), [99, 100]);
    let answers = answered(keys(&mut state, &[KeyCode::Enter]));
    assert_eq!(
        answers,
        [Answer::selected(
            "Which options should we use?",
            "Option 100"
        )]
    );
}

#[test]
fn up_and_down_move_among_the_matches_only() {
    let mut state = State::new(&frameworks());
    keys(&mut state, &[KeyCode::Char('/')]);
    type_text(&mut state, "s");
    // Express.js, Fastify, NestJS, Elysia, AdonisJS, Sails.js, Other.
    assert_eq!(state.visible_rows(), [0, 1, 4, 5, 6, 7, 8]);
    keys(&mut state, &[KeyCode::Down, KeyCode::Down]);
    assert_eq!(state.pages()[0].cursor, 4);
    keys(&mut state, &[KeyCode::End]);
    assert_eq!(state.pages()[0].cursor, 8, "Other stays reachable");
    keys(&mut state, &[KeyCode::Up, KeyCode::Up, KeyCode::Up]);
    assert_eq!(state.pages()[0].cursor, 5);
}

#[test]
fn esc_closes_the_filter_and_a_second_esc_cancels() {
    let mut state = State::new(&frameworks());
    keys(&mut state, &[KeyCode::Char('/')]);
    type_text(&mut state, "hono");
    assert_eq!(keys(&mut state, &[KeyCode::Esc]), Effect::Continue);
    assert!(!state.is_filtering());
    assert_eq!(state.pages()[0].cursor, 2, "the match stays highlighted");
    assert_eq!(state.visible_rows().len(), 9, "the whole list is back");
    assert_eq!(
        keys(&mut state, &[KeyCode::Esc]),
        Effect::Finish(Outcome::Cancelled)
    );
}

#[test]
fn other_is_reachable_from_a_filter_that_matches_nothing() {
    let mut state = State::new(&frameworks());
    keys(&mut state, &[KeyCode::Char('/')]);
    type_text(&mut state, "django");
    assert_eq!(state.visible_rows(), [8]);
    keys(&mut state, &[KeyCode::Enter]);
    assert!(state.is_editing(), "Enter on Other opens its field");
    assert!(!state.is_filtering());
    type_text(&mut state, "Django");
    let answers = answered(keys(&mut state, &[KeyCode::Enter]));
    assert_eq!(answers, [Answer::custom(FRAMEWORK, "Django")]);
}

#[test]
fn enter_in_a_multi_select_filter_ticks_the_match() {
    let mut state = State::new(&hundred(true));
    keys(&mut state, &[KeyCode::Char('/')]);
    type_text(&mut state, "042");
    keys(&mut state, &[KeyCode::Enter]);
    assert!(!state.is_filtering());
    keys(&mut state, &[KeyCode::Char('/')]);
    type_text(&mut state, "077");
    keys(&mut state, &[KeyCode::Enter]);
    let answers = answered(keys(&mut state, &[KeyCode::Enter]));
    assert_eq!(
        answers,
        [Answer::multi(
            "Which options should we use?",
            vec!["Option 042".into(), "Option 077".into()],
            None
        )]
    );
}

#[test]
fn a_ticks_every_option_and_a_again_unticks_them() {
    let mut state = State::new(&single(2));
    keys(&mut state, &[KeyCode::Char('a')]);
    assert_eq!(state.pages()[0].checked, [true, true, true]);
    keys(&mut state, &[KeyCode::Char('a')]);
    assert_eq!(state.pages()[0].checked, [false, false, false]);
    // With some ticked, a ticks the rest.
    keys(&mut state, &[KeyCode::Char('2'), KeyCode::Char('a')]);
    assert_eq!(state.pages()[0].checked, [true, true, true]);
}

#[test]
fn select_all_keeps_the_typed_other_text() {
    let mut state = State::new(&single(2));
    keys(&mut state, &[KeyCode::Char('0')]);
    type_text(&mut state, "Rate limiting");
    keys(&mut state, &[KeyCode::Enter, KeyCode::Char('a')]);
    let answers = answered(keys(&mut state, &[KeyCode::Enter]));
    assert_eq!(
        answers,
        [Answer::multi(
            FEATURES,
            vec![
                "Authentication".into(),
                "REST API".into(),
                "Admin Dashboard".into()
            ],
            Some("Rate limiting".into())
        )]
    );
    assert!(answers[0].was_custom);
}

#[test]
fn a_does_nothing_in_a_single_choice() {
    let mut state = State::new(&frameworks());
    assert_eq!(keys(&mut state, &[KeyCode::Char('a')]), Effect::Continue);
    assert_eq!(state.pages()[0].cursor, 0);
}

#[test]
fn in_a_tabbed_call_select_all_is_the_answer() {
    let mut state = State::new(&demo());
    keys(
        &mut state,
        &[KeyCode::Tab, KeyCode::Tab, KeyCode::Char('a')],
    );
    assert_eq!(
        state.pages()[2].answer,
        Some(Answer::multi(
            FEATURES,
            vec![
                "Authentication".into(),
                "REST API".into(),
                "Admin Dashboard".into()
            ],
            None
        ))
    );
}

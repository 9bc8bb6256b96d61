//! The keys of the second round: the `/` filter and select-all.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use ask_core::{Answer, Outcome};
use ask_tui::{Effect, Load, Msg, State, msg_for_key, update};
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

/// Feeds keys and answers each [`Effect::Load`] of the history as the terminal module would,
/// counting how often it asked.
fn keys_with_history(state: &mut State, codes: &[KeyCode], history: &[&str], asked: &mut usize) {
    for code in codes {
        let mut effect = match msg_for_key(state, key(*code)) {
            Some(msg) => update(state, msg),
            None => Effect::Continue,
        };
        while let Effect::Load(Load::History { question }) = effect {
            *asked += 1;
            assert_eq!(question, state.current().unwrap().0.question);
            effect = update(
                state,
                Msg::History(history.iter().map(|s| s.to_string()).collect()),
            );
        }
        assert_eq!(effect, Effect::Continue);
    }
}

const NAME: &str = "What should we name this service?";

#[test]
fn up_in_a_free_text_field_recalls_earlier_answers_newest_first() {
    let mut state = State::new(&single(1));
    type_text(&mut state, "draft");
    let mut asked = 0;
    keys_with_history(
        &mut state,
        &[KeyCode::Up],
        &["billing", "orders"],
        &mut asked,
    );
    assert_eq!(state.pages()[0].field.text(), "billing");
    keys_with_history(&mut state, &[KeyCode::Up, KeyCode::Up], &[], &mut asked);
    assert_eq!(
        state.pages()[0].field.text(),
        "orders",
        "stops at the oldest"
    );
    keys_with_history(&mut state, &[KeyCode::Down], &[], &mut asked);
    assert_eq!(state.pages()[0].field.text(), "billing");
    keys_with_history(&mut state, &[KeyCode::Down], &[], &mut asked);
    assert_eq!(
        state.pages()[0].field.text(),
        "draft",
        "past the newest, the draft is back"
    );
    assert_eq!(
        asked, 1,
        "the history is read once, when the field first asks"
    );
    keys_with_history(&mut state, &[KeyCode::Up], &[], &mut asked);
    let answers = answered(keys(&mut state, &[KeyCode::Enter]));
    assert_eq!(answers, [Answer::custom(NAME, "billing")]);
}

#[test]
fn up_on_a_later_line_moves_in_the_text_not_the_history() {
    let mut state = State::new(&single(1));
    update(&mut state, Msg::Paste("one\ntwo".into()));
    let effect = press(&mut state, key(KeyCode::Up));
    assert_eq!(effect, Effect::Continue, "no history is asked for");
    assert_eq!(state.pages()[0].field.text(), "one\ntwo");
}

#[test]
fn up_in_other_recalls_then_goes_back_to_the_list() {
    let mut state = State::new(&single(0));
    keys(&mut state, &[KeyCode::Char('0')]);
    let mut asked = 0;
    keys_with_history(&mut state, &[KeyCode::Up], &["CockroachDB"], &mut asked);
    assert_eq!(state.pages()[0].field.text(), "CockroachDB");
    assert!(state.is_editing());
    keys_with_history(&mut state, &[KeyCode::Up], &[], &mut asked);
    assert!(
        !state.is_editing(),
        "with no older answer, ↑ leaves the field as before"
    );
    assert_eq!(state.pages()[0].cursor, 2);
    assert_eq!(
        state.pages()[0].field.text(),
        "CockroachDB",
        "the text is kept"
    );
}

#[test]
fn up_in_other_without_history_leaves_the_field_as_before() {
    let mut state = State::new(&single(0));
    keys(&mut state, &[KeyCode::Char('0')]);
    let mut asked = 0;
    keys_with_history(&mut state, &[KeyCode::Up], &[], &mut asked);
    assert_eq!(asked, 1);
    assert!(!state.is_editing());
    assert_eq!(state.pages()[0].cursor, 2);
}

#[test]
fn n_opens_the_note_and_typing_goes_into_it_not_the_list() {
    let mut state = State::new(&single(0));
    keys(&mut state, &[KeyCode::Down, KeyCode::Char('n')]);
    assert!(state.is_noting());
    // Digits, j/k and n are note text while the note is open.
    type_text(&mut state, "n1 jk, if the host allows");
    assert_eq!(state.pages()[0].note.text(), "n1 jk, if the host allows");
    assert_eq!(state.pages()[0].cursor, 1, "the highlight did not move");
    keys(&mut state, &[KeyCode::Enter]);
    assert!(!state.is_noting(), "Enter closes the note");
    assert_eq!(state.pages()[0].note.text(), "n1 jk, if the host allows");
}

#[test]
fn esc_closes_the_note_keeping_it_and_a_second_esc_asks_about_the_note_free_call() {
    let mut state = State::new(&single(0));
    keys(&mut state, &[KeyCode::Char('n')]);
    type_text(&mut state, "later");
    assert_eq!(keys(&mut state, &[KeyCode::Esc]), Effect::Continue);
    assert!(!state.is_noting());
    assert_eq!(state.pages()[0].note.text(), "later");
}

#[test]
fn ctrl_n_opens_the_note_from_a_text_field() {
    let mut state = State::new(&single(1));
    type_text(&mut state, "orders");
    press(&mut state, ctrl('n'));
    assert!(state.is_noting());
    type_text(&mut state, "rename later");
    press(&mut state, ctrl('n'));
    assert!(!state.is_noting(), "Ctrl+N again closes it");
    assert!(state.is_editing(), "the field has the keyboard again");
    type_text(&mut state, "-svc");
    assert_eq!(state.pages()[0].field.text(), "orders-svc");
    assert_eq!(state.pages()[0].note.text(), "rename later");
}

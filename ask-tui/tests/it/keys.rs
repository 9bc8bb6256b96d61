//! Every key binding, and when Esc and Ctrl+C cancel at once or ask first, through `msg_for_key`
//! and `update`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use ask_core::{Answer, AnswerValue, Outcome};
use ask_tui::{Dialog, Effect, Msg, Screen, State, msg_for_key, update};
use common::*;
use crossterm::event::{KeyCode, KeyEventKind};

fn answered(effect: Effect) -> Vec<Answer> {
    match effect {
        Effect::Ended(Outcome::Answered(answers)) => answers,
        other => panic!("expected answers, got {other:?}"),
    }
}

#[track_caller]
fn check_single(input: &ask_core::AskUserInput, codes: &[KeyCode], expected: Answer) {
    let mut state = State::new(input);
    let answers = answered(keys(&mut state, codes));
    assert_eq!(answers, [expected]);
}

const DB: &str = "Which database should we use?";
const NAME: &str = "What should we name this service?";
const FEATURES: &str = "Which features should we include?";

#[test]
fn enter_selects_the_highlighted_option() {
    check_single(
        &single(0),
        &[KeyCode::Enter],
        Answer::selected(DB, "PostgreSQL (Recommended)"),
    );
    check_single(
        &single(0),
        &[KeyCode::Down, KeyCode::Enter],
        Answer::selected(DB, "SQLite"),
    );
    check_single(
        &single(0),
        &[KeyCode::Down, KeyCode::Down, KeyCode::Up, KeyCode::Enter],
        Answer::selected(DB, "SQLite"),
    );
}

#[test]
fn j_and_k_move_like_the_arrows() {
    check_single(
        &single(0),
        &[
            KeyCode::Char('j'),
            KeyCode::Char('j'),
            KeyCode::Char('k'),
            KeyCode::Enter,
        ],
        Answer::selected(DB, "SQLite"),
    );
}

#[test]
fn the_highlight_stops_at_both_ends() {
    check_single(
        &single(0),
        &[KeyCode::Up, KeyCode::Enter],
        Answer::selected(DB, "PostgreSQL (Recommended)"),
    );
    let mut state = State::new(&single(0));
    keys(&mut state, &[KeyCode::Down; 10]);
    assert_eq!(state.pages()[0].cursor, 3, "Other is the last row");
}

#[test]
fn digits_select_at_once() {
    check_single(
        &single(0),
        &[KeyCode::Char('3')],
        Answer::selected(DB, "MongoDB"),
    );
    check_single(
        &single(0),
        &[KeyCode::Char('1')],
        Answer::selected(DB, "PostgreSQL (Recommended)"),
    );
}

#[test]
fn a_digit_past_the_options_does_nothing() {
    let mut state = State::new(&single(0));
    assert_eq!(keys(&mut state, &[KeyCode::Char('9')]), Effect::Continue);
    assert_eq!(state.pages()[0].cursor, 0);
    assert!(!state.is_editing());
}

#[test]
fn zero_and_the_last_number_open_other() {
    for digit in ['0', '4'] {
        let mut state = State::new(&single(0));
        keys(&mut state, &[KeyCode::Char(digit)]);
        assert!(state.is_editing(), "{digit} opens the Other field");
        type_text(&mut state, "I want to use DynamoDB");
        let answers = answered(keys(&mut state, &[KeyCode::Enter]));
        assert_eq!(answers, [Answer::custom(DB, "I want to use DynamoDB")]);
    }
}

#[test]
fn enter_on_other_opens_the_field_and_esc_closes_it() {
    let mut state = State::new(&single(0));
    keys(&mut state, &[KeyCode::End, KeyCode::Enter]);
    assert!(state.is_editing());
    type_text(&mut state, "jk 12");
    assert_eq!(
        state.pages()[0].field.text(),
        "jk 12",
        "letters and digits are typed, not keys"
    );
    assert_eq!(keys(&mut state, &[KeyCode::Esc]), Effect::Continue);
    assert!(!state.is_editing());
    let answers = answered(keys(&mut state, &[KeyCode::Home, KeyCode::Enter]));
    assert_eq!(answers, [Answer::selected(DB, "PostgreSQL (Recommended)")]);
}

#[test]
fn up_leaves_the_other_field() {
    let mut state = State::new(&single(0));
    keys(&mut state, &[KeyCode::Char('0'), KeyCode::Up]);
    assert!(!state.is_editing());
    assert_eq!(state.pages()[0].cursor, 2);
}

#[test]
fn the_text_cursor_moves_by_grapheme() {
    let mut state = State::new(&single(1));
    type_text(&mut state, "cafe\u{301}👩‍💻x");
    keys(
        &mut state,
        &[KeyCode::Left, KeyCode::Left, KeyCode::Backspace],
    );
    assert_eq!(
        state.pages()[0].field.text(),
        "caf👩‍💻x",
        "é with its combining accent is one grapheme"
    );
    keys(
        &mut state,
        &[
            KeyCode::Home,
            KeyCode::Delete,
            KeyCode::End,
            KeyCode::Backspace,
        ],
    );
    assert_eq!(state.pages()[0].field.text(), "af👩‍💻");
    keys(&mut state, &[KeyCode::Left, KeyCode::Right, KeyCode::Right]);
    assert_eq!(
        state.pages()[0].field.cursor(),
        state.pages()[0].field.text().len()
    );
    press(&mut state, ctrl('a'));
    assert_eq!(state.pages()[0].field.cursor(), 0);
    press(&mut state, ctrl('e'));
    assert_eq!(
        state.pages()[0].field.cursor(),
        state.pages()[0].field.text().len()
    );
}

#[test]
fn free_text_enter_submits_and_empty_enter_waits() {
    let mut state = State::new(&single(1));
    assert_eq!(keys(&mut state, &[KeyCode::Enter]), Effect::Continue);
    assert_eq!(state.notice(), Some(ask_tui::Notice::EmptyAnswer));
    type_text(&mut state, "order-processor");
    assert_eq!(
        answered(keys(&mut state, &[KeyCode::Enter])),
        [Answer::custom(NAME, "order-processor")]
    );
}

#[test]
fn paste_goes_into_the_field() {
    let mut state = State::new(&single(1));
    update(&mut state, Msg::Paste("line one\r\nline two".into()));
    assert_eq!(state.pages()[0].field.text(), "line one\nline two");
    // A paste on a list opens "Other" with the pasted text.
    let mut state = State::new(&single(0));
    update(&mut state, Msg::Paste("Cassandra".into()));
    assert!(state.is_editing());
    assert_eq!(
        answered(keys(&mut state, &[KeyCode::Enter])),
        [Answer::custom(DB, "Cassandra")]
    );
}

#[test]
fn space_toggles_and_enter_submits_a_multi_select() {
    let mut state = State::new(&single(2));
    let answers = answered(keys(
        &mut state,
        &[
            KeyCode::Char(' '),
            KeyCode::Down,
            KeyCode::Down,
            KeyCode::Char(' '),
            KeyCode::Enter,
        ],
    ));
    assert_eq!(
        answers,
        [Answer::multi(
            FEATURES,
            vec!["Authentication".into(), "Admin Dashboard".into()],
            None
        )]
    );
}

#[test]
fn space_twice_unticks() {
    let mut state = State::new(&single(2));
    keys(&mut state, &[KeyCode::Char(' '), KeyCode::Char(' ')]);
    assert_eq!(state.pages()[0].checked, [false, false, false]);
}

#[test]
fn digits_toggle_in_a_multi_select() {
    let mut state = State::new(&single(2));
    let answers = answered(keys(
        &mut state,
        &[
            KeyCode::Char('3'),
            KeyCode::Char('2'),
            KeyCode::Char('3'),
            KeyCode::Enter,
        ],
    ));
    assert_eq!(
        answers,
        [Answer::multi(FEATURES, vec!["REST API".into()], None)]
    );
}

#[test]
fn enter_with_nothing_ticked_asks_none_of_these() {
    let mut state = State::new(&single(2));
    // Enter with nothing ticked picks nothing: it asks whether none of the options is meant.
    keys(&mut state, &[KeyCode::Down, KeyCode::Enter]);
    assert_eq!(state.dialog(), Some(Dialog::NoneOfThese));
    assert!(state.pages()[0].checked.iter().all(|ticked| !ticked));
    // No, Enter (the default) and Esc go back to the list, nothing ticked.
    for back in [KeyCode::Char('n'), KeyCode::Enter, KeyCode::Esc] {
        let effect = keys(&mut state, &[back]);
        assert_eq!(effect, Effect::Continue, "{back:?}");
        assert_eq!(state.dialog(), None, "{back:?}");
        keys(&mut state, &[KeyCode::Enter]);
        assert_eq!(state.dialog(), Some(Dialog::NoneOfThese), "{back:?}");
    }
    let answers = answered(keys(&mut state, &[KeyCode::Char('y')]));
    assert_eq!(answers, [Answer::none_of_these(FEATURES)]);
    assert_eq!(answers[0].answer, AnswerValue::Choices(vec![]));
    // Enter on "Other" with nothing ticked still opens it.
    let mut state = State::new(&single(2));
    keys(&mut state, &[KeyCode::End, KeyCode::Enter]);
    assert_eq!(state.dialog(), None);
    assert!(state.pages()[0].editing);
}

#[test]
fn none_of_these_answers_a_tab_and_ticking_takes_it_back() {
    let mut state = State::new(&demo());
    // Database, then the name, then the features with nothing ticked.
    keys(&mut state, &[KeyCode::Enter]);
    type_text(&mut state, "orders");
    keys(
        &mut state,
        &[KeyCode::Enter, KeyCode::Enter, KeyCode::Char('y')],
    );
    assert_eq!(state.screen(), Screen::Submit);
    assert_eq!(
        state.pages()[2].answer,
        Some(Answer::none_of_these(FEATURES))
    );
    // Ticking an option after all makes the ticks the answer.
    keys(&mut state, &[KeyCode::Left, KeyCode::Char('2')]);
    assert_eq!(
        state.pages()[2].answer,
        Some(Answer::multi(FEATURES, vec!["REST API".into()], None))
    );
}

#[test]
fn typed_other_goes_last_in_a_multi_select() {
    let mut state = State::new(&single(2));
    keys(&mut state, &[KeyCode::Char('2'), KeyCode::Char('0')]);
    type_text(&mut state, "Rate limiting");
    keys(&mut state, &[KeyCode::Enter]);
    assert!(state.pages()[0].other_checked);
    let answers = answered(keys(&mut state, &[KeyCode::Char('1'), KeyCode::Enter]));
    assert_eq!(
        answers,
        [Answer::multi(
            FEATURES,
            vec!["Authentication".into(), "REST API".into()],
            Some("Rate limiting".into())
        )]
    );
    assert!(answers[0].was_custom);
}

#[test]
fn space_on_a_ticked_other_unticks_it() {
    let mut state = State::new(&single(2));
    keys(&mut state, &[KeyCode::End, KeyCode::Char(' ')]);
    type_text(&mut state, "mine");
    keys(&mut state, &[KeyCode::Enter, KeyCode::Char(' ')]);
    assert!(!state.pages()[0].other_checked);
}

#[test]
fn home_end_and_pages_move_through_a_long_list() {
    let mut state = State::new(&frameworks());
    keys(&mut state, &[KeyCode::End]);
    assert_eq!(state.pages()[0].cursor, 8);
    assert_eq!(state.pages()[0].offset, 2);
    keys(&mut state, &[KeyCode::Home]);
    assert_eq!((state.pages()[0].cursor, state.pages()[0].offset), (0, 0));
    keys(&mut state, &[KeyCode::PageDown]);
    assert_eq!(state.pages()[0].cursor, 7);
    keys(&mut state, &[KeyCode::PageUp]);
    assert_eq!(state.pages()[0].cursor, 0);
    let answers = answered(keys(&mut state, &[KeyCode::Char('8')]));
    assert_eq!(
        answers,
        [Answer::selected(
            "Which framework should we use?",
            "Sails.js"
        )]
    );
}

#[test]
fn zero_reaches_other_in_a_long_list() {
    let mut state = State::new(&frameworks());
    keys(&mut state, &[KeyCode::Char('0')]);
    assert_eq!(state.pages()[0].cursor, 8);
    assert!(state.is_editing());
}

#[test]
fn tabs_switch_with_tab_shift_tab_and_arrows() {
    let mut state = State::new(&demo());
    keys(&mut state, &[KeyCode::Tab]);
    assert_eq!(state.tab(), 1);
    keys(&mut state, &[KeyCode::BackTab]);
    assert_eq!(state.tab(), 0);
    keys(&mut state, &[KeyCode::Left]);
    assert_eq!(state.screen(), Screen::Submit, "switching wraps around");
    keys(&mut state, &[KeyCode::Right]);
    assert_eq!(state.tab(), 0);
    keys(&mut state, &[KeyCode::Right, KeyCode::Tab]);
    assert_eq!(state.tab(), 2, "Tab leaves a free-text field");
}

#[test]
fn arrows_move_the_text_cursor_in_a_free_text_tab() {
    let mut state = State::new(&demo());
    keys(&mut state, &[KeyCode::Tab]);
    type_text(&mut state, "ab");
    keys(&mut state, &[KeyCode::Left]);
    assert_eq!(state.tab(), 1);
    assert_eq!(state.pages()[1].field.cursor(), 1);
}

#[test]
fn answering_moves_to_the_next_unanswered_tab_and_submit_returns_all() {
    let mut state = State::new(&demo());
    keys(&mut state, &[KeyCode::Char('2')]);
    assert_eq!(state.tab(), 1);
    assert!(state.pages()[0].answer.is_some());
    type_text(&mut state, "order-processor");
    keys(&mut state, &[KeyCode::Enter]);
    assert_eq!(state.tab(), 2);
    keys(&mut state, &[KeyCode::Char(' '), KeyCode::Enter]);
    assert_eq!(state.screen(), Screen::Submit);
    let answers = answered(keys(&mut state, &[KeyCode::Enter]));
    assert_eq!(
        answers,
        [
            Answer::selected(DB, "SQLite"),
            Answer::custom(NAME, "order-processor"),
            Answer::multi(FEATURES, vec!["Authentication".into()], None),
        ]
    );
}

#[test]
fn an_answer_can_be_changed_before_submitting() {
    let mut state = State::new(&demo());
    keys(
        &mut state,
        &[KeyCode::Char('2'), KeyCode::BackTab, KeyCode::Char('3')],
    );
    assert_eq!(
        state.pages()[0].answer,
        Some(Answer::selected(DB, "MongoDB"))
    );
}

#[test]
fn submit_with_gaps_goes_to_the_first_unanswered_question() {
    let mut state = State::new(&demo());
    keys(&mut state, &[KeyCode::BackTab, KeyCode::Enter]);
    assert_eq!(state.tab(), 0);
    assert_eq!(state.notice(), Some(ask_tui::Notice::Unanswered(3)));
}

// Cancelling: Esc (or Ctrl+C) cancels at once while nothing is answered or typed, otherwise it asks
// "Discard N answers?" first, whose no keeps every answer; Ctrl+C at that question abandons the
// call instead.

#[test]
fn single_question_esc_cancels_at_once() {
    for input in [single(0), single(1), single(2)] {
        let mut state = State::new(&input);
        assert_eq!(
            keys(&mut state, &[KeyCode::Esc]),
            Effect::Ended(Outcome::Cancelled)
        );
        let mut state = State::new(&input);
        assert_eq!(
            press(&mut state, ctrl('c')),
            Effect::Ended(Outcome::Cancelled)
        );
    }
}

#[test]
fn multi_question_with_nothing_answered_cancels_at_once() {
    let mut state = State::new(&demo());
    keys(&mut state, &[KeyCode::Tab]);
    assert_eq!(
        keys(&mut state, &[KeyCode::Esc]),
        Effect::Ended(Outcome::Cancelled)
    );
}

#[test]
fn multi_question_with_answers_asks_first_and_yes_cancels() {
    let mut state = State::new(&demo());
    keys(&mut state, &[KeyCode::Enter, KeyCode::Esc]);
    assert_eq!(
        state.dialog(),
        Some(Dialog::Discard {
            answered: 1,
            interrupt: false
        })
    );
    assert_eq!(
        keys(&mut state, &[KeyCode::Char('y')]),
        Effect::Ended(Outcome::Cancelled)
    );
}

#[test]
fn discard_no_returns_to_the_questions_with_answers_kept() {
    for no in [
        KeyCode::Char('n'),
        KeyCode::Char('N'),
        KeyCode::Enter,
        KeyCode::Esc,
    ] {
        let mut state = State::new(&demo());
        keys(&mut state, &[KeyCode::Enter, KeyCode::Esc]);
        assert_eq!(keys(&mut state, &[no]), Effect::Continue);
        assert_eq!(state.dialog(), None, "{no:?} closes the dialog");
        assert_eq!(state.answered(), 1);
        assert_eq!(state.tab(), 1);
    }
}

#[test]
fn all_answered_on_the_submit_tab_esc_asks_too() {
    let mut state = State::new(&demo());
    keys(&mut state, &[KeyCode::Enter]);
    type_text(&mut state, "svc");
    keys(
        &mut state,
        &[KeyCode::Enter, KeyCode::Char('1'), KeyCode::Enter],
    );
    assert_eq!(state.screen(), Screen::Submit);
    keys(&mut state, &[KeyCode::Esc]);
    assert_eq!(
        state.dialog(),
        Some(Dialog::Discard {
            answered: 3,
            interrupt: false
        })
    );
}

#[test]
fn ctrl_c_acts_as_esc_and_a_second_ctrl_c_aborts() {
    let mut state = State::new(&demo());
    keys(&mut state, &[KeyCode::Enter]);
    assert_eq!(press(&mut state, ctrl('c')), Effect::Continue);
    assert_eq!(
        state.dialog(),
        Some(Dialog::Discard {
            answered: 1,
            interrupt: true
        })
    );
    // Aborted, not cancelled: nothing is saved, and the call is asked again next time.
    assert_eq!(press(&mut state, ctrl('c')), Effect::Abort);
}

#[test]
fn ctrl_c_at_the_long_answer_warning_goes_back_to_the_text() {
    let mut state = State::new(&single(1));
    type_text(&mut state, &"x".repeat(2_001));
    keys(&mut state, &[KeyCode::Enter]);
    assert!(matches!(state.dialog(), Some(Dialog::LongAnswer { .. })));
    assert_eq!(press(&mut state, ctrl('c')), Effect::Continue);
    assert_eq!(state.dialog(), None);
}

#[test]
fn keys_other_than_yes_and_no_leave_the_dialog_open() {
    let mut state = State::new(&demo());
    keys(
        &mut state,
        &[
            KeyCode::Enter,
            KeyCode::Esc,
            KeyCode::Char('x'),
            KeyCode::Down,
        ],
    );
    assert!(state.dialog().is_some());
}

#[test]
fn long_answer_asks_and_enter_or_yes_accepts() {
    for yes in [KeyCode::Enter, KeyCode::Char('y'), KeyCode::Char('Y')] {
        let mut state = State::new(&single(1));
        update(&mut state, Msg::Paste("x".repeat(2847)));
        keys(&mut state, &[KeyCode::Enter]);
        assert_eq!(state.dialog(), Some(Dialog::LongAnswer { chars: 2847 }));
        let answers = answered(keys(&mut state, &[yes]));
        assert_eq!(answers[0].answer, AnswerValue::Text("x".repeat(2847)));
    }
}

#[test]
fn long_answer_no_goes_back_to_editing() {
    let mut state = State::new(&single(1));
    update(&mut state, Msg::Paste("x".repeat(2001)));
    keys(&mut state, &[KeyCode::Enter, KeyCode::Char('n')]);
    assert_eq!(state.dialog(), None);
    assert!(state.is_editing());
    keys(&mut state, &[KeyCode::Backspace, KeyCode::Enter]);
    assert_eq!(
        state.dialog(),
        None,
        "2,000 characters are within the limit"
    );
}

#[test]
fn only_key_presses_count() {
    let state = State::new(&single(0));
    let mut release = key(KeyCode::Enter);
    release.kind = KeyEventKind::Release;
    assert_eq!(msg_for_key(&state, release), None);
    let mut repeat = key(KeyCode::Down);
    repeat.kind = KeyEventKind::Repeat;
    assert_eq!(msg_for_key(&state, repeat), None);
}

#[test]
fn resize_changes_nothing_but_the_frame() {
    let mut state = State::new(&demo());
    keys(&mut state, &[KeyCode::Down]);
    let before = format!("{state:?}");
    assert_eq!(update(&mut state, Msg::Resize), Effect::Continue);
    assert_eq!(format!("{state:?}"), before);
}

/// Long random key sequences never panic, and every frame at every size draws.
#[test]
fn random_keys_never_break_the_ui() {
    let codes = [
        KeyCode::Up,
        KeyCode::Down,
        KeyCode::Left,
        KeyCode::Right,
        KeyCode::Home,
        KeyCode::End,
        KeyCode::PageUp,
        KeyCode::PageDown,
        KeyCode::Tab,
        KeyCode::BackTab,
        KeyCode::Enter,
        KeyCode::Esc,
        KeyCode::Backspace,
        KeyCode::Delete,
        KeyCode::Char(' '),
        KeyCode::Char('0'),
        KeyCode::Char('1'),
        KeyCode::Char('3'),
        KeyCode::Char('9'),
        KeyCode::Char('j'),
        KeyCode::Char('k'),
        KeyCode::Char('n'),
        KeyCode::Char('y'),
        KeyCode::Char('数'),
        KeyCode::Char('🎉'),
    ];
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = |below: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        usize::try_from(seed % below as u64).unwrap()
    };
    for input in [demo(), frameworks(), unusual(), single(1), single(2)] {
        for _ in 0..20 {
            let mut state = State::new(&input);
            for _ in 0..60 {
                let effect = if next(20) == 0 {
                    update(&mut state, Msg::Paste("pasted\ntext".into()))
                } else {
                    press(&mut state, key(codes[next(codes.len())]))
                };
                let width = u16::try_from(10 + next(100)).unwrap();
                let height = u16::try_from(3 + next(30)).unwrap();
                let _ = screen(&state, width, height);
                if effect != Effect::Continue {
                    break;
                }
            }
        }
    }
}

// Typed text is never dropped: leaving a field keeps it, and cancelling asks first.

#[test]
fn esc_with_typed_free_text_asks_before_discarding_it() {
    let mut state = State::new(&single(1));
    type_text(&mut state, "order-processor");
    assert_eq!(keys(&mut state, &[KeyCode::Esc]), Effect::Continue);
    assert_eq!(
        state.dialog(),
        Some(Dialog::Discard {
            answered: 1,
            interrupt: false
        })
    );
    keys(&mut state, &[KeyCode::Char('n')]);
    assert_eq!(state.dialog(), None);
    assert!(state.is_editing(), "No goes back to the text");
    assert_eq!(state.pages()[0].field.text(), "order-processor");
    keys(&mut state, &[KeyCode::Esc]);
    assert_eq!(
        keys(&mut state, &[KeyCode::Char('y')]),
        Effect::Ended(Outcome::Cancelled)
    );
}

#[test]
fn esc_on_a_lone_multi_select_with_boxes_ticked_asks_before_discarding_them() {
    let mut state = State::new(&single(2));
    keys(
        &mut state,
        &[KeyCode::Char('1'), KeyCode::Char('3'), KeyCode::Esc],
    );
    assert_eq!(
        state.dialog(),
        Some(Dialog::Discard {
            answered: 2,
            interrupt: false
        })
    );
    keys(&mut state, &[KeyCode::Char('n')]);
    assert_eq!(state.dialog(), None);
    assert_eq!(
        state.pages()[0].checked,
        [true, false, true],
        "No keeps the ticks"
    );
    keys(&mut state, &[KeyCode::Esc]);
    assert_eq!(
        keys(&mut state, &[KeyCode::Char('y')]),
        Effect::Ended(Outcome::Cancelled)
    );
    // Unticked again, nothing is lost: Esc cancels at once.
    let mut state = State::new(&single(2));
    keys(&mut state, &[KeyCode::Char('1'), KeyCode::Char('1')]);
    assert_eq!(
        keys(&mut state, &[KeyCode::Esc]),
        Effect::Ended(Outcome::Cancelled)
    );
}

#[test]
fn enter_never_takes_the_example_as_the_answer() {
    let mut state = State::new(&kinds());
    keys(&mut state, &[KeyCode::Tab, KeyCode::Enter]);
    assert_eq!(state.tab(), 1, "Enter stays on the empty field");
    assert_eq!(state.pages()[1].answer, None);
    assert_eq!(state.notice(), Some(ask_tui::Notice::EmptyAnswer));
    let text = screen(&state, 80, 24);
    assert!(
        text.contains("The example is not an answer: type yours, then Enter"),
        "{text}"
    );
}

#[test]
fn esc_with_text_kept_in_other_asks_before_discarding_it() {
    let mut state = State::new(&single(0));
    keys(&mut state, &[KeyCode::Char('0')]);
    type_text(&mut state, "DynamoDB");
    keys(&mut state, &[KeyCode::Esc]);
    assert!(!state.is_editing(), "the first Esc leaves the field");
    assert_eq!(
        state.pages()[0].field.text(),
        "DynamoDB",
        "and keeps the text"
    );
    keys(&mut state, &[KeyCode::Esc]);
    assert_eq!(
        state.dialog(),
        Some(Dialog::Discard {
            answered: 1,
            interrupt: false
        })
    );
}

#[test]
fn enter_on_other_holding_kept_text_sends_it() {
    let mut state = State::new(&single(0));
    keys(&mut state, &[KeyCode::Char('0')]);
    type_text(&mut state, "DynamoDB");
    keys(&mut state, &[KeyCode::Esc]);
    let answers = answered(keys(&mut state, &[KeyCode::Enter]));
    assert_eq!(answers, [Answer::custom(DB, "DynamoDB")]);
}

#[test]
fn tab_commits_an_edit_of_a_free_text_answer() {
    let mut state = State::new(&demo());
    keys(&mut state, &[KeyCode::Char('1')]);
    type_text(&mut state, "svc");
    keys(&mut state, &[KeyCode::Tab]);
    assert_eq!(state.pages()[1].answer, Some(Answer::custom(NAME, "svc")));
    // An edit of the answered tab, then Tab: the edit is the answer now.
    keys(&mut state, &[KeyCode::BackTab, KeyCode::Backspace]);
    type_text(&mut state, "-two");
    keys(&mut state, &[KeyCode::Tab]);
    assert_eq!(
        state.pages()[1].answer,
        Some(Answer::custom(NAME, "sv-two"))
    );
    // Shift+Tab and ←→ are ways of leaving too; an emptied field is no answer.
    keys(&mut state, &[KeyCode::BackTab]);
    keys(&mut state, &[KeyCode::Backspace; 6]);
    keys(&mut state, &[KeyCode::BackTab]);
    assert_eq!(state.pages()[1].answer, None);
}

#[test]
fn esc_on_a_free_text_tab_keeps_the_edit_and_counts_it() {
    let mut state = State::new(&demo());
    keys(&mut state, &[KeyCode::Tab]);
    type_text(&mut state, "svc");
    keys(&mut state, &[KeyCode::Esc]);
    assert_eq!(
        state.dialog(),
        Some(Dialog::Discard {
            answered: 1,
            interrupt: false
        })
    );
    keys(&mut state, &[KeyCode::Char('n')]);
    assert_eq!(state.pages()[1].answer, Some(Answer::custom(NAME, "svc")));
    assert_eq!(state.pages()[1].field.text(), "svc");
}

#[test]
fn other_text_left_with_esc_stays_in_a_multi_select_answer() {
    let mut state = State::new(&single(2));
    keys(&mut state, &[KeyCode::Char('2'), KeyCode::Char('0')]);
    type_text(&mut state, "Rate limiting");
    keys(&mut state, &[KeyCode::Esc]);
    assert!(!state.is_editing());
    assert!(state.pages()[0].other_checked, "the kept text is ticked");
    let answers = answered(keys(&mut state, &[KeyCode::Enter]));
    assert_eq!(
        answers,
        [Answer::multi(
            FEATURES,
            vec!["REST API".into()],
            Some("Rate limiting".into())
        )]
    );
}

#[test]
fn in_a_tabbed_call_the_multi_select_answer_is_what_is_ticked() {
    let mut state = State::new(&demo());
    keys(&mut state, &[KeyCode::BackTab, KeyCode::BackTab]);
    assert_eq!(state.screen(), Screen::MultiSelect);
    keys(&mut state, &[KeyCode::Char('1')]);
    assert_eq!(
        state.pages()[2].answer,
        Some(Answer::multi(FEATURES, vec!["Authentication".into()], None))
    );
    keys(&mut state, &[KeyCode::Char('0')]);
    type_text(&mut state, "Rate limiting");
    keys(&mut state, &[KeyCode::Tab]);
    assert_eq!(
        state.pages()[2].answer,
        Some(Answer::multi(
            FEATURES,
            vec!["Authentication".into()],
            Some("Rate limiting".into())
        ))
    );
    keys(
        &mut state,
        &[KeyCode::BackTab, KeyCode::Char('1'), KeyCode::Char('0')],
    );
    assert_eq!(
        state.pages()[2].answer,
        None,
        "unticking everything takes the answer away"
    );
}

#[test]
fn leaving_other_in_a_tabbed_call_answers_with_the_text() {
    let mut state = State::new(&demo());
    keys(&mut state, &[KeyCode::Char('2'), KeyCode::BackTab]);
    keys(&mut state, &[KeyCode::Char('0')]);
    type_text(&mut state, "DynamoDB");
    keys(&mut state, &[KeyCode::Esc]);
    assert_eq!(state.tab(), 0, "Esc stays on the tab");
    assert_eq!(
        state.pages()[0].answer,
        Some(Answer::custom(DB, "DynamoDB"))
    );
    keys(&mut state, &[KeyCode::Char('0')]);
    type_text(&mut state, " please");
    keys(&mut state, &[KeyCode::Up]);
    assert_eq!(
        state.pages()[0].answer,
        Some(Answer::custom(DB, "DynamoDB please")),
        "↑ out of the field commits too"
    );
}

#[test]
fn shift_and_ctrl_arrows_scroll_and_plain_arrows_move() {
    let state = State::new(&single(0));
    let mut shift = key(KeyCode::Down);
    shift.modifiers = crossterm::event::KeyModifiers::SHIFT;
    assert_eq!(msg_for_key(&state, shift), Some(Msg::ScrollDown));
    let mut ctrl_up = key(KeyCode::Up);
    ctrl_up.modifiers = crossterm::event::KeyModifiers::CONTROL;
    assert_eq!(msg_for_key(&state, ctrl_up), Some(Msg::ScrollUp));
    assert_eq!(msg_for_key(&state, key(KeyCode::Down)), Some(Msg::Down));
}

/// A paste of a million characters stops at the cap of one answer (64 KiB of UTF-8) and says
/// so; the field then edits in place, and a key typed at the cap is left out, saying so again.
#[test]
fn a_million_character_paste_stops_at_the_cap_and_edits_in_place() {
    let cap = ask_core::MAX_ANSWER_BYTES;
    let mut state = State::new(&single(1));
    let big = "abcdefghij".repeat(100_000);
    update(&mut state, Msg::Paste(big));
    assert_eq!(state.notice(), Some(ask_tui::Notice::AnswerCap));
    assert_eq!(state.pages()[0].field.char_count(), cap);
    keys(&mut state, &[KeyCode::Home]);
    for _ in 0..cap / 2 {
        update(&mut state, Msg::CursorRight);
    }
    keys(&mut state, &[KeyCode::Backspace]);
    type_text(&mut state, "X");
    assert_eq!(
        state.notice(),
        None,
        "one byte freed, one byte typed: at the cap exactly"
    );
    type_text(&mut state, "Y");
    assert_eq!(state.notice(), Some(ask_tui::Notice::AnswerCap));
    let field = &state.pages()[0].field;
    assert_eq!(field.text().len(), cap);
    assert_eq!(field.chars_before_cursor(), cap / 2);
    assert_eq!(&field.text()[cap / 2 - 3..cap / 2 + 2], "fgXij");
    let text = screen(&state, 80, 24);
    assert!(text.contains("more characters"), "{text}");
    assert!(text.contains("An answer holds at most 64 KiB"), "{text}");
    // Enter asks for the confirmation every long answer gets, then takes the answer whole.
    keys(&mut state, &[KeyCode::Enter]);
    let answers = answered(keys(&mut state, &[KeyCode::Char('y')]));
    assert_eq!(answers[0].answer.utf8_len(), cap);
}

/// A note stops at the same cap.
#[test]
fn a_note_stops_at_the_cap() {
    let mut state = State::new(&single(0));
    update(&mut state, Msg::Note);
    update(
        &mut state,
        Msg::Paste("n".repeat(ask_core::MAX_ANSWER_BYTES + 1)),
    );
    assert_eq!(state.notice(), Some(ask_tui::Notice::AnswerCap));
    assert_eq!(
        state.pages()[0].note.text().len(),
        ask_core::MAX_ANSWER_BYTES
    );
}

#[test]
fn enter_on_an_emptied_free_text_tab_takes_its_answer_away() {
    let mut state = State::new(&demo());
    keys(&mut state, &[KeyCode::Tab]);
    type_text(&mut state, "svc");
    keys(&mut state, &[KeyCode::Enter, KeyCode::BackTab]);
    assert_eq!(state.pages()[1].answer, Some(Answer::custom(NAME, "svc")));
    keys(&mut state, &[KeyCode::Backspace; 3]);
    keys(&mut state, &[KeyCode::Enter]);
    assert_eq!(state.notice(), Some(ask_tui::Notice::EmptyAnswer));
    assert_eq!(state.pages()[1].answer, None);
}

/// Answers given before the UI took over (an MCP form, answers the call proposes) are shown as
/// the person's choices: Enter keeps them, and they can be changed.
#[test]
fn given_answers_are_shown_and_kept_or_changed() {
    let given = vec![
        Some(Answer::selected(DB, "SQLite")),
        None,
        Some(Answer::multi(
            FEATURES,
            vec!["REST API".into()],
            Some("GraphQL".into()),
        )),
    ];
    let mut state = State::new(&demo()).with_given(&given);
    // The first question without an answer opens.
    assert_eq!(state.tab(), 1);
    assert_eq!(state.pages()[0].cursor, 1);
    assert_eq!(state.pages()[2].checked, [false, true, false]);
    assert!(state.pages()[2].other_checked);
    assert_eq!(state.pages()[2].field.text(), "GraphQL");
    type_text(&mut state, "billing");
    keys(&mut state, &[KeyCode::Tab, KeyCode::Tab]);
    assert_eq!(state.screen(), Screen::Submit);
    let answers = answered(keys(&mut state, &[KeyCode::Enter]));
    assert_eq!(
        answers,
        [
            Answer::selected(DB, "SQLite"),
            Answer::custom(NAME, "billing"),
            Answer::multi(FEATURES, vec!["REST API".into()], Some("GraphQL".into())),
        ]
    );

    // A lone question: the highlight is on the given option, and ↑ changes it.
    let mut state = State::new(&single(0)).with_given(&[Some(Answer::selected(DB, "MongoDB"))]);
    assert_eq!(
        answered(keys(&mut state, &[KeyCode::Up, KeyCode::Enter])),
        [Answer::selected(DB, "SQLite")]
    );
    // Typed text goes to "Other", where Enter sends it.
    let mut state = State::new(&single(0)).with_given(&[Some(Answer::custom(DB, "CockroachDB"))]);
    assert_eq!(
        answered(keys(&mut state, &[KeyCode::Enter])),
        [Answer::custom(DB, "CockroachDB")]
    );
    // Every question given: the review opens.
    let all = vec![
        Some(Answer::selected(DB, "SQLite")),
        Some(Answer::custom(NAME, "billing")),
        Some(Answer::multi(FEATURES, vec!["REST API".into()], None)),
    ];
    assert_eq!(
        State::new(&demo()).with_given(&all).screen(),
        Screen::Submit
    );
    // A given note is shown in the note field and goes back with its answer.
    let noted = Answer::selected(DB, "SQLite").with_notes(Some("tests only"));
    let mut state = State::new(&single(0)).with_given(&[Some(noted.clone())]);
    assert_eq!(state.pages()[0].note.text(), "tests only");
    assert_eq!(answered(keys(&mut state, &[KeyCode::Enter])), [noted]);
}

#[test]
fn arrows_switch_tabs_from_an_empty_text_field_and_move_the_cursor_in_a_typed_one() {
    // From the Submit tab, ← walks back through the tabs while each field it meets is empty.
    let mut state = State::new(&demo());
    keys(&mut state, &[KeyCode::Left, KeyCode::Left]);
    assert_eq!(state.screen(), Screen::MultiSelect);
    keys(&mut state, &[KeyCode::Left]);
    assert_eq!(state.screen(), Screen::FreeText);
    keys(&mut state, &[KeyCode::Left]);
    assert_eq!(
        state.tab(),
        0,
        "← in the empty field switches to the previous tab"
    );
    keys(&mut state, &[KeyCode::Right, KeyCode::Right]);
    assert_eq!(
        state.tab(),
        2,
        "→ in the empty field switches to the next tab"
    );
    // With text, ← and → move the cursor; Tab and Shift+Tab still switch.
    keys(&mut state, &[KeyCode::Left]);
    type_text(&mut state, "ordr");
    keys(&mut state, &[KeyCode::Left]);
    type_text(&mut state, "e");
    keys(&mut state, &[KeyCode::Left, KeyCode::Right, KeyCode::Right]);
    assert_eq!(state.tab(), 1);
    assert_eq!(state.pages()[1].field.text(), "order");
    assert_eq!(state.pages()[1].field.cursor(), 5);
    keys(&mut state, &[KeyCode::BackTab]);
    assert_eq!(
        state.tab(),
        0,
        "Shift+Tab switches from a field that holds text"
    );
    keys(&mut state, &[KeyCode::Tab, KeyCode::Tab]);
    assert_eq!(state.tab(), 2, "Tab switches from a field that holds text");
}

#[test]
fn arrows_in_the_other_field_follow_the_same_rule() {
    let mut state = State::new(&demo());
    keys(&mut state, &[KeyCode::Char('0')]);
    assert!(state.is_editing());
    keys(&mut state, &[KeyCode::Right]);
    assert_eq!(state.tab(), 1, "→ in an empty Other field switches");
    keys(&mut state, &[KeyCode::BackTab, KeyCode::Char('0')]);
    type_text(&mut state, "Redis");
    keys(&mut state, &[KeyCode::Left, KeyCode::Right, KeyCode::Left]);
    assert_eq!(
        state.tab(),
        0,
        "← in an Other field with text moves the cursor"
    );
    assert_eq!(state.pages()[0].field.cursor(), 4);
}

#[test]
fn ctrl_n_opens_the_note_on_every_screen_and_n_only_on_a_list() {
    // On a choice list, Ctrl+N and n both open the note.
    for open in [ctrl('n'), key(KeyCode::Char('n'))] {
        let mut state = State::new(&demo());
        press(&mut state, open);
        assert!(state.is_noting());
    }
    // On a multi-select list too.
    let mut state = State::new(&demo());
    keys(&mut state, &[KeyCode::BackTab, KeyCode::BackTab]);
    assert_eq!(state.screen(), Screen::MultiSelect);
    press(&mut state, ctrl('n'));
    assert!(state.is_noting());
    // In a text field, n is text and Ctrl+N opens the note.
    let mut state = State::new(&demo());
    keys(&mut state, &[KeyCode::Tab]);
    type_text(&mut state, "order-processor");
    assert!(!state.is_noting());
    assert_eq!(state.pages()[1].field.text(), "order-processor");
    press(&mut state, ctrl('n'));
    assert!(state.is_noting());
    type_text(&mut state, "rename later");
    // Tab keeps the note and switches, as it does from every text field.
    keys(&mut state, &[KeyCode::Tab]);
    assert_eq!(state.tab(), 2);
    assert_eq!(state.pages()[1].note.text(), "rename later");
    assert_eq!(
        state.pages()[1].answer.as_ref().map(|a| a.answer.joined()),
        Some("order-processor".to_string()),
        "leaving by Tab keeps the typed answer"
    );
    // In an "Other" field, Ctrl+N opens the note as well.
    let mut state = State::new(&single(0));
    keys(&mut state, &[KeyCode::Char('0')]);
    type_text(&mut state, "n");
    press(&mut state, ctrl('n'));
    assert!(state.is_noting());
    assert_eq!(state.pages()[0].field.text(), "n");
    // While a list's filter is open, letters are filter text and Ctrl+N still opens the note.
    let mut state = State::new(&frameworks());
    keys(&mut state, &[KeyCode::Char('/'), KeyCode::Char('n')]);
    assert!(!state.is_noting());
    press(&mut state, ctrl('n'));
    assert!(state.is_noting());
}

#[test]
fn arrows_in_an_empty_note_switch_tabs_and_keep_typed_notes_whole() {
    let mut state = State::new(&demo());
    press(&mut state, ctrl('n'));
    keys(&mut state, &[KeyCode::Right]);
    assert_eq!(state.tab(), 1, "→ in an empty note switches");
    assert!(!state.pages()[0].noting, "and closes the note");
    keys(&mut state, &[KeyCode::BackTab]);
    press(&mut state, ctrl('n'));
    type_text(&mut state, "ab");
    keys(&mut state, &[KeyCode::Left]);
    type_text(&mut state, "x");
    assert_eq!(state.tab(), 0);
    assert_eq!(state.pages()[0].note.text(), "axb");
}

#[test]
fn a_digit_on_the_review_opens_that_question() {
    let mut state = State::new(&demo());
    keys(&mut state, &[KeyCode::Left]);
    assert_eq!(state.screen(), Screen::Submit);
    keys(&mut state, &[KeyCode::Char('2')]);
    assert_eq!(state.tab(), 1, "2 opens the second question");
    keys(
        &mut state,
        &[KeyCode::Left, KeyCode::Left, KeyCode::Char('4')],
    );
    assert_eq!(
        state.screen(),
        Screen::Submit,
        "no fourth question: 4 does nothing"
    );
    keys(&mut state, &[KeyCode::Char('0'), KeyCode::Char('3')]);
    assert_eq!(state.tab(), 2);
    assert!(
        state.pages().iter().all(|page| page.answer.is_none()),
        "nothing is answered"
    );
}

/// A multi-select's "Other" leaves room for the labels that may be ticked beside it, so that the
/// whole answer stays within the cap of one answer.
#[test]
fn a_multi_selects_other_leaves_room_for_its_labels_within_the_cap() {
    let question = ask_core::Question::choice("Which features?", ["Auth", "API"]).multi();
    let mut state = State::new(&common::one(question));
    update(
        &mut state,
        Msg::Paste("z".repeat(ask_core::MAX_ANSWER_BYTES)),
    );
    assert_eq!(state.notice(), Some(ask_tui::Notice::AnswerCap));
    let field = &state.pages()[0].field;
    assert_eq!(
        field.text().len(),
        ask_core::MAX_ANSWER_BYTES - "Auth".len() - "API".len()
    );
}

//! The keys of the second round: the `/` filter and select-all.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use ask_core::{Answer, Outcome};
use ask_tui::{Effect, Load, Msg, State, msg_for_key, update};
use common::*;
use crossterm::event::KeyCode;

fn answered(effect: Effect) -> Vec<Answer> {
    match effect {
        Effect::Ended(Outcome::Answered(answers)) => answers,
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
        Effect::Ended(Outcome::Cancelled)
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

#[test]
fn other_stays_reachable_with_previews_in_a_single_choice() {
    let mut state = State::new(&previews(false));
    keys(&mut state, &[KeyCode::End]);
    assert_eq!(state.pages()[0].cursor, 4, "Other is the last row");
    keys(&mut state, &[KeyCode::Enter]);
    type_text(&mut state, "Two columns");
    let answers = answered(keys(&mut state, &[KeyCode::Enter]));
    assert_eq!(
        answers,
        [Answer::custom(
            "Which layout should the page use?",
            "Two columns"
        )]
    );
}

#[test]
fn other_stays_reachable_with_previews_in_a_multi_select() {
    let mut state = State::new(&previews(true));
    keys(&mut state, &[KeyCode::Char('2'), KeyCode::Char('0')]);
    type_text(&mut state, "Footer too");
    keys(&mut state, &[KeyCode::Enter]);
    let answers = answered(keys(&mut state, &[KeyCode::Enter]));
    assert_eq!(
        answers,
        [Answer::multi(
            "Which layout should the page use?",
            vec!["Top bar".into()],
            Some("Footer too".into())
        )]
    );
}

#[test]
fn the_preview_scrolls_to_its_last_line_and_back() {
    let mut state = State::new(&previews(false));
    keys(&mut state, &[KeyCode::Down, KeyCode::Down]);
    let shown = screen(&state, 80, 24);
    assert!(shown.contains("line 01 of the config"));
    assert!(
        shown.contains("more lines"),
        "a cut preview says so:\n{shown}"
    );
    for _ in 0..40 {
        keys(&mut state, &[KeyCode::Char(']')]);
        screen(&state, 80, 24);
    }
    let shown = screen(&state, 80, 24);
    assert!(shown.contains("line 30 of the config"), "{shown}");
    assert!(!shown.contains("line 01 of the config"));
    keys(&mut state, &[KeyCode::Char('[')]);
    let back = screen(&state, 80, 24);
    assert!(
        !back.contains("line 30 of the config"),
        "one [ scrolls back at once:\n{back}"
    );
    // Another option starts its preview from the top.
    keys(&mut state, &[KeyCode::Up, KeyCode::Down]);
    assert!(screen(&state, 80, 24).contains("line 01 of the config"));
}

#[test]
fn a_preview_is_shown_beside_the_list_from_100_columns() {
    let state = State::new(&previews(false));
    let narrow = screen(&state, 99, 24);
    let wide = screen(&state, 100, 24);
    let row = |screen: &str| {
        screen
            .lines()
            .find(|line| line.contains("1. Sidebar"))
            .unwrap()
            .to_string()
    };
    assert!(!row(&narrow).contains("Preview"), "{narrow}");
    assert!(row(&wide).contains("┌─ Preview"), "{wide}");
}

#[test]
fn a_yes_no_question_answers_yes_or_no() {
    let input = one(ask_core::Question::yes_no("Deploy now?"));
    let mut state = State::new(&input);
    let answers = answered(keys(&mut state, &[KeyCode::Down, KeyCode::Enter]));
    assert_eq!(answers, [Answer::selected("Deploy now?", "No")]);
    let mut state = State::new(&input);
    let answers = answered(keys(&mut state, &[KeyCode::Char('1')]));
    assert_eq!(answers, [Answer::selected("Deploy now?", "Yes")]);
    // Other stays: the person can answer in their own words.
    let mut state = State::new(&input);
    keys(&mut state, &[KeyCode::Char('0')]);
    type_text(&mut state, "After the freeze");
    let answers = answered(keys(&mut state, &[KeyCode::Enter]));
    assert_eq!(answers, [Answer::custom("Deploy now?", "After the freeze")]);
}

/// Feeds keys and answers each path completion with `listing` as the working folder's names.
fn keys_with_listing(
    state: &mut State,
    codes: &[crossterm::event::KeyEvent],
    listing: &[(&str, bool)],
) {
    for code in codes {
        let mut effect = match msg_for_key(state, *code) {
            Some(msg) => update(state, msg),
            None => Effect::Continue,
        };
        while let Effect::Load(Load::Complete { typed }) = effect {
            let entries = listing.iter().map(|(name, dir)| (name.to_string(), *dir));
            let candidates = ask_tui::completions(&typed, entries);
            effect = update(state, Msg::Completions { typed, candidates });
        }
        assert_eq!(effect, Effect::Continue);
    }
}

const LISTING: &[(&str, bool)] = &[
    ("config", true),
    ("Cargo.toml", false),
    ("Cargo.lock", false),
    (".git", true),
    ("README.md", false),
];

#[test]
fn ctrl_t_completes_a_path_and_lists_the_candidates() {
    let input = one(ask_core::Question::path("Which file?"));
    let mut state = State::new(&input);
    type_text(&mut state, "Ca");
    keys_with_listing(&mut state, &[ctrl('t')], LISTING);
    assert_eq!(state.pages()[0].field.text(), "Cargo.");
    assert_eq!(state.pages()[0].candidates, ["Cargo.lock", "Cargo.toml"]);
    type_text(&mut state, "t");
    assert!(
        state.pages()[0].candidates.is_empty(),
        "the list goes with the next key"
    );
    keys_with_listing(&mut state, &[ctrl('t')], LISTING);
    assert_eq!(state.pages()[0].field.text(), "Cargo.toml");
    let answers = answered(keys(&mut state, &[KeyCode::Enter]));
    assert_eq!(answers, [Answer::custom("Which file?", "Cargo.toml")]);
}

#[test]
fn a_completed_folder_ends_in_a_slash_and_nothing_matching_is_said() {
    let input = one(ask_core::Question::path("Which file?"));
    let mut state = State::new(&input);
    type_text(&mut state, "co");
    keys_with_listing(&mut state, &[ctrl('t')], LISTING);
    assert_eq!(state.pages()[0].field.text(), "config/");
    let mut state = State::new(&input);
    type_text(&mut state, "zz");
    keys_with_listing(&mut state, &[ctrl('t')], LISTING);
    assert_eq!(state.pages()[0].field.text(), "zz", "the typed text stays");
    assert!(screen(&state, 80, 24).contains("No path starts with that"));
}

#[test]
fn completion_keeps_the_typed_folder_and_hides_dot_names_unless_asked() {
    let names = || LISTING.iter().map(|(n, d)| (n.to_string(), *d));
    assert_eq!(
        ask_tui::completions("src/Car", names()),
        ["src/Cargo.lock", "src/Cargo.toml"]
    );
    assert_eq!(ask_tui::completions("", names()).len(), 4, "no .git");
    assert_eq!(ask_tui::completions(".g", names()), [".git/"]);
    assert_eq!(ask_tui::completion_folder("src/Car"), "src");
    assert_eq!(ask_tui::completion_folder("/et"), "/");
    assert_eq!(ask_tui::completion_folder("Car"), ".");
}

#[test]
fn tab_stays_next_question_in_a_path_field() {
    let mut state = State::new(&kinds());
    keys(&mut state, &[KeyCode::Tab]);
    type_text(&mut state, "app.toml");
    keys(&mut state, &[KeyCode::Tab]);
    assert_eq!(state.tab(), 2, "Tab moved on");
    assert_eq!(
        state.pages()[1].answer,
        Some(Answer::custom(
            "Which config file should we use?",
            "app.toml"
        )),
        "the typed text is the answer, never checked against the disk"
    );
}

#[test]
fn a_secret_is_masked_everywhere_on_screen_and_answered_in_full() {
    let mut state = State::new(&kinds());
    // Yes, then the path, then the token.
    keys(&mut state, &[KeyCode::Char('1')]);
    type_text(&mut state, "app.toml");
    keys(&mut state, &[KeyCode::Enter]);
    type_text(&mut state, "hunter2-token");
    let typing = screen(&state, 80, 24);
    assert!(!typing.contains("hunter2"), "{typing}");
    assert!(typing.contains("•••••••••••••"), "{typing}");
    keys(&mut state, &[KeyCode::Enter]);
    let review = screen(&state, 80, 24);
    assert!(review.contains("[secret]"), "{review}");
    assert!(!review.contains("hunter2"), "{review}");
    let answers = answered(keys(&mut state, &[KeyCode::Enter]));
    assert_eq!(
        answers[2],
        Answer::custom("What is the API token?", "hunter2-token")
    );
}

#[test]
fn a_secret_chosen_option_other_text_and_note_never_show() {
    let key_question = ask_core::Question::choice("Which key?", ["key-alpha-7", "key-beta-9"])
        .with_header("Key")
        .secret();
    let scopes = ask_core::Question::choice("Which scopes?", ["scope-read", "scope-write"])
        .with_header("Scopes")
        .multi()
        .secret();
    let input = ask_core::AskUserInput {
        questions: vec![key_question, scopes],
        metadata: None,
    };
    let input = ask_core::validate(input, &ask_core::Limits::default()).unwrap();
    let mut state = State::new(input.input());
    // A note on the chosen option, typed masked.
    keys(&mut state, &[KeyCode::Down, KeyCode::Char('n')]);
    type_text(&mut state, "rotated-today");
    let typing = screen(&state, 80, 24);
    assert!(!typing.contains("rotated-today"), "{typing}");
    keys(&mut state, &[KeyCode::Enter, KeyCode::Enter]);
    // An option and typed "Other" text of the multi-select.
    keys(&mut state, &[KeyCode::Char('1'), KeyCode::Char('0')]);
    type_text(&mut state, "hunter2-scope");
    keys(&mut state, &[KeyCode::Enter, KeyCode::Enter]);
    assert_eq!(state.screen(), ask_tui::Screen::Submit);
    let review = screen(&state, 80, 24);
    for secret in ["key-beta-9", "scope-read", "hunter2-scope", "rotated-today"] {
        assert!(!review.contains(secret), "{secret} in {review}");
    }
    assert_eq!(review.matches("[secret]").count(), 3, "{review}");
    let answers = answered(keys(&mut state, &[KeyCode::Enter]));
    assert_eq!(
        answers,
        [
            Answer::selected("Which key?", "key-beta-9").with_notes(Some("rotated-today")),
            Answer::multi(
                "Which scopes?",
                vec!["scope-read".into()],
                Some("hunter2-scope".into())
            ),
        ]
    );
}

#[test]
fn a_secret_field_never_asks_for_history() {
    let input = one(ask_core::Question::text("Token?").secret());
    let mut state = State::new(&input);
    let effect = update(&mut state, Msg::Up);
    assert_eq!(effect, Effect::Continue, "no Load: a secret has no history");
}

#[test]
fn the_note_returns_beside_the_chosen_option_never_in_its_place() {
    let mut state = State::new(&single(0));
    keys(&mut state, &[KeyCode::Down, KeyCode::Char('n')]);
    type_text(&mut state, "only for the prototype");
    let answers = answered(keys(&mut state, &[KeyCode::Enter, KeyCode::Enter]));
    assert_eq!(
        answers,
        [Answer::selected("Which database should we use?", "SQLite")
            .with_notes(Some("only for the prototype"))]
    );
}

#[test]
fn each_note_stays_with_its_question_in_a_tabbed_call_and_typed_other_text_is_kept() {
    let mut state = State::new(&demo());
    keys(&mut state, &[KeyCode::Char('1')]);
    type_text(&mut state, "orders");
    press(&mut state, ctrl('n'));
    type_text(&mut state, "rename later");
    press(&mut state, ctrl('n'));
    keys(
        &mut state,
        &[KeyCode::Enter, KeyCode::Char('2'), KeyCode::Char('0')],
    );
    type_text(&mut state, "Rate limiting");
    keys(&mut state, &[KeyCode::Enter, KeyCode::Char('n')]);
    type_text(&mut state, "both, please");
    // Enter keeps the note, Enter confirms the features, Enter on the review submits.
    keys(&mut state, &[KeyCode::Enter, KeyCode::Enter]);
    assert_eq!(state.screen(), ask_tui::Screen::Submit);
    let answers = answered(keys(&mut state, &[KeyCode::Enter]));
    assert_eq!(answers[0].notes, None, "no note, no notes");
    assert_eq!(
        answers[1],
        Answer::custom(NAME, "orders").with_notes(Some("rename later"))
    );
    assert_eq!(
        answers[2],
        Answer::multi(
            "Which features should we include?",
            vec!["REST API".into()],
            Some("Rate limiting".into())
        )
        .with_notes(Some("both, please"))
    );
}

#[test]
fn a_blank_note_is_no_note() {
    let mut state = State::new(&single(0));
    keys(&mut state, &[KeyCode::Char('n')]);
    type_text(&mut state, "   ");
    let answers = answered(keys(&mut state, &[KeyCode::Enter, KeyCode::Enter]));
    assert_eq!(answers[0].notes, None);
}

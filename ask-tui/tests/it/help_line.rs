//! The help line at 80 columns: one line, in every language and on every kind of screen, with
//! room left for two more keys; and `?` on a list, which names every key of the screen.

use crate::common;

use ask_core::AskUserInput;
use ask_tui::{Lang, State};
use common::*;
use crossterm::event::KeyCode;
use unicode_width::UnicodeWidthStr;

/// The columns two more keys take, each as long as "0 Other" with its " • ".
const TWO_MORE_KEYS: usize = 2 * (3 + 7);

/// A screen, reached from a call's first screen by keys and typed text.
struct Case {
    name: &'static str,
    input: fn() -> AskUserInput,
    keys: &'static [KeyCode],
    typed: &'static str,
}

const fn case(
    name: &'static str,
    input: fn() -> AskUserInput,
    keys: &'static [KeyCode],
    typed: &'static str,
) -> Case {
    Case {
        name,
        input,
        keys,
        typed,
    }
}

fn choice() -> AskUserInput {
    single(0)
}
fn text() -> AskUserInput {
    single(1)
}
fn multi() -> AskUserInput {
    single(2)
}
fn long() -> AskUserInput {
    hundred(true)
}

const TAB: KeyCode = KeyCode::Tab;
const OTHER: KeyCode = KeyCode::Char('0');

/// Every kind of screen: a list to choose from or to tick, its filter and its "Other" field, a
/// free-text field empty and typed, a path, the note, and the review, alone and in tabs.
const CASES: &[Case] = &[
    case("choice", choice, &[], ""),
    case("multi-select", multi, &[], ""),
    case("long list", long, &[], ""),
    case("filter", long, &[KeyCode::Char('/')], "1"),
    case("other field", choice, &[OTHER], ""),
    case("other field typed", multi, &[OTHER], "x"),
    case("free text", text, &[], ""),
    case("free text typed", text, &[], "x"),
    case("note", choice, &[KeyCode::Char('n')], "x"),
    case("tabbed choice", demo, &[], ""),
    case("tabbed free text", demo, &[TAB], ""),
    case("tabbed free text typed", demo, &[TAB], "x"),
    case("tabbed multi-select", demo, &[TAB, TAB], ""),
    case("tabbed other field typed", demo, &[TAB, TAB, OTHER], "x"),
    case("tabbed note typed", demo, &[KeyCode::Char('n')], "x"),
    case("tabbed path", kinds, &[TAB], ""),
    case("tabbed path typed", kinds, &[TAB], "x"),
    case("review with an open question", demo, &[TAB, TAB, TAB], ""),
    case("review all answered", demo, &[KeyCode::Enter], "svc"),
];

fn reach(case: &Case, lang: Lang) -> State {
    let mut state = State::new(&(case.input)()).with_lang(lang);
    keys(&mut state, case.keys);
    type_text(&mut state, case.typed);
    if case.name == "review all answered" {
        keys(
            &mut state,
            &[KeyCode::Enter, KeyCode::Char('1'), KeyCode::Enter],
        );
    }
    state
}

/// The help line: the row above the bottom rule, and the rows above it that belong to it.
fn help_rows(text: &str) -> Vec<String> {
    let rows: Vec<&str> = text.lines().collect();
    let rule = rows
        .iter()
        .rposition(|row| row.starts_with('─'))
        .expect("a bottom rule");
    let last = rule - 1;
    let first = (0..=last)
        .rev()
        .find(|&i| rows[i].is_empty() || rows[i].contains('█'))
        .map_or(0, |blank| blank + 1);
    rows[first..=last]
        .iter()
        .map(|row| row.to_string())
        .collect()
}

#[test]
fn the_help_line_fits_80_columns_with_room_for_two_more_keys_in_every_language() {
    let mut problems = Vec::new();
    for lang in Lang::ALL {
        for case in CASES {
            let state = reach(case, lang);
            let rows = help_rows(&screen(&state, 80, 40));
            let room = 80 - rows.last().map_or(0, |row| row.width());
            if rows.len() != 1 || room < TWO_MORE_KEYS {
                problems.push(format!(
                    "{lang} {}: {rows:?}, {room} columns left",
                    case.name
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_note_key_says_what_it_does_in_every_language() {
    for lang in Lang::ALL {
        let text = lang.text();
        let note = text.help(ask_core::lang::Help::Note);
        let (key, words) = note.split_once(' ').expect("a key and its words");
        assert_eq!(key, if lang == Lang::De { "Strg+N" } else { "Ctrl+N" });
        // More than the word the note is shown under ("Note: "), which says what it is but not
        // what the key does.
        let noun = text.note_lead.trim_end_matches([' ', ':', '：']);
        assert!(
            !words.eq_ignore_ascii_case(noun),
            "{lang}: {note:?} names the note only"
        );
    }
    assert_eq!(
        Lang::En.text().help(ask_core::lang::Help::Note),
        "Ctrl+N add note"
    );
}

#[test]
fn question_mark_on_a_list_names_every_key_until_the_next_key() {
    let mut state = State::new(&single(0));
    let before = help_rows(&screen(&state, 80, 24));
    assert_eq!(
        before,
        ["  ↑↓ navigate • Enter select • Esc cancel • ? more keys"]
    );
    keys(&mut state, &[KeyCode::Char('?')]);
    let all = help_rows(&screen(&state, 80, 24)).join(" • ");
    for key in [
        "↑↓ navigate",
        "1-9 quick select",
        "0 Other",
        "Ctrl+N add note",
        "Enter select",
        "Esc cancel",
    ] {
        assert!(all.contains(key), "{key} missing from {all:?}");
    }
    assert!(!all.contains("? more keys"));
    // The next key does what it does, and the line is short again.
    keys(&mut state, &[KeyCode::Down]);
    assert_eq!(state.pages()[0].cursor, 1);
    assert_eq!(help_rows(&screen(&state, 80, 24)), before);
}

#[test]
fn the_review_says_enter_goes_to_an_open_question_until_all_are_answered() {
    let mut state = State::new(&demo());
    keys(&mut state, &[KeyCode::BackTab]);
    assert_eq!(
        help_rows(&screen(&state, 80, 24)),
        ["  Tab/←→ switch • Enter go to unanswered • Esc cancel"]
    );
    keys(&mut state, &[KeyCode::Enter]);
    assert_eq!(state.tab(), 0, "Enter went to the first open question");
    keys(&mut state, &[KeyCode::Enter]);
    type_text(&mut state, "svc");
    keys(
        &mut state,
        &[KeyCode::Enter, KeyCode::Char('1'), KeyCode::Enter],
    );
    assert_eq!(
        help_rows(&screen(&state, 80, 24)),
        ["  Tab/←→ switch • Enter submit • Esc cancel"]
    );
}

#[test]
fn the_current_tab_is_marked_by_a_glyph_not_only_by_colour() {
    let mut state = State::new(&demo());
    let bar = |state: &State| screen(state, 80, 24).lines().nth(1).unwrap().to_string();
    assert_eq!(
        bar(&state),
        " ← ▸□ Database  □ Service Name  □ Features  ✓ Submit →"
    );
    keys(&mut state, &[KeyCode::Enter]);
    assert_eq!(
        bar(&state),
        " ← ■ Database  ▸□ Service Name  □ Features  ✓ Submit →"
    );
    keys(&mut state, &[KeyCode::BackTab, KeyCode::BackTab]);
    assert_eq!(
        bar(&state),
        " ← ■ Database  □ Service Name  □ Features  ▸✓ Submit →"
    );
}

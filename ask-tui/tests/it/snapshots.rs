//! Every screen of the terminal UI, rendered into a buffer at 80 and at 40 columns.
//!
//! Review changes with `cargo insta review` or `cargo xtask snapshots`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use ask_tui::State;
use common::*;
use crossterm::event::KeyCode;

/// Snapshots `state` at 80×24 and at 40×12 as `NAME_80` and `NAME_40`.
#[track_caller]
fn check(name: &str, state: &State) {
    assert_snapshot!(format!("{name}_80"), screen(state, 80, 24));
    assert_snapshot!(format!("{name}_40"), screen(state, 40, 12));
}

#[test]
fn single_choice() {
    check("single_choice", &State::new(&single(0)));
}

#[test]
fn single_choice_moved_down() {
    let mut state = State::new(&single(0));
    keys(&mut state, &[KeyCode::Down]);
    check("single_choice_moved_down", &state);
}

#[test]
fn single_choice_typing_other() {
    let mut state = State::new(&single(0));
    keys(&mut state, &[KeyCode::Char('0')]);
    type_text(&mut state, "I want to use DynamoDB");
    check("single_choice_typing_other", &state);
}

#[test]
fn long_list_top() {
    check("long_list_top", &State::new(&frameworks()));
}

#[test]
fn long_list_scrolled() {
    let mut state = State::new(&frameworks());
    keys(&mut state, &[KeyCode::End, KeyCode::Up]);
    check("long_list_scrolled", &state);
}

#[test]
fn long_list_middle() {
    let mut state = State::new(&frameworks());
    keys(&mut state, &[KeyCode::PageDown, KeyCode::Up, KeyCode::Up]);
    check("long_list_middle", &state);
}

#[test]
fn free_text_empty() {
    check("free_text_empty", &State::new(&single(1)));
}

#[test]
fn free_text_typed() {
    let mut state = State::new(&single(1));
    type_text(&mut state, "order-processor");
    check("free_text_typed", &state);
}

#[test]
fn free_text_cursor_in_the_middle() {
    let mut state = State::new(&single(1));
    type_text(&mut state, "order-processor");
    keys(&mut state, &[KeyCode::Left, KeyCode::Left, KeyCode::Left]);
    check("free_text_cursor_in_the_middle", &state);
}

#[test]
fn free_text_empty_enter() {
    let mut state = State::new(&single(1));
    keys(&mut state, &[KeyCode::Enter]);
    check("free_text_empty_enter", &state);
}

#[test]
fn multi_select() {
    let mut state = State::new(&single(2));
    keys(
        &mut state,
        &[
            KeyCode::Char(' '),
            KeyCode::Down,
            KeyCode::Down,
            KeyCode::Char(' '),
            KeyCode::Up,
        ],
    );
    check("multi_select", &state);
}

#[test]
fn multi_select_with_typed_other() {
    let mut state = State::new(&single(2));
    keys(&mut state, &[KeyCode::Char('1'), KeyCode::Char('0')]);
    type_text(&mut state, "Rate limiting");
    keys(&mut state, &[KeyCode::Enter]);
    check("multi_select_with_typed_other", &state);
}

/// The open "Other" field of a multi-select says that its text is added to the ticks.
#[test]
fn multi_select_typing_other() {
    let mut state = State::new(&single(2));
    keys(&mut state, &[KeyCode::Char('1'), KeyCode::Char('0')]);
    type_text(&mut state, "Rate limiting");
    check("multi_select_typing_other", &state);
}

#[test]
fn tabs_first_question() {
    check("tabs_first_question", &State::new(&demo()));
}

#[test]
fn tabs_after_first_answer() {
    let mut state = State::new(&demo());
    keys(&mut state, &[KeyCode::Enter]);
    check("tabs_after_first_answer", &state);
}

#[test]
fn tabs_multi_select_tab() {
    let mut state = State::new(&demo());
    keys(&mut state, &[KeyCode::Enter, KeyCode::Tab]);
    check("tabs_multi_select_tab", &state);
}

#[test]
fn submit_tab_with_unanswered() {
    let mut state = State::new(&demo());
    keys(
        &mut state,
        &[
            KeyCode::Char('2'),
            KeyCode::Tab,
            KeyCode::Char('1'),
            KeyCode::Enter,
        ],
    );
    check("submit_tab_with_unanswered", &state);
}

#[test]
fn submit_tab_all_answered() {
    let mut state = State::new(&demo());
    keys(&mut state, &[KeyCode::Enter]);
    type_text(&mut state, "order-processor");
    keys(
        &mut state,
        &[
            KeyCode::Enter,
            KeyCode::Char('1'),
            KeyCode::Char('3'),
            KeyCode::Enter,
        ],
    );
    check("submit_tab_all_answered", &state);
}

#[test]
fn submit_with_unanswered_jumps_back() {
    let mut state = State::new(&demo());
    keys(
        &mut state,
        &[
            KeyCode::Enter,
            KeyCode::BackTab,
            KeyCode::BackTab,
            KeyCode::Enter,
        ],
    );
    check("submit_with_unanswered_jumps_back", &state);
}

/// The chosen option of a single choice keeps its ● when the highlight moves away.
#[test]
fn single_choice_marks_the_chosen_option_wherever_the_highlight_is() {
    let mut state = State::new(&demo());
    keys(
        &mut state,
        &[
            KeyCode::Down,
            KeyCode::Enter,
            KeyCode::BackTab,
            KeyCode::Down,
        ],
    );
    check("chosen_option_marked", &state);
}

#[test]
fn discard_dialog() {
    let mut state = State::new(&demo());
    keys(&mut state, &[KeyCode::Enter, KeyCode::Esc]);
    check("discard_dialog", &state);
}

/// Ctrl+C asks the same question as Esc, and says that a second Ctrl+C abandons the call.
#[test]
fn discard_dialog_after_ctrl_c() {
    let mut state = State::new(&demo());
    keys(&mut state, &[KeyCode::Enter]);
    press(&mut state, ctrl('c'));
    check("discard_dialog_after_ctrl_c", &state);
}

/// Esc on a lone multi-select with boxes ticked asks first, as typed text does.
#[test]
fn discard_ticked_boxes() {
    let mut state = State::new(&single(2));
    keys(
        &mut state,
        &[KeyCode::Char('1'), KeyCode::Char('3'), KeyCode::Esc],
    );
    check("discard_ticked_boxes", &state);
}

/// Enter on an empty field that shows an example says the example is not an answer.
#[test]
fn example_is_not_an_answer() {
    let mut state = State::new(&kinds());
    keys(&mut state, &[KeyCode::Tab, KeyCode::Enter]);
    check("example_is_not_an_answer", &state);
}

/// `?` on a list names every key of the screen until the next key.
#[test]
fn every_key_after_question_mark() {
    let mut state = State::new(&single(2));
    keys(&mut state, &[KeyCode::Char('?')]);
    check("every_key_after_question_mark", &state);
}

/// Enter on a multi-select with nothing ticked asks rather than taking the highlighted row.
#[test]
fn none_of_these_dialog() {
    let mut state = State::new(&single(2));
    keys(&mut state, &[KeyCode::Down, KeyCode::Enter]);
    check("none_of_these_dialog", &state);
}

/// The review names a multi-select answered with none of its options.
#[test]
fn submit_tab_with_none_of_these() {
    let mut state = State::new(&demo());
    keys(&mut state, &[KeyCode::Enter]);
    type_text(&mut state, "order-processor");
    keys(
        &mut state,
        &[KeyCode::Enter, KeyCode::Enter, KeyCode::Char('y')],
    );
    check("submit_tab_with_none_of_these", &state);
}

#[test]
fn long_answer_dialog() {
    let mut state = State::new(&single(1));
    let mut msg_state = state.clone();
    ask_tui::update(&mut msg_state, ask_tui::Msg::Paste("x".repeat(2847)));
    state = msg_state;
    keys(&mut state, &[KeyCode::Enter]);
    check("long_answer_dialog", &state);
}

#[test]
fn unusual_text() {
    check("unusual_text", &State::new(&unusual()));
}

#[test]
fn recommended_is_marked_in_green() {
    let state = State::new(&single(0));
    let area = ratatui::layout::Rect::new(0, 0, 80, 24);
    let mut buf = ratatui::buffer::Buffer::empty(area);
    ask_tui::render(&state, area, &mut buf);
    let text = buffer_text(&buf);
    let row = text
        .lines()
        .position(|l| l.contains("(Recommended)"))
        .unwrap();
    let col = text
        .lines()
        .nth(row)
        .unwrap()
        .find("(Recommended)")
        .unwrap();
    let cell = &buf[(u16::try_from(col).unwrap(), u16::try_from(row).unwrap())];
    assert_eq!(cell.fg, ratatui::style::Color::Green);
    let plain = &buf[(7, u16::try_from(row).unwrap())];
    assert_ne!(
        plain.fg,
        ratatui::style::Color::Green,
        "only the suffix is green"
    );
}

#[test]
fn the_text_cursor_is_a_reversed_cell() {
    let mut state = State::new(&single(1));
    type_text(&mut state, "order-processor");
    keys(&mut state, &[KeyCode::Home]);
    let area = ratatui::layout::Rect::new(0, 0, 80, 24);
    let mut buf = ratatui::buffer::Buffer::empty(area);
    ask_tui::render(&state, area, &mut buf);
    let text = buffer_text(&buf);
    let row = text.lines().position(|l| l.contains("> order")).unwrap();
    let cell = &buf[(4, u16::try_from(row).unwrap())];
    assert_eq!(cell.symbol(), "o");
    assert!(cell.modifier.contains(ratatui::style::Modifier::REVERSED));
}

/// At every size from 20×8 up, each screen keeps the help line, the highlighted row and both
/// rules, and no line is wider than the terminal.
#[test]
fn every_size_keeps_the_essentials() {
    let mut states = vec![
        State::new(&single(0)),
        State::new(&frameworks()),
        State::new(&unusual()),
        State::new(&demo()),
    ];
    let mut end = State::new(&frameworks());
    keys(&mut end, &[KeyCode::End]);
    states.push(end);
    for state in &states {
        for width in (20..=100).step_by(7) {
            for height in 8..=30 {
                let text = screen(state, width, height);
                let lines: Vec<&str> = text.lines().collect();
                assert!(lines[0].starts_with('─'), "{width}×{height}:\n{text}");
                assert!(
                    lines.iter().any(|l| l.trim_start().starts_with("> ")),
                    "the highlighted row shows at {width}×{height}:\n{text}"
                );
                assert!(
                    text.contains("Esc"),
                    "the help line shows at {width}×{height}:\n{text}"
                );
            }
        }
    }
}

/// Six questions with short headers: more than the default limit allows, as with
/// `--max-questions 6`.
fn six_questions() -> ask_core::AskUserInput {
    let questions = ["Language", "Database", "Cache", "Queue", "Hosting", "CI"]
        .iter()
        .map(|header| {
            ask_core::Question::choice(
                format!("Which {}?", header.to_lowercase()),
                ["First", "Second"],
            )
            .with_header(*header)
        })
        .collect();
    ask_core::AskUserInput {
        questions,
        metadata: None,
    }
}

/// Six questions, all answered: at 40×12 the review gets denser, the questions that still do
/// not fit are counted, and the tab bar shows the last tabs with the count of the others.
#[test]
fn submit_tab_six_questions() {
    let mut state = State::new(&six_questions());
    for _ in 0..6 {
        keys(&mut state, &[KeyCode::Char('1')]);
    }
    check("submit_tab_six_questions", &state);
}

/// Six questions on the third tab: at 40 columns the tab bar shows the tabs around it.
#[test]
fn tabs_six_questions_middle() {
    let mut state = State::new(&six_questions());
    keys(&mut state, &[KeyCode::Char('1'), KeyCode::Char('2')]);
    check("tabs_six_questions_middle", &state);
}

#[test]
fn six_questions_keep_the_current_tab_submit_and_every_answer_in_view() {
    let input = six_questions();
    for tab in 0..=6 {
        let mut state = State::new(&input);
        for _ in 0..tab {
            keys(&mut state, &[KeyCode::Char('1')]);
        }
        for width in 20..=100 {
            for height in [8, 12, 24] {
                let text = screen(&state, width, height);
                let bar = text.lines().nth(1).unwrap();
                assert!(
                    bar.contains("✓ Submit"),
                    "tab {tab} at {width}×{height}: {bar}"
                );
                if tab < 6 {
                    if width < 26 {
                        continue;
                    }
                    let header = input.questions[tab].header.as_deref().unwrap();
                    let start: String = header.chars().take(2).collect();
                    assert!(
                        bar.contains(&format!("■ {start}")) || bar.contains(&format!("□ {start}")),
                        "the current tab shows, tab {tab} at {width}×{height}: {bar}"
                    );
                } else if height >= 12 {
                    // The review names every question, or counts the ones it leaves out.
                    let review: String = text.lines().skip(2).collect::<Vec<_>>().join("\n");
                    let named = input
                        .questions
                        .iter()
                        .filter(|q| review.contains(&format!("■ {}", q.header.as_deref().unwrap())))
                        .count();
                    assert!(
                        named == 6 || text.contains(&format!("... {} more", 6 - named)),
                        "at {width}×{height}:\n{text}"
                    );
                }
            }
        }
    }
}

/// Long headers at narrow widths: the compact review keeps some of every answer.
#[test]
fn the_compact_review_keeps_every_answer_in_sight() {
    let questions = (1..=4)
        .map(|i| {
            ask_core::Question::choice(format!("Question {i}?"), ["Alpha", "Beta"])
                .with_header(format!("数据库选择 header {i}"))
        })
        .collect();
    let input = ask_core::AskUserInput {
        questions,
        metadata: None,
    };
    let mut state = State::new(&input);
    for _ in 0..4 {
        keys(&mut state, &[KeyCode::Char('1')]);
    }
    for width in 16..=60 {
        let text = screen(&state, width, 12);
        let answers = text
            .lines()
            .filter(|l| l.trim_start().starts_with('■'))
            .count();
        let with_answer = text.lines().filter(|l| l.contains(": Al")).count();
        assert_eq!(answers, with_answer, "at {width}×12:\n{text}");
    }
}

/// Prints the screen lines at `width`×`height` and checks that none is wider than the terminal.
#[track_caller]
fn fitted(state: &State, width: u16, height: u16) -> String {
    for line in ask_tui::screen_lines(state, usize::from(width), usize::from(height)) {
        let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
        assert!(
            unicode_width::UnicodeWidthStr::width(text.as_str()) <= usize::from(width),
            "wider than {width}: {text:?}"
        );
    }
    screen(state, width, height)
}

/// The text of the rows that start with `lead`, and of the rows after it up to the next row
/// that does not start with `indent` spaces, with the lead and indents taken off.
fn field_text(screen: &str, lead: &str, indent: usize) -> String {
    let mut out = String::new();
    let mut inside = false;
    for line in screen.lines() {
        if let Some(rest) = line.strip_prefix(lead) {
            out.push_str(rest);
            inside = true;
        } else if inside && line.starts_with(&" ".repeat(indent)) && !line.trim().is_empty() {
            out.push_str(&line[indent..]);
        } else {
            inside = false;
        }
    }
    out
}

/// Item: typing past the first line of "Other" hides nothing, in ASCII and in CJK text.
#[test]
fn other_field_wider_than_a_line() {
    let typed: String = (0..90).map(|i| char::from(b'a' + (i % 26) as u8)).collect();
    let mut state = State::new(&single(0));
    keys(&mut state, &[KeyCode::Char('0')]);
    type_text(&mut state, &typed);
    check("other_field_wider_than_a_line", &state);
    for width in [40, 60, 80, 100] {
        let text = fitted(&state, width, 24);
        assert_eq!(
            field_text(&text, "  > 4. Other: ", 7).trim_end_matches('█'),
            typed,
            "at {width} columns:\n{text}"
        );
    }
    let cjk: String = "数据库选择用哪个服务名称"
        .chars()
        .cycle()
        .take(50)
        .collect();
    let mut state = State::new(&single(0));
    keys(&mut state, &[KeyCode::Char('0')]);
    type_text(&mut state, &cjk);
    check("other_field_cjk", &state);
    for width in [40, 61, 80] {
        let text = fitted(&state, width, 24);
        assert_eq!(
            field_text(&text, "  > 4. Other: ", 7).trim_end_matches('█'),
            cjk,
            "at {width} columns:\n{text}"
        );
    }
}

fn hidden_lines() -> ask_core::AskUserInput {
    let question = format!(
        "Deploy to staging?{}ALSO DROP THE PRODUCTION DATABASE",
        "\n".repeat(40)
    );
    ask_core::AskUserInput {
        questions: vec![ask_core::Question::choice(question, ["Yes", "No"])],
        metadata: None,
    }
}

/// Scrolls the text of `state` as far down as it goes, drawing a frame before each key as the
/// terminal does.
fn scroll_to_end(state: &mut State, width: u16, height: u16) {
    for _ in 0..200 {
        screen(state, width, height);
        ask_tui::update(state, ask_tui::Msg::ScrollDown);
    }
}

/// Issue 16: a question with many line breaks is cut with a marker and scrolls to its end.
#[test]
fn a_question_with_hidden_lines_scrolls() {
    let state = State::new(&hidden_lines());
    check("question_with_hidden_lines", &state);
    let text = screen(&state, 80, 24);
    assert!(text.contains("… 24 more lines"), "{text}");
    assert!(text.contains("Shift+↑↓ scroll"), "{text}");
    assert!(!text.contains("ALSO DROP"), "{text}");

    let mut state = State::new(&hidden_lines());
    scroll_to_end(&mut state, 80, 24);
    assert_snapshot!(
        "question_with_hidden_lines_scrolled_80",
        screen(&state, 80, 24)
    );
    let text = screen(&state, 80, 24);
    assert!(text.contains("ALSO DROP THE PRODUCTION DATABASE"), "{text}");
    assert!(text.contains("… 24 lines above"), "{text}");
    // Scrolling stopped at the end: one key back up shows a line more above the marker.
    ask_tui::update(&mut state, ask_tui::Msg::ScrollUp);
    let text = screen(&state, 80, 24);
    assert!(text.contains("… 23 lines above, 1 more"), "{text}");

    let mut state = State::new(&hidden_lines());
    scroll_to_end(&mut state, 40, 12);
    assert_snapshot!(
        "question_with_hidden_lines_scrolled_40",
        screen(&state, 40, 12)
    );
    assert!(screen(&state, 40, 12).contains("ALSO DROP"));
}

/// Issue 16: a description longer than the screen scrolls once the question is shown whole.
#[test]
fn a_long_description_scrolls() {
    let description = (1..=30)
        .map(|i| format!("detail {i}"))
        .collect::<Vec<_>>()
        .join("\n");
    let input = ask_core::AskUserInput {
        questions: vec![ask_core::Question {
            question: "Which plan?".into(),
            header: None,
            options: Some(vec![
                ask_core::QuestionOption::new("Basic").with_description(description),
                ask_core::QuestionOption::new("Pro"),
            ]),
            multi_select: false,
            ..ask_core::Question::default()
        }],
        metadata: None,
    };
    let state = State::new(&input);
    check("long_description", &state);
    let text = screen(&state, 80, 24);
    assert!(text.contains("more lines"), "{text}");
    let mut state = State::new(&input);
    scroll_to_end(&mut state, 80, 24);
    let text = screen(&state, 80, 24);
    assert!(text.contains("detail 30"), "{text}");
    assert!(text.contains("lines above"), "{text}");
    // Moving to another option starts its text at the top again.
    ask_tui::update(&mut state, ask_tui::Msg::Down);
    assert_eq!(state.pages()[0].scroll, 0);
}

/// Items 6 and 7: at every size every option is on screen or counted by a marker, and a
/// question that is not shown whole says so.
#[test]
fn every_size_shows_or_counts_every_row_and_line() {
    let mut states = Vec::new();
    for moves in [0, 3, 5, 8] {
        let mut state = State::new(&frameworks());
        for _ in 0..moves {
            keys(&mut state, &[KeyCode::Down]);
        }
        states.push((state, 9));
    }
    states.push((State::new(&unusual()), 3));
    states.push((State::new(&single(0)), 4));
    let mut notice = State::new(&single(0));
    keys(&mut notice, &[KeyCode::Char('0'), KeyCode::Enter]);
    assert!(notice.notice().is_some());
    states.push((notice, 4));
    for (state, rows) in &states {
        for width in (20..=100).step_by(9) {
            for height in 8..=26 {
                let text = fitted(state, width, height);
                let numbered = (1..=*rows)
                    .filter(|n| {
                        text.lines().any(|l| {
                            let l = l.trim_start().trim_start_matches("> ");
                            l.starts_with(&format!("{n}. "))
                        })
                    })
                    .count();
                let count = |arrow: char| {
                    text.lines()
                        .filter(|l| l.contains("more..."))
                        .filter_map(|l| {
                            let at = l.find(arrow)?;
                            l[at + arrow.len_utf8()..]
                                .split_whitespace()
                                .next()?
                                .parse::<usize>()
                                .ok()
                        })
                        .sum::<usize>()
                };
                assert_eq!(
                    numbered + count('↑') + count('↓'),
                    *rows,
                    "{width}×{height}:\n{text}"
                );
                if !text.contains("carefully") && text.contains("数据") {
                    assert!(
                        text.lines().any(|l| l.contains('…') && l.contains("more")),
                        "{width}×{height}:\n{text}"
                    );
                }
            }
        }
    }
}

/// The eight-framework list on an 80×8 terminal: the markers stay.
#[test]
fn long_list_on_a_short_terminal() {
    let mut state = State::new(&frameworks());
    keys(&mut state, &[KeyCode::Down, KeyCode::Down]);
    let text = screen(&state, 80, 8);
    assert_snapshot!("long_list_short_80x8", text);
    assert!(text.contains("↑ 2 more..."), "{text}");
    assert!(text.contains("↓ 6 more..."), "{text}");
}

/// Item 8: "(Recommended)" is never split and always green, at every width.
#[test]
fn recommended_stays_whole_and_green() {
    let input = ask_core::AskUserInput {
        questions: vec![ask_core::Question::choice(
            "Which database should we use?",
            ["PostgreSQL with extensions (Recommended)", "SQLite"],
        )],
        metadata: None,
    };
    let state = State::new(&input);
    check("recommended_on_narrow_terminals", &state);
    for width in 20..=80u16 {
        let area = ratatui::layout::Rect::new(0, 0, width, 24);
        let mut buf = ratatui::buffer::Buffer::empty(area);
        ask_tui::render(&state, area, &mut buf);
        let text = buffer_text(&buf);
        let row = text
            .lines()
            .position(|l| l.contains("(Recommended)"))
            .unwrap_or_else(|| panic!("whole at {width}:\n{text}"));
        let line = text.lines().nth(row).unwrap();
        let col = line[..line.find("(Recommended)").unwrap()].chars().count();
        for i in 0..13 {
            let cell = &buf[(u16::try_from(col + i).unwrap(), u16::try_from(row).unwrap())];
            assert_eq!(cell.fg, ratatui::style::Color::Green, "at {width}:\n{text}");
        }
    }
    // The label is drawn as written: no space is added before a suffix written without one.
    let input = ask_core::AskUserInput {
        questions: vec![ask_core::Question::choice(
            "Which database should we use?",
            ["PostgreSQL(Recommended)", "SQLite"],
        )],
        metadata: None,
    };
    let text = screen(&State::new(&input), 80, 24);
    assert!(text.contains("> 1. PostgreSQL(Recommended)\n"), "{text}");
}

/// Item 9: Other text kept on a tab answered with another option says it is not the answer.
#[test]
fn other_text_not_chosen() {
    let mut state = State::new(&demo());
    keys(&mut state, &[KeyCode::Char('0')]);
    type_text(&mut state, "DynamoDB");
    keys(
        &mut state,
        &[KeyCode::Esc, KeyCode::Char('2'), KeyCode::BackTab],
    );
    check("other_text_not_chosen", &state);
}

/// Item 9: a lone question's Other text left with Esc is shown on its row.
#[test]
fn other_text_kept_after_esc() {
    let mut state = State::new(&single(0));
    keys(&mut state, &[KeyCode::Char('0')]);
    type_text(&mut state, "DynamoDB");
    keys(&mut state, &[KeyCode::Esc]);
    check("other_text_kept_after_esc", &state);
}

/// Item 9: typed free text counts for the discard confirmation.
#[test]
fn discard_typed_text() {
    let mut state = State::new(&single(1));
    type_text(&mut state, "order-processor");
    keys(&mut state, &[KeyCode::Esc]);
    check("discard_typed_text", &state);
}

/// Item 11: a million characters in a field, cursor in the middle.
#[test]
fn huge_field() {
    let mut state = State::new(&single(1));
    ask_tui::update(
        &mut state,
        ask_tui::Msg::Paste("abcdefghij".repeat(100_000)),
    );
    for _ in 0..5_000 {
        ask_tui::update(&mut state, ask_tui::Msg::CursorLeft);
    }
    check("huge_field", &state);
}

/// A paste into "Other" past the cap of one answer: the field holds 64 KiB, and the help line
/// says that the rest was left out.
#[test]
fn answer_cap_reached() {
    let mut state = State::new(&single(0));
    ask_tui::update(&mut state, ask_tui::Msg::Paste("pasted ".repeat(10_000)));
    check("answer_cap_reached", &state);
}

/// The screen the terminal UI's page shows is the demo's first screen as it is drawn today.
#[test]
fn the_terminal_page_shows_the_current_demo_screen() {
    let page = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/terminal.md"))
        .unwrap();
    let start = page
        .find("```text\n─")
        .expect("docs/terminal.md shows the demo screen in a text block")
        + "```text\n".len();
    let end = start + page[start..].find("\n```").unwrap();
    let expected = screen(&State::new(&demo()), 80, 24);
    assert_eq!(&page[start..end], expected.trim_end_matches('\n'));
}

/// A long question and a long description share the screen, and scrolling reaches the end of
/// both: first the question, then the highlighted description.
#[test]
fn a_long_question_and_a_long_description_both_scroll_to_their_ends() {
    let lines = |word: &str| {
        (1..=30)
            .map(|i| format!("{word} {i}"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let input = ask_core::AskUserInput {
        questions: vec![ask_core::Question {
            question: lines("question line"),
            header: None,
            options: Some(vec![
                ask_core::QuestionOption::new("Basic").with_description(lines("detail")),
                ask_core::QuestionOption::new("Pro"),
            ]),
            multi_select: false,
            ..ask_core::Question::default()
        }],
        metadata: None,
    };
    for (width, height) in [(80, 24), (40, 12), (80, 8), (40, 8)] {
        let mut state = State::new(&input);
        let mut seen_question_end = false;
        for _ in 0..100 {
            let text = screen(&state, width, height);
            seen_question_end |= text.contains("question line 30");
            ask_tui::update(&mut state, ask_tui::Msg::ScrollDown);
        }
        let text = screen(&state, width, height);
        assert!(
            seen_question_end,
            "the question's last line showed at {width}×{height}"
        );
        assert!(text.contains("detail 30"), "at {width}×{height}:\n{text}");
    }
}

/// Item 5 on a short terminal: while typing into "Other", the line with the cursor stays on
/// screen (the lines out of view are counted), at every size down to 40×8.
#[test]
fn an_open_field_on_a_short_terminal_keeps_its_cursor_in_view() {
    let typed: String = (0..62).map(|i| format!("{i:02}")).collect();
    for input in [demo(), single(0)] {
        let mut state = State::new(&input);
        keys(&mut state, &[KeyCode::Char('0')]);
        type_text(&mut state, &typed);
        for width in [40, 60, 80] {
            for height in 7..=14 {
                let text = fitted(&state, width, height);
                assert!(text.contains("6061█"), "{width}×{height}:\n{text}");
                let whole = field_text(&text, "  > 4. Other: ", 7).trim_end_matches('█') == typed;
                assert!(
                    whole || text.contains("line") || text.contains("characters"),
                    "the lines out of view are counted at {width}×{height}:\n{text}"
                );
            }
        }
    }
    let mut state = State::new(&demo());
    keys(&mut state, &[KeyCode::Char('0')]);
    type_text(&mut state, &typed);
    let text = fitted(&state, 40, 8);
    assert_snapshot!("other_field_short_40x8", text);
    // With a single line left for the row, the line with the cursor is the one shown, and the
    // marker counts the lines above it.
    let text = fitted(&state, 40, 7);
    assert!(text.contains("\n       8596061█\n"), "{text}");
    assert!(text.contains("↑ 3 more... · … 2 lines above"), "{text}");
}

/// A free-text field on a terminal only a few rows high (down to the size that leaves the field
/// two rows): the frame keeps its help line and its closing rule, and the text out of view is
/// counted, wherever the cursor is.
#[test]
fn a_free_text_field_on_a_short_terminal_keeps_the_frame() {
    let typed: String = (0..62).map(|i| format!("{i:02}")).collect();
    let mut state = State::new(&demo());
    keys(&mut state, &[KeyCode::Tab]);
    type_text(&mut state, &typed);
    for moves in [&[][..], &[KeyCode::Home], &[KeyCode::Home, KeyCode::Right]] {
        for _ in 0..62 {
            keys(&mut state, moves);
        }
        // At 30 columns the help line takes two rows, so the field has two rows from eight.
        for (width, lowest) in [(30, 8), (40, 7), (80, 7)] {
            for height in lowest..=10 {
                let text = fitted(&state, width, height);
                let lines: Vec<&str> = text.lines().collect();
                assert!(
                    lines.last().is_some_and(|l| l.chars().all(|c| c == '─')),
                    "{width}×{height}:\n{text}"
                );
                assert!(text.contains("Esc"), "{width}×{height}:\n{text}");
                assert!(
                    text.contains("earlier") || text.contains("more") || text.contains("6061"),
                    "{width}×{height}:\n{text}"
                );
            }
        }
    }
    keys(&mut state, &[KeyCode::End]);
    for _ in 0..30 {
        keys(&mut state, &[KeyCode::Left]);
    }
    assert_snapshot!("free_text_short_40x7", fitted(&state, 40, 7));
}

/// Issue 16: when a question has a single row, which it shares with its marker, scrolling
/// still shows every word of it, none cut with "…".
#[test]
fn a_question_on_one_row_scrolls_through_every_word() {
    for (width, height) in [(40, 8), (30, 8), (80, 7), (32, 9)] {
        let mut state = State::new(&hidden_lines());
        let mut words = std::collections::BTreeSet::new();
        for _ in 0..120 {
            let text = fitted(&state, width, height);
            let question = text.lines().nth(1).unwrap();
            assert!(question.contains('…'), "{text}");
            words.extend(question.split_whitespace().map(str::to_string));
            ask_tui::update(&mut state, ask_tui::Msg::ScrollDown);
        }
        // "staging?" may wrap as "staging" and "?" at some widths.
        let seen = |word: &str| words.iter().any(|w| w.trim_end_matches('?') == word);
        for word in [
            "Deploy",
            "staging",
            "ALSO",
            "DROP",
            "PRODUCTION",
            "DATABASE",
        ] {
            assert!(seen(word), "{word} at {width}×{height}: {words:?}");
        }
    }
    let mut state = State::new(&hidden_lines());
    scroll_to_end(&mut state, 40, 8);
    assert_snapshot!("question_on_one_row_scrolled_40x8", fitted(&state, 40, 8));
}

#[test]
fn filter_open() {
    let mut state = State::new(&frameworks());
    keys(&mut state, &[KeyCode::Char('/')]);
    check("filter_open", &state);
}

#[test]
fn filter_typed() {
    let mut state = State::new(&frameworks());
    keys(&mut state, &[KeyCode::Char('/')]);
    type_text(&mut state, "js");
    keys(&mut state, &[KeyCode::Down]);
    check("filter_typed", &state);
}

#[test]
fn filter_of_a_hundred_multi_select() {
    let mut state = State::new(&hundred(true));
    keys(&mut state, &[KeyCode::Char('a'), KeyCode::Char('/')]);
    type_text(&mut state, "5");
    check("filter_of_a_hundred_multi_select", &state);
}

#[test]
fn filter_matching_nothing() {
    let mut state = State::new(&frameworks());
    keys(&mut state, &[KeyCode::Char('/')]);
    type_text(&mut state, "django");
    check("filter_matching_nothing", &state);
}

#[test]
fn multi_select_all_ticked() {
    let mut state = State::new(&single(2));
    keys(&mut state, &[KeyCode::Char('a')]);
    check("multi_select_all_ticked", &state);
}

#[test]
fn note_open() {
    let mut state = State::new(&single(0));
    keys(&mut state, &[KeyCode::Down, KeyCode::Char('n')]);
    type_text(&mut state, "only for the prototype");
    check("note_open", &state);
}

#[test]
fn note_kept_in_a_tabbed_call() {
    let mut state = State::new(&demo());
    keys(&mut state, &[KeyCode::Char('n')]);
    type_text(&mut state, "only for the prototype");
    keys(&mut state, &[KeyCode::Enter]);
    check("note_kept_in_a_tabbed_call", &state);
}

/// Snapshots `state` also at 120×24, where a preview shows beside the list.
#[track_caller]
fn check_wide(name: &str, state: &State) {
    check(name, state);
    assert_snapshot!(format!("{name}_120"), screen(state, 120, 24));
}

#[test]
fn preview_of_the_first_option() {
    check_wide("preview_first", &State::new(&previews(false)));
}

#[test]
fn preview_long_scrolled() {
    let mut state = State::new(&previews(false));
    keys(&mut state, &[KeyCode::Down, KeyCode::Down]);
    screen(&state, 80, 24);
    keys(&mut state, &[KeyCode::Char(']'), KeyCode::Char(']')]);
    check("preview_long_scrolled", &state);
    let mut state = State::new(&previews(false));
    keys(&mut state, &[KeyCode::Down, KeyCode::Down]);
    screen(&state, 120, 24);
    keys(&mut state, &[KeyCode::Char(']'), KeyCode::Char(']')]);
    assert_snapshot!("preview_long_scrolled_120", screen(&state, 120, 24));
}

#[test]
fn preview_on_other_in_a_multi_select() {
    let mut state = State::new(&previews(true));
    keys(&mut state, &[KeyCode::Char('1'), KeyCode::End]);
    check_wide("preview_other_multi", &state);
}

#[test]
fn yes_no() {
    check("yes_no", &State::new(&kinds()));
}

#[test]
fn path_with_placeholder() {
    let mut state = State::new(&kinds());
    keys(&mut state, &[KeyCode::Tab]);
    check("path_with_placeholder", &state);
}

#[test]
fn path_candidates() {
    let mut state = State::new(&kinds());
    keys(&mut state, &[KeyCode::Tab]);
    type_text(&mut state, "src/");
    let candidates: Vec<String> = [
        "main.rs",
        "lib.rs",
        "layout.rs",
        "lang.rs",
        "state.rs",
        "view.rs",
    ]
    .iter()
    .map(|name| format!("src/{name}"))
    .collect();
    ask_tui::update(
        &mut state,
        ask_tui::Msg::Completions {
            typed: "src/".into(),
            candidates,
        },
    );
    check("path_candidates", &state);
}

#[test]
fn secret_typed() {
    let mut state = State::new(&kinds());
    keys(&mut state, &[KeyCode::Tab, KeyCode::Tab]);
    type_text(&mut state, "hunter2-token");
    keys(&mut state, &[KeyCode::Left, KeyCode::Left]);
    check("secret_typed", &state);
}

#[test]
fn secret_in_the_review() {
    let mut state = State::new(&kinds());
    keys(&mut state, &[KeyCode::Char('2')]);
    type_text(&mut state, "app.toml");
    keys(&mut state, &[KeyCode::Enter]);
    type_text(&mut state, "hunter2-token");
    keys(&mut state, &[KeyCode::Enter]);
    check("secret_in_the_review", &state);
}

/// The filter, a preview and a note in German and Japanese (double-width), at 80 and 40
/// columns and at 120 for the preview beside the list; no row is wider than the terminal.
#[test]
fn filter_preview_and_note_in_german_and_japanese() {
    use unicode_width::UnicodeWidthStr;
    for lang in [ask_tui::Lang::De, ask_tui::Lang::Ja] {
        let code = lang.code();
        let mut filter = State::new(&frameworks()).with_lang(lang);
        keys(&mut filter, &[KeyCode::Char('/')]);
        type_text(&mut filter, "js");
        let mut preview = State::new(&previews(false)).with_lang(lang);
        keys(
            &mut preview,
            &[KeyCode::Down, KeyCode::Down, KeyCode::Char('n')],
        );
        type_text(&mut preview, "本番のみ");
        for (name, state) in [("filter", &filter), ("preview_note", &preview)] {
            for (width, height) in [(120, 24), (80, 24), (40, 12)] {
                if name == "filter" && width == 120 {
                    continue;
                }
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
    }
}

#[test]
fn review_with_a_note() {
    let mut state = State::new(&demo());
    keys(&mut state, &[KeyCode::Char('n')]);
    type_text(&mut state, "only for the prototype");
    keys(&mut state, &[KeyCode::Enter, KeyCode::Enter]);
    type_text(&mut state, "orders");
    keys(
        &mut state,
        &[KeyCode::Enter, KeyCode::Char('1'), KeyCode::Enter],
    );
    check("review_with_a_note", &state);
}

/// A text field that holds text: the help line says that ← → move the cursor and Tab switches.
#[test]
fn text_field_with_text_names_the_cursor_keys() {
    let mut state = State::new(&demo());
    keys(&mut state, &[KeyCode::Enter]);
    type_text(&mut state, "scanner");
    keys(&mut state, &[KeyCode::Left, KeyCode::Left]);
    check("text_field_with_text_names_the_cursor_keys", &state);
}

/// An empty "Other" field in a tabbed call: ← → switch, as on the list, and Ctrl+N is named.
#[test]
fn empty_other_field_names_the_arrows_and_ctrl_n() {
    let mut state = State::new(&demo());
    keys(&mut state, &[KeyCode::Char('0')]);
    check("empty_other_field_names_the_arrows_and_ctrl_n", &state);
}

/// Ctrl+N in a text field opens the note under the typed answer.
#[test]
fn ctrl_n_opens_the_note_in_a_text_field() {
    let mut state = State::new(&demo());
    keys(&mut state, &[KeyCode::Enter]);
    type_text(&mut state, "scanner");
    press(&mut state, ctrl('n'));
    type_text(&mut state, "rename later");
    check("ctrl_n_opens_the_note_in_a_text_field", &state);
}

/// The demo answered with longer answers: at 80 columns every answer shows whole under its
/// header; at 40×12 the review goes one line per question and wraps the answers whole into the
/// rows it has, cutting nothing.
#[test]
fn review_uses_its_rows_before_cutting() {
    let mut state = State::new(&demo());
    keys(&mut state, &[KeyCode::Enter]);
    type_text(&mut state, "order-processor-eu");
    keys(
        &mut state,
        &[KeyCode::Enter, KeyCode::Char('a'), KeyCode::Enter],
    );
    assert_eq!(state.screen(), ask_tui::Screen::Submit);
    check("review_uses_its_rows_before_cutting", &state);
}

/// An answer too long for the rows the review has is cut to its share of them and ends in a
/// marker naming the key that opens its question.
#[test]
fn review_cut_answer_names_the_key_that_shows_it() {
    let mut state = State::new(&demo());
    keys(&mut state, &[KeyCode::Enter]);
    type_text(
        &mut state,
        "the order processor, which takes the orders of every shop in the European Union, \
         checks their stock in the warehouses nearest to the customer, reserves it, and \
         hands each parcel to the carrier that can deliver it soonest at the lowest price",
    );
    keys(
        &mut state,
        &[KeyCode::Enter, KeyCode::Char('a'), KeyCode::Enter],
    );
    check("review_cut_answer_names_the_key_that_shows_it", &state);
}

/// The words of a typed "Other" answer as the rows show them: no word is split across rows
/// when it fits on a row of its own.
#[track_caller]
fn words_whole(screen: &str, lead: &str, indent: usize, typed: &str) {
    let rows: Vec<String> = screen
        .lines()
        .skip_while(|line| !line.starts_with(lead))
        .take_while(|line| line.starts_with(lead) || line.starts_with(&" ".repeat(indent)))
        .map(|line| {
            line.trim()
                .trim_start_matches(lead.trim())
                .trim()
                .to_string()
        })
        .collect();
    let shown: Vec<&str> = rows.iter().flat_map(|row| row.split_whitespace()).collect();
    let words: Vec<&str> = typed.split_whitespace().collect();
    assert_eq!(
        shown
            .iter()
            .map(|w| w.trim_end_matches('█'))
            .collect::<Vec<_>>(),
        words,
        "a word was split:\n{screen}"
    );
}

/// The "Other" field wraps at word boundaries, and the text is all there.
#[test]
fn other_field_wraps_at_words() {
    let typed = "Use DynamoDB for sessions and PostgreSQL for everything else we keep";
    let mut state = State::new(&single(0));
    keys(&mut state, &[KeyCode::Char('0')]);
    type_text(&mut state, typed);
    check("other_field_wraps_at_words", &state);
    for width in [40, 50, 60, 80] {
        let text = fitted(&state, width, 24);
        words_whole(&text, "  > 4. Other:", 7, typed);
    }
}

/// A note wraps at word boundaries too.
#[test]
fn note_wraps_at_words() {
    let mut state = State::new(&single(0));
    press(&mut state, ctrl('n'));
    type_text(
        &mut state,
        "only for the prototype; the production service keeps PostgreSQL",
    );
    check("note_wraps_at_words", &state);
}

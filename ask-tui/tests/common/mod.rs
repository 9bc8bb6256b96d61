//! Helpers shared by the integration tests: fixtures, key presses and screen text.

#![allow(dead_code)]

use ask_core::{AskUserInput, Question, QuestionOption};
use ask_tui::{Effect, State, msg_for_key, render, update};
use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyEventState, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use unicode_width::UnicodeWidthStr;

/// The seed's example call: database, service name, features.
pub fn demo() -> AskUserInput {
    ask_tui::demo_input()
}

/// One question of the demo alone.
pub fn single(index: usize) -> AskUserInput {
    AskUserInput {
        questions: vec![demo().questions[index].clone()],
        metadata: None,
    }
}

/// The seed's long list: eight frameworks.
pub fn frameworks() -> AskUserInput {
    let labels = [
        "Express.js",
        "Fastify",
        "Hono",
        "Koa",
        "NestJS",
        "Elysia",
        "AdonisJS",
        "Sails.js",
    ];
    AskUserInput {
        questions: vec![
            Question::choice("Which framework should we use?", labels)
                .with_header("Framework Selection"),
        ],
        metadata: None,
    }
}

/// A call with wide characters, emoji, a long wrapping label and text that tries to drive
/// the terminal.
pub fn unusual() -> AskUserInput {
    AskUserInput {
        questions: vec![Question {
            question: "数据库应该用哪个？\nPick one \u{1b}[2J carefully".into(),
            header: Some("数据库选择 and a header that is far too long".into()),
            options: Some(vec![
                QuestionOption::new("PostgreSQL 🐘 (Recommended)")
                    .with_description("A description long enough that it has to wrap onto a second line at forty columns"),
                QuestionOption::new("SQLite\u{202e}evil"),
            ]),
            multi_select: false,
            ..Question::default()
        }],
        metadata: None,
    }
}

pub fn key(code: KeyCode) -> KeyEvent {
    KeyEvent {
        code,
        modifiers: KeyModifiers::NONE,
        kind: KeyEventKind::Press,
        state: KeyEventState::NONE,
    }
}

pub fn ctrl(c: char) -> KeyEvent {
    KeyEvent {
        code: KeyCode::Char(c),
        modifiers: KeyModifiers::CONTROL,
        kind: KeyEventKind::Press,
        state: KeyEventState::NONE,
    }
}

/// Feeds one key through `msg_for_key` and `update`.
pub fn press(state: &mut State, event: KeyEvent) -> Effect {
    match msg_for_key(state, event) {
        Some(msg) => update(state, msg),
        None => Effect::Continue,
    }
}

/// Feeds keys; panics if the ask ends before the last one.
pub fn keys(state: &mut State, codes: &[KeyCode]) -> Effect {
    let mut effect = Effect::Continue;
    for (i, code) in codes.iter().enumerate() {
        assert_eq!(effect, Effect::Continue, "the ask ended before key {i}");
        effect = press(state, key(*code));
    }
    effect
}

/// Types `text` one key at a time.
pub fn type_text(state: &mut State, text: &str) {
    for c in text.chars() {
        assert_eq!(press(state, key(KeyCode::Char(c))), Effect::Continue);
    }
}

/// The screen as text, one line per row with trailing spaces trimmed.
pub fn screen(state: &State, width: u16, height: u16) -> String {
    let area = Rect::new(0, 0, width, height);
    let mut buf = Buffer::empty(area);
    render(state, area, &mut buf);
    buffer_text(&buf)
}

pub fn buffer_text(buf: &Buffer) -> String {
    let area = buf.area;
    let mut out = Vec::new();
    for y in 0..area.height {
        let mut line = String::new();
        let mut skip = 0;
        for x in 0..area.width {
            if skip > 0 {
                skip -= 1;
                continue;
            }
            let symbol = buf[(x, y)].symbol();
            line.push_str(symbol);
            skip = symbol.width().saturating_sub(1);
        }
        out.push(line.trim_end().to_string());
    }
    out.join("\n")
}

//! Helpers shared by the integration tests: fixtures, key presses and screen text.

use ask_core::{AskUserInput, Question, QuestionOption};
use ask_tui::{Effect, State, msg_for_key, render, update};
use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyEventState, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use unicode_width::UnicodeWidthStr;

/// The example call of `ask-user demo`: database, service name, features.
pub(crate) fn demo() -> AskUserInput {
    ask_tui::demo_input()
}

/// One question of the demo alone.
pub(crate) fn single(index: usize) -> AskUserInput {
    AskUserInput {
        questions: vec![demo().questions[index].clone()],
        metadata: None,
    }
}

/// A long list: eight frameworks.
pub(crate) fn frameworks() -> AskUserInput {
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
pub(crate) fn unusual() -> AskUserInput {
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

pub(crate) fn key(code: KeyCode) -> KeyEvent {
    KeyEvent {
        code,
        modifiers: KeyModifiers::NONE,
        kind: KeyEventKind::Press,
        state: KeyEventState::NONE,
    }
}

pub(crate) fn ctrl(c: char) -> KeyEvent {
    KeyEvent {
        code: KeyCode::Char(c),
        modifiers: KeyModifiers::CONTROL,
        kind: KeyEventKind::Press,
        state: KeyEventState::NONE,
    }
}

/// Feeds one key through `msg_for_key` and `update`, answering what it asks to load as the
/// terminal module does without a session log: no earlier answers.
pub(crate) fn press(state: &mut State, event: KeyEvent) -> Effect {
    let mut effect = match msg_for_key(state, event) {
        Some(msg) => update(state, msg),
        None => Effect::Continue,
    };
    while let Effect::Load(_) = effect {
        effect = update(state, ask_tui::Msg::History(Vec::new()));
    }
    effect
}

/// Feeds keys; panics if the ask ends before the last one.
pub(crate) fn keys(state: &mut State, codes: &[KeyCode]) -> Effect {
    let mut effect = Effect::Continue;
    for (i, code) in codes.iter().enumerate() {
        assert_eq!(effect, Effect::Continue, "the ask ended before key {i}");
        effect = press(state, key(*code));
    }
    effect
}

/// Types `text` one key at a time.
pub(crate) fn type_text(state: &mut State, text: &str) {
    for c in text.chars() {
        assert_eq!(press(state, key(KeyCode::Char(c))), Effect::Continue);
    }
}

/// The screen as text, one line per row with trailing spaces trimmed.
pub(crate) fn screen(state: &State, width: u16, height: u16) -> String {
    let area = Rect::new(0, 0, width, height);
    let mut buf = Buffer::empty(area);
    render(state, area, &mut buf);
    buffer_text(&buf)
}

pub(crate) fn buffer_text(buf: &Buffer) -> String {
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

/// A multi-select of a hundred numbered options, for the filter and select-all.
pub(crate) fn hundred(multi: bool) -> AskUserInput {
    let labels: Vec<String> = (1..=100).map(|i| format!("Option {i:03}")).collect();
    let question = Question::choice("Which options should we use?", labels).with_header("Hundred");
    AskUserInput {
        questions: vec![if multi { question.multi() } else { question }],
        metadata: None,
    }
}

/// A question whose options carry previews: two short mock-ups, and a long one that scrolls.
pub(crate) fn previews(multi: bool) -> AskUserInput {
    let with_preview = |label: &str, preview: String| {
        let mut option = QuestionOption::new(label);
        option.preview = Some(preview);
        option
    };
    let long: String = (1..=30)
        .map(|i| format!("    line {i:02} of the config"))
        .collect::<Vec<_>>()
        .join("\n");
    let question =
        Question::choice("Which layout should the page use?", ["x"]).with_header("Layout");
    let question = Question {
        options: Some(vec![
            with_preview(
                "Sidebar",
                "┌──────┬─────────┐\n│ nav  │ content │\n│      │         │\n└──────┴─────────┘"
                    .to_string(),
            ),
            with_preview(
                "Top bar",
                "```html\n<header>nav</header>\n<main>content</main>\n```".to_string(),
            ),
            with_preview("Config file", long),
            QuestionOption::new("No preview here"),
        ]),
        ..question
    };
    AskUserInput {
        questions: vec![if multi { question.multi() } else { question }],
        metadata: None,
    }
}

/// One question, validated as a call would be (a yes/no question gets its two options).
pub(crate) fn one(question: Question) -> AskUserInput {
    let input = AskUserInput {
        questions: vec![question],
        metadata: None,
    };
    ask_core::validate(input, &ask_core::Limits::default())
        .expect("a valid question")
        .input()
        .clone()
}

/// The kinds of the second round in one call: yes/no, a path with a placeholder, a secret.
pub(crate) fn kinds() -> AskUserInput {
    let input = AskUserInput {
        questions: vec![
            Question::yes_no("Deploy to production now?").with_header("Deploy"),
            Question::path("Which config file should we use?")
                .with_header("Config")
                .with_placeholder("e.g. config/app.toml"),
            Question::text("What is the API token?")
                .with_header("Token")
                .secret(),
        ],
        metadata: None,
    };
    ask_core::validate(input, &ask_core::Limits::default())
        .expect("a valid call")
        .input()
        .clone()
}

/// Asserts a snapshot under the file name and in the folder it had when each module was a test
/// binary of its own, `tests/snapshots/MODULE__NAME.snap`: insta would otherwise name it after the
/// module path of this one binary, `it::MODULE`, and look for it in `tests/it/snapshots/`.
macro_rules! assert_snapshot {
    ($name:expr, $value:expr $(,)?) => {{
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path("../snapshots");
        settings.set_prepend_module_to_snapshot(false);
        let module = module_path!().rsplit("::").next().unwrap_or_default();
        let name = format!("{module}__{}", $name);
        settings.bind(|| insta::assert_snapshot!(name, $value));
    }};
}
pub(crate) use assert_snapshot;

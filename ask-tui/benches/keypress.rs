//! The cost of one keypress: `update` plus `view` into a full 80×24 frame, for a question with
//! 4 options and one with 100. The target is well under 1 ms with 100 options.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use ask_core::{AskUserInput, Question, QuestionOption};
use ask_tui::{Msg, State, render, update};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

fn main() {
    divan::main();
}

fn input(options: usize) -> AskUserInput {
    AskUserInput {
        questions: vec![Question {
            question: "Which one should we use?".into(),
            header: Some("Choice".into()),
            options: Some(
                (0..options)
                    .map(|i| {
                        QuestionOption::new(format!("Option number {i}"))
                            .with_description(format!("What option {i} means for the project"))
                    })
                    .collect(),
            ),
            multi_select: false,
            ..Question::default()
        }],
        metadata: None,
    }
}

/// One ↓ keypress and the frame that follows it.
#[divan::bench(args = [4, 100])]
fn keypress_to_frame(bencher: divan::Bencher<'_, '_>, options: usize) {
    let area = Rect::new(0, 0, 80, 24);
    let mut state = State::new(&input(options));
    let mut buf = Buffer::empty(area);
    let mut down = true;
    bencher.bench_local(|| {
        // Walk down to the end and back up, so both scrolling directions are measured.
        let at_end = state.pages()[0].cursor == options;
        let at_start = state.pages()[0].cursor == 0;
        if at_end {
            down = false;
        } else if at_start {
            down = true;
        }
        update(&mut state, if down { Msg::Down } else { Msg::Up });
        buf.reset();
        render(&state, area, &mut buf);
        divan::black_box(&buf);
    });
}

/// The first frame of a fresh state.
#[divan::bench(args = [4, 100])]
fn first_frame(bencher: divan::Bencher<'_, '_>, options: usize) {
    let area = Rect::new(0, 0, 80, 24);
    let input = input(options);
    bencher.bench_local(|| {
        let state = State::new(&input);
        let mut buf = Buffer::empty(area);
        render(&state, area, &mut buf);
        divan::black_box(buf)
    });
}

/// One character typed into the middle of a free-text field holding `chars` characters (a
/// pasted file), and the frame that follows it; every other key deletes it again, so the
/// length stays put. The target is under 1 ms at any length.
#[divan::bench(args = [1_000, 1_000_000])]
fn typing_into_a_long_field(bencher: divan::Bencher<'_, '_>, chars: usize) {
    let area = Rect::new(0, 0, 80, 24);
    let input = AskUserInput {
        questions: vec![Question {
            question: "What should we name this service?".into(),
            header: Some("Service Name".into()),
            options: None,
            multi_select: false,
            ..Question::default()
        }],
        metadata: None,
    };
    let mut state = State::new(&input);
    update(&mut state, Msg::Paste("abcdefghij".repeat(chars / 10)));
    update(&mut state, Msg::CursorHome);
    for _ in 0..chars / 2 {
        update(&mut state, Msg::CursorRight);
    }
    let mut buf = Buffer::empty(area);
    let mut typed = false;
    bencher.bench_local(|| {
        let msg = if typed {
            Msg::Backspace
        } else {
            Msg::Input('x')
        };
        typed = !typed;
        update(&mut state, msg);
        buf.reset();
        render(&state, area, &mut buf);
        divan::black_box(&buf);
    });
}

/// One ↓ keypress and the frame that follows it in a question whose options carry previews of
/// 40 lines each (code, as models send), at 80 columns (the box under the list) and at 120 (the
/// box beside it). The target is under 1 ms.
#[divan::bench(args = [80, 120])]
fn keypress_to_frame_with_previews(bencher: divan::Bencher<'_, '_>, columns: u16) {
    let area = Rect::new(0, 0, columns, 24);
    let preview: String = (0..40)
        .map(|i| format!("    let value_{i} = compute(\"option\", {i}); // line {i}"))
        .collect::<Vec<_>>()
        .join("\n");
    let input = AskUserInput {
        questions: vec![Question {
            options: Some(
                (0..4)
                    .map(|i| {
                        QuestionOption::new(format!("Option number {i}"))
                            .with_preview(preview.clone())
                    })
                    .collect(),
            ),
            ..Question::text("Which one should we use?").with_header("Choice")
        }],
        metadata: None,
    };
    let mut state = State::new(&input);
    let mut buf = Buffer::empty(area);
    let mut down = true;
    bencher.bench_local(|| {
        let cursor = state.pages()[0].cursor;
        if cursor == 4 {
            down = false;
        } else if cursor == 0 {
            down = true;
        }
        update(&mut state, if down { Msg::Down } else { Msg::Up });
        buf.reset();
        render(&state, area, &mut buf);
        divan::black_box(&buf);
    });
}

/// One character typed into the `/` filter of a 100-option list (and deleted again on the next
/// keypress, so the filter alternates between 1 and 2 characters), and the frame that follows
/// it. The target is under 1 ms.
#[divan::bench]
fn filter_keypress_100_options(bencher: divan::Bencher<'_, '_>) {
    let area = Rect::new(0, 0, 80, 24);
    let mut state = State::new(&input(100));
    update(&mut state, Msg::Filter);
    update(&mut state, Msg::Input('1'));
    let mut buf = Buffer::empty(area);
    let mut typed = false;
    bencher.bench_local(|| {
        let msg = if typed {
            Msg::Backspace
        } else {
            Msg::Input('2')
        };
        typed = !typed;
        update(&mut state, msg);
        buf.reset();
        render(&state, area, &mut buf);
        divan::black_box(&buf);
    });
}

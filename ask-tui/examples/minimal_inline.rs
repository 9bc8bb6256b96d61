//! The peer of the benchmark table: a minimal ratatui program in an inline viewport, with the
//! framework's own defaults (it draws on stdout and asks the terminal where its cursor is).
//! It lists 50 options and exits on Enter.
//!
//! Build with `cargo build --release -p ask-tui --example minimal_inline`; `cargo xtask bench`
//! runs it.

#![allow(clippy::print_stderr)]

use ratatui::crossterm::event::{self, Event, KeyCode, KeyEventKind};
use ratatui::widgets::{List, ListState};
use ratatui::{TerminalOptions, Viewport};

fn main() -> std::io::Result<()> {
    let mut terminal = ratatui::init_with_options(TerminalOptions {
        viewport: Viewport::Inline(12),
    });
    let items: Vec<String> = (1..=50).map(|i| format!("Option {i:02}")).collect();
    let mut state = ListState::default().with_selected(Some(0));
    let result = loop {
        if let Err(error) = terminal.draw(|frame| {
            let list = List::new(items.iter().map(String::as_str)).highlight_symbol("> ");
            frame.render_stateful_widget(list, frame.area(), &mut state);
        }) {
            break Err(error);
        }
        match event::read() {
            Ok(Event::Key(key)) if key.kind == KeyEventKind::Press => match key.code {
                KeyCode::Enter | KeyCode::Esc => break Ok(()),
                KeyCode::Down => state.select_next(),
                KeyCode::Up => state.select_previous(),
                _ => {}
            },
            Ok(_) => {}
            Err(error) => break Err(error),
        }
    };
    ratatui::restore();
    result
}

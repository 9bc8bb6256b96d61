//! The 50-option list in a bare ratatui inline viewport with the framework's defaults (it
//! draws on stdout and asks the terminal where its cursor is); prints the chosen label.

use ratatui::crossterm::event::{self, Event, KeyCode, KeyEventKind};
use ratatui::widgets::{List, ListState};
use ratatui::{TerminalOptions, Viewport};

fn main() -> std::io::Result<()> {
    let options = ask_user_bench_peers::options();
    let mut terminal = ratatui::init_with_options(TerminalOptions {
        viewport: Viewport::Inline(ask_user_bench_peers::PAGE as u16 + 2),
    });
    let mut state = ListState::default().with_selected(Some(0));
    let result = loop {
        if let Err(error) = terminal.draw(|frame| {
            let list = List::new(options.iter().map(String::as_str))
                .block(ratatui::widgets::Block::bordered().title(ask_user_bench_peers::QUESTION))
                .highlight_symbol("> ");
            frame.render_stateful_widget(list, frame.area(), &mut state);
        }) {
            break Err(error);
        }
        match event::read() {
            Ok(Event::Key(key)) if key.kind == KeyEventKind::Press => match key.code {
                KeyCode::Enter => break Ok(state.selected().unwrap_or(0)),
                KeyCode::Down => state.select_next(),
                KeyCode::Up => state.select_previous(),
                _ => {}
            },
            Ok(_) => {}
            Err(error) => break Err(error),
        }
    };
    ratatui::restore();
    println!("{}", options[result?]);
    Ok(())
}

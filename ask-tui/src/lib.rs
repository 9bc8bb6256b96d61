//! The interactive terminal UI of the `ask_user` tool: the screens of one call, and
//! [`TuiFrontend`], which plugs them into the `ask_core::Frontend` seam.
//!
//! The crate is split the Elm way. [`State`], [`Msg`], [`update`](fn@update) and
//! [`view`](fn@view) are pure: keys become messages ([`msg_for_key`]), `update` changes the
//! state and says whether the ask is over, and `view` draws the state into a ratatui frame, so
//! every screen and every binding is tested without a terminal. One module, `terminal`, is the
//! only code that does IO ([`run`], with its [`RunOptions`]): what only IO can tell (the earlier
//! answers ↑ recalls, the names Ctrl+T completes from) `update` asks for with [`Effect::Load`],
//! and the terminal module hands it back as a message. The one thing `view` leaves in the state
//! is how far a text that does not fit could scroll at the size it drew, so that scrolling stops
//! where the text ends.
//!
//! What it must not do: write to stdout (the UI is drawn on `/dev/tty`; stdout belongs to the
//! result), ask the terminal anything and wait for the reply, show agent text without
//! `ask_core::sanitize_for_display`, or leave the terminal in raw mode on any exit path. Nor
//! does it read the process's environment or arguments: whether the terminal may be used at
//! all and the language of the UI are the host's to say ([`TuiFrontend::with_lang`]).
//!
//! ```
//! use ask_core::{AskUserInput, Outcome, Question};
//! use ask_tui::{Effect, Msg, State, update};
//!
//! let input = AskUserInput {
//!     questions: vec![Question::choice("Which database?", ["PostgreSQL", "SQLite"])],
//!     metadata: None,
//! };
//! let mut state = State::new(&input);
//! update(&mut state, Msg::Down);
//! let Effect::Ended(Outcome::Answered(answers)) = update(&mut state, Msg::Enter) else {
//!     panic!("Enter answers a single question");
//! };
//! assert_eq!(answers[0].selected_option.as_deref(), Some("SQLite"));
//! ```

mod demo;
mod embedded;
mod frames;
mod frontend;
mod layout;
mod render;
mod state;
mod terminal;
mod text;
mod view;

pub use ask_core::ThemeError;
pub use ask_core::lang::Lang;
pub use demo::{demo_input, showcase_input};
pub use embedded::{Embedded, Step, THEME_ROLES, Theme};
pub use frontend::TuiFrontend;
pub use render::{render_call, render_call_text, render_result, render_result_text};
pub use state::{
    Dialog, Effect, HISTORY_MAX, Load, Msg, Notice, Page, Screen, State, completion_folder,
    completions, msg_for_key, update,
};
pub use terminal::{Access, HistoryProvider, RunOptions, TuiError, run, say_on_terminal};
pub use text::TextField;
pub use view::{render, screen_lines, view};

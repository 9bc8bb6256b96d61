//! The mapping from keys to messages, given the state the key arrives in.

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::{Msg, State};

/// The message for a key, given the state it arrives in; `None` for keys that do nothing.
///
/// Only key presses count: releases and repeats reported by some terminals are ignored.
///
/// Outside a dialog, which takes only its own keys, a key means one thing on every screen, and
/// there is no editing mode: ← and → move the cursor in a text field that holds text, do nothing
/// while a list's filter is open, and switch tabs everywhere else (a list, an empty field or
/// note); Tab and Shift+Tab always switch; Ctrl+N opens the note on every question screen, and
/// `n` is its alias on a list only (in a field or the filter it is text). Each help line names
/// the keys as they are at that moment (`help_text`); `?` on a list names them all.
pub fn msg_for_key(state: &State, key: KeyEvent) -> Option<Msg> {
    if key.kind != KeyEventKind::Press {
        return None;
    }
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    if ctrl && matches!(key.code, KeyCode::Char('c' | 'C')) {
        return Some(Msg::Interrupt);
    }
    if state.dialog.is_some() {
        // `y` says yes in every language, and so does the language's own key ("[j/N]").
        let yes = state.lang.text().yes_key;
        return match key.code {
            KeyCode::Char(c) if c.eq_ignore_ascii_case(&yes) => Some(Msg::Yes),
            KeyCode::Char('y' | 'Y') => Some(Msg::Yes),
            KeyCode::Char('n' | 'N') => Some(Msg::No),
            KeyCode::Enter => Some(Msg::Enter),
            KeyCode::Esc => Some(Msg::Cancel),
            _ => None,
        };
    }
    let scroll = key
        .modifiers
        .intersects(KeyModifiers::SHIFT | KeyModifiers::CONTROL);
    let common = match key.code {
        KeyCode::Up if scroll => Some(Msg::ScrollUp),
        KeyCode::Down if scroll => Some(Msg::ScrollDown),
        KeyCode::Esc => Some(Msg::Cancel),
        KeyCode::Enter => Some(Msg::Enter),
        KeyCode::Tab => Some(Msg::NextTab),
        KeyCode::BackTab => Some(Msg::PrevTab),
        KeyCode::Up => Some(Msg::Up),
        KeyCode::Down => Some(Msg::Down),
        KeyCode::PageUp => Some(Msg::PageUp),
        KeyCode::PageDown => Some(Msg::PageDown),
        _ => None,
    };
    if common.is_some() {
        return common;
    }
    // Ctrl+N is the note key on every screen; `n` is its alias on a list only, since in a text
    // field it is text.
    if ctrl && matches!(key.code, KeyCode::Char('n' | 'N')) {
        return Some(Msg::Note);
    }
    if state.is_filtering() && !state.is_noting() {
        return match key.code {
            KeyCode::Char(_) if ctrl => None,
            KeyCode::Char(c) => Some(Msg::Input(c)),
            KeyCode::Backspace => Some(Msg::Backspace),
            KeyCode::Home => Some(Msg::First),
            KeyCode::End => Some(Msg::Last),
            _ => None,
        };
    }
    if state.is_editing() || state.is_noting() {
        // ← → move the cursor through the text; in an empty field they switch tabs, as they do
        // on a list.
        let empty = state.current().is_some_and(|(_, page)| {
            let field = if page.noting { &page.note } else { &page.field };
            field.text().is_empty()
        });
        return match key.code {
            KeyCode::Left if empty => Some(Msg::PrevTab),
            KeyCode::Right if empty => Some(Msg::NextTab),
            KeyCode::Char('a') if ctrl => Some(Msg::CursorHome),
            KeyCode::Char('t') if ctrl => Some(Msg::Complete),
            KeyCode::Char('e') if ctrl => Some(Msg::CursorEnd),
            KeyCode::Char(_) if ctrl => None,
            KeyCode::Char(c) => Some(Msg::Input(c)),
            KeyCode::Backspace => Some(Msg::Backspace),
            KeyCode::Delete => Some(Msg::Delete),
            KeyCode::Left => Some(Msg::CursorLeft),
            KeyCode::Right => Some(Msg::CursorRight),
            KeyCode::Home => Some(Msg::CursorHome),
            KeyCode::End => Some(Msg::CursorEnd),
            _ => None,
        };
    }
    match key.code {
        KeyCode::Char('k') => Some(Msg::Up),
        KeyCode::Char('j') => Some(Msg::Down),
        KeyCode::Char(' ') => Some(Msg::Toggle),
        KeyCode::Char('/') => Some(Msg::Filter),
        KeyCode::Char('[') => Some(Msg::PreviewUp),
        KeyCode::Char(']') => Some(Msg::PreviewDown),
        KeyCode::Char('a') => Some(Msg::ToggleAll),
        KeyCode::Char('n') => Some(Msg::Note),
        KeyCode::Char('?') => Some(Msg::Keys),
        KeyCode::Char(c @ '0'..='9') => Some(Msg::Quick(c as u8 - b'0')),
        KeyCode::Left => Some(Msg::PrevTab),
        KeyCode::Right => Some(Msg::NextTab),
        KeyCode::Home => Some(Msg::First),
        KeyCode::End => Some(Msg::Last),
        _ => None,
    }
}

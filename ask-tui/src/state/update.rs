//! [`update`]: one message applied to the state, by what has the keyboard (a dialog, the note,
//! a text field, the filter, or the list).

use ask_core::Outcome;

use super::complete::{is_path, take_completions};
use super::{Dialog, Effect, Load, Msg, Notice, Screen, State, VISIBLE_ROWS};

/// Applies one message. Pure: the same state and message always give the same result.
pub fn update(state: &mut State, msg: Msg) -> Effect {
    if !matches!(msg, Msg::Resize) {
        state.notice = None;
    }
    if let Msg::History(answers) = msg {
        return take_history(state, answers);
    }
    if let Msg::Completions { typed, candidates } = msg {
        take_completions(state, &typed, candidates);
        return Effect::Continue;
    }
    if let Some(page) = state.page_mut() {
        page.candidates.clear();
    }
    if let Some(dialog) = state.dialog {
        return update_dialog(state, dialog, msg);
    }
    if state.is_noting() {
        return update_note(state, &msg);
    }
    if matches!(msg, Msg::Note) && state.screen() != Screen::Submit {
        if let Some(page) = state.page_mut() {
            page.noting = true;
        }
        return Effect::Continue;
    }
    if state.is_editing()
        && let Some(effect) = update_field(state, &msg)
    {
        return effect;
    }
    if state.is_filtering()
        && let Some(effect) = update_filter(state, &msg)
    {
        return effect;
    }
    let screen = state.screen();
    match msg {
        Msg::Up => state.move_cursor(|c, _| c.saturating_sub(1)),
        Msg::Down => state.move_cursor(|c, last| (c + 1).min(last)),
        Msg::First => state.move_cursor(|_, _| 0),
        Msg::Last => state.move_cursor(|_, last| last),
        Msg::PageUp => state.move_cursor(|c, _| c.saturating_sub(VISIBLE_ROWS)),
        Msg::PageDown => state.move_cursor(|c, _| c + VISIBLE_ROWS),
        Msg::ScrollUp => state.scroll_text(false),
        Msg::ScrollDown => state.scroll_text(true),
        Msg::PreviewUp | Msg::PreviewDown => {
            let room = state.scroll_room.get().map_or(0, |room| room.preview);
            if let Some(page) = state.page_mut() {
                page.preview_scroll = if msg == Msg::PreviewDown {
                    (page.preview_scroll + 1).min(room)
                } else {
                    page.preview_scroll.min(room).saturating_sub(1)
                };
            }
        }
        // On the review, a question's number opens its tab, where its whole answer shows.
        Msg::Quick(digit) if screen == Screen::Submit => {
            let question = usize::from(digit);
            if (1..=state.questions.len()).contains(&question) {
                state.tab = question - 1;
            }
        }
        Msg::Quick(digit) => {
            let options = state.current().map_or(0, |(q, _)| q.options().len());
            if options == 0 {
                return Effect::Continue;
            }
            let row = match usize::from(digit) {
                0 => options,
                n if n <= options + 1 => n - 1,
                _ => return Effect::Continue,
            };
            return match screen {
                Screen::MultiSelect => state.toggle(row),
                _ if row == options => state.open_other(),
                _ => state.choose(row),
            };
        }
        Msg::Toggle => {
            if screen == Screen::MultiSelect {
                let cursor = state.current().map_or(0, |(_, p)| p.cursor);
                return state.toggle(cursor);
            }
        }
        Msg::NextTab => state.switch_tab(true),
        Msg::PrevTab => state.switch_tab(false),
        Msg::Enter => {
            return match screen {
                Screen::Submit => state.submit_all(),
                Screen::MultiSelect => state.submit_multi(),
                Screen::Choice => {
                    let cursor = state.current().map_or(0, |(_, p)| p.cursor);
                    state.choose(cursor)
                }
                Screen::FreeText => state.commit_text(false),
            };
        }
        Msg::Cancel => return state.cancel(false),
        Msg::Interrupt => return state.cancel(true),
        Msg::Paste(text) => {
            if matches!(screen, Screen::Choice | Screen::MultiSelect) {
                state.open_other();
                let reserved = state.labels_bytes();
                if let Some(page) = state.page_mut()
                    && page.field.insert_within_cap(&text, reserved)
                {
                    state.notice = Some(Notice::AnswerCap);
                }
            }
        }
        Msg::Filter => {
            if matches!(screen, Screen::Choice | Screen::MultiSelect) {
                state.open_filter();
            }
        }
        Msg::ToggleAll => {
            if screen == Screen::MultiSelect {
                state.toggle_all();
            }
        }
        Msg::Keys => {
            if matches!(screen, Screen::Choice | Screen::MultiSelect) {
                state.notice = Some(Notice::Keys);
            }
        }
        Msg::Yes
        | Msg::No
        | Msg::History(_)
        | Msg::Complete
        | Msg::Note
        | Msg::Completions { .. }
        | Msg::Input(_)
        | Msg::Backspace
        | Msg::Delete
        | Msg::CursorLeft
        | Msg::CursorRight
        | Msg::CursorHome
        | Msg::CursorEnd
        | Msg::Resize => {}
    }
    Effect::Continue
}

/// Messages for an open text field; `None` passes the message on to the list.
fn update_field(state: &mut State, msg: &Msg) -> Option<Effect> {
    let screen = state.screen();
    let (on_first, on_last) = state.current().map_or((false, false), |(_, page)| {
        let text = page.field.text();
        let cursor = page.field.cursor();
        (
            !text[..cursor].contains('\n'),
            !text[cursor..].contains('\n'),
        )
    });
    match msg {
        Msg::Up if on_first => {
            if let Some(effect) = state.recall(true) {
                return Some(effect);
            }
        }
        Msg::Down if on_last => {
            if let Some(effect) = state.recall(false) {
                return Some(effect);
            }
        }
        _ => {}
    }
    if !matches!(msg, Msg::Up | Msg::Down | Msg::ScrollUp | Msg::ScrollDown)
        && let Some(page) = state.page_mut()
    {
        // An edit (or a cursor move) keeps the recalled text as the person's own.
        page.recalled = None;
    }
    match msg {
        Msg::Complete => {
            return Some(match state.current() {
                Some((question, page)) if is_path(question) => Effect::Load(Load::Complete {
                    typed: page.field.text().to_string(),
                }),
                _ => Effect::Continue,
            });
        }
        Msg::Enter => return Some(state.commit_text(false)),
        // Esc in the "Other" field goes back to the list, keeping the text; a free-text
        // question has nothing to go back to, so it cancels (asking first about typed text).
        Msg::Cancel | Msg::Interrupt if screen != Screen::FreeText => {
            state.leave_field();
            return Some(Effect::Continue);
        }
        Msg::Up if screen != Screen::FreeText => {
            state.leave_field();
            return None;
        }
        Msg::Cancel
        | Msg::Interrupt
        | Msg::Up
        | Msg::NextTab
        | Msg::PrevTab
        | Msg::ScrollUp
        | Msg::ScrollDown => return None,
        _ => {}
    }
    let reserved = state.labels_bytes();
    let page = state.page_mut()?;
    let capped = match msg {
        Msg::Input(c) => page
            .field
            .insert_within_cap(c.encode_utf8(&mut [0; 4]), reserved),
        Msg::Paste(text) => page.field.insert_within_cap(text, reserved),
        _ => false,
    };
    if capped {
        state.notice = Some(Notice::AnswerCap);
        return Some(Effect::Continue);
    }
    match msg {
        Msg::Backspace => page.field.backspace(),
        Msg::Delete => page.field.delete(),
        Msg::CursorLeft => page.field.left(),
        Msg::CursorRight => page.field.right(),
        Msg::CursorHome => page.field.home(),
        Msg::CursorEnd => page.field.end(),
        _ => {}
    }
    Some(Effect::Continue)
}

/// Keys for the note's editor: Enter, Esc or Ctrl+N close it, keeping the note (an emptied note
/// is no note); Tab and Shift+Tab close it and switch tabs.
fn update_note(state: &mut State, msg: &Msg) -> Effect {
    let Some(page) = state.page_mut() else {
        return Effect::Continue;
    };
    match msg {
        Msg::Enter | Msg::Cancel | Msg::Interrupt | Msg::Note => page.noting = false,
        // Tab and Shift+Tab switch tabs from the note too, keeping it.
        Msg::NextTab | Msg::PrevTab => {
            page.noting = false;
            state.switch_tab(*msg == Msg::NextTab);
        }
        // The guard inserts; only an insertion cut at the cap of one answer says so.
        Msg::Input(c) if page.note.insert_within_cap(c.encode_utf8(&mut [0; 4]), 0) => {
            state.notice = Some(Notice::AnswerCap);
        }
        Msg::Paste(text) if page.note.insert_within_cap(text, 0) => {
            state.notice = Some(Notice::AnswerCap);
        }
        Msg::Backspace => page.note.backspace(),
        Msg::Delete => page.note.delete(),
        Msg::CursorLeft => page.note.left(),
        Msg::CursorRight => page.note.right(),
        Msg::CursorHome => page.note.home(),
        Msg::CursorEnd => page.note.end(),
        _ => {}
    }
    Effect::Continue
}

/// The earlier answers arrive: they are kept for the page, and the ↑ that asked for them
/// recalls the newest. With none, that ↑ does what it does without history (in "Other", it
/// goes back to the list).
fn take_history(state: &mut State, answers: Vec<String>) -> Effect {
    let editing = state.is_editing();
    let Some(page) = state.page_mut() else {
        return Effect::Continue;
    };
    page.history = Some(answers);
    if !editing {
        return Effect::Continue;
    }
    match state.recall(true) {
        Some(effect) => effect,
        None if state.screen() != Screen::FreeText => {
            state.leave_field();
            state.move_cursor(|c, _| c.saturating_sub(1));
            Effect::Continue
        }
        None => Effect::Continue,
    }
}

/// Messages for an open filter; `None` passes the message on to the list, whose moves then go
/// through the matching rows only.
fn update_filter(state: &mut State, msg: &Msg) -> Option<Effect> {
    let screen = state.screen();
    match msg {
        Msg::Input(c) => {
            if let Some(filter) = state.page_mut().and_then(|p| p.filter.as_mut()) {
                filter.insert(c.encode_utf8(&mut [0; 4]));
            }
        }
        Msg::Paste(text) => {
            // A filter is one line: a pasted line end would match no label.
            let line = text.lines().next().unwrap_or_default().to_string();
            if let Some(filter) = state.page_mut().and_then(|p| p.filter.as_mut()) {
                filter.insert(&line);
            }
        }
        Msg::Backspace => {
            if let Some(filter) = state.page_mut().and_then(|p| p.filter.as_mut()) {
                filter.backspace();
            }
        }
        // Esc (or Ctrl+C) closes the filter; the highlighted option stays highlighted.
        Msg::Cancel | Msg::Interrupt => {
            state.close_filter();
            return Some(Effect::Continue);
        }
        // Enter picks the highlighted match: in a multi-select it ticks it (or opens "Other")
        // and goes back to the whole list.
        Msg::Enter => {
            let cursor = state.current().map_or(0, |(_, p)| p.cursor);
            state.close_filter();
            return Some(match screen {
                Screen::MultiSelect => state.toggle(cursor),
                _ => state.choose(cursor),
            });
        }
        _ => return None,
    }
    state.refilter();
    Some(Effect::Continue)
}

fn update_dialog(state: &mut State, dialog: Dialog, msg: Msg) -> Effect {
    match (dialog, msg) {
        (Dialog::Discard { .. }, Msg::Yes) => Effect::Ended(Outcome::Cancelled),
        (Dialog::Discard { .. }, Msg::Interrupt) => Effect::Abort,
        (Dialog::Discard { .. }, Msg::No | Msg::Cancel | Msg::Enter) => {
            state.dialog = None;
            Effect::Continue
        }
        (Dialog::LongAnswer { .. }, Msg::Yes | Msg::Enter) => {
            state.dialog = None;
            state.commit_text(true)
        }
        (Dialog::LongAnswer { .. }, Msg::No | Msg::Cancel | Msg::Interrupt) => {
            state.dialog = None;
            Effect::Continue
        }
        (Dialog::NoneOfThese, Msg::Yes) => {
            state.dialog = None;
            state.commit_none()
        }
        (Dialog::NoneOfThese, Msg::No | Msg::Cancel | Msg::Interrupt | Msg::Enter) => {
            state.dialog = None;
            Effect::Continue
        }
        _ => Effect::Continue,
    }
}

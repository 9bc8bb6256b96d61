//! The help line under each screen, the words of an open dialog and of a notice, and how the
//! help line gives up its least needed parts on a short terminal.

use ask_core::QuestionKind;
use ratatui::text::Line;

use super::{Scrolling, dim, warning};
use crate::layout::{width, wrap};
use crate::state::{Dialog, Notice, Screen, State, VISIBLE_ROWS};
use ask_core::lang::{Help, Text, fill};

/// What the help line has to fit in: the screen's rows, the rows taken besides it (the rules,
/// the title, the note and the notice), and the rows the question and the list want.
#[derive(Debug, Clone, Copy)]
pub(super) struct HelpRoom {
    /// The columns a line of help may take.
    pub(super) width: usize,
    /// The rows of the whole screen.
    pub(super) height: usize,
    /// The rows taken besides the help line.
    pub(super) used: usize,
    /// The rows the question and the list want.
    pub(super) wanted: usize,
}

/// The notice, wrapped to `width` columns, when there is one.
pub(super) fn notice_lines(state: &State, width: usize) -> Vec<Line<'static>> {
    // The key list is shown in the help line's place.
    let notice = state.notice().filter(|notice| *notice != Notice::Keys);
    notice.map_or_else(Vec::new, |notice| {
        wrap(&notice_text(state, notice), width)
            .into_iter()
            .map(|line| Line::styled(format!("  {line}"), warning()))
            .collect()
    })
}

/// The open dialog's lines, else the help line.
pub(super) fn help_or_dialog(
    state: &State,
    room: HelpRoom,
    scrolling: Scrolling,
) -> Vec<Line<'static>> {
    match state.dialog() {
        Some(dialog) => dialog_text(state.lang().text(), dialog)
            .lines()
            .flat_map(|part| wrap(part, room.width))
            .map(|line| Line::styled(format!("  {line}"), warning()))
            .collect(),
        None => help_block(state, room, scrolling),
    }
}

/// The help line, as many lines as it needs.
///
/// On a short terminal the help line gives up its least needed parts first, so the question
/// and the list keep at least four rows; Esc is always named. While the question and the list
/// do not fit whole, it also gives up its least needed parts as long as each one given up frees
/// a row for them.
fn help_block(state: &State, room: HelpRoom, scrolling: Scrolling) -> Vec<Line<'static>> {
    let t = state.lang().text();
    let most = room.height.saturating_sub(room.used + 4).max(1);
    let mut parts = help_text(state, scrolling);
    let mut lines = help_lines(t, &parts, room.width);
    for drop in HELP_DROP_ORDER {
        if lines.len() <= most {
            break;
        }
        if let Some(i) = parts.iter().position(|part| *part == drop) {
            parts.remove(i);
            lines = help_lines(t, &parts, room.width);
        }
    }
    for drop in HELP_DROP_ORDER {
        if room.used + lines.len() + room.wanted <= room.height {
            break;
        }
        let Some(i) = parts.iter().position(|part| *part == drop) else {
            continue;
        };
        let mut fewer = parts.clone();
        fewer.remove(i);
        let shorter = help_lines(t, &fewer, room.width);
        if shorter.len() >= lines.len() {
            break;
        }
        (parts, lines) = (fewer, shorter);
    }
    lines
        .into_iter()
        .map(|line| Line::styled(format!("  {line}"), dim()))
        .collect()
}

/// The help line: on a list, the keys that answer it and "? more keys"; after `?`, until the
/// next key, every key of the screen; elsewhere (a text field, the filter, the note, the
/// review), every key of the screen, since `?` is text there or there are few keys.
///
/// At 80 columns each help line keeps to one line with room for two more keys, in every
/// language; the scroll keys, when a text does not fit, take that room.
fn help_text(state: &State, scrolling: Scrolling) -> Vec<Help> {
    let mut parts = all_keys(state);
    let list = matches!(state.screen(), Screen::Choice | Screen::MultiSelect)
        && !state.is_editing()
        && !state.is_noting();
    if list && state.is_filtering() {
        // The filter takes typed text, `?` too: its line names the keys that pick a match or
        // close it.
        parts.retain(|part| !matches!(part, Help::SwitchArrows | Help::Note));
    } else if list && state.notice() != Some(Notice::Keys) {
        let before = parts.len();
        let choice = state.screen() == Screen::Choice;
        parts.retain(|part| match part {
            Help::Navigate => choice,
            _ => LIST_LINE.contains(part),
        });
        if parts.len() < before {
            parts.push(Help::Keys);
        }
    }
    if scrolling.text {
        parts.push(Help::Scroll);
    }
    if scrolling.preview {
        parts.push(Help::ScrollPreview);
    }
    parts
}

/// The parts a list's help line keeps before `?` (and ↑↓ on a list of options to choose one
/// from): the keys that answer the question or leave it.
const LIST_LINE: [Help; 5] = [
    Help::Toggle,
    Help::Select,
    Help::Confirm,
    Help::Submit,
    Help::Cancel,
];

/// Every key of the screen, the same words in a lone question and in a tabbed call (which adds
/// how to switch tabs).
fn all_keys(state: &State) -> Vec<Help> {
    let tabbed = state.is_tabbed();
    let mut parts = Vec::new();
    if tabbed {
        // In a text field (an answer, "Other" or a note) ← → move the cursor once there is text,
        // and switch tabs while it is empty; Tab always switches, and the line names Tab only.
        let field = state.is_noting() || state.is_editing();
        parts.push(if field {
            Help::Switch
        } else {
            Help::SwitchArrows
        });
    }
    // A list that scrolls offers the filter.
    let long = state
        .current()
        .is_some_and(|(question, _)| question.options().len() >= VISIBLE_ROWS);
    if state.is_noting() {
        parts.push(Help::KeepNote);
        return parts;
    }
    match (state.screen(), state.is_editing()) {
        (Screen::Choice | Screen::MultiSelect, false) if state.is_filtering() => parts.extend([
            Help::Navigate,
            if state.screen() == Screen::MultiSelect {
                Help::ToggleMatch
            } else {
                Help::Select
            },
            Help::Note,
            Help::CloseFilter,
        ]),
        // Enter on the review with a question still open goes to that question.
        (Screen::Submit, _) if state.answered() < state.questions().len() => {
            parts.extend([Help::ToOpen, Help::Cancel]);
        }
        (Screen::Submit, _) => parts.extend([Help::Submit, Help::Cancel]),
        (Screen::FreeText, _) => {
            // A path question names Ctrl+T in the note's place, which Ctrl+N still opens.
            let path = state
                .current()
                .is_some_and(|(question, _)| question.kind == QuestionKind::Path);
            parts.extend([
                if path { Help::Complete } else { Help::Note },
                if tabbed { Help::Confirm } else { Help::Submit },
                Help::Cancel,
            ]);
        }
        // Enter in a multi-select's "Other" field ticks the text and goes back to the list.
        (Screen::MultiSelect, true) => parts.extend([Help::Note, Help::Confirm, Help::Back]),
        (_, true) if tabbed => parts.extend([Help::Note, Help::Confirm, Help::Back]),
        (_, true) => parts.extend([Help::Note, Help::Submit, Help::Back]),
        (Screen::Choice, false) => {
            parts.extend([Help::Navigate, Help::Quick, Help::Other, Help::Note]);
            if long {
                parts.push(Help::Filter);
            }
            parts.extend([Help::Select, Help::Cancel]);
        }
        (Screen::MultiSelect, false) => {
            parts.extend([
                Help::Navigate,
                Help::Toggle,
                Help::All,
                Help::Other,
                Help::Note,
            ]);
            if long {
                parts.push(Help::Filter);
            }
            parts.extend([
                if tabbed { Help::Confirm } else { Help::Submit },
                Help::Cancel,
            ]);
        }
    }
    parts
}

/// The parts of a help line a short terminal drops, in this order.
const HELP_DROP_ORDER: [Help; 16] = [
    Help::Other,
    Help::Keys,
    Help::Complete,
    Help::Quick,
    Help::Filter,
    Help::All,
    Help::Note,
    Help::Navigate,
    Help::SwitchArrows,
    Help::Switch,
    Help::Toggle,
    Help::Select,
    Help::ToggleMatch,
    Help::Confirm,
    Help::Submit,
    Help::ToOpen,
];

/// Joins the parts of a help line with ` • `, starting a new line where the next part would not
/// fit in `max` columns.
fn help_lines(t: &Text, parts: &[Help], max: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for part in parts.iter().map(|part| t.help(*part)) {
        match lines.last_mut() {
            Some(line) if width(line) + 3 + width(part) <= max => {
                line.push_str(" • ");
                line.push_str(part);
            }
            _ => lines.push(part.to_string()),
        }
    }
    lines
}

fn dialog_text(t: &Text, dialog: Dialog) -> String {
    match dialog {
        Dialog::Discard {
            answered,
            interrupt,
        } => {
            let ask = fill(t.discard.pick(answered), &[("n", &t.number(answered))]);
            if interrupt {
                format!("{ask}\n{}", t.ctrl_c_again)
            } else {
                ask
            }
        }
        Dialog::LongAnswer { chars } => fill(t.long_answer, &[("n", &t.number(chars))]),
        Dialog::NoneOfThese => t.none_of_these.to_string(),
    }
}

fn notice_text(state: &State, notice: Notice) -> String {
    let t = state.lang().text();
    match notice {
        Notice::Unanswered(n) => fill(t.unanswered.pick(n), &[("n", &t.number(n))]),
        // The dim example in an empty field is not an answer, and Enter does not take it.
        Notice::EmptyAnswer
            if state.screen() == Screen::FreeText
                && state
                    .current()
                    .is_some_and(|(question, _)| question.placeholder.is_some()) =>
        {
            t.type_not_example.to_string()
        }
        Notice::EmptyAnswer if state.screen() == Screen::FreeText => t.type_first.to_string(),
        Notice::EmptyAnswer => t.type_first_or_back.to_string(),
        Notice::NoCompletion => t.no_completion.to_string(),
        Notice::AnswerCap => t.answer_cap.to_string(),
        Notice::Keys => String::new(),
    }
}

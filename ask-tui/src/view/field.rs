//! Text fields: an answer, "Other" or a note laid out around its cursor, how it shows a
//! secret, and the paths Ctrl+T found listed under a path field.

use ask_core::Question;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_segmentation::{GraphemeCursor, UnicodeSegmentation};

use super::{Area, cursor_cell, dim, fit};
use crate::layout::{safe, shorten, width};
use crate::state::State;
use crate::text::TextField;
use ask_core::lang::{Text, fill};

/// The answer field of a free-text question, at most `area.rows` lines with the paths Ctrl+T
/// found under it, and its placeholder while it is empty.
pub(super) fn free_text_lines(state: &State, area: Area) -> Vec<Line<'static>> {
    let Some((question, page)) = state.current() else {
        return Vec::new();
    };
    let Area {
        width: inner,
        rows: max_rows,
    } = area;
    let field = shown_field(question, &page.field);
    // While the note is open, its field has the cursor.
    let mut out = field_lines(
        state.lang().text(),
        &field,
        FieldLook {
            focused: !page.noting,
            first: "  > ",
            indent: 4,
            inner,
            max_lines: max_rows.min(6),
            style: Style::new(),
        },
    )
    .0;
    // The placeholder: dim text after the cursor of an empty field, led by "e.g." so that it
    // reads as an example rather than an answer given already.
    if let (Some(placeholder), Some(first)) = (&question.placeholder, out.first_mut())
        && page.field.text().is_empty()
    {
        let room = inner.saturating_sub(5);
        let lead = state.lang().text().example_lead;
        let placeholder = safe(placeholder);
        // A placeholder that says "e.g." itself keeps its own words.
        let led = [lead.trim_end(), "e.g."].iter().any(|lead| {
            placeholder
                .get(..lead.len())
                .is_some_and(|start| start.eq_ignore_ascii_case(lead))
        });
        let example = if led {
            placeholder.into_owned()
        } else {
            format!("{lead}{placeholder}")
        };
        first
            .spans
            .push(Span::styled(format!(" {}", shorten(&example, room)), dim()));
    }
    let room = max_rows.saturating_sub(out.len());
    out.extend(candidate_lines(
        state.lang().text(),
        &page.candidates,
        Area {
            width: inner,
            rows: room,
        },
    ));
    out
}

/// The note on the open question's answer, under the list or field it belongs to, while it is
/// open or holds text; a secret's note is masked as its answer is.
pub(super) fn note_lines(state: &State, inner: usize) -> Vec<Line<'static>> {
    let t = state.lang().text();
    match state.current() {
        Some((question, page)) if page.noting || !page.note.is_blank() => {
            let style = if page.noting { Style::new() } else { dim() };
            field_lines(
                t,
                &shown_field(question, &page.note),
                FieldLook {
                    focused: page.noting,
                    first: &format!("  {}", t.note_lead),
                    indent: 2 + width(t.note_lead),
                    inner,
                    max_lines: 3,
                    style,
                },
            )
            .0
        }
        _ => Vec::new(),
    }
}

/// How many bytes of a long text the field lays out before its cursor: enough for any screen,
/// and a fixed grid (the start moves only when the cursor crosses a multiple of it) so that the
/// lines do not shift while one types.
const FIELD_WINDOW: usize = 2048;

/// Where and how a text field is laid out: `first` is the lead of its first line, `indent` the
/// columns before its following lines, `inner` its width, and `max_lines` the most lines it
/// takes; the cursor is drawn as a reversed cell when `focused`, and the text is drawn in
/// `style`.
#[derive(Debug, Clone, Copy)]
pub(super) struct FieldLook<'a> {
    pub(super) focused: bool,
    pub(super) first: &'a str,
    pub(super) indent: usize,
    pub(super) inner: usize,
    pub(super) max_lines: usize,
    pub(super) style: Style,
}

/// A text field laid out as `look` says: from `look.first`, wrapped with `look.indent` columns
/// on the following lines, at most `look.max_lines` lines around the cursor (around the start
/// when not focused).
///
/// Only the text near the cursor is laid out, so a field holding a million characters draws as
/// fast as a short one. Text out of view is never hidden silently: the first line then says how
/// many characters come before, and the last line how many come after. Also gives the index of
/// the line that holds the cursor (the first text line when not focused).
pub(super) fn field_lines(
    t: &Text,
    field: &TextField,
    look: FieldLook<'_>,
) -> (Vec<Line<'static>>, usize) {
    let FieldLook {
        focused,
        first,
        indent,
        inner,
        max_lines,
        style,
    } = look;
    let text = field.text();
    let cursor = if focused { field.cursor() } else { 0 };
    let first_width = inner.saturating_sub(width(first)).max(1);
    let rest_width = inner.saturating_sub(indent).max(1);
    let start = window_start(text, cursor);

    // Each cell: the byte range of one grapheme (an empty range is the cursor after the
    // text); rows of cells, each with the byte offset where it starts. The first row shares the
    // lead's line only when the text starts there. Strings are made only for the rows shown.
    let mut rows: Vec<(usize, Vec<(usize, usize)>)> = vec![(start, Vec::new())];
    let mut used = 0;
    let mut cursor_row = (!focused).then_some(0);
    let mut end = start;
    let limit = |row: usize| {
        if row == 0 && start == 0 {
            first_width
        } else {
            rest_width
        }
    };
    let mut graphemes = text[start..].grapheme_indices(true);
    let mut after_space = false;
    loop {
        let (at, to, w) = match graphemes.next() {
            Some((i, g)) => (start + i, start + i + g.len(), width(&safe(g)).max(1)),
            None if focused && cursor == text.len() => (text.len(), text.len(), 1),
            None => break,
        };
        // A word that does not fit on the rest of the row but fits on a row of its own starts
        // the next row, so words are not split where they need not be.
        let word_start = after_space && at < to && !text[at..to].trim().is_empty();
        after_space = at < to && text[at..to].trim().is_empty();
        let moves = word_start
            && used > 0
            && word_width(&text[at..], focused && cursor == text.len(), rest_width)
                .is_some_and(|word| used + word > limit(rows.len() - 1));
        if (used + w > limit(rows.len() - 1) || moves) && used > 0 {
            if cursor_row.is_some_and(|c: usize| rows.len() > c + max_lines) {
                break;
            }
            rows.push((at, Vec::new()));
            used = 0;
        }
        used += w;
        if focused && at == cursor {
            cursor_row = Some(rows.len() - 1);
        }
        if let Some((_, cells)) = rows.last_mut() {
            cells.push((at, to));
        }
        end = to;
        if at == to {
            break;
        }
    }
    let cursor_row = cursor_row.unwrap_or(rows.len() - 1);

    let max_lines = max_lines.max(2);
    let text_starts_here = start == 0;
    // Pick the rows to show: from the text's start when the cursor row fits there, else with a
    // line for the "before" marker, and with a line for the "after" marker when text follows
    // (on two lines, one marker above the cursor's row counts both).
    let total = rows.len();
    let more_after = |last: usize| last < total || end < text.len();
    let (from, to) = if text_starts_here && cursor_row < max_lines && !more_after(max_lines) {
        (0, total.min(max_lines))
    } else if text_starts_here && cursor_row + 1 < max_lines {
        (0, (max_lines - 1).min(total))
    } else {
        let shown = max_lines.saturating_sub(2).max(1);
        let from = (cursor_row + 1).saturating_sub(shown);
        (from, (from + shown).min(total))
    };
    // The characters before a byte offset near the cursor, counted from the cursor so that
    // nothing walks the whole text.
    let before_cursor = if focused {
        field.chars_before_cursor()
    } else {
        0
    };
    let chars_before = |at: usize| {
        if at <= cursor {
            before_cursor - text[at..cursor].chars().count()
        } else {
            before_cursor + text[cursor..at].chars().count()
        }
    };
    let hidden_before = if from == 0 && text_starts_here {
        0
    } else {
        chars_before(rows[from].0)
    };
    let shown_end = rows.get(to).map_or(end, |(at, _)| *at);
    let hidden_after = field.char_count() - chars_before(shown_end);

    let mut out = Vec::new();
    let mut lead_used = false;
    let both = hidden_before > 0 && hidden_after > 0 && max_lines < 3;
    if hidden_before > 0 {
        let (before, after) = (t.number(hidden_before), t.number(hidden_after));
        let values = [("n", before.as_str()), ("a", &before), ("b", &after)];
        let forms = if both {
            [
                fill(t.chars_both[0].pick(hidden_after), &values),
                fill(t.chars_both[1].pick(hidden_after), &values),
                format!("…{hidden_before} …{hidden_after}"),
            ]
        } else {
            [
                fill(t.chars_before[0].pick(hidden_before), &values),
                fill(t.chars_before[1].pick(hidden_before), &values),
                format!("…{hidden_before}"),
            ]
        };
        out.push(Line::from(vec![
            Span::raw(first.to_string()),
            Span::styled(fit(&forms, (inner + 2).saturating_sub(width(first))), dim()),
        ]));
        lead_used = true;
    }
    let mut cursor_line = out.len();
    for (i, (_, row)) in rows.into_iter().enumerate().skip(from).take(to - from) {
        if i == cursor_row {
            cursor_line = out.len();
        }
        let lead = if i == 0 && !lead_used {
            lead_used = true;
            first.to_string()
        } else {
            " ".repeat(indent)
        };
        let mut spans = vec![Span::raw(lead)];
        let mut plain = String::new();
        for (at, to) in row {
            if at == to {
                spans.push(Span::styled(std::mem::take(&mut plain), style));
                spans.push(Span::raw("█"));
            } else if focused && at == cursor {
                spans.push(Span::styled(std::mem::take(&mut plain), style));
                spans.push(Span::styled(
                    safe(&text[at..to]).into_owned(),
                    cursor_cell(),
                ));
            } else {
                plain.push_str(&safe(&text[at..to]));
            }
        }
        spans.push(Span::styled(plain, style));
        out.push(Line::from(spans));
    }
    if hidden_after > 0 && !both {
        out.push(Line::styled(
            format!(
                "{}{}",
                " ".repeat(indent),
                fit(
                    &[
                        fill(
                            t.chars_after[0].pick(hidden_after),
                            &[("n", &t.number(hidden_after))]
                        ),
                        fill(
                            t.chars_after[1].pick(hidden_after),
                            &[("n", &t.number(hidden_after))]
                        ),
                        format!("…{hidden_after}"),
                    ],
                    (inner + 2).saturating_sub(indent),
                )
            ),
            dim(),
        ));
    }
    (out, cursor_line)
}

/// The width of the word that starts `text`: its graphemes up to a space, a line end or a
/// double-width character (scripts without spaces break anywhere), with the cursor's cell after
/// it when `cursor_at_end` and it ends the text. `None` when it is wider than `max`, so that
/// only a word that fits on a row of its own is moved whole.
fn word_width(text: &str, cursor_at_end: bool, max: usize) -> Option<usize> {
    let mut total = 0;
    for grapheme in text.graphemes(true) {
        let w = width(&safe(grapheme)).max(1);
        if grapheme.trim().is_empty() || w > 1 {
            return Some(total);
        }
        total += w;
        if total > max {
            return None;
        }
    }
    let total = total + usize::from(cursor_at_end);
    (total <= max).then_some(total)
}

/// Where the laid-out part of a field's text starts: the text's start when the cursor is near
/// it, else a grapheme boundary on a fixed grid of [`FIELD_WINDOW`] bytes, one to two windows
/// before the cursor.
fn window_start(text: &str, cursor: usize) -> usize {
    if cursor < 2 * FIELD_WINDOW {
        return 0;
    }
    let mut start = (cursor - FIELD_WINDOW) / FIELD_WINDOW * FIELD_WINDOW;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    let mut at = GraphemeCursor::new(start, text.len(), true);
    match at.is_boundary(text, 0) {
        Ok(true) => start,
        _ => at.next_boundary(text, 0).ok().flatten().unwrap_or(start),
    }
}

/// What a text field (an answer or a note) shows: the typed text, or a mask of it for a
/// question whose answers every display masks ([`ask_core::answer_mask`]).
pub(super) fn shown_field<'a>(
    question: &Question,
    field: &'a TextField,
) -> std::borrow::Cow<'a, TextField> {
    if ask_core::answer_mask(question).is_some() {
        std::borrow::Cow::Owned(field.masked())
    } else {
        std::borrow::Cow::Borrowed(field)
    }
}

/// The paths Ctrl+T found, by their last part, side by side as far as they fit in the `area`'s
/// rows; the last row counts the ones left out.
pub(super) fn candidate_lines(t: &Text, candidates: &[String], area: Area) -> Vec<Line<'static>> {
    let Area { width: inner, rows } = area;
    if candidates.is_empty() || rows == 0 {
        return Vec::new();
    }
    let text_width = inner.saturating_sub(2).max(1);
    let names: Vec<String> = candidates
        .iter()
        .map(|path| {
            let trimmed = path.trim_end_matches('/');
            let start = trimmed.rfind('/').map_or(0, |at| at + 1);
            safe(&path[start..]).into_owned()
        })
        .collect();
    // Each line with how many names it holds.
    let mut lines: Vec<(String, usize)> = Vec::new();
    for name in &names {
        match lines.last_mut() {
            Some((line, count)) if width(line) + 2 + width(name) <= text_width => {
                line.push_str("  ");
                line.push_str(name);
                *count += 1;
            }
            _ => lines.push((shorten(name, text_width), 1)),
        }
    }
    if lines.len() > rows {
        let shown: usize = lines[..rows - 1].iter().map(|(_, count)| count).sum();
        lines.truncate(rows - 1);
        let more = t.number(names.len() - shown);
        lines.push((fill(t.review_more, &[("n", &more)]), 0));
    }
    lines
        .into_iter()
        .map(|(line, _)| Line::styled(format!("    {line}"), dim()))
        .collect()
}

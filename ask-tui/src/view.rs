//! The pure view: [`view`] draws a [`State`] into a frame, laid out as the mock-ups of seed 001
//! "UI Design". It keeps no state of its own.

use ask_core::{Question, RECOMMENDED_SUFFIX, is_recommended};
use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};
use unicode_segmentation::UnicodeSegmentation;

use crate::layout::{safe, safe_lines, shorten, thousands, width, wrap};
use crate::state::{Dialog, Notice, Page, Screen, State, VISIBLE_ROWS};
use crate::text::TextField;

const OTHER_LABEL: &str = "Other (type your answer)";

fn dim() -> Style {
    Style::new().add_modifier(Modifier::DIM)
}

fn accent() -> Style {
    Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD)
}

fn recommended() -> Style {
    Style::new().fg(Color::Green).add_modifier(Modifier::BOLD)
}

fn warning() -> Style {
    Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD)
}

fn cursor_cell() -> Style {
    Style::new().add_modifier(Modifier::REVERSED)
}

/// Draws `state` into the whole frame.
pub fn view(state: &State, frame: &mut Frame<'_>) {
    let area = frame.area();
    render(state, area, frame.buffer_mut());
}

/// Draws `state` into `area` of `buf`; [`view`] calls it with the whole frame.
pub fn render(state: &State, area: Rect, buf: &mut Buffer) {
    let lines = screen_lines(state, usize::from(area.width), usize::from(area.height));
    Paragraph::new(lines).render(area, buf);
}

/// The screen as lines, at most `height` of them, none wider than `width` columns.
pub fn screen_lines(state: &State, width: usize, height: usize) -> Vec<Line<'static>> {
    let inner = width.saturating_sub(2).max(1);
    let rule = Line::styled("─".repeat(width), dim());
    let title = title_line(state, width);
    let question_lines: Vec<Line<'static>> = match state.current() {
        Some((question, _)) => safe_lines(&question.question)
            .iter()
            .flat_map(|line| wrap(line, inner.saturating_sub(2).max(1)))
            .map(|line| Line::from(vec![Span::raw("  "), Span::styled(line, bold())]))
            .collect(),
        None => vec![Line::from(vec![
            Span::raw("  "),
            Span::styled("Review your answers", bold()),
        ])],
    };
    let mut bottom: Vec<Line<'static>> = Vec::new();
    if let Some(notice) = state.notice() {
        bottom.push(Line::styled(
            format!("  {}", notice_text(state, notice)),
            warning(),
        ));
    }
    match state.dialog() {
        Some(dialog) => bottom.extend(
            wrap(&dialog_text(dialog), inner.saturating_sub(2).max(1))
                .into_iter()
                .map(|line| Line::styled(format!("  {line}"), warning())),
        ),
        None => bottom.extend(
            help_lines(help_text(state), inner.saturating_sub(2).max(1))
                .into_iter()
                .map(|line| Line::styled(format!("  {line}"), dim())),
        ),
    }

    // Rows that are always shown: the two rules, the title and the help line.
    let fixed = 2 + usize::from(title.is_some()) + bottom.len();
    let room = height.saturating_sub(fixed);
    let body_wanted = body_lines(state, inner, usize::MAX).len();
    let body_min = body_wanted.min(3);
    let question_rows = question_lines
        .len()
        .min(room.saturating_sub(body_min).max(1));
    let blanks = if room >= question_rows + body_wanted + 3 {
        3
    } else {
        0
    };
    let body_rows = room.saturating_sub(question_rows + blanks);

    let mut out = Vec::with_capacity(height);
    out.push(rule.clone());
    out.extend(title);
    if blanks > 0 {
        out.push(Line::default());
    }
    let cut = question_rows < question_lines.len();
    for (i, line) in question_lines.into_iter().take(question_rows).enumerate() {
        if cut && i + 1 == question_rows {
            let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
            out.push(Line::styled(
                shorten(&text, width.saturating_sub(1)),
                bold(),
            ));
        } else {
            out.push(line);
        }
    }
    if blanks > 0 {
        out.push(Line::default());
    }
    out.extend(body_lines(state, inner, body_rows));
    if blanks > 0 {
        out.push(Line::default());
    }
    out.extend(bottom);
    out.push(rule);
    out.truncate(height);
    out
}

fn bold() -> Style {
    Style::new().add_modifier(Modifier::BOLD)
}

/// The header line: the tab bar of a multi-question call, else the question's header.
fn title_line(state: &State, width: usize) -> Option<Line<'static>> {
    if state.is_tabbed() {
        return Some(tab_bar(state, width));
    }
    let (question, _) = state.current()?;
    let header = question.header.as_deref()?;
    Some(Line::styled(
        format!(" {}", shorten(&safe(header), width.saturating_sub(2))),
        accent(),
    ))
}

/// The header of `question` as a tab label: its sanitised header, or "Q1", "Q2"….
fn tab_label(question: &Question, index: usize) -> String {
    match question.header.as_deref() {
        Some(header) if !header.trim().is_empty() => safe(header).into_owned(),
        _ => format!("Q{}", index + 1),
    }
}

/// `← ■ Database  □ Service Name  □ Features  ✓ Submit →`, with labels shortened with `…`
/// until the bar fits in `columns` columns. When even three-column labels do not fit (a raised
/// question limit on a narrow terminal), the bar shows the tabs around the current one, with
/// `+N` for the tabs left out on each side, and "✓ Submit" always shows (from 20 columns; below
/// that, only the counts and "✓ Submit"). The question itself is shown under the bar anyway.
fn tab_bar(state: &State, columns: usize) -> Line<'static> {
    let labels: Vec<String> = state
        .questions()
        .iter()
        .enumerate()
        .map(|(i, q)| tab_label(q, i))
        .collect();
    let count = labels.len();
    let more = |n: usize| if n == 0 { 0 } else { width(&format!("+{n} ")) };
    let bar_width = |first: usize, end: usize, max: usize, gap: usize| {
        let tabs: usize = labels[first..end]
            .iter()
            .map(|l| 2 + width(l).min(max) + gap)
            .sum();
        3 + more(first) + tabs + more(count - end) + 8 + 2
    };
    let longest = labels.iter().map(|l| width(l)).max().unwrap_or(0);
    let mut max = longest;
    let mut gap = 2;
    while max > 3 && bar_width(0, count, max, gap) > columns {
        max -= 1;
    }
    if bar_width(0, count, max, gap) > columns {
        gap = 1;
    }
    let (mut first, mut end) = (0, count);
    if bar_width(0, count, max, gap) > columns {
        // A window of tabs around the current one, grown one tab at a time on alternate sides
        // while it fits. On the Submit tab it starts empty at the end; when not even the
        // current tab fits, it stays empty.
        max = longest.min(8);
        let current = state.tab().min(count);
        (first, end) = (current, (current + 1).min(count));
        while max > 3 && bar_width(first, end, max, gap) > columns {
            max -= 1;
        }
        // Growing an empty window would show a tab other than the current one.
        let grow = if bar_width(first, end, max, gap) > columns {
            end = first;
            current == count
        } else {
            true
        };
        let mut left = true;
        if grow {
            loop {
                let grown = if left && first > 0 {
                    (first - 1, end)
                } else if end < count {
                    (first, end + 1)
                } else if first > 0 {
                    (first - 1, end)
                } else {
                    break;
                };
                if bar_width(grown.0, grown.1, max, gap) > columns {
                    break;
                }
                (first, end) = grown;
                left = !left;
            }
        }
    }
    let mut spans = vec![Span::styled(" ← ", dim())];
    if first > 0 {
        spans.push(Span::styled(format!("+{first} "), dim()));
    }
    for (i, label) in labels.iter().enumerate().take(end).skip(first) {
        let mark = answered_mark(state.pages()[i].answer.is_some());
        let style = if state.tab() == i {
            accent().add_modifier(Modifier::REVERSED)
        } else {
            Style::new()
        };
        spans.push(Span::styled(
            format!("{mark}{}", shorten(label, max)),
            style,
        ));
        spans.push(Span::raw(" ".repeat(gap)));
    }
    if end < count {
        spans.push(Span::styled(format!("+{} ", count - end), dim()));
    }
    let submit_style = if state.screen() == Screen::Submit {
        accent().add_modifier(Modifier::REVERSED)
    } else {
        Style::new()
    };
    spans.push(Span::styled("✓ Submit", submit_style));
    spans.push(Span::styled(" →", dim()));
    Line::from(spans)
}

/// `■ ` for an answered question, `□ ` for an open one, in the tab bar and the review.
fn answered_mark(answered: bool) -> &'static str {
    if answered { "■ " } else { "□ " }
}

/// The rows between the question and the help line, at most `max_rows` of them.
fn body_lines(state: &State, inner: usize, max_rows: usize) -> Vec<Line<'static>> {
    match state.current() {
        None => review_lines(state, inner, max_rows),
        Some((question, page)) if question.is_free_text() => {
            field_lines(&page.field, true, "  > ", 4, inner, max_rows.min(6))
        }
        Some((question, page)) => list_lines(question, page, inner, max_rows),
    }
}

/// One option row as lines: the marker and number, the wrapped label, and the description
/// indented beneath it.
fn option_lines(question: &Question, page: &Page, row: usize, inner: usize) -> Vec<Line<'static>> {
    let options = question.options();
    let selected = page.cursor == row;
    let pointer = if selected { "  > " } else { "    " };
    let mark = if question.multi_select {
        let on = match options.get(row) {
            Some(_) => page.checked.get(row).copied().unwrap_or(false),
            None => page.other_checked,
        };
        if on { "[x] " } else { "[ ] " }.to_string()
    } else {
        format!("{}. ", row + 1)
    };
    let indent = 4 + width(&mark);
    let label_style = if selected { accent() } else { Style::new() };
    let text_width = inner.saturating_sub(indent).max(1);

    let Some(option) = options.get(row) else {
        // The "Other" row, with the typed text in place of the hint once there is some.
        if page.editing {
            let first = format!("{pointer}{mark}Other: ");
            return field_lines(&page.field, true, &first, indent, inner, 4);
        }
        let label = if page.field.is_blank() {
            OTHER_LABEL.to_string()
        } else {
            format!("Other: {}", safe(page.field.text()))
        };
        return wrap(&label, text_width)
            .into_iter()
            .take(3)
            .enumerate()
            .map(|(i, line)| {
                let lead = if i == 0 {
                    format!("{pointer}{mark}")
                } else {
                    " ".repeat(indent)
                };
                Line::from(vec![Span::raw(lead), Span::styled(line, label_style)])
            })
            .collect();
    };

    let label = safe(&option.label).into_owned();
    let mut lines: Vec<Line<'static>> = wrap(&label, text_width)
        .into_iter()
        .enumerate()
        .map(|(i, line)| {
            let lead = if i == 0 {
                format!("{pointer}{mark}")
            } else {
                " ".repeat(indent)
            };
            let mut spans = vec![Span::raw(lead)];
            match line.strip_suffix(RECOMMENDED_SUFFIX) {
                Some(base) if is_recommended(&option.label) => {
                    spans.push(Span::styled(base.to_string(), label_style));
                    spans.push(Span::styled(RECOMMENDED_SUFFIX, recommended()));
                }
                _ => spans.push(Span::styled(line, label_style)),
            }
            Line::from(spans)
        })
        .collect();
    if let Some(description) = option.description.as_deref() {
        for line in safe_lines(description) {
            for part in wrap(&line, text_width) {
                lines.push(Line::from(vec![
                    Span::raw(" ".repeat(indent)),
                    Span::styled(part, dim()),
                ]));
            }
        }
    }
    lines
}

/// The option list, scrolled so that the highlighted row shows, with "↑ N more..." and
/// "↓ N more..." for the rows out of view.
fn list_lines(
    question: &Question,
    page: &Page,
    inner: usize,
    max_rows: usize,
) -> Vec<Line<'static>> {
    let rows = question.options().len() + 1;
    let cursor = page.cursor.min(rows - 1);
    let mut start = page.offset.min(cursor);
    let mut end = (start + VISIBLE_ROWS).min(rows).max(cursor + 1);
    let blocks: Vec<Vec<Line<'static>>> = (0..rows)
        .map(|row| {
            if row >= start.saturating_sub(VISIBLE_ROWS) && row < end + VISIBLE_ROWS {
                option_lines(question, page, row, inner)
            } else {
                Vec::new()
            }
        })
        .collect();
    let height = |start: usize, end: usize| {
        let items: usize = blocks[start..end].iter().map(Vec::len).sum();
        items + usize::from(start > 0) + usize::from(end < rows)
    };
    // Drop rows from the side away from the cursor until the list fits.
    while height(start, end) > max_rows && end - start > 1 {
        if cursor > start {
            start += 1;
        } else {
            end -= 1;
        }
    }
    let mut out = Vec::new();
    if start > 0 {
        out.push(Line::styled(format!("    ↑ {start} more..."), dim()));
    }
    for block in &blocks[start..end] {
        out.extend(block.iter().cloned());
    }
    if end < rows {
        out.push(Line::styled(format!("    ↓ {} more...", rows - end), dim()));
    }
    if out.len() > max_rows {
        // Not even the highlighted row fits whole: keep its first lines.
        let keep = max_rows.max(1);
        let from = usize::from(start > 0).min(out.len().saturating_sub(keep));
        out = out.into_iter().skip(from).take(keep).collect();
    }
    out
}

/// A text field laid out from `first` (the lead of the first line) with the cursor drawn as a
/// reversed cell, wrapped with `indent` columns on the following lines, at most `max_lines`
/// lines around the cursor.
fn field_lines(
    field: &TextField,
    focused: bool,
    first: &str,
    indent: usize,
    inner: usize,
    max_lines: usize,
) -> Vec<Line<'static>> {
    let text_width = inner.saturating_sub(indent).max(1);
    let before = safe(&field.text()[..field.cursor()]).into_owned();
    let after = safe(&field.text()[field.cursor()..]).into_owned();
    // Each cell: the grapheme and whether the cursor is on it.
    let mut cells: Vec<(String, bool)> = before
        .graphemes(true)
        .map(|g| (g.to_string(), false))
        .collect();
    let mut after_cells = after.graphemes(true).map(|g| (g.to_string(), false));
    match after_cells.next() {
        Some((g, _)) => cells.push((g, focused)),
        None if focused => cells.push(("█".to_string(), false)),
        None => {}
    }
    cells.extend(after_cells);
    let mut rows: Vec<Vec<(String, bool)>> = vec![Vec::new()];
    let mut used = 0;
    for cell in cells {
        let w = width(&cell.0).max(1);
        if used + w > text_width && used > 0 {
            rows.push(Vec::new());
            used = 0;
        }
        used += w;
        if let Some(row) = rows.last_mut() {
            row.push(cell);
        }
    }
    let cursor_row = rows
        .iter()
        .position(|row| row.iter().any(|(g, on)| *on || g == "█"))
        .unwrap_or(rows.len() - 1);
    let max_lines = max_lines.max(1);
    let skip = (cursor_row + 1).saturating_sub(max_lines);
    rows.into_iter()
        .enumerate()
        .skip(skip)
        .take(max_lines)
        .map(|(i, row)| {
            let lead = if i == 0 {
                first.to_string()
            } else {
                " ".repeat(indent)
            };
            let mut spans = vec![Span::raw(lead)];
            let mut plain = String::new();
            for (grapheme, on) in row {
                if on {
                    spans.push(Span::raw(std::mem::take(&mut plain)));
                    spans.push(Span::styled(grapheme, cursor_cell()));
                } else {
                    plain.push_str(&grapheme);
                }
            }
            spans.push(Span::raw(plain));
            Line::from(spans)
        })
        .collect()
}

/// The Submit tab: each question's header with its answer, or "(not answered)", then whether
/// everything is answered.
///
/// When the rows run short the review gets denser rather than losing answers: answers cut to
/// one line, then one line per question (`■ Header: answer`), and only then "... N more" for
/// the questions that do not fit (the status line names the unanswered ones, as far as it fits).
fn review_lines(state: &State, inner: usize, max_rows: usize) -> Vec<Line<'static>> {
    if max_rows == 0 {
        return Vec::new();
    }
    let mut missing = Vec::new();
    let entries: Vec<(String, Option<String>)> = state
        .questions()
        .iter()
        .zip(state.pages())
        .enumerate()
        .map(|(i, (question, page))| {
            let label = tab_label(question, i);
            let answer = page
                .answer
                .as_ref()
                .map(|answer| safe(&answer.answer.joined()).into_owned());
            if answer.is_none() {
                missing.push(label.clone());
            }
            (label, answer)
        })
        .collect();
    let status = if missing.is_empty() {
        Line::styled(
            format!(
                "  {}",
                shorten(
                    "All answered. Press Enter to submit.",
                    inner.saturating_sub(2)
                )
            ),
            accent(),
        )
    } else {
        let text = format!("Not answered yet: {}", missing.join(", "));
        Line::styled(
            format!("  {}", shorten(&text, inner.saturating_sub(2))),
            warning(),
        )
    };
    let room = max_rows - 1;
    let mut out = [2, 1]
        .into_iter()
        .map(|answer_rows| review_blocks(&entries, inner, answer_rows))
        .find(|lines| lines.len() <= room)
        .unwrap_or_else(|| review_compact(&entries, inner, room));
    out.push(status);
    out
}

/// The review with each header on its own line and up to `answer_rows` lines of its answer.
fn review_blocks(
    entries: &[(String, Option<String>)],
    inner: usize,
    answer_rows: usize,
) -> Vec<Line<'static>> {
    let text_width = inner.saturating_sub(4).max(1);
    let mut out = Vec::new();
    for (label, answer) in entries {
        out.push(Line::from(vec![
            Span::raw("  "),
            Span::raw(answered_mark(answer.is_some())),
            Span::styled(shorten(label, text_width), bold()),
        ]));
        match answer {
            Some(text) => {
                let mut lines = wrap(text, text_width);
                if lines.len() > answer_rows {
                    lines.truncate(answer_rows);
                    if let Some(last) = lines.last_mut() {
                        *last = shorten(&format!("{last}…"), text_width);
                    }
                }
                for line in lines {
                    out.push(Line::from(vec![Span::raw("    "), Span::raw(line)]));
                }
            }
            None => out.push(Line::styled("    (not answered)", warning())),
        }
    }
    out
}

/// The review at one line per question, at most `room` lines: when not every question fits,
/// the last line says how many more there are.
fn review_compact(
    entries: &[(String, Option<String>)],
    inner: usize,
    room: usize,
) -> Vec<Line<'static>> {
    let text_width = inner.saturating_sub(4).max(1);
    let shown = if entries.len() <= room {
        entries.len()
    } else {
        room.saturating_sub(1)
    };
    let mut out: Vec<Line<'static>> = entries[..shown]
        .iter()
        .map(|(label, answer)| {
            let (text, style) = match answer {
                Some(text) => (text.as_str(), Style::new()),
                None => ("(not answered)", warning()),
            };
            // The header gets at most half the row when it would crowd out the answer.
            let head_max = if width(label) + 2 + 3 > text_width {
                (text_width / 2).max(3)
            } else {
                text_width
            };
            let head = shorten(label, head_max);
            let rest = text_width.saturating_sub(width(&head) + 2);
            let mut spans = vec![
                Span::raw("  "),
                Span::raw(answered_mark(answer.is_some())),
                Span::styled(head, bold()),
            ];
            if rest > 0 {
                spans.push(Span::raw(": "));
                spans.push(Span::styled(shorten(text, rest), style));
            }
            Line::from(spans)
        })
        .collect();
    if shown < entries.len() && room > 0 {
        out.push(Line::styled(
            format!("    ... {} more", entries.len() - shown),
            dim(),
        ));
    }
    out
}

fn help_text(state: &State) -> &'static str {
    let tabbed = state.is_tabbed();
    match (state.screen(), tabbed, state.is_editing()) {
        (Screen::Submit, _, _) => "Enter to submit • Tab/←→ switch • Esc cancel",
        (Screen::FreeText, false, _) => "Enter to submit • Esc to cancel",
        (Screen::FreeText, true, _) => "Tab switch • Enter confirm • Esc cancel",
        (_, false, true) => "Enter to submit • Esc to go back",
        (_, true, true) => "Tab switch • Enter confirm • Esc back",
        (Screen::Choice, false, false) => {
            "↑↓ navigate • 1-9 quick select • Enter to select • Esc to cancel"
        }
        (Screen::Choice, true, false) => "Tab/←→ switch • ↑↓ select • Enter confirm • Esc cancel",
        (Screen::MultiSelect, false, false) => "Space to toggle • Enter to submit • Esc to cancel",
        (Screen::MultiSelect, true, false) => {
            "Tab/←→ switch • Space toggle • Enter confirm • Esc cancel"
        }
    }
}

/// Splits a help text at its ` • ` separators so that each line fits in `max` columns.
fn help_lines(text: &str, max: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for part in text.split(" • ") {
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

fn dialog_text(dialog: Dialog) -> String {
    match dialog {
        Dialog::Discard { answered: 1 } => "Discard 1 answer? [y/N]".to_string(),
        Dialog::Discard { answered } => format!("Discard {answered} answers? [y/N]"),
        Dialog::LongAnswer { chars } => format!(
            "Answer is long ({} chars). Continue anyway? [Y/n]",
            thousands(chars)
        ),
    }
}

fn notice_text(state: &State, notice: Notice) -> String {
    match notice {
        Notice::Unanswered(1) => "1 question still needs an answer".to_string(),
        Notice::Unanswered(n) => format!("{n} questions still need an answer"),
        Notice::EmptyAnswer if state.screen() == Screen::FreeText => {
            "Type an answer first".to_string()
        }
        Notice::EmptyAnswer => "Type an answer first, or Esc to go back".to_string(),
    }
}

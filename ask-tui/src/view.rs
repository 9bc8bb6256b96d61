//! The pure view: [`view`] draws a [`State`] into a frame. It keeps no state of its own.

use ask_core::{Question, QuestionKind, RECOMMENDED_SUFFIX, is_recommended};
use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};
use unicode_segmentation::{GraphemeCursor, UnicodeSegmentation};

use crate::layout::{safe, safe_lines, shorten, width, wrap};
use crate::state::{Dialog, Notice, Page, Screen, ScrollRoom, State, VISIBLE_ROWS};
use crate::text::TextField;
use ask_core::lang::{Help, Text, fill};

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
///
/// Nothing is cut silently: a question or a description that does not fit ends in a
/// "… N more lines" marker and scrolls (the help line then names the scroll keys), and a list
/// that does not fit says how many rows are above and below. How far the text can scroll is
/// recorded in `state` for the next update.
pub fn screen_lines(state: &State, width: usize, height: usize) -> Vec<Line<'static>> {
    let mut laid = lay_out(state, width, height, false, false);
    if laid.room.total > 0 || laid.room.preview > 0 {
        laid = lay_out(
            state,
            width,
            height,
            laid.room.total > 0,
            laid.room.preview > 0,
        );
    }
    state.set_scroll_room(laid.room);
    laid.lines
}

/// A screen laid out at one size.
struct Laid {
    lines: Vec<Line<'static>>,
    room: ScrollRoom,
}

fn lay_out(
    state: &State,
    columns: usize,
    height: usize,
    scrolling: bool,
    preview_scrolling: bool,
) -> Laid {
    let t = state.lang().text();
    let inner = columns.saturating_sub(2).max(1);
    // A question with previews shows the focused option's preview beside the list on a wide
    // terminal, else under it.
    let preview = preview_text(state);
    let side = preview.is_some() && columns >= SIDE_PREVIEW_COLUMNS;
    let list_columns = if side { columns / 2 } else { columns };
    let list_inner = list_columns.saturating_sub(2).max(1);
    let text_width = inner.saturating_sub(2).max(1);
    let rule = Line::styled("─".repeat(columns), dim());
    let title = title_line(state, columns);
    let question_at = |columns: usize| -> Vec<String> {
        match state.current() {
            Some((question, _)) => safe_lines(&question.question)
                .iter()
                .flat_map(|line| wrap(line, columns))
                .collect(),
            None => vec![t.review_title.to_string()],
        }
    };
    let question_lines = question_at(text_width);
    let mut bottom: Vec<Line<'static>> = Vec::new();
    if let Some((question, page)) = state.current()
        && (page.noting || !page.note.is_blank())
    {
        // The note on this question's answer, under the list or field it belongs to; a
        // secret's note is masked as its answer is.
        let style = if page.noting { Style::new() } else { dim() };
        bottom.extend(
            field_lines(
                t,
                &shown_field(question, &page.note),
                page.noting,
                &format!("  {}", t.note_lead),
                2 + width(t.note_lead),
                inner,
                3,
                style,
            )
            .0,
        );
    }
    if let Some(notice) = state.notice() {
        bottom.extend(
            wrap(&notice_text(state, notice), text_width)
                .into_iter()
                .map(|line| Line::styled(format!("  {line}"), warning())),
        );
    }
    match state.dialog() {
        Some(dialog) => bottom.extend(
            dialog_text(t, dialog)
                .lines()
                .flat_map(|part| wrap(part, text_width))
                .map(|line| Line::styled(format!("  {line}"), warning())),
        ),
        None => {
            // On a short terminal the help line gives up its least needed parts first, so the
            // question and the list keep at least four rows; Esc is always named.
            let used = 2 + usize::from(title.is_some()) + bottom.len();
            let most = height.saturating_sub(used + 4).max(1);
            let mut parts = help_text(state, scrolling, preview_scrolling);
            let mut lines = help_lines(t, &parts, text_width);
            for drop in HELP_DROP_ORDER {
                if lines.len() <= most {
                    break;
                }
                if let Some(i) = parts.iter().position(|part| *part == drop) {
                    parts.remove(i);
                    lines = help_lines(t, &parts, text_width);
                }
            }
            // While the question and the list do not fit whole, the help line also gives up
            // its least needed parts as long as each one given up frees a row for them.
            let wanted =
                question_lines.len() + body_lines(state, list_inner, usize::MAX, 0).0.len();
            for drop in HELP_DROP_ORDER {
                if used + lines.len() + wanted <= height {
                    break;
                }
                let Some(i) = parts.iter().position(|part| *part == drop) else {
                    continue;
                };
                let mut fewer = parts.clone();
                fewer.remove(i);
                let shorter = help_lines(t, &fewer, text_width);
                if shorter.len() >= lines.len() {
                    break;
                }
                (parts, lines) = (fewer, shorter);
            }
            bottom.extend(
                lines
                    .into_iter()
                    .map(|line| Line::styled(format!("  {line}"), dim())),
            );
        }
    }

    // Rows that are always shown: the two rules, the title and the help line.
    let fixed = 2 + usize::from(title.is_some()) + bottom.len();
    let mut room = height.saturating_sub(fixed);
    // Under the list, the preview box takes up to two fifths of the room (at least three rows:
    // its borders and a line), and scrolls when its text does not fit.
    // The preview's lines, wrapped once per layout to the width of its box.
    let preview_lines = preview.as_ref().map(|text| {
        let box_width = if side { columns - list_columns } else { inner };
        (
            text.is_some(),
            preview_content(t, text.as_deref(), box_width),
        )
    });
    let below_rows = match &preview_lines {
        Some((_, content)) if !side && room >= 5 => {
            let wanted = content.len() + 2;
            wanted.min((room * 2 / 5).max(3))
        }
        _ => 0,
    };
    room -= below_rows;
    let body_wanted = body_lines(state, list_inner, usize::MAX, 0).0.len();
    // The list keeps at least three rows (a row and the markers around it). When the question
    // is cut anyway, it keeps up to five (a marker above and below, the label, a line of the
    // description and its marker) or half the room, so that a long question cannot crowd out a
    // long description.
    let body_min = if question_lines.len() + body_wanted.min(3) <= room {
        body_wanted.min(3)
    } else {
        body_wanted.min(5.max(room / 2))
    };
    let question_rows = question_lines
        .len()
        .min(room.saturating_sub(body_min).max(1));
    let blanks = if room >= question_rows + body_wanted + 3 {
        3
    } else {
        0
    };
    let body_rows = room.saturating_sub(question_rows + blanks);

    // The question, scrolled: when it is cut, its last row says how much is out of view.
    let scroll = state.current().map_or(0, |(_, page)| page.scroll);
    let cut = question_rows < question_lines.len();
    // With one row, the question shares it with its marker, which gets at most half the row:
    // the question is wrapped to the other half, so that scrolling shows every word of it.
    let question_lines = if cut && question_rows == 1 {
        question_at(text_width.saturating_sub(text_width / 2 + 1).max(1))
    } else {
        question_lines
    };
    let shown = if cut {
        question_rows.saturating_sub(1).max(1)
    } else {
        question_lines.len()
    };
    let question_room = question_lines.len() - shown;
    let offset = scroll.min(question_room);
    let (mut body, description_room) = body_lines(state, list_inner, body_rows, scroll - offset);
    let preview_scroll = state.current().map_or(0, |(_, page)| page.preview_scroll);
    let mut preview_room = 0;
    let mut below_box = Vec::new();
    if let Some((given, content)) = &preview_lines {
        if side {
            // The box beside the list, as tall as the list's rows.
            let box_width = columns - list_columns;
            let rows = (content.len() + 2).min(body_rows).max(3);
            let (lines, room) = preview_box(t, *given, content, box_width, rows, preview_scroll);
            preview_room = room;
            body = beside(body, lines, list_columns);
        } else if below_rows > 0 {
            // Indented like the list, so the box sits under the rows it belongs to.
            let (lines, room) = preview_box(t, *given, content, inner, below_rows, preview_scroll);
            preview_room = room;
            below_box = lines
                .into_iter()
                .map(|line| {
                    let mut spans = vec![Span::raw("  ")];
                    spans.extend(line.spans);
                    Line::from(spans)
                })
                .collect();
        }
    }

    let mut out = Vec::with_capacity(height);
    out.push(rule.clone());
    out.extend(title);
    if blanks > 0 {
        out.push(Line::default());
    }
    let below = question_lines.len() - offset - shown;
    for (i, line) in question_lines
        .into_iter()
        .skip(offset)
        .take(shown)
        .enumerate()
    {
        if cut && question_rows == 1 && i == 0 {
            // One row for the question: its visible part and the marker share it.
            let marker = more_lines(t, offset, below, text_width / 2);
            let room = text_width.saturating_sub(width(&marker) + 1);
            out.push(Line::from(vec![
                Span::raw("  "),
                Span::styled(shorten(&line, room), bold()),
                Span::styled(format!(" {marker}"), dim()),
            ]));
        } else {
            out.push(Line::from(vec![
                Span::raw("  "),
                Span::styled(line, bold()),
            ]));
        }
    }
    if cut && question_rows > 1 {
        out.push(Line::styled(
            format!("  {}", more_lines(t, offset, below, text_width)),
            dim(),
        ));
    }
    if blanks > 0 {
        out.push(Line::default());
    }
    out.extend(body);
    out.extend(below_box);
    if blanks > 0 {
        out.push(Line::default());
    }
    out.extend(bottom);
    out.push(rule);
    out.truncate(height);
    Laid {
        lines: out,
        room: ScrollRoom {
            question: question_room,
            total: question_room + description_room,
            preview: preview_room,
        },
    }
}

/// The marker of a text cut by the terminal's size: `… 5 more lines`, `… 2 lines above`, or
/// `… 2 lines above, 5 more`, in shorter words when that does not fit in `room` columns.
fn more_lines(t: &Text, above: usize, below: usize, room: usize) -> String {
    let (a, b) = (t.number(above), t.number(below));
    let forms = match (above, below) {
        (0, below) => [
            fill(t.lines_below[0].pick(below), &[("n", &b)]),
            fill(t.lines_below[1].pick(below), &[("n", &b)]),
            format!("…{below}"),
        ],
        (above, 0) => [
            fill(t.lines_above[0].pick(above), &[("n", &a)]),
            fill(t.lines_above[1].pick(above), &[("n", &a)]),
            format!("↑{above}"),
        ],
        (above, _) => [
            fill(t.lines_both.pick(above), &[("a", &a), ("b", &b)]),
            format!("… ↑{above} ↓{below}"),
            format!("↑{above}↓{below}"),
        ],
    };
    fit(&forms, room)
}

/// The first of `forms` that fits in `room` columns, else the last one shortened: a marker
/// keeps its count on any terminal this UI can be drawn on.
fn fit(forms: &[String], room: usize) -> String {
    forms
        .iter()
        .find(|form| width(form) <= room)
        .cloned()
        .unwrap_or_else(|| shorten(forms.last().map_or("", String::as_str), room))
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
fn tab_label(t: &Text, question: &Question, index: usize) -> String {
    match question.header.as_deref() {
        Some(header) if !header.trim().is_empty() => safe(header).into_owned(),
        _ => fill(t.question_tab, &[("n", &(index + 1).to_string())]),
    }
}

/// `← ■ Database  □ Service Name  □ Features  ✓ Submit →`, with labels shortened with `…`
/// until the bar fits in `columns` columns. When even three-column labels do not fit (a raised
/// question limit on a narrow terminal), the bar shows the tabs around the current one, with
/// `+N` for the tabs left out on each side, and "✓ Submit" always shows (from 20 columns; below
/// that, only the counts and "✓ Submit"). The question itself is shown under the bar anyway.
fn tab_bar(state: &State, columns: usize) -> Line<'static> {
    let t = state.lang().text();
    let labels: Vec<String> = state
        .questions()
        .iter()
        .enumerate()
        .map(|(i, q)| tab_label(t, q, i))
        .collect();
    let submit_width = width(t.submit_tab);
    let count = labels.len();
    let more = |n: usize| if n == 0 { 0 } else { width(&format!("+{n} ")) };
    let bar_width = |first: usize, end: usize, max: usize, gap: usize| {
        let tabs: usize = labels[first..end]
            .iter()
            .map(|l| 2 + width(l).min(max) + gap)
            .sum();
        3 + more(first) + tabs + more(count - end) + submit_width + 2
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
    spans.push(Span::styled(t.submit_tab, submit_style));
    spans.push(Span::styled(" →", dim()));
    Line::from(spans)
}

/// `■ ` for an answered question, `□ ` for an open one, in the tab bar and the review.
fn answered_mark(answered: bool) -> &'static str {
    if answered { "■ " } else { "□ " }
}

/// The rows between the question and the help line, at most `max_rows` of them, with the
/// highlighted option's description scrolled by `scroll` lines when it does not fit; also how
/// many lines of that description do not fit.
fn body_lines(
    state: &State,
    inner: usize,
    max_rows: usize,
    scroll: usize,
) -> (Vec<Line<'static>>, usize) {
    match state.current() {
        None => (review_lines(state, inner, max_rows), 0),
        Some((question, page)) if question.is_free_text() => {
            let field = shown_field(question, &page.field);
            // While the note is open, its field has the cursor.
            let mut out = field_lines(
                state.lang().text(),
                &field,
                !page.noting,
                "  > ",
                4,
                inner,
                max_rows.min(6),
                Style::new(),
            )
            .0;
            // The placeholder: dim text after the cursor of an empty field.
            if let (Some(placeholder), Some(first)) = (&question.placeholder, out.first_mut())
                && page.field.text().is_empty()
            {
                let room = inner.saturating_sub(5);
                first.spans.push(Span::styled(
                    format!(" {}", shorten(&safe(placeholder), room)),
                    dim(),
                ));
            }
            let room = max_rows.saturating_sub(out.len());
            out.extend(candidate_lines(
                state.lang().text(),
                &page.candidates,
                inner,
                room,
            ));
            (out, 0)
        }
        Some((question, page)) => match &page.filter {
            Some(filter) => {
                let mut out = vec![filter_line(state, question, filter, inner)];
                let (list, room) = list_lines(
                    state,
                    question,
                    page,
                    inner,
                    max_rows.saturating_sub(1),
                    scroll,
                );
                out.extend(list);
                (out, room)
            }
            None => list_lines(state, question, page, inner, max_rows, scroll),
        },
    }
}

/// The open filter: `  / text█  2 of 8 options`, the text shortened from the left when it
/// does not fit, so the end being typed stays in view.
fn filter_line(
    state: &State,
    question: &Question,
    filter: &TextField,
    inner: usize,
) -> Line<'static> {
    let matches = state.visible_rows().len() - 1;
    let t = state.lang().text();
    let count = format!(
        "  {}",
        fill(
            t.filter_count,
            &[
                ("a", &t.number(matches)),
                ("b", &t.number(question.options().len()))
            ]
        )
    );
    let room = (inner + 2).saturating_sub(4 + 1 + width(&count)).max(1);
    let text = safe(filter.text()).into_owned();
    let shown = if width(&text) <= room {
        text
    } else {
        let mut tail: Vec<char> = Vec::new();
        let mut used = 1;
        for c in text.chars().rev() {
            let w = width(c.encode_utf8(&mut [0; 4]));
            if used + w > room {
                break;
            }
            used += w;
            tail.push(c);
        }
        std::iter::once('…').chain(tail.into_iter().rev()).collect()
    };
    Line::from(vec![
        Span::styled("  / ", accent()),
        Span::raw(shown),
        Span::raw("█"),
        Span::styled(count, dim()),
    ])
}

/// What a text field (an answer or a note) shows: the typed text, or a mask of it for a
/// question whose answers every display masks ([`ask_core::answer_mask`]).
fn shown_field<'a>(question: &Question, field: &'a TextField) -> std::borrow::Cow<'a, TextField> {
    if ask_core::answer_mask(question).is_some() {
        std::borrow::Cow::Owned(field.masked())
    } else {
        std::borrow::Cow::Borrowed(field)
    }
}

/// From this many columns a preview shows beside the list rather than under it.
pub const SIDE_PREVIEW_COLUMNS: usize = 100;

/// The preview of the focused row, when the open question has previews: `Some(None)` for a
/// row without one ("Other", or an option the model gave no preview).
fn preview_text(state: &State) -> Option<Option<String>> {
    let (question, page) = state.current()?;
    let options = question.options();
    if !options.iter().any(|option| option.preview.is_some()) {
        return None;
    }
    Some(options.get(page.cursor).and_then(|o| o.preview.clone()))
}

/// A preview's lines as the box shows them, `columns` wide with the borders: sanitised line by
/// line, each wrapped, indentation kept.
fn preview_content(t: &Text, text: Option<&str>, columns: usize) -> Vec<String> {
    let text_width = columns.saturating_sub(4).max(1);
    match text {
        Some(text) => safe_lines(text)
            .iter()
            .flat_map(|line| wrap(line, text_width))
            .collect(),
        None => vec![t.no_preview.to_string()],
    }
}

/// The preview's lines (`content`, dim when the row has no preview of its own, `given` false)
/// in a box `columns` wide and `rows` tall (at least 3), scrolled by `scroll` lines; a text that does not fit says how many lines are out of view in the bottom border.
/// Also how far it can scroll.
fn preview_box(
    t: &Text,
    given: bool,
    content: &[String],
    columns: usize,
    rows: usize,
    scroll: usize,
) -> (Vec<Line<'static>>, usize) {
    let columns = columns.max(6);
    let text_width = columns - 4;
    let shown = rows.max(3) - 2;
    let room = content.len().saturating_sub(shown);
    let offset = scroll.min(room);
    let title = shorten(t.preview_title, columns - 5);
    let mut out = vec![Line::styled(
        format!("┌─ {title} {}┐", "─".repeat(columns - 5 - width(&title))),
        dim(),
    )];
    let style = if given { Style::new() } else { dim() };
    for line in content.iter().skip(offset).take(shown) {
        out.push(Line::from(vec![
            Span::styled("│ ", dim()),
            Span::styled(line.clone(), style),
            Span::raw(" ".repeat(text_width.saturating_sub(width(line)))),
            Span::styled(" │", dim()),
        ]));
    }
    for _ in out.len()..shown + 1 {
        out.push(Line::from(vec![
            Span::styled("│ ", dim()),
            Span::raw(" ".repeat(text_width)),
            Span::styled(" │", dim()),
        ]));
    }
    let marker = if room > 0 {
        format!(" {} ", more_lines(t, offset, room - offset, columns - 6))
    } else {
        String::new()
    };
    out.push(Line::styled(
        format!(
            "└{marker}{}┘",
            "─".repeat((columns - 2).saturating_sub(width(&marker)))
        ),
        dim(),
    ));
    (out, room)
}

/// The list's lines with the preview box's lines beside them, the list padded to
/// `list_columns`; as many lines as the longer of the two.
fn beside(
    list: Vec<Line<'static>>,
    pane: Vec<Line<'static>>,
    list_columns: usize,
) -> Vec<Line<'static>> {
    let rows = list.len().max(pane.len());
    let mut list = list.into_iter();
    let mut pane = pane.into_iter();
    (0..rows)
        .map(|_| {
            let mut spans = list.next().map_or_else(Vec::new, |line| line.spans);
            let used: usize = spans.iter().map(|span| width(&span.content)).sum();
            spans.push(Span::raw(" ".repeat(list_columns.saturating_sub(used))));
            spans.extend(pane.next().map_or_else(Vec::new, |line| line.spans));
            Line::from(spans)
        })
        .collect()
}

/// The paths Ctrl+T found, by their last part, side by side as far as they fit in `rows`
/// rows; the last row counts the ones left out.
fn candidate_lines(
    t: &Text,
    candidates: &[String],
    inner: usize,
    rows: usize,
) -> Vec<Line<'static>> {
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

/// One option row: its lead (pointer, then the tick box of a multi-select and the number), the
/// label lines and the description lines.
struct Block {
    label: Vec<Line<'static>>,
    description: Vec<Line<'static>>,
    /// The column where the label and the description start.
    indent: usize,
    /// The line that must stay in view when the row does not fit: the cursor's line in an
    /// open "Other" field, else the first.
    focus: usize,
}

impl Block {
    fn len(&self) -> usize {
        self.label.len() + self.description.len()
    }

    fn lines(&self) -> impl Iterator<Item = Line<'static>> + '_ {
        self.label.iter().chain(&self.description).cloned()
    }
}

/// The label of an option as wrapped lines; a "(Recommended)" suffix stays whole (on the last
/// line when it fits there, else on a line of its own) and is marked, so it is never split or
/// left uncoloured.
fn label_lines(label: &str, text_width: usize) -> Vec<(String, Option<String>)> {
    if !is_recommended(label) {
        return wrap(label, text_width)
            .into_iter()
            .map(|line| (line, None))
            .collect();
    }
    let trimmed = label.trim_end();
    let cut = trimmed.len() - RECOMMENDED_SUFFIX.len();
    let suffix = trimmed[cut..].to_string();
    let base = trimmed[..cut].trim_end();
    // The spaces between the label and its suffix, as the label has them (perhaps none).
    let gap = &trimmed[base.len()..cut];
    if base.is_empty() {
        return vec![(String::new(), Some(suffix))];
    }
    let mut lines: Vec<(String, Option<String>)> = wrap(base, text_width)
        .into_iter()
        .map(|line| (line, None))
        .collect();
    match lines.last_mut() {
        Some((last, mark)) if width(last) + width(gap) + width(&suffix) <= text_width => {
            last.push_str(gap);
            *mark = Some(suffix);
        }
        _ => lines.push((String::new(), Some(suffix))),
    }
    lines
}

/// One option row as lines: the marker and number, the wrapped label, and the description
/// indented beneath it.
fn option_block(t: &Text, question: &Question, page: &Page, row: usize, inner: usize) -> Block {
    let options = question.options();
    let selected = page.cursor == row;
    let pointer = if selected { "  > " } else { "    " };
    let number = format!("{}. ", row + 1);
    // A single choice marks the answer given, wherever the highlight is: the chosen option, or
    // "Other" when the answer is the typed text.
    let chosen = !question.multi_select
        && page.answer.as_ref().is_some_and(|answer| {
            match (options.get(row), answer.selected_option.as_deref()) {
                (Some(option), Some(label)) => option.label == label,
                (None, None) => answer.was_custom,
                _ => false,
            }
        });
    let mark = if question.multi_select {
        let on = match options.get(row) {
            Some(_) => page.checked.get(row).copied().unwrap_or(false),
            None => page.other_checked,
        };
        format!("{}{number}", if on { "[x] " } else { "[ ] " })
    } else if chosen {
        format!("● {number}")
    } else {
        number
    };
    let indent = 4 + width(&mark);
    let label_style = if selected { accent() } else { Style::new() };
    let text_width = inner.saturating_sub(indent).max(1);
    let lead = |i: usize| {
        if i == 0 {
            format!("{pointer}{mark}")
        } else {
            " ".repeat(indent)
        }
    };

    let Some(option) = options.get(row) else {
        // The "Other" row, with the typed text in place of the hint once there is some.
        let first = format!("{pointer}{mark}{}", t.other_lead);
        if page.editing {
            let (label, focus) = field_lines(
                t,
                &shown_field(question, &page.field),
                true,
                &first,
                indent,
                inner,
                4,
                Style::new(),
            );
            return Block {
                label,
                description: Vec::new(),
                indent,
                focus,
            };
        }
        if page.field.is_blank() {
            return Block {
                label: wrap(t.other, text_width)
                    .into_iter()
                    .enumerate()
                    .map(|(i, line)| {
                        Line::from(vec![Span::raw(lead(i)), Span::styled(line, label_style)])
                    })
                    .collect(),
                description: Vec::new(),
                indent,
                focus: 0,
            };
        }
        let (mut label, _) = field_lines(
            t,
            &shown_field(question, &page.field),
            false,
            &first,
            indent,
            inner,
            3,
            label_style,
        );
        if !question.multi_select {
            // Say whether the kept text is the answer: in a single question nothing is sent
            // until Enter; in a multi-question call another option may be the answer.
            let hint = match &page.answer {
                None => Some(t.other_sends),
                Some(_) if other_not_chosen(page) => Some(t.other_not_chosen),
                Some(_) => None,
            };
            if let Some(hint) = hint {
                label.extend(
                    wrap(hint, text_width)
                        .into_iter()
                        .map(|line| Line::styled(format!("{}{line}", " ".repeat(indent)), dim())),
                );
            }
        }
        return Block {
            label,
            description: Vec::new(),
            indent,
            focus: 0,
        };
    };

    let label = safe(&option.label).into_owned();
    let label = label_lines(&label, text_width)
        .into_iter()
        .enumerate()
        .map(|(i, (line, suffix))| {
            let mut spans = vec![Span::raw(lead(i)), Span::styled(line, label_style)];
            if let Some(suffix) = suffix {
                spans.push(Span::styled(suffix, recommended()));
            }
            Line::from(spans)
        })
        .collect();
    let mut description = Vec::new();
    if let Some(text) = option.description.as_deref() {
        for line in safe_lines(text) {
            for part in wrap(&line, text_width) {
                description.push(Line::from(vec![
                    Span::raw(" ".repeat(indent)),
                    Span::styled(part, dim()),
                ]));
            }
        }
    }
    Block {
        label,
        description,
        indent,
        focus: 0,
    }
}

/// True when a multi-question call has answered a question with something other than the
/// text kept in its "Other" field, so the row must say that this text is not the answer.
fn other_not_chosen(page: &Page) -> bool {
    page.answer
        .as_ref()
        .is_some_and(|answer| !answer.was_custom || answer.answer.joined() != page.field.text())
}

/// The option list, scrolled so that the highlighted row shows, with "↑ N more..." and
/// "↓ N more..." for the rows out of view. When even the highlighted row does not fit whole,
/// its description scrolls by `scroll` lines and ends in a "… N more lines" marker; the second
/// value is how far it can scroll.
fn list_lines(
    state: &State,
    question: &Question,
    page: &Page,
    inner: usize,
    max_rows: usize,
    scroll: usize,
) -> (Vec<Line<'static>>, usize) {
    let t = state.lang().text();
    // The rows shown, by their place in the list: every option and "Other", or the matches of
    // the filter and "Other". `start`, `end` and `cursor` count places, not options.
    let visible = state.visible_rows();
    let rows = visible.len();
    let cursor = visible
        .iter()
        .position(|&row| row == page.cursor)
        .unwrap_or(rows - 1);
    let mut start = page.offset.min(cursor);
    let mut end = (start + VISIBLE_ROWS).min(rows).max(cursor + 1);
    let blocks: Vec<Block> = (0..rows)
        .map(|at| {
            if at >= start.saturating_sub(VISIBLE_ROWS) && at < end + VISIBLE_ROWS {
                option_block(t, question, page, visible[at], inner)
            } else {
                Block {
                    label: Vec::new(),
                    description: Vec::new(),
                    indent: 4,
                    focus: 0,
                }
            }
        })
        .collect();
    let height = |start: usize, end: usize| {
        let items: usize = blocks[start..end].iter().map(Block::len).sum();
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
    let marker = |template: &str, n: usize| {
        Line::styled(
            format!("    {}", fill(template, &[("n", &t.number(n))])),
            dim(),
        )
    };
    let above = (start > 0).then(|| marker(t.rows_above, start));
    let below = (end < rows).then(|| marker(t.rows_below, rows - end));
    if height(start, end) <= max_rows {
        let mut out = Vec::new();
        out.extend(above);
        for block in &blocks[start..end] {
            out.extend(block.lines());
        }
        out.extend(below);
        return (out, 0);
    }
    // Only the highlighted row is left and it does not fit whole.
    let block = &blocks[cursor];
    let markers = usize::from(above.is_some()) + usize::from(below.is_some());
    let room = max_rows.saturating_sub(markers);
    let mut out = Vec::new();
    let mut description_room = 0;
    if room >= block.label.len() + 2 {
        // The label, as much of the description as fits, and the marker.
        let shown = room - block.label.len() - 1;
        description_room = block.description.len() - shown;
        let offset = scroll.min(description_room);
        out.extend(above);
        out.extend(block.label.iter().cloned());
        out.extend(block.description.iter().skip(offset).take(shown).cloned());
        out.push(Line::styled(
            format!(
                "{}{}",
                " ".repeat(block.indent),
                more_lines(
                    t,
                    offset,
                    description_room - offset,
                    (inner + 2).saturating_sub(block.indent)
                )
            ),
            dim(),
        ));
        out.extend(below);
    } else if max_rows >= 2 {
        // The lines of the row that fit, then one line that counts everything left out. An
        // open field keeps its first line (the row's number) and its cursor's line in view;
        // otherwise the label stays and the description scrolls under it.
        let keep = max_rows - 1;
        let label = block.label.len();
        let lines: Vec<Line<'static>> = block.lines().collect();
        let above = if block.focus >= keep {
            if keep == 1 {
                out.push(lines[block.focus].clone());
                block.focus
            } else {
                // The first line, then the lines that end at the cursor's line.
                let from = block.focus + 2 - keep;
                out.push(lines[0].clone());
                out.extend(lines[from..=block.focus].iter().cloned());
                from - 1
            }
        } else if block.focus == 0 && keep > label {
            description_room = block.description.len().saturating_sub(keep - label);
            let offset = scroll.min(description_room);
            out.extend(block.label.iter().cloned());
            out.extend(
                block
                    .description
                    .iter()
                    .skip(offset)
                    .take(keep - label)
                    .cloned(),
            );
            offset
        } else {
            out.extend(lines.into_iter().take(keep));
            0
        };
        let hidden = block.len().saturating_sub(keep + above);
        let parts = rows_out_of_view(start, end, rows);
        // The rows out of view come first: on a terminal this small, they matter most.
        let mut marker = String::from("    ");
        if !parts.is_empty() {
            marker.push_str(&fill(t.rows_out, &[("list", &parts.join(" "))]));
        }
        if hidden + above > 0 {
            let gap = if parts.is_empty() { "" } else { " · " };
            let room = (inner + 2).saturating_sub(width(&marker) + width(gap));
            let lines = more_lines(t, above, hidden, room);
            if !lines.is_empty() {
                marker.push_str(gap);
                marker.push_str(&lines);
            }
        }
        out.push(Line::styled(shorten(&marker, inner + 2), dim()));
    } else if let Some(line) = block.lines().nth(block.focus) {
        // One row: the highlighted row's line in focus, with the counts of the rows out of view
        // at its end.
        let parts = rows_out_of_view(start, end, rows);
        if parts.is_empty() {
            out.push(line);
        } else {
            let counts = format!(" {}", fill(t.rows_out, &[("list", &parts.join(" "))]));
            let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
            let room = (inner + 2).saturating_sub(width(&counts));
            out.push(Line::from(vec![
                Span::styled(shorten(&text, room), accent()),
                Span::styled(counts, dim()),
            ]));
        }
    }
    (out, description_room)
}

/// The counts of the rows above and below the window `start..end` of a list of `rows` rows,
/// as "↑ N" and "↓ N".
fn rows_out_of_view(start: usize, end: usize, rows: usize) -> Vec<String> {
    let mut parts = Vec::new();
    if start > 0 {
        parts.push(format!("↑ {start}"));
    }
    if end < rows {
        parts.push(format!("↓ {}", rows - end));
    }
    parts
}

/// How many bytes of a long text the field lays out before its cursor: enough for any screen,
/// and a fixed grid (the start moves only when the cursor crosses a multiple of it) so that the
/// lines do not shift while one types.
const FIELD_WINDOW: usize = 2048;

/// A text field laid out from `first` (the lead of the first line) with the cursor drawn as a
/// reversed cell when `focused`, wrapped with `indent` columns on the following lines, at most
/// `max_lines` lines around the cursor (around the start when not focused).
///
/// Only the text near the cursor is laid out, so a field holding a million characters draws as
/// fast as a short one. Text out of view is never hidden silently: the first line then says how
/// many characters come before, and the last line how many come after. Also gives the index of
/// the line that holds the cursor (the first text line when not focused).
#[allow(clippy::too_many_arguments)]
fn field_lines(
    t: &Text,
    field: &TextField,
    focused: bool,
    first: &str,
    indent: usize,
    inner: usize,
    max_lines: usize,
    style: Style,
) -> (Vec<Line<'static>>, usize) {
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
            && word_width(text, at, focused && cursor == text.len(), rest_width)
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

/// The width of the word of `text` that starts at byte `at`: its graphemes up to a space, a
/// line end or a double-width character (scripts without spaces break anywhere), with the
/// cursor's cell after it when `cursor_at_end` and it ends the text. `None` when it is wider
/// than `max`, so that only a word that fits on a row of its own is moved whole.
fn word_width(text: &str, at: usize, cursor_at_end: bool, max: usize) -> Option<usize> {
    let mut total = 0;
    for grapheme in text[at..].graphemes(true) {
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

/// The Submit tab: each question's header with its answer, or "(not answered)", then whether
/// everything is answered.
///
/// The review uses the rows it has before it cuts anything: each header on its own line with
/// the whole answer under it, else one line per question (`■ Header: answer`) with the answer
/// and note wrapped whole, and only when even that does not fit are answers cut, each to its
/// share of the rows, ending in a marker that names the key that opens the question's tab. Past
/// one row per question, "... N more" counts the questions left out (the status line names the
/// unanswered ones, as far as it fits).
fn review_lines(state: &State, inner: usize, max_rows: usize) -> Vec<Line<'static>> {
    if max_rows == 0 {
        return Vec::new();
    }
    let t = state.lang().text();
    let mut missing = Vec::new();
    let entries: Vec<(String, Option<String>)> = state
        .questions()
        .iter()
        .zip(state.pages())
        .enumerate()
        .map(|(i, (question, page))| {
            let label = tab_label(t, question, i);
            let answer = page
                .answer
                .as_ref()
                .map(|answer| review_text(&answer.shown(question).answer.joined()));
            if answer.is_none() {
                missing.push(label.clone());
            }
            (label, answer)
        })
        .collect();
    let status = if missing.is_empty() {
        Line::styled(
            format!("  {}", shorten(t.all_answered, inner.saturating_sub(2))),
            accent(),
        )
    } else {
        let text = fill(
            t.not_answered_yet,
            &[("list", &missing.join(t.list_separator))],
        );
        Line::styled(
            format!("  {}", shorten(&text, inner.saturating_sub(2))),
            warning(),
        )
    };
    // The notes, under the answers they belong to.
    let notes: Vec<Option<String>> = state
        .questions()
        .iter()
        .zip(state.pages())
        .map(|(question, page)| {
            (!page.note.is_blank()).then(|| match ask_core::answer_mask(question) {
                Some(mask) => mask.to_string(),
                None => review_text(page.note.text()),
            })
        })
        .collect();
    let room = max_rows - 1;
    let blocks = review_rows(t, &entries, &notes, inner, false);
    let mut out: Vec<Line<'static>> = if blocks.iter().map(Vec::len).sum::<usize>() <= room {
        blocks.into_iter().flatten().map(ReviewRow::line).collect()
    } else {
        let compact = review_rows(t, &entries, &notes, inner, true);
        if compact.iter().map(Vec::len).sum::<usize>() <= room {
            compact.into_iter().flatten().map(ReviewRow::line).collect()
        } else {
            review_cut(t, compact, room)
        }
    };
    out.push(status);
    out
}

/// How many characters of an answer the review looks at: more than any screen shows, so a
/// pasted file costs no more to draw than a word.
const REVIEW_CHARS: usize = 4096;

/// An answer as the review shows it: sanitised, and cut with `…` past [`REVIEW_CHARS`].
fn review_text(answer: &str) -> String {
    match answer.char_indices().nth(REVIEW_CHARS) {
        Some((at, _)) => format!("{}…", safe(&answer[..at])),
        None => safe(answer).into_owned(),
    }
}

/// One row of the review: its lead (indentation, the answered mark, the header) and its text,
/// which may be cut to make room for a marker.
struct ReviewRow {
    lead: Vec<Span<'static>>,
    text: String,
    style: Style,
    /// The columns the text may take.
    room: usize,
}

impl ReviewRow {
    fn line(self) -> Line<'static> {
        let mut spans = self.lead;
        spans.push(Span::styled(self.text, self.style));
        Line::from(spans)
    }
}

/// Each question's rows in the review, whole: the header on its own line with the answer under
/// it, or (`compact`) the header and the answer on one line, the answer wrapped on. The note
/// follows, wrapped. Only a header is ever shortened (as the tab bar shortens it).
fn review_rows(
    t: &Text,
    entries: &[(String, Option<String>)],
    notes: &[Option<String>],
    inner: usize,
    compact: bool,
) -> Vec<Vec<ReviewRow>> {
    let text_width = inner.saturating_sub(4).max(1);
    let indent = || vec![Span::raw("    ")];
    entries
        .iter()
        .zip(notes)
        .map(|((label, answer), note)| {
            let (text, style) = match answer {
                Some(text) => (text.as_str(), Style::new()),
                None => (t.not_answered, warning()),
            };
            let mark = answered_mark(answer.is_some());
            let mut rows = Vec::new();
            if compact {
                // The header gets at most half the row when it would crowd out the answer.
                let head_max = if width(label) + 2 + 3 > text_width {
                    (text_width / 2).max(3)
                } else {
                    text_width
                };
                let head = shorten(label, head_max);
                let rest = text_width.saturating_sub(width(&head) + 2).max(1);
                let first = wrap(text, rest).into_iter().next().unwrap_or_default();
                // The rest of the answer after its first line, wrapped to the whole width.
                let after = text
                    .strip_prefix(first.as_str())
                    .map_or("", str::trim_start);
                let lead = vec![
                    Span::raw("  "),
                    Span::raw(mark),
                    Span::styled(head, bold()),
                    Span::raw(": "),
                ];
                rows.push(ReviewRow {
                    lead,
                    text: first,
                    style,
                    room: rest,
                });
                if !after.is_empty() {
                    rows.extend(wrap(after, text_width).into_iter().map(|line| ReviewRow {
                        lead: indent(),
                        text: line,
                        style,
                        room: text_width,
                    }));
                }
            } else {
                rows.push(ReviewRow {
                    lead: vec![Span::raw("  "), Span::raw(mark)],
                    text: shorten(label, text_width),
                    style: bold(),
                    room: text_width,
                });
                rows.extend(wrap(text, text_width).into_iter().map(|line| ReviewRow {
                    lead: indent(),
                    text: line,
                    style,
                    room: text_width,
                }));
            }
            if let Some(note) = note {
                let text = format!("{}{note}", t.note_lead);
                rows.extend(wrap(&text, text_width).into_iter().map(|line| ReviewRow {
                    lead: indent(),
                    text: line,
                    style: dim(),
                    room: text_width,
                }));
            }
            rows
        })
        .collect()
}

/// The compact review cut to `room` rows: every question keeps its first row, the rows left are
/// shared out one at a time to the questions that need more, and a question cut short ends in
/// a marker naming the key that opens its tab. When not even one row per question fits, the
/// last row says how many questions are left out.
fn review_cut(t: &Text, entries: Vec<Vec<ReviewRow>>, room: usize) -> Vec<Line<'static>> {
    let count = entries.len();
    let shown = if count <= room {
        count
    } else {
        room.saturating_sub(1)
    };
    let mut budget = vec![1; shown];
    let mut left = room.saturating_sub(shown);
    while left > 0 {
        let before = left;
        for (rows, take) in entries.iter().zip(budget.iter_mut()) {
            if left > 0 && *take < rows.len() {
                *take += 1;
                left -= 1;
            }
        }
        if left == before {
            break;
        }
    }
    let mut out = Vec::new();
    for (i, (rows, take)) in entries.into_iter().zip(budget).enumerate() {
        let cut = take < rows.len();
        let mut rows: Vec<ReviewRow> = rows.into_iter().take(take).collect();
        if cut && let Some(last) = rows.last_mut() {
            let number = i + 1;
            let forms = [
                if number <= 9 {
                    fill(t.review_cut, &[("n", &number.to_string())])
                } else {
                    t.review_cut_tab.to_string()
                },
                "…".to_string(),
            ];
            let marker = fit(&forms, last.room.saturating_sub(4).max(1));
            let text_room = last.room.saturating_sub(width(&marker) + 1);
            let kept = |room: usize| {
                let text = shorten(&last.text, room);
                text.strip_suffix('…').unwrap_or(&text).to_string()
            };
            let text = kept(text_room);
            last.text = if width(&text) >= width(&last.text).min(4) {
                format!("{text} {marker}")
            } else {
                // On a terminal too narrow for the marker, the answer keeps its start and ends
                // in "…".
                if width(&last.text) < last.room {
                    format!("{}…", last.text)
                } else {
                    shorten(&last.text, last.room)
                }
            };
        }
        out.extend(rows.into_iter().map(ReviewRow::line));
    }
    if shown < count && room > 0 {
        out.push(Line::styled(
            format!(
                "    {}",
                fill(t.review_more, &[("n", &t.number(count - shown))])
            ),
            dim(),
        ));
    }
    out
}

/// The help line: one per kind of screen, the same words in a lone question and in a tabbed
/// call (which adds how to switch tabs), and the scroll keys when a text does not fit.
fn help_text(state: &State, scrolling: bool, preview_scrolling: bool) -> Vec<Help> {
    let tabbed = state.is_tabbed();
    let mut parts = Vec::new();
    if tabbed {
        // In a text field (an answer, "Other" or a note) ← → move the cursor once there is text,
        // and switch tabs while it is empty; Tab always switches.
        let typed = state.current().is_some_and(|(_, page)| {
            (page.noting && !page.note.text().is_empty())
                || (!page.noting && page.editing && !page.field.text().is_empty())
        });
        if typed {
            parts.extend([Help::Switch, Help::Cursor]);
        } else {
            parts.push(Help::SwitchArrows);
        }
    }
    // A list that scrolls offers the filter.
    let long = state
        .current()
        .is_some_and(|(question, _)| question.options().len() >= VISIBLE_ROWS);
    if state.is_noting() {
        parts.push(Help::KeepNote);
        if scrolling {
            parts.push(Help::Scroll);
        }
        return parts;
    }
    match (state.screen(), state.is_editing()) {
        (Screen::Choice | Screen::MultiSelect, false) if state.is_filtering() => parts.extend([
            Help::Filtering,
            Help::Navigate,
            if state.screen() == Screen::MultiSelect {
                Help::ToggleMatch
            } else {
                Help::Select
            },
            Help::Note,
            Help::CloseFilter,
        ]),
        (Screen::Submit, _) => parts.extend([Help::Submit, Help::Cancel]),
        (Screen::FreeText, _) => {
            if state
                .current()
                .is_some_and(|(question, _)| question.kind == QuestionKind::Path)
            {
                parts.push(Help::Complete);
            }
            parts.extend([
                Help::Note,
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
    if scrolling {
        parts.push(Help::Scroll);
    }
    if preview_scrolling {
        parts.push(Help::ScrollPreview);
    }
    parts
}

/// The parts of a help line a short terminal drops, in this order.
const HELP_DROP_ORDER: [Help; 16] = [
    Help::Other,
    Help::Cursor,
    Help::Complete,
    Help::Quick,
    Help::Filtering,
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
    }
}

fn notice_text(state: &State, notice: Notice) -> String {
    let t = state.lang().text();
    match notice {
        Notice::Unanswered(n) => fill(t.unanswered.pick(n), &[("n", &t.number(n))]),
        Notice::EmptyAnswer if state.screen() == Screen::FreeText => t.type_first.to_string(),
        Notice::EmptyAnswer => t.type_first_or_back.to_string(),
        Notice::NoCompletion => t.no_completion.to_string(),
    }
}

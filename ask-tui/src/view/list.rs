//! The option list: each option's row (pointer, tick box, number, label, description), the
//! "Other" row with its field, the `/` filter's line, and the list scrolled around the
//! highlighted row with markers for the rows out of view.

use ask_core::{Question, RECOMMENDED_SUFFIX, is_recommended};
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::field::{FieldLook, field_lines, shown_field};
use super::{Area, OutOfView, accent, dim, more_lines, recommended};
use crate::layout::{safe, safe_lines, shorten, width, wrap};
use crate::state::{Page, State, VISIBLE_ROWS};
use crate::text::TextField;
use ask_core::lang::{Text, fill};

/// The open filter: `  / text█  2 of 8 options`, the text shortened from the left when it
/// does not fit, so the end being typed stays in view.
pub(super) fn filter_line(state: &State, filter: &TextField, inner: usize) -> Line<'static> {
    let options = state
        .current()
        .map_or(0, |(question, _)| question.options().len());
    let matches = state.visible_rows().len() - 1;
    let t = state.lang().text();
    let count = format!(
        "  {}",
        fill(
            t.filter_count,
            &[("a", &t.number(matches)), ("b", &t.number(options))]
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

/// The open question's list as it is drawn: the UI's words, the question and its page, and the
/// list's width.
#[derive(Debug, Clone, Copy)]
struct ListOf<'a> {
    t: &'a Text,
    question: &'a Question,
    page: &'a Page,
    inner: usize,
}

/// One option row (`row`, an option index or "Other") as lines: the marker and number, the
/// wrapped label, and the description indented beneath it.
fn option_block(list: ListOf<'_>, row: usize) -> Block {
    let ListOf {
        t,
        question,
        page,
        inner,
    } = list;
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
                FieldLook {
                    focused: true,
                    first: &first,
                    indent,
                    inner,
                    max_lines: 4,
                    style: Style::new(),
                },
            );
            // In a multi-select, what is typed is added to the ticked options.
            let description = if question.multi_select {
                wrap(t.other_adds, text_width)
                    .into_iter()
                    .map(|line| Line::styled(format!("{}{line}", " ".repeat(indent)), dim()))
                    .collect()
            } else {
                Vec::new()
            };
            return Block {
                label,
                description,
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
            FieldLook {
                focused: false,
                first: &first,
                indent,
                inner,
                max_lines: 3,
                style: label_style,
            },
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
/// value is how far it can scroll. The list takes the `area`'s width and at most its rows.
pub(super) fn list_lines(state: &State, area: Area, scroll: usize) -> (Vec<Line<'static>>, usize) {
    let Some((question, page)) = state.current() else {
        return (Vec::new(), 0);
    };
    let Area {
        width: inner,
        rows: max_rows,
    } = area;
    let t = state.lang().text();
    let list = ListOf {
        t,
        question,
        page,
        inner,
    };
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
                option_block(list, visible[at])
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
    let cut = Cut {
        window: (start, end, rows),
        above,
        below,
        inner,
        max_rows,
        scroll,
    };
    cut_row(t, &blocks[cursor], cut)
}

/// A list cut to its highlighted row: the window `start..end` of its `rows` rows, the markers
/// of the rows above and below it, the list's width and rows, and how far the row's
/// description is scrolled.
struct Cut {
    window: (usize, usize, usize),
    above: Option<Line<'static>>,
    below: Option<Line<'static>>,
    inner: usize,
    max_rows: usize,
    scroll: usize,
}

/// The highlighted row (`block`) when it does not fit whole: its label, as much of its
/// description as fits and a marker; else as many of its lines as fit and one line that counts
/// everything left out; else, on one row, its line in focus with the counts at its end. Also how
/// far its description can scroll.
fn cut_row(t: &Text, block: &Block, cut: Cut) -> (Vec<Line<'static>>, usize) {
    let Cut {
        window: (start, end, rows),
        above,
        below,
        inner,
        max_rows,
        scroll,
    } = cut;
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
                    OutOfView {
                        above: offset,
                        below: description_room - offset
                    },
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
            let lines = more_lines(
                t,
                OutOfView {
                    above,
                    below: hidden,
                },
                room,
            );
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

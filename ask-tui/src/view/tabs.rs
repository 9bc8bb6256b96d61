//! The tab bar of a multi-question call (or the header of a lone question), and the tab labels
//! and answered marks the review shares.

use ask_core::Question;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use super::{accent, dim};
use crate::layout::{safe, shorten, width};
use crate::state::{Screen, State};
use ask_core::lang::{Text, fill};

/// The header line: the tab bar of a multi-question call, else the question's header.
pub(super) fn title_line(state: &State, width: usize) -> Option<Line<'static>> {
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
pub(super) fn tab_label(t: &Text, question: &Question, index: usize) -> String {
    match question.header.as_deref() {
        Some(header) if !header.trim().is_empty() => safe(header).into_owned(),
        _ => fill(t.question_tab, &[("n", &(index + 1).to_string())]),
    }
}

/// `← ▸■ Database  □ Service Name  □ Features  ✓ Submit →` (the current tab led by `▸`), with labels shortened with `…`
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
        3 + width(CURRENT) + more(first) + tabs + more(count - end) + submit_width + 2
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
        let (current, style) = if state.tab() == i {
            (CURRENT, accent().add_modifier(Modifier::REVERSED))
        } else {
            ("", Style::new())
        };
        spans.push(Span::styled(
            format!("{current}{mark}{}", shorten(label, max)),
            style,
        ));
        spans.push(Span::raw(" ".repeat(gap)));
    }
    if end < count {
        spans.push(Span::styled(format!("+{} ", count - end), dim()));
    }
    if state.screen() == Screen::Submit {
        spans.push(Span::styled(
            format!("{CURRENT}{}", t.submit_tab),
            accent().add_modifier(Modifier::REVERSED),
        ));
    } else {
        spans.push(Span::raw(t.submit_tab));
    }
    spans.push(Span::styled(" →", dim()));
    Line::from(spans)
}

/// The glyph before the current tab, which marks it without colour; ■ and □ say answered or
/// not.
const CURRENT: &str = "▸";

/// `■ ` for an answered question, `□ ` for an open one, in the tab bar and the review.
pub(super) fn answered_mark(answered: bool) -> &'static str {
    if answered { "■ " } else { "□ " }
}

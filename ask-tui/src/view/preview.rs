//! The preview of the focused option: its text laid out for a box, the box with its borders
//! and scroll marker, and the box set beside the list.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::{OutOfView, dim, more_lines};
use crate::layout::{safe_lines, shorten, width, wrap};
use crate::state::State;
use ask_core::lang::Text;

/// From this many columns a preview shows beside the list rather than under it.
pub(super) const SIDE_PREVIEW_COLUMNS: usize = 100;

/// The preview of the focused row, when the open question has previews: `Some(None)` for a
/// row without one ("Other", or an option the model gave no preview).
pub(super) fn preview_text(state: &State) -> Option<Option<String>> {
    let (question, page) = state.current()?;
    let options = question.options();
    if !options.iter().any(|option| option.preview.is_some()) {
        return None;
    }
    Some(options.get(page.cursor).and_then(|o| o.preview.clone()))
}

/// A preview's lines as the box shows them.
#[derive(Debug, Clone)]
pub(super) struct Preview {
    /// False for a row without a preview of its own: the box then says so, dim.
    pub(super) given: bool,
    /// The lines, wrapped to the box.
    pub(super) content: Vec<String>,
}

impl Preview {
    /// `text` laid out for a box `columns` wide with the borders: sanitised line by line, each
    /// wrapped, indentation kept; without a text, the words that say there is none.
    pub(super) fn new(t: &Text, text: Option<&str>, columns: usize) -> Preview {
        let text_width = columns.saturating_sub(4).max(1);
        let content = match text {
            Some(text) => safe_lines(text)
                .iter()
                .flat_map(|line| wrap(line, text_width))
                .collect(),
            None => vec![t.no_preview.to_string()],
        };
        Preview {
            given: text.is_some(),
            content,
        }
    }
}

/// The size of a preview's box and how far its text is scrolled.
#[derive(Debug, Clone, Copy)]
pub(super) struct BoxSize {
    /// The box's width with its borders.
    pub(super) columns: usize,
    /// The box's height with its borders (at least 3).
    pub(super) rows: usize,
    /// The lines scrolled out of view at the top.
    pub(super) scroll: usize,
}

/// The preview's lines (dim when the row has no preview of its own) in a box `size.columns`
/// wide and `size.rows` tall (at least 3), scrolled by `size.scroll` lines; a text that does not
/// fit says how many lines are out of view in the bottom border. Also how far it can scroll.
pub(super) fn preview_box(
    t: &Text,
    preview: &Preview,
    size: BoxSize,
) -> (Vec<Line<'static>>, usize) {
    let BoxSize {
        columns,
        rows,
        scroll,
    } = size;
    let (given, content) = (preview.given, &preview.content);
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
        format!(
            " {} ",
            more_lines(
                t,
                OutOfView {
                    above: offset,
                    below: room - offset
                },
                columns - 6
            )
        )
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
pub(super) fn beside(
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

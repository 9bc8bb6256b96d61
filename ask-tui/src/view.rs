//! The pure view: [`view`] draws a [`State`] into a frame. It keeps no state of its own.
//!
//! This module lays a screen out (the title, the question, the body, the preview and the help
//! line, each given its share of the rows); each widget draws in a module of its own.
//!
//! Nothing the model asked or the person typed is hidden silently: a question or description
//! cut by the terminal's size ends in "… N more lines" and scrolls, a list counts the rows out
//! of view, a text field counts the characters out of view, and leaving a field keeps its text,
//! so the screen shows exactly what will be submitted.
//! A field's text is laid out only in a window around the cursor, so drawing it costs the same
//! at any text length, but for a secret's mask, which walks the whole text.
//! Agent text is drawn only through [`ask_core::sanitize_for_display`]: a question, a
//! description or a preview is split on line feeds first, and a header or a label stays one line
//! (a line feed shows as `⏎`); it never goes into an escape sequence (the bell and the desktop
//! notification carry a fixed text).

mod field;
mod help;
mod list;
mod preview;
mod review;
mod tabs;

use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use crate::layout::{safe_lines, shorten, width, wrap};
use crate::state::{ScrollRoom, State};
use ask_core::lang::{Text, fill};
use field::{free_text_lines, note_lines};
use help::{HelpRoom, help_or_dialog, notice_lines};
use list::{filter_line, list_lines};
use preview::{BoxSize, Preview, SIDE_PREVIEW_COLUMNS, beside, preview_box, preview_text};
use review::review_lines;
use tabs::title_line;

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

fn bold() -> Style {
    Style::new().add_modifier(Modifier::BOLD)
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
    let size = Size {
        columns: width,
        height,
    };
    let mut laid = lay_out(state, size, Scrolling::default());
    if laid.room.total > 0 || laid.room.preview > 0 {
        let scrolling = Scrolling {
            text: laid.room.total > 0,
            preview: laid.room.preview > 0,
        };
        laid = lay_out(state, size, scrolling);
    }
    state.set_scroll_room(laid.room);
    laid.lines
}

/// The size of the screen, in columns and rows.
#[derive(Debug, Clone, Copy)]
struct Size {
    columns: usize,
    height: usize,
}

/// Which texts scroll, so that the help line names their keys: the question or the highlighted
/// description (`text`), and the preview.
#[derive(Debug, Clone, Copy, Default)]
struct Scrolling {
    text: bool,
    preview: bool,
}

/// The room a block of lines takes: `width` columns and at most `rows` rows.
#[derive(Debug, Clone, Copy)]
struct Area {
    width: usize,
    rows: usize,
}

/// The lines of a text out of view, above and below what is shown.
#[derive(Debug, Clone, Copy)]
struct OutOfView {
    above: usize,
    below: usize,
}

/// A screen laid out at one size.
struct Laid {
    lines: Vec<Line<'static>>,
    room: ScrollRoom,
}

/// The widths a screen is laid out to.
#[derive(Debug, Clone, Copy)]
struct Geometry {
    columns: usize,
    height: usize,
    /// The columns inside the margins.
    inner: usize,
    /// Whether the preview stands beside the list (on a wide terminal) rather than under it.
    side: bool,
    /// The list's columns: half the screen beside a preview, else all of it.
    list_columns: usize,
    /// The list's columns inside the margins.
    list_inner: usize,
    /// The columns of a line of text: the question, a notice, the help line.
    text_width: usize,
}

impl Geometry {
    /// The widths of a screen of `size`, with or without a `preview`. A question with previews
    /// shows the focused option's preview beside the list on a wide terminal, else under it.
    fn new(size: Size, preview: bool) -> Geometry {
        let Size { columns, height } = size;
        let inner = columns.saturating_sub(2).max(1);
        let side = preview && columns >= SIDE_PREVIEW_COLUMNS;
        let list_columns = if side { columns / 2 } else { columns };
        Geometry {
            columns,
            height,
            inner,
            side,
            list_columns,
            list_inner: list_columns.saturating_sub(2).max(1),
            text_width: inner.saturating_sub(2).max(1),
        }
    }

    /// The width of the preview's box with its borders.
    fn box_width(&self) -> usize {
        if self.side {
            self.columns - self.list_columns
        } else {
            self.inner
        }
    }
}

/// Lays `state` out on a screen of `size`, naming the scroll keys of the texts that
/// `scrolling` says scroll.
fn lay_out(state: &State, size: Size, scrolling: Scrolling) -> Laid {
    let t = state.lang().text();
    let preview = preview_text(state);
    let geo = Geometry::new(size, preview.is_some());
    let title = title_line(state, geo.columns);
    let question_lines = question_text(state, geo.text_width);
    let body_wanted = body_lines(
        state,
        Area {
            width: geo.list_inner,
            rows: usize::MAX,
        },
        0,
    )
    .0
    .len();

    // Under the body: the note, the notice, and the open dialog or the help line.
    let mut bottom = note_lines(state, geo.inner);
    bottom.extend(notice_lines(state, geo.text_width));
    let help_room = HelpRoom {
        width: geo.text_width,
        height: geo.height,
        used: 2 + usize::from(title.is_some()) + bottom.len(),
        wanted: question_lines.len() + body_wanted,
    };
    bottom.extend(help_or_dialog(state, help_room, scrolling));

    // Rows that are always shown: the two rules, the title and the help line.
    let fixed = 2 + usize::from(title.is_some()) + bottom.len();
    // The preview's lines, wrapped once per layout to the width of its box.
    let preview = preview.map(|text| Preview::new(t, text.as_deref(), geo.box_width()));
    let rows = Rows::share(
        geo.height.saturating_sub(fixed),
        preview.as_ref().filter(|_| !geo.side),
        (question_lines.len(), body_wanted),
    );
    let question = question_part(
        state,
        geo.text_width,
        QuestionFit {
            lines: question_lines,
            rows: rows.question,
        },
    );
    let body = body_part(
        state,
        &geo,
        BodyPlan {
            rows,
            scroll: question.body_scroll,
            preview: preview.as_ref(),
        },
    );

    let rule = Line::styled("─".repeat(geo.columns), dim());
    let blank = || (rows.blanks > 0).then(Line::default);
    let mut out = Vec::with_capacity(geo.height);
    out.push(rule.clone());
    out.extend(title);
    out.extend(blank());
    out.extend(question.lines);
    out.extend(blank());
    out.extend(body.lines);
    out.extend(body.below_box);
    out.extend(blank());
    out.extend(bottom);
    out.push(rule);
    out.truncate(geo.height);
    Laid {
        lines: out,
        room: ScrollRoom {
            question: question.room,
            total: question.room + body.description_room,
            preview: body.preview_room,
        },
    }
}

/// The open question's text wrapped to `columns`, or the review's title on the Submit tab.
fn question_text(state: &State, columns: usize) -> Vec<String> {
    match state.current() {
        Some((question, _)) => safe_lines(&question.question)
            .iter()
            .flat_map(|line| wrap(line, columns))
            .collect(),
        None => vec![state.lang().text().review_title.to_string()],
    }
}

/// How the rows between the title and the help line are shared out.
#[derive(Debug, Clone, Copy)]
struct Rows {
    /// The question's rows, with its marker when it is cut.
    question: usize,
    /// The blank rows around the question and the body: 3 when everything fits with them,
    /// else none.
    blanks: usize,
    /// The body's rows: the list, the field or the review.
    body: usize,
    /// The rows of the preview's box under the list (none when it stands beside it).
    below: usize,
}

impl Rows {
    /// Shares `room` rows out between a preview under the list (`below`), the question and the
    /// body, which want `wanted.0` and `wanted.1` rows.
    fn share(room: usize, below: Option<&Preview>, wanted: (usize, usize)) -> Rows {
        let (question_wanted, body_wanted) = wanted;
        // Under the list, the preview box takes up to two fifths of the room (at least three
        // rows: its borders and a line), and scrolls when its text does not fit.
        let below = match below {
            Some(preview) if room >= 5 => (preview.content.len() + 2).min((room * 2 / 5).max(3)),
            _ => 0,
        };
        let room = room - below;
        // The list keeps at least three rows (a row and the markers around it). When the
        // question is cut anyway, it keeps up to five (a marker above and below, the label, a
        // line of the description and its marker) or half the room, so that a long question
        // cannot crowd out a long description.
        let body_min = if question_wanted + body_wanted.min(3) <= room {
            body_wanted.min(3)
        } else {
            body_wanted.min(5.max(room / 2))
        };
        let question = question_wanted.min(room.saturating_sub(body_min).max(1));
        let blanks = if room >= question + body_wanted + 3 {
            3
        } else {
            0
        };
        Rows {
            question,
            blanks,
            body: room.saturating_sub(question + blanks),
            below,
        }
    }
}

/// The question's lines and the rows they get.
struct QuestionFit {
    lines: Vec<String>,
    rows: usize,
}

/// The question as shown, scrolled: how far it can scroll, and how far the scroll goes on into
/// the highlighted description.
struct QuestionPart {
    lines: Vec<Line<'static>>,
    /// The lines of the question out of view.
    room: usize,
    /// The part of the page's scroll left for the description.
    body_scroll: usize,
}

/// The question in its rows, scrolled: when it is cut, its last row says how much is out of
/// view.
fn question_part(state: &State, text_width: usize, fit: QuestionFit) -> QuestionPart {
    let t = state.lang().text();
    let QuestionFit {
        lines: question_lines,
        rows: question_rows,
    } = fit;
    let scroll = state.current().map_or(0, |(_, page)| page.scroll);
    let cut = question_rows < question_lines.len();
    // With one row, the question shares it with its marker, which gets at most half the row:
    // the question is wrapped to the other half, so that scrolling shows every word of it.
    let question_lines = if cut && question_rows == 1 {
        question_text(state, text_width.saturating_sub(text_width / 2 + 1).max(1))
    } else {
        question_lines
    };
    let shown = if cut {
        question_rows.saturating_sub(1).max(1)
    } else {
        question_lines.len()
    };
    let room = question_lines.len() - shown;
    let offset = scroll.min(room);
    let below = question_lines.len() - offset - shown;
    let out_of_view = OutOfView {
        above: offset,
        below,
    };
    let mut out = Vec::new();
    for (i, line) in question_lines
        .into_iter()
        .skip(offset)
        .take(shown)
        .enumerate()
    {
        if cut && question_rows == 1 && i == 0 {
            // One row for the question: its visible part and the marker share it.
            let marker = more_lines(t, out_of_view, text_width / 2);
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
            format!("  {}", more_lines(t, out_of_view, text_width)),
            dim(),
        ));
    }
    QuestionPart {
        lines: out,
        room,
        body_scroll: scroll - offset,
    }
}

/// What the body is laid out with: its rows, the scroll left for the highlighted description,
/// and the preview.
struct BodyPlan<'a> {
    rows: Rows,
    scroll: usize,
    preview: Option<&'a Preview>,
}

/// The body with the preview placed: beside the list, or in a box under it.
struct BodyPart {
    lines: Vec<Line<'static>>,
    below_box: Vec<Line<'static>>,
    /// The lines of the highlighted description out of view.
    description_room: usize,
    /// The lines of the preview out of view.
    preview_room: usize,
}

/// The body in its rows, with the preview beside it or under it.
fn body_part(state: &State, geo: &Geometry, plan: BodyPlan<'_>) -> BodyPart {
    let t = state.lang().text();
    let BodyPlan {
        rows,
        scroll,
        preview,
    } = plan;
    let area = Area {
        width: geo.list_inner,
        rows: rows.body,
    };
    let (lines, description_room) = body_lines(state, area, scroll);
    let mut part = BodyPart {
        lines,
        below_box: Vec::new(),
        description_room,
        preview_room: 0,
    };
    let Some(preview) = preview else {
        return part;
    };
    let scroll = state.current().map_or(0, |(_, page)| page.preview_scroll);
    if geo.side {
        // The box beside the list, as tall as the list's rows.
        let size = BoxSize {
            columns: geo.box_width(),
            rows: (preview.content.len() + 2).min(rows.body).max(3),
            scroll,
        };
        let (lines, room) = preview_box(t, preview, size);
        part.preview_room = room;
        part.lines = beside(std::mem::take(&mut part.lines), lines, geo.list_columns);
    } else if rows.below > 0 {
        // Indented like the list, so the box sits under the rows it belongs to.
        let size = BoxSize {
            columns: geo.inner,
            rows: rows.below,
            scroll,
        };
        let (lines, room) = preview_box(t, preview, size);
        part.preview_room = room;
        part.below_box = lines
            .into_iter()
            .map(|line| {
                let mut spans = vec![Span::raw("  ")];
                spans.extend(line.spans);
                Line::from(spans)
            })
            .collect();
    }
    part
}

/// The rows between the question and the help line, at most `area.rows` of them, with the
/// highlighted option's description scrolled by `scroll` lines when it does not fit; also how
/// many lines of that description do not fit.
fn body_lines(state: &State, area: Area, scroll: usize) -> (Vec<Line<'static>>, usize) {
    match state.current() {
        None => (review_lines(state, area.width, area.rows), 0),
        Some((question, _)) if question.is_free_text() => (free_text_lines(state, area), 0),
        Some((_, page)) => match &page.filter {
            Some(filter) => {
                let mut out = vec![filter_line(state, filter, area.width)];
                let list = Area {
                    rows: area.rows.saturating_sub(1),
                    ..area
                };
                let (list, room) = list_lines(state, list, scroll);
                out.extend(list);
                (out, room)
            }
            None => list_lines(state, area, scroll),
        },
    }
}

/// The marker of a text cut by the terminal's size: `… 5 more lines`, `… 2 lines above`, or
/// `… 2 lines above, 5 more`, in shorter words when that does not fit in `room` columns.
fn more_lines(t: &Text, out_of_view: OutOfView, room: usize) -> String {
    let OutOfView { above, below } = out_of_view;
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

//! The Submit tab's review: each question's header with its answer and note, whole when they
//! fit, else compact, else cut to a share of the rows each.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::tabs::{answered_mark, tab_label};
use super::{accent, bold, dim, fit, warning};
use crate::layout::{safe, shorten, width, wrap};
use crate::state::State;
use ask_core::lang::{Text, fill};

/// The Submit tab: each question's header with its answer, or "(not answered)", then whether
/// everything is answered.
///
/// The review uses the rows it has before it cuts anything: each header on its own line with
/// the whole answer under it, else one line per question (`■ Header: answer`) with the answer
/// and note wrapped whole, and only when even that does not fit are answers cut, each to its
/// share of the rows, ending in a marker that names the key that opens the question's tab. Past
/// one row per question, "... N more" counts the questions left out (the status line names the
/// unanswered ones, as far as it fits).
pub(super) fn review_lines(state: &State, inner: usize, max_rows: usize) -> Vec<Line<'static>> {
    if max_rows == 0 {
        return Vec::new();
    }
    let t = state.lang().text();
    let mut missing = Vec::new();
    let entries: Vec<Entry> = state
        .questions()
        .iter()
        .zip(state.pages())
        .enumerate()
        .map(|(i, (question, page))| {
            let label = tab_label(t, question, i);
            let answer = page.answer.as_ref().map(|answer| {
                if answer.answer.is_none_of_these() {
                    t.none_chosen.to_string()
                } else {
                    review_text(&answer.shown(question).answer.joined())
                }
            });
            if answer.is_none() {
                missing.push(label.clone());
            }
            // The note, under the answer it belongs to.
            let note = (!page.note.is_blank()).then(|| match ask_core::answer_mask(question) {
                Some(mask) => mask.to_string(),
                None => review_text(page.note.text()),
            });
            Entry {
                label,
                answer,
                note,
            }
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
    let room = max_rows - 1;
    let blocks = review_rows(
        t,
        &entries,
        Shape {
            inner,
            compact: false,
        },
    );
    let mut out: Vec<Line<'static>> = if blocks.iter().map(Vec::len).sum::<usize>() <= room {
        blocks.into_iter().flatten().map(ReviewRow::line).collect()
    } else {
        let compact = review_rows(
            t,
            &entries,
            Shape {
                inner,
                compact: true,
            },
        );
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

/// One question in the review: its header, its answer as shown (`None` when it has none), and
/// its note.
struct Entry {
    label: String,
    answer: Option<String>,
    note: Option<String>,
}

/// How the review's rows are laid out: `inner` columns wide, whole or compact.
#[derive(Debug, Clone, Copy)]
struct Shape {
    inner: usize,
    compact: bool,
}

/// Each question's rows in the review, whole: the header on its own line with the answer under
/// it, or (`compact`) the header and the answer on one line, the answer wrapped on. The note
/// follows, wrapped. Only a header is ever shortened (as the tab bar shortens it).
fn review_rows(t: &Text, entries: &[Entry], shape: Shape) -> Vec<Vec<ReviewRow>> {
    let Shape { inner, compact } = shape;
    let text_width = inner.saturating_sub(4).max(1);
    let indent = || vec![Span::raw("    ")];
    entries
        .iter()
        .map(
            |Entry {
                 label,
                 answer,
                 note,
             }| {
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
            },
        )
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

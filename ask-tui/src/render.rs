//! Compact renderings of a call and of its result, for hosts that show a transcript (a tool's
//! `renderCall` and `renderResult` in pi), as ratatui lines and as plain text.

use ask_core::{AskUserInput, AskUserResult, Picks, Question};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use crate::layout::safe;

/// The label of a question in a transcript: its header, else the question itself.
fn label(question: &Question) -> String {
    match question.header.as_deref() {
        Some(header) if !header.trim().is_empty() => safe(header).into_owned(),
        _ => safe(&question.question).into_owned(),
    }
}

/// A call as lines: `ask_user · 2 questions`, then one line per question with its options.
///
/// ```
/// use ask_core::{AskUserInput, Question};
/// let input = AskUserInput {
///     questions: vec![Question::choice("Which database?", ["PostgreSQL", "SQLite"]).with_header("Database")],
///     metadata: None,
/// };
/// assert_eq!(
///     ask_tui::render_call_text(&input),
///     "ask_user · 1 question\n  Database: Which database? [PostgreSQL / SQLite / Other]"
/// );
/// ```
pub fn render_call(input: &AskUserInput) -> Vec<Line<'static>> {
    let count = input.questions.len();
    let mut lines = vec![Line::from(vec![
        Span::styled(
            "ask_user",
            Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD),
        ),
        Span::styled(
            format!(" · {count} question{}", if count == 1 { "" } else { "s" }),
            Style::new().add_modifier(Modifier::DIM),
        ),
    ])];
    for question in &input.questions {
        let mut spans = vec![Span::raw("  ")];
        if let Some(header) = question.header.as_deref() {
            spans.push(Span::styled(
                format!("{}: ", safe(header)),
                Style::new().add_modifier(Modifier::BOLD),
            ));
        }
        spans.push(Span::raw(safe(&question.question).into_owned()));
        if !question.is_free_text() {
            let mut labels: Vec<String> = question
                .options()
                .iter()
                .map(|o| safe(&o.label).into_owned())
                .collect();
            labels.push("Other".to_string());
            let kind = if question.multi_select {
                " (several)"
            } else {
                ""
            };
            spans.push(Span::styled(
                format!(" [{}]{kind}", labels.join(" / ")),
                Style::new().add_modifier(Modifier::DIM),
            ));
        }
        lines.push(Line::from(spans));
    }
    lines
}

/// A result as lines: `✓ answered` and one line per answer, or `✗ cancelled`, `✗ connection
/// lost`, `… pending in FILE`.
///
/// ```
/// use ask_core::{Answer, Outcome, Question};
/// let questions = [Question::text("Name?").with_header("Service")];
/// let result = Outcome::Answered(vec![Answer::custom("Name?", "order-processor")]).to_result();
/// assert_eq!(
///     ask_tui::render_result_text(&questions, &result),
///     "✓ answered\n  Service: order-processor (typed)"
/// );
/// ```
pub fn render_result(questions: &[Question], result: &AskUserResult) -> Vec<Line<'static>> {
    let red = Style::new().fg(Color::Red).add_modifier(Modifier::BOLD);
    if !result.answered {
        let line = if let Some(file) = &result.pending_file {
            Line::styled(
                format!("… pending in {}", safe(file)),
                Style::new().fg(Color::Yellow),
            )
        } else if result.connection_lost {
            Line::styled("✗ connection lost", red)
        } else {
            Line::styled("✗ cancelled", red)
        };
        return vec![line];
    }
    let mut lines = vec![Line::styled(
        "✓ answered",
        Style::new().fg(Color::Green).add_modifier(Modifier::BOLD),
    )];
    for answer in &result.answers {
        let question = questions.iter().find(|q| q.question == answer.question);
        let name = question.map_or_else(|| safe(&answer.question).into_owned(), label);
        // A transcript is a display: a secret answer shows as every display shows it.
        let answer = match question {
            Some(question) => answer.shown(question),
            None => std::borrow::Cow::Borrowed(answer),
        };
        let dim = Style::new().add_modifier(Modifier::DIM);
        let mut spans = vec![
            Span::raw("  "),
            Span::styled(
                format!("{name}: "),
                Style::new().add_modifier(Modifier::BOLD),
            ),
        ];
        // A multi-select answer shows its picks, then only its typed text marked as typed.
        let multi = question.filter(|q| q.multi_select && ask_core::answer_mask(q).is_none());
        match multi.map(|question| Picks::of(question, &answer)) {
            Some(picks) if picks.picked.is_empty() && picks.typed.is_none() => {
                spans.push(Span::styled("none of these", dim));
            }
            Some(picks) => {
                spans.push(Span::raw(safe(&picks.picked.join(", ")).into_owned()));
                if let Some(typed) = picks.typed {
                    let joint = if picks.picked.is_empty() { "" } else { " + " };
                    spans.push(Span::raw(format!("{joint}{}", safe(&typed))));
                    spans.push(Span::styled(" (typed)", dim));
                }
            }
            None => {
                spans.push(Span::raw(safe(&answer.answer.joined()).into_owned()));
                if answer.was_custom {
                    spans.push(Span::styled(" (typed)", dim));
                }
            }
        }
        lines.push(Line::from(spans));
    }
    lines
}

/// [`render_call`] as plain text, one line per line.
pub fn render_call_text(input: &AskUserInput) -> String {
    plain(&render_call(input))
}

/// [`render_result`] as plain text, one line per line.
pub fn render_result_text(questions: &[Question], result: &AskUserResult) -> String {
    plain(&render_result(questions, result))
}

fn plain(lines: &[Line<'_>]) -> String {
    lines
        .iter()
        .map(|line| {
            line.spans
                .iter()
                .map(|s| s.content.as_ref())
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use ask_core::{Answer, Outcome};

    #[test]
    fn call_lists_every_question_with_other_last() {
        let input = AskUserInput {
            questions: vec![
                Question::choice("Which?", ["A", "B"]).with_header("Pick"),
                Question::text("Name?"),
                Question::choice("Features?", ["X", "Y"]).multi(),
            ],
            metadata: None,
        };
        assert_eq!(
            render_call_text(&input),
            "ask_user · 3 questions\n  Pick: Which? [A / B / Other]\n  Name?\n  Features? [X / Y / Other] (several)"
        );
    }

    #[test]
    fn result_shows_each_outcome() {
        let questions = [Question::choice("Which?", ["A", "B"]).multi()];
        let answered = Outcome::Answered(vec![Answer::multi(
            "Which?",
            vec!["A".into()],
            Some("mine".into()),
        )]);
        assert_eq!(
            render_result_text(&questions, &answered.to_result()),
            "✓ answered\n  Which?: A + mine (typed)"
        );
        // Typed text alone, and "None of these".
        let typed = Outcome::Answered(vec![Answer::multi("Which?", vec![], Some("A, B".into()))]);
        assert_eq!(
            render_result_text(&questions, &typed.to_result()),
            "✓ answered\n  Which?: A, B (typed)"
        );
        let none = Outcome::Answered(vec![Answer::none_of_these("Which?")]);
        assert_eq!(
            render_result_text(&questions, &none.to_result()),
            "✓ answered\n  Which?: none of these"
        );
        let picked = Outcome::Answered(vec![Answer::multi(
            "Which?",
            vec!["A".into(), "B".into()],
            None,
        )]);
        assert_eq!(
            render_result_text(&questions, &picked.to_result()),
            "✓ answered\n  Which?: A, B"
        );
        assert_eq!(
            render_result_text(&questions, &Outcome::Cancelled.to_result()),
            "✗ cancelled"
        );
        assert_eq!(
            render_result_text(&questions, &Outcome::ConnectionLost.to_result()),
            "✗ connection lost"
        );
        let pending = Outcome::Pending {
            file: ".pi/pending-questions.json".into(),
            instructions: "Answer in the file.".into(),
        };
        assert_eq!(
            render_result_text(&questions, &pending.to_result()),
            "… pending in .pi/pending-questions.json"
        );
    }

    #[test]
    fn a_secret_answer_shows_masked() {
        let questions = [
            Question::text("Paste the deploy token").secret(),
            Question::choice("Which key?", ["old", "new"]).secret(),
        ];
        let answered = Outcome::Answered(vec![
            Answer::custom("Paste the deploy token", "tok-123"),
            Answer::from_text(&questions[1], "new"),
        ]);
        assert_eq!(
            render_result_text(&questions, &answered.to_result()),
            "✓ answered\n  Paste the deploy token: [secret] (typed)\n  Which key?: [secret]"
        );
    }

    #[test]
    fn agent_text_is_sanitised() {
        let input = AskUserInput {
            questions: vec![Question::text("Clear\u{1b}[2J?")],
            metadata: None,
        };
        assert_eq!(
            render_call_text(&input),
            "ask_user · 1 question\n  Clear^[[2J?"
        );
    }
}

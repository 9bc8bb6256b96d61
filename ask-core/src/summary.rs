//! The compaction summary: each question and answer as one sentence.

use crate::result::{Answer, AnswerValue, Record, Status};

/// One sentence per question and answer of a record, for a compacted transcript.
///
/// ```
/// use ask_core::{Answer, Question, summary_sentence};
/// let q = Question::choice("Which database should we use?", ["PostgreSQL (Recommended)", "SQLite"]);
/// let a = Answer::from_text(&q, "PostgreSQL (Recommended)");
/// assert_eq!(
///     summary_sentence(&a),
///     "User was asked \"Which database should we use?\" and chose PostgreSQL (Recommended)."
/// );
/// ```
pub fn summary_sentence(answer: &Answer) -> String {
    let asked = format!("User was asked \"{}\"", answer.question);
    match &answer.answer {
        AnswerValue::Text(text) if answer.was_custom => format!("{asked} and answered \"{text}\"."),
        AnswerValue::Text(text) => format!("{asked} and chose {text}."),
        AnswerValue::Choices(choices) => {
            let (labels, typed) = if answer.was_custom {
                choices.split_at(choices.len().saturating_sub(1))
            } else {
                (choices.as_slice(), &[][..])
            };
            match (labels, typed.first()) {
                ([], None) => format!("{asked} and chose none of the options."),
                ([], Some(text)) => format!("{asked} and answered \"{text}\"."),
                (labels, None) => format!("{asked} and chose {}.", join_and(labels)),
                (labels, Some(text)) => {
                    format!("{asked} and chose {}, adding \"{text}\".", join_and(labels))
                }
            }
        }
    }
}

pub(crate) fn summarize(record: &Record) -> Vec<String> {
    let quoted = || {
        let questions: Vec<String> = record
            .questions
            .iter()
            .map(|q| format!("\"{}\"", q.question))
            .collect();
        join_and(&questions)
    };
    match record.status {
        Status::Answered if record.reply.is_some() => vec![format!(
            "User was asked {} and replied to all of them at once: \"{}\".",
            quoted(),
            record.reply.as_deref().unwrap_or_default()
        )],
        Status::Answered => record.answers.iter().map(summary_sentence).collect(),
        Status::Cancelled => {
            vec![format!(
                "User was asked {} but cancelled without answering.",
                quoted()
            )]
        }
        Status::ConnectionLost => vec![format!(
            "User was asked {} but the client disconnected before an answer.",
            quoted()
        )],
        Status::Pending => {
            vec![format!(
                "User was asked {}; the answers are still pending.",
                quoted()
            )]
        }
    }
}

/// Joins items as English prose: "a", "a and b", "a, b and c".
fn join_and(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Mode, Question};

    #[track_caller]
    fn check(answer: Answer, expected: &str) {
        assert_eq!(summary_sentence(&answer), expected);
    }

    #[test]
    fn sentences() {
        check(
            Answer::selected("Q?", "SQLite"),
            "User was asked \"Q?\" and chose SQLite.",
        );
        check(
            Answer::custom("What should we name this service?", "order-processor"),
            "User was asked \"What should we name this service?\" and answered \"order-processor\".",
        );
        check(
            Answer::multi(
                "F?",
                vec!["Auth".into(), "API".into(), "Admin".into()],
                None,
            ),
            "User was asked \"F?\" and chose Auth, API and Admin.",
        );
        check(
            Answer::multi("F?", vec!["Auth".into()], Some("GraphQL".into())),
            "User was asked \"F?\" and chose Auth, adding \"GraphQL\".",
        );
        check(
            Answer::multi("F?", vec![], None),
            "User was asked \"F?\" and chose none of the options.",
        );
        check(
            Answer::multi("F?", vec![], Some("x".into())),
            "User was asked \"F?\" and answered \"x\".",
        );
    }

    #[test]
    fn cancelled_record() {
        let record = Record {
            call_id: None,
            questions: vec![Question::text("A?"), Question::text("B?")],
            answers: vec![],
            answered_at: 0,
            mode: Mode::Interactive,
            metadata: None,
            status: Status::Cancelled,
            pending_file: None,
            reply: None,
        };
        assert_eq!(
            record.summary(),
            ["User was asked \"A?\" and \"B?\" but cancelled without answering."]
        );
    }
}

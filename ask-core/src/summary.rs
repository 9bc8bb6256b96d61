//! The compaction summary: each question and answer as one sentence.

use std::borrow::Cow;

use crate::result::{Answer, AnswerValue, Record, Status};

/// `text` on one line: each line break (LF or CR LF) becomes `⏎`, as `sanitize_for_display`
/// shows it, so that a
/// sentence per answer stays one line and nothing after a break is mistaken for the next one.
fn one_line(text: &str) -> Cow<'_, str> {
    if text.contains('\n') {
        Cow::Owned(text.replace("\r\n", "\n").replace('\n', "⏎"))
    } else {
        Cow::Borrowed(text)
    }
}

/// One sentence per question and answer of a record, for a compacted transcript. Line breaks
/// in the question or the answer show as `⏎`: the sentence is one line.
pub(crate) fn summary_sentence(answer: &Answer) -> String {
    let asked = format!("User was asked \"{}\"", one_line(&answer.question));
    match &answer.answer {
        AnswerValue::Text(text) if answer.was_custom => {
            format!("{asked} and answered \"{}\".", one_line(text))
        }
        AnswerValue::Text(text) => format!("{asked} and chose {}.", one_line(text)),
        AnswerValue::Choices(choices) => {
            let (labels, typed) = if answer.was_custom {
                choices.split_at(choices.len().saturating_sub(1))
            } else {
                (choices.as_slice(), &[][..])
            };
            match (labels, typed.first().map(|t| one_line(t))) {
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

impl Record {
    /// The compaction summary: one sentence per question and answer.
    pub fn summary(&self) -> Vec<String> {
        summarize(self)
    }
}

fn summarize(record: &Record) -> Vec<String> {
    // A summary is a display: a secret answer shows as every display shows it.
    let record = &record.redacted();
    let quoted = || {
        let questions: Vec<String> = record
            .questions
            .iter()
            .map(|q| format!("\"{}\"", one_line(&q.question)))
            .collect();
        join_and(&questions)
    };
    match record.status {
        Status::Answered if record.reply.is_some() => vec![format!(
            "User was asked {} and replied to all of them at once: \"{}\".",
            quoted(),
            one_line(record.reply.as_deref().unwrap_or_default())
        )],
        Status::Answered => record
            .answers
            .iter()
            .map(|answer| {
                let secret = record
                    .questions
                    .iter()
                    .any(|q| q.secret && q.question == answer.question);
                if secret {
                    // Not "[secret]" as an answer: a model reading a compacted transcript would
                    // take the placeholder for what the person said.
                    format!(
                        "User was asked \"{}\" and gave a secret answer (not recorded).",
                        one_line(&answer.question)
                    )
                } else {
                    summary_sentence(answer)
                }
            })
            .collect(),
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

/// Joins items as English prose, each on one line: "a", "a and b", "a, b and c".
fn join_and(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one_line(one).into_owned(),
        [rest @ .., last] => {
            let rest: Vec<Cow<'_, str>> = rest.iter().map(|i| one_line(i)).collect();
            format!("{} and {}", rest.join(", "), one_line(last))
        }
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
    fn a_chosen_label_reads_as_chosen() {
        let q = Question::choice(
            "Which database should we use?",
            ["PostgreSQL (Recommended)", "SQLite"],
        );
        check(
            Answer::from_text(&q, "PostgreSQL (Recommended)"),
            "User was asked \"Which database should we use?\" and chose PostgreSQL (Recommended).",
        );
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
    fn line_breaks_show_as_a_mark() {
        check(
            Answer::custom("Name?\nBe brief.", "order\nprocessor\r\nservice"),
            "User was asked \"Name?⏎Be brief.\" and answered \"order⏎processor⏎service\".",
        );
        check(
            Answer::multi(
                "F?",
                vec!["Au\nth".into(), "API".into()],
                Some("a\nb".into()),
            ),
            "User was asked \"F?\" and chose Au⏎th and API, adding \"a⏎b\".",
        );
    }

    #[test]
    fn a_secret_answer_is_summarised_as_every_display_shows_it() {
        let token = Question::text("Paste the deploy token").secret();
        let key = Question::choice("Which key?", ["old", "new"]).secret();
        let answers = vec![
            Answer::custom(&token.question, "tok-123"),
            Answer::from_text(&key, "new"),
        ];
        let record = Record::new(
            crate::AskUserInput {
                questions: vec![token, key],
                metadata: None,
            },
            Mode::Interactive,
            crate::Outcome::Answered(answers),
        );
        assert_eq!(
            record.summary(),
            [
                "User was asked \"Paste the deploy token\" and gave a secret answer (not recorded).",
                "User was asked \"Which key?\" and gave a secret answer (not recorded)."
            ]
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
            previews: Vec::new(),
            pending_instructions: None,
        };
        assert_eq!(
            record.summary(),
            ["User was asked \"A?\" and \"B?\" but cancelled without answering."]
        );
    }
}

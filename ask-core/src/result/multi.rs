//! The line that follows the answer map in the text for the model when the call has a
//! multi-select question: each multi-select answer's picks and typed text, apart.
//!
//! The answer map joins a multi-select answer with `", "`, so `["Auth", "SSO, Google only"]`
//! and one typed answer `"Auth, SSO, Google only"` read alike; a host that hands its model only
//! the text (not the structured result) would leave the model guessing. The line tells them
//! apart.

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

use crate::input::Question;

use super::answer::{Answer, AnswerValue};

/// What starts the line, before its JSON object.
pub const MULTI_SELECT_PREFIX: &str = "Multi-select answers: ";

/// One multi-select answer split into the labels the person picked and the text they typed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Picks {
    /// The labels picked, in option order; empty when the person chose "None of these".
    pub picked: Vec<String>,
    /// The text typed through "Other", added to the picks; absent when nothing was typed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub typed: Option<String>,
}

impl Picks {
    /// The picks and typed text of `answer` to the multi-select `question`: each part of the
    /// answer that is one of the question's labels as written is a pick, any other part is
    /// typed text (a multi-select answer holds at most one, last).
    pub fn of(question: &Question, answer: &Answer) -> Picks {
        let parts: &[String] = match &answer.answer {
            AnswerValue::Choices(parts) => parts,
            AnswerValue::Text(text) => std::slice::from_ref(text),
        };
        let is_label = |part: &String| question.options().iter().any(|o| o.label == *part);
        let picked = parts.iter().filter(|p| is_label(p)).cloned().collect();
        let typed: Vec<&str> = parts
            .iter()
            .filter(|p| !is_label(p))
            .map(String::as_str)
            .collect();
        Picks {
            picked,
            typed: (!typed.is_empty()).then(|| typed.join(", ")),
        }
    }
}

/// The multi-select line of answers to `questions`: `Multi-select answers: {"question": {"picked":
/// […], "typed": "…"}}`, one entry per multi-select question in question order; `None` when the
/// call has no multi-select question.
///
/// ```
/// use ask_core::{Answer, Question, multi_select_line};
/// let q = Question::choice("Which features?", ["Auth", "SSO, Google only", "API"]).multi();
/// let picked = Answer::multi(&q.question, vec!["Auth".into(), "SSO, Google only".into()], None);
/// assert_eq!(
///     multi_select_line(&[q.clone()], &[picked]).unwrap(),
///     r#"Multi-select answers: {"Which features?":{"picked":["Auth","SSO, Google only"]}}"#
/// );
/// let typed = Answer::multi(&q.question, vec![], Some("Auth, SSO, Google only".into()));
/// assert_eq!(
///     multi_select_line(&[q.clone()], &[typed]).unwrap(),
///     r#"Multi-select answers: {"Which features?":{"picked":[],"typed":"Auth, SSO, Google only"}}"#
/// );
/// ```
pub fn multi_select_line(questions: &[Question], answers: &[Answer]) -> Option<String> {
    let entries: Vec<(&str, Picks)> = questions
        .iter()
        .filter(|question| question.multi_select)
        .map(|question| {
            let picks = answers
                .iter()
                .find(|answer| answer.question == question.question)
                .map_or(
                    Picks {
                        picked: Vec::new(),
                        typed: None,
                    },
                    |answer| Picks::of(question, answer),
                );
            (question.question.as_str(), picks)
        })
        .collect();
    if entries.is_empty() {
        return None;
    }
    let json = serde_json::to_string(&Entries(&entries)).unwrap_or_default();
    Some(format!("{MULTI_SELECT_PREFIX}{json}"))
}

struct Entries<'a>(&'a [(&'a str, Picks)]);

impl Serialize for Entries<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (question, picks) in self.0 {
            map.serialize_entry(question, picks)?;
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::test_support::features;

    #[test]
    fn picks_and_typed_text_come_apart() {
        let q = features();
        let both = Answer::from_texts(
            &q,
            &[
                "REST API".into(),
                "GraphQL, gRPC".into(),
                "authentication".into(),
            ],
        );
        assert_eq!(
            Picks::of(&q, &both),
            Picks {
                picked: vec!["Authentication".into(), "REST API".into()],
                typed: Some("GraphQL, gRPC".into()),
            }
        );
        let none = Answer::none_of_these(&q.question);
        assert_eq!(
            multi_select_line(std::slice::from_ref(&q), &[none]).unwrap(),
            r#"Multi-select answers: {"Which features should we include?":{"picked":[]}}"#
        );
    }

    #[test]
    fn only_multi_select_questions_have_an_entry() {
        let single = Question::choice("Which database?", ["PostgreSQL", "SQLite"]);
        let answers = [Answer::selected("Which database?", "SQLite")];
        assert_eq!(
            multi_select_line(std::slice::from_ref(&single), &answers),
            None
        );
        let q = features();
        let answers = [
            Answer::selected("Which database?", "SQLite"),
            Answer::multi(&q.question, vec!["REST API".into()], None),
        ];
        assert_eq!(
            multi_select_line(&[single, q], &answers).unwrap(),
            r#"Multi-select answers: {"Which features should we include?":{"picked":["REST API"]}}"#
        );
    }
}

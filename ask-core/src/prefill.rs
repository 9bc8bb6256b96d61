//! An answer given before a presenter took over, as a form shows it pre-filled.

use serde::{Deserialize, Serialize};

use crate::input::Question;
use crate::result::{Answer, AnswerValue};

/// An answer the person already gave elsewhere ([`AskRequest::given`](crate::AskRequest)), as
/// every presenter that shows given answers pre-fills it: the options it chose, the text typed
/// for "Other" (or as the answer of a free-text question) and its note. The terminal UI and the
/// web page both read a given answer through [`Prefill::of`], so they show the same thing.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Prefill {
    /// The chosen options, by index in option order (at most one for a single choice).
    pub chosen: Vec<usize>,
    /// The typed text: the "Other" answer of a question with options, or the answer of a
    /// free-text question.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub other: Option<String>,
    /// The note on the answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
    /// True when a multi-select question was answered "None of these": no option, nothing
    /// typed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub none: bool,
}

impl Prefill {
    /// `answer`, given to `question`, as a form pre-fills it; `None` for an empty answer. A
    /// text that names an option ([`Question::find_option`]) chooses it; any other text is
    /// typed text.
    ///
    /// ```
    /// use ask_core::{Answer, Prefill, Question};
    /// let features = Question::choice("Which features?", ["Auth", "API", "Admin"]).multi();
    /// let given = Answer::from_texts(&features, &["Admin".into(), "Auth".into(), "SSO".into()]);
    /// let prefill = Prefill::of(&features, &given).unwrap();
    /// assert_eq!(prefill.chosen, [0, 2]);
    /// assert_eq!(prefill.other.as_deref(), Some("SSO"));
    /// ```
    pub fn of(question: &Question, answer: &Answer) -> Option<Prefill> {
        if question.multi_select && answer.answer.is_none_of_these() {
            return Some(Prefill {
                notes: answer.notes.clone(),
                none: true,
                ..Prefill::default()
            });
        }
        if answer.answer.is_empty() {
            return None;
        }
        let texts = match &answer.answer {
            AnswerValue::Text(text) => std::slice::from_ref(text),
            AnswerValue::Choices(texts) => texts.as_slice(),
        };
        let mut prefill = Prefill {
            notes: answer.notes.clone(),
            ..Prefill::default()
        };
        for text in texts.iter().filter(|text| !text.trim().is_empty()) {
            match question.find_option(text) {
                Some(index) if question.multi_select => prefill.chosen.push(index),
                Some(index) => prefill.chosen = vec![index],
                None => prefill.other = Some(text.clone()),
            }
        }
        prefill.chosen.sort_unstable();
        prefill.chosen.dedup();
        Some(prefill)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(question: &Question, answer: Answer, expected: Option<Prefill>) {
        assert_eq!(Prefill::of(question, &answer), expected);
    }

    #[test]
    fn options_typed_text_and_notes() {
        let database = Question::choice("Which database?", ["PostgreSQL (Recommended)", "SQLite"]);
        check(
            &database,
            Answer::from_text(&database, "postgresql").with_notes(Some("for now")),
            Some(Prefill {
                chosen: vec![0],
                other: None,
                notes: Some("for now".into()),
                none: false,
            }),
        );
        check(
            &database,
            Answer::custom("Which database?", "DynamoDB"),
            Some(Prefill {
                chosen: vec![],
                other: Some("DynamoDB".into()),
                notes: None,
                none: false,
            }),
        );
        let name = Question::text("Name?");
        check(
            &name,
            Answer::custom("Name?", "orders"),
            Some(Prefill {
                chosen: vec![],
                other: Some("orders".into()),
                notes: None,
                none: false,
            }),
        );
        check(&name, Answer::custom("Name?", "  "), None);
        let features = Question::choice("Which features?", ["Auth", "API"]).multi();
        check(
            &features,
            Answer::multi("Which features?", vec![], None),
            Some(Prefill {
                none: true,
                ..Prefill::default()
            }),
        );
        check(
            &features,
            Answer::multi("Which features?", vec![" ".into()], None),
            None,
        );
    }
}

//! The answer to one question as the model reads it, the answer map, and what a secret
//! question's answer shows.

use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize, Serializer};

use crate::input::Question;

/// The answer to one question: a string, or a list of labels for a multi-select question.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(untagged, expecting = "a string, or a list of strings")]
pub enum AnswerValue {
    /// A chosen label or typed text.
    Text(String),
    /// The chosen labels of a multi-select question in option order, typed text last.
    Choices(Vec<String>),
}

impl AnswerValue {
    /// True when the value holds no answer: an empty string or one of whitespace, an empty list,
    /// or a list of such strings (`""`, `[]`, `[""]`).
    ///
    /// This is the one rule of every mode: an empty answer is no answer. Print mode leaves the
    /// question unanswered, RPC refuses the response, and a form asks again; none of them
    /// records an empty string as what the person said. The one exception is the empty list
    /// given to a multi-select question, which [`Answer::from_value`] reads as "None of these"
    /// ([`AnswerValue::is_none_of_these`]).
    ///
    /// ```
    /// use ask_core::AnswerValue;
    /// assert!(AnswerValue::Text("  ".into()).is_empty());
    /// assert!(AnswerValue::Choices(vec!["".into()]).is_empty());
    /// assert!(!AnswerValue::Text("no".into()).is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        match self {
            AnswerValue::Text(text) => text.trim().is_empty(),
            AnswerValue::Choices(texts) => texts.iter().all(|text| text.trim().is_empty()),
        }
    }

    /// True when the value is the empty list `[]`: given to a multi-select question, it is the
    /// answer "None of these", none of the options; `[""]` is not.
    ///
    /// ```
    /// use ask_core::AnswerValue;
    /// assert!(AnswerValue::Choices(vec![]).is_none_of_these());
    /// assert!(!AnswerValue::Choices(vec!["".into()]).is_none_of_these());
    /// assert!(!AnswerValue::Text("".into()).is_none_of_these());
    /// ```
    pub fn is_none_of_these(&self) -> bool {
        matches!(self, AnswerValue::Choices(choices) if choices.is_empty())
    }

    /// Its size in bytes of UTF-8: the text, or the choices' together, as
    /// [`crate::MAX_ANSWER_BYTES`] counts it.
    pub fn utf8_len(&self) -> usize {
        match self {
            AnswerValue::Text(text) => text.len(),
            AnswerValue::Choices(choices) => choices.iter().map(String::len).sum(),
        }
    }

    /// The answer as one string, with multi-select choices joined by `", "`.
    pub fn joined(&self) -> String {
        match self {
            AnswerValue::Text(text) => text.clone(),
            AnswerValue::Choices(choices) => choices.join(", "),
        }
    }
}

/// The person's answer to one question.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Answer {
    /// The question, exactly as it was asked.
    pub question: String,
    /// The answer: a label or typed text, or a list for a multi-select question (`[]` when the
    /// person chose none of the options). The answer to a secret question is here, in this
    /// result, only: records and logs hold "[secret]".
    // The text above is the schema's description for the model, which reads "[secret]" as
    // written; rustdoc would read it as a link.
    #[allow(rustdoc::broken_intra_doc_links)]
    pub answer: AnswerValue,
    /// The option label that was chosen, for a single-choice answer that picked an option.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selected_option: Option<String>,
    /// True when the person typed the answer through "Other" (for a multi-select question: when
    /// typed text is among the answers).
    pub was_custom: bool,
    /// A note the person attached to this answer: more to say about it, bound to this question
    /// and its answer, never in place of it. Absent when there is none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
}

/// What records, logs, events, history and every display hold in place of a secret answer.
pub const SECRET_PLACEHOLDER: &str = "[secret]";

/// What every display of an answer to `question` shows in its place, when it shows something
/// else: [`SECRET_PLACEHOLDER`] for a secret question (for its answer, its chosen option and its
/// note alike), `None` when an answer is shown as given. This is the one masking rule: the
/// terminal UI's review, the embedded frames, the web page (whose server sends the mask with
/// each question), summaries, the session log and the tool output's `details` all follow it,
/// through [`Answer::shown`] where they hold the answer.
///
/// ```
/// use ask_core::{Question, answer_mask};
/// assert_eq!(answer_mask(&Question::text("Paste the deploy token").secret()), Some("[secret]"));
/// assert_eq!(answer_mask(&Question::text("Name?")), None);
/// ```
pub fn answer_mask(question: &Question) -> Option<&'static str> {
    question.secret.then_some(SECRET_PLACEHOLDER)
}

/// True when one of `questions` is secret: no record, store or log may keep all its answers.
pub fn any_secret(questions: &[Question]) -> bool {
    questions.iter().any(|question| question.secret)
}

impl Answer {
    /// The person chose the option `label`.
    pub fn selected(question: impl Into<String>, label: impl Into<String>) -> Answer {
        let label = label.into();
        Answer {
            question: question.into(),
            answer: AnswerValue::Text(label.clone()),
            selected_option: Some(label),
            was_custom: false,
            notes: None,
        }
    }

    /// The person typed `text`.
    pub fn custom(question: impl Into<String>, text: impl Into<String>) -> Answer {
        Answer {
            question: question.into(),
            answer: AnswerValue::Text(text.into()),
            selected_option: None,
            was_custom: true,
            notes: None,
        }
    }

    /// A multi-select answer: the chosen labels (in option order) and optional typed text.
    pub fn multi(
        question: impl Into<String>,
        labels: Vec<String>,
        custom: Option<String>,
    ) -> Answer {
        let was_custom = custom.is_some();
        let mut choices = labels;
        choices.extend(custom);
        Answer {
            question: question.into(),
            answer: AnswerValue::Choices(choices),
            selected_option: None,
            was_custom,
            notes: None,
        }
    }

    /// The answer "None of these" to a multi-select question: none of its options, and nothing
    /// typed. Its `answer` is `[]`, and the answer map's value for it is `""`.
    pub fn none_of_these(question: impl Into<String>) -> Answer {
        Answer::multi(question, Vec::new(), None)
    }

    /// The same answer with the person's note attached; a blank note is no note.
    ///
    /// ```
    /// use ask_core::Answer;
    /// let answer = Answer::selected("Which database?", "SQLite").with_notes(Some("only for tests"));
    /// assert_eq!(answer.notes.as_deref(), Some("only for tests"));
    /// assert_eq!(answer.with_notes(Some("  ")).notes, None);
    /// ```
    #[must_use]
    pub fn with_notes(mut self, notes: Option<impl Into<String>>) -> Answer {
        self.notes = notes
            .map(Into::into)
            .filter(|n: &String| !n.trim().is_empty());
        self
    }

    /// This answer to `question` as every display and every kept record shows it: as given, or
    /// masked ([`Answer::redacted`]) when [`answer_mask`] masks the question's answers.
    ///
    /// ```
    /// use ask_core::{Answer, Question};
    /// let question = Question::choice("Which key?", ["old", "new"]).secret();
    /// let answer = Answer::from_text(&question, "new").with_notes(Some("rotated today"));
    /// let shown = answer.shown(&question);
    /// assert_eq!(shown.answer.joined(), "[secret]");
    /// assert_eq!(shown.selected_option.as_deref(), Some("[secret]"));
    /// assert_eq!(shown.notes.as_deref(), Some("[secret]"));
    /// ```
    pub fn shown(&self, question: &Question) -> std::borrow::Cow<'_, Answer> {
        match answer_mask(question) {
            Some(_) => std::borrow::Cow::Owned(self.redacted()),
            None => std::borrow::Cow::Borrowed(self),
        }
    }

    /// The answer as records and displays keep a secret one: the answer, the chosen option and
    /// the note each replaced by [`SECRET_PLACEHOLDER`], the shape (text or list) kept.
    #[must_use]
    pub fn redacted(&self) -> Answer {
        Answer {
            question: self.question.clone(),
            answer: match self.answer {
                AnswerValue::Text(_) => AnswerValue::Text(SECRET_PLACEHOLDER.to_string()),
                AnswerValue::Choices(_) => {
                    AnswerValue::Choices(vec![SECRET_PLACEHOLDER.to_string()])
                }
            },
            selected_option: self
                .selected_option
                .as_ref()
                .map(|_| SECRET_PLACEHOLDER.to_string()),
            was_custom: self.was_custom,
            notes: self.notes.as_ref().map(|_| SECRET_PLACEHOLDER.to_string()),
        }
    }

    /// The answer to `question` given as a value, as print mode, RPC and MCP receive it, or
    /// `None` when the value is empty ([`AnswerValue::is_empty`]): the question is then
    /// unanswered. A text is read by [`Answer::from_text`] (or, for a multi-select question,
    /// [`Answer::from_texts`]), a list by [`Answer::from_texts`].
    ///
    /// The empty list `[]` given to a multi-select question is given deliberately: it is the
    /// answer "None of these" ([`Answer::none_of_these`]). `""` and `[""]` stay unanswered.
    ///
    /// ```
    /// use ask_core::{Answer, AnswerValue, Question};
    /// let q = Question::choice("Which features?", ["Auth", "API"]).multi();
    /// let none = Answer::from_value(&q, &AnswerValue::Choices(vec![])).unwrap();
    /// assert_eq!(none, Answer::none_of_these("Which features?"));
    /// assert_eq!(Answer::from_value(&q, &AnswerValue::Choices(vec!["".into()])), None);
    /// assert_eq!(Answer::from_value(&q, &AnswerValue::Text("".into())), None);
    /// ```
    pub fn from_value(question: &Question, value: &AnswerValue) -> Option<Answer> {
        if question.multi_select && value.is_none_of_these() {
            return Some(Answer::none_of_these(&question.question));
        }
        if value.is_empty() {
            return None;
        }
        Some(match value {
            AnswerValue::Text(text) if question.multi_select => {
                Answer::from_texts(question, std::slice::from_ref(text))
            }
            AnswerValue::Text(text) => Answer::from_text(question, text),
            AnswerValue::Choices(texts) => Answer::from_texts(question, texts),
        })
    }

    /// The answer to `question` given as one text: a selection when it matches an option label
    /// (see [`Question::find_option`]; the label is then used as written), typed text otherwise.
    pub fn from_text(question: &Question, text: &str) -> Answer {
        match question.find_option(text) {
            Some(index) => Answer::selected(&question.question, &question.options()[index].label),
            None => Answer::custom(&question.question, text),
        }
    }

    /// The answer to `question` given as several texts. Texts that match labels become
    /// selections in option order; all other texts are joined with `", "` as the typed answer.
    /// A text in the answer map's own form, labels joined with commas
    /// (`"Authentication, REST API"`), selects each label when every part is one.
    ///
    /// For a single-choice question, one text is treated as by [`Answer::from_text`] and
    /// several are joined into one typed answer.
    pub fn from_texts(question: &Question, texts: &[String]) -> Answer {
        if !question.multi_select {
            return match texts {
                [one] => Answer::from_text(question, one),
                _ => Answer::custom(&question.question, texts.join(", ")),
            };
        }
        let mut chosen = vec![false; question.options().len()];
        let mut typed: Vec<&str> = Vec::new();
        for text in texts {
            match question.find_option(text) {
                Some(index) => chosen[index] = true,
                None if text.trim().is_empty() => {}
                None => match split_labels(question, text) {
                    Some(found) => found.into_iter().for_each(|index| chosen[index] = true),
                    None => typed.push(text),
                },
            }
        }
        let labels = question.chosen_labels(&chosen);
        let custom = if typed.is_empty() {
            None
        } else {
            Some(typed.join(", "))
        };
        Answer::multi(&question.question, labels, custom)
    }
}

/// The options named by `text` when it is labels joined with commas, as the answer map joins a
/// multi-select answer; `None` when it has no comma or any part is not a label.
fn split_labels(question: &Question, text: &str) -> Option<Vec<usize>> {
    if !text.contains(',') {
        return None;
    }
    text.split(',')
        .filter(|part| !part.trim().is_empty())
        .map(|part| question.find_option(part))
        .collect::<Option<Vec<_>>>()
        .filter(|found| !found.is_empty())
}

/// The answer map `{"answers": {"question text": "answer"}}`, multi-select joined with `", "`,
/// in question order; with a separate `"notes": {"question text": "note"}` map when the person
/// attached notes (left out otherwise, so the answer strings and their joins never change).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AnswerMap {
    /// Each question with its answer as one string.
    pub answers: Vec<(String, String)>,
    /// Each question that has a note, with the note.
    pub notes: Vec<(String, String)>,
}

impl AnswerMap {
    /// Builds the map from answers.
    ///
    /// ```
    /// use ask_core::{Answer, AnswerMap};
    /// let answers = [
    ///     Answer::selected("Which database?", "SQLite").with_notes(Some("tests only")),
    ///     Answer::multi("Which features?", vec!["Auth".into(), "API".into()], None),
    /// ];
    /// assert_eq!(
    ///     AnswerMap::from_answers(&answers).to_json(),
    ///     r#"{"answers":{"Which database?":"SQLite","Which features?":"Auth, API"},"notes":{"Which database?":"tests only"}}"#
    /// );
    /// ```
    pub fn from_answers(answers: &[Answer]) -> AnswerMap {
        AnswerMap {
            answers: answers
                .iter()
                .map(|a| (a.question.clone(), a.answer.joined()))
                .collect(),
            notes: answers
                .iter()
                .filter_map(|a| Some((a.question.clone(), a.notes.clone()?)))
                .collect(),
        }
    }

    /// The map as compact JSON text.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

impl Serialize for AnswerMap {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        struct Inner<'a>(&'a [(String, String)]);
        impl Serialize for Inner<'_> {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let mut map = serializer.serialize_map(Some(self.0.len()))?;
                for (question, answer) in self.0 {
                    map.serialize_entry(question, answer)?;
                }
                map.end()
            }
        }
        let notes = !self.notes.is_empty();
        let mut outer = serializer.serialize_map(Some(1 + usize::from(notes)))?;
        outer.serialize_entry("answers", &Inner(&self.answers))?;
        if notes {
            outer.serialize_entry("notes", &Inner(&self.notes))?;
        }
        outer.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::test_support::features;
    use crate::result::{AskUserResult, Outcome};
    use serde_json::json;

    #[test]
    fn notes_go_beside_the_answer_and_in_a_separate_map() {
        let answers = vec![
            Answer::selected("Which database?", "SQLite").with_notes(Some("only for the tests")),
            Answer::multi(
                "Which features?",
                vec!["Auth".into(), "API".into()],
                Some("Metrics".into()),
            )
            .with_notes(Some("API later")),
            Answer::custom("Name?", "orders").with_notes(Some(" \n ")),
        ];
        let result = Outcome::Answered(answers.clone()).to_result();
        assert_eq!(
            serde_json::to_value(&result).unwrap()["answers"],
            json!([
                {"question": "Which database?", "answer": "SQLite", "selectedOption": "SQLite",
                 "wasCustom": false, "notes": "only for the tests"},
                {"question": "Which features?", "answer": ["Auth", "API", "Metrics"],
                 "wasCustom": true, "notes": "API later"},
                {"question": "Name?", "answer": "orders", "wasCustom": true}
            ])
        );
        // The answer strings and their joins are the same as without notes.
        assert_eq!(
            result.answer_map().to_json(),
            r#"{"answers":{"Which database?":"SQLite","Which features?":"Auth, API, Metrics","Name?":"orders"},"notes":{"Which database?":"only for the tests","Which features?":"API later"}}"#
        );
        let back: AskUserResult =
            serde_json::from_str(&serde_json::to_string(&result).unwrap()).unwrap();
        assert_eq!(
            back.answers,
            answers[..2]
                .iter()
                .cloned()
                .chain([Answer::custom("Name?", "orders")])
                .collect::<Vec<_>>()
        );
    }

    #[test]
    fn answer_map_joins_multi_select() {
        let answers = vec![
            Answer::selected("Which database should we use?", "PostgreSQL (Recommended)"),
            Answer::multi(
                "Which features should we include?",
                vec!["Authentication".into(), "Admin Dashboard".into()],
                None,
            ),
        ];
        assert_eq!(
            AnswerMap::from_answers(&answers).to_json(),
            r#"{"answers":{"Which database should we use?":"PostgreSQL (Recommended)","Which features should we include?":"Authentication, Admin Dashboard"}}"#
        );
    }

    #[test]
    fn from_text_matches_labels_loosely() {
        let q = Question::choice("Which database?", ["PostgreSQL (Recommended)", "SQLite"]);
        assert_eq!(
            Answer::from_text(&q, " sqlite"),
            Answer::selected("Which database?", "SQLite")
        );
        assert_eq!(
            Answer::from_text(&q, "DynamoDB"),
            Answer::custom("Which database?", "DynamoDB")
        );
    }

    #[test]
    fn a_label_without_its_recommended_suffix_selects_it() {
        let q = Question::choice("Which database?", ["PostgreSQL (Recommended)", "SQLite"]);
        assert_eq!(
            Answer::from_text(&q, "postgresql"),
            Answer::selected("Which database?", "PostgreSQL (Recommended)")
        );
    }

    #[test]
    fn the_answer_maps_joined_labels_select_each_label() {
        let q = features();
        let chosen = |texts: &[&str]| {
            let texts: Vec<String> = texts.iter().map(|t| t.to_string()).collect();
            Answer::from_texts(&q, &texts)
        };
        assert_eq!(
            chosen(&["Admin Dashboard, authentication"]),
            Answer::multi(
                "Which features should we include?",
                vec!["Authentication".into(), "Admin Dashboard".into()],
                None
            )
        );
        // One part that is no label keeps the whole text as typed.
        assert_eq!(
            chosen(&["Authentication, GraphQL"]),
            Answer::multi(
                "Which features should we include?",
                vec![],
                Some("Authentication, GraphQL".into())
            )
        );
        assert_eq!(
            chosen(&[","]),
            Answer::multi(
                "Which features should we include?",
                vec![],
                Some(",".into())
            )
        );
    }

    #[test]
    fn empty_values_are_no_answer_in_every_shape() {
        let single = Question::choice("Which database?", ["PostgreSQL", "SQLite"]);
        let free = Question::text("Name?");
        for question in [&single, &free, &features()] {
            for value in [
                AnswerValue::Text(String::new()),
                AnswerValue::Text(" \t".into()),
                AnswerValue::Choices(vec![String::new()]),
                AnswerValue::Choices(vec![" ".into(), String::new()]),
            ] {
                assert_eq!(Answer::from_value(question, &value), None, "{value:?}");
            }
        }
        // `[]` is no answer to a question of one answer, and "None of these" to a multi-select.
        for question in [&single, &free] {
            assert_eq!(
                Answer::from_value(question, &AnswerValue::Choices(vec![])),
                None
            );
        }
        let none = Answer::from_value(&features(), &AnswerValue::Choices(vec![])).unwrap();
        assert_eq!(none.answer, AnswerValue::Choices(vec![]));
        assert!(!none.was_custom && none.selected_option.is_none());
        assert_eq!(
            AnswerMap::from_answers(&[none]).to_json(),
            r#"{"answers":{"Which features should we include?":""}}"#
        );
        assert_eq!(
            Answer::from_value(&single, &AnswerValue::Text("sqlite".into())),
            Some(Answer::selected("Which database?", "SQLite"))
        );
        assert_eq!(
            Answer::from_value(&features(), &AnswerValue::Text("REST API".into())),
            Some(Answer::multi(
                "Which features should we include?",
                vec!["REST API".into()],
                None
            ))
        );
    }

    #[test]
    fn from_texts_orders_labels_and_puts_typed_text_last() {
        let texts = vec![
            "Admin Dashboard".to_string(),
            "GraphQL".into(),
            "authentication".into(),
        ];
        let answer = Answer::from_texts(&features(), &texts);
        assert_eq!(
            answer.answer,
            AnswerValue::Choices(vec![
                "Authentication".into(),
                "Admin Dashboard".into(),
                "GraphQL".into()
            ])
        );
        assert!(answer.was_custom);
        assert_eq!(answer.selected_option, None);
    }
}

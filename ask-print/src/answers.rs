//! Reading answers given in pass 2, from the edited file or the `--answers` array. Pure: no IO.

use ask_core::{Answer, AnswerValue, AskUserInput, Question};
use serde_json::Value;

use crate::error::PrintError;
use crate::pending::PendingQuestion;

/// The answers of a pending call as far as they go.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// One entry per question: the answer, or `None` while unanswered.
    pub answers: Vec<Option<Answer>>,
}

impl Progress {
    /// The 0-based indexes of the questions still unanswered.
    pub fn unanswered(&self) -> Vec<usize> {
        self.answers
            .iter()
            .enumerate()
            .filter(|(_, a)| a.is_none())
            .map(|(i, _)| i)
            .collect()
    }

    /// Every answer, when all questions are answered.
    pub fn complete(&self) -> Option<Vec<Answer>> {
        self.answers.iter().cloned().collect()
    }
}

/// Reads one answer value for `question` (the question at `index`).
///
/// `null` and an empty answer (`""`, a string of spaces, `[]`, `[""]`: see
/// [`AnswerValue::is_empty`]) mean "not answered yet", but for `[]` given to a multi-select
/// question, which is the answer "None of these" ([`Answer::none_of_these`]). A string matching an option label (see
/// [`Question::find_option`]) selects that option; any other string is the person's own answer.
/// A multi-select question also takes a list of strings, or the labels joined with commas.
pub(crate) fn read_answer(
    index: usize,
    question: &Question,
    value: &Value,
) -> Result<Option<Answer>, PrintError> {
    let bad = |found: &'static str| PrintError::BadAnswer {
        index,
        question: question.question.clone(),
        multi_select: question.multi_select,
        found,
    };
    let given = match value {
        Value::Null => return Ok(None),
        Value::String(text) => AnswerValue::Text(text.clone()),
        Value::Array(items) => {
            let texts = items
                .iter()
                .map(|item| {
                    item.as_str()
                        .map(str::to_string)
                        .ok_or_else(|| bad(kind_of(item)))
                })
                .collect::<Result<Vec<_>, _>>()?;
            if question.multi_select {
                AnswerValue::Choices(texts)
            } else {
                // One answer in a list is that answer; empty entries are nothing.
                let mut given = texts.into_iter().filter(|text| !text.trim().is_empty());
                match (given.next(), given.next()) {
                    (None, _) => return Ok(None),
                    (Some(text), None) => AnswerValue::Text(text),
                    (Some(_), Some(_)) => return Err(bad("an array")),
                }
            }
        }
        other => return Err(bad(kind_of(other))),
    };
    ask_core::check_answer_bytes(given.utf8_len()).map_err(|too_long| {
        PrintError::AnswerTooLong {
            what: format!(
                "the answer to question {} (\"{}\")",
                index + 1,
                question.question
            ),
            too_long,
        }
    })?;
    Ok(Answer::from_value(question, &given))
}

pub(crate) fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// `progress` with the note written beside each answer in the file: a note goes with its
/// answer. A note over the cap of one answer is refused, naming its question.
pub(crate) fn with_file_notes(
    progress: Progress,
    questions: &[PendingQuestion],
) -> Result<Progress, PrintError> {
    let answers = progress.answers.into_iter().zip(questions).enumerate();
    let answers = answers.map(|(index, (answer, in_file))| {
        let bytes = in_file.notes.as_deref().map_or(0, str::len);
        ask_core::check_answer_bytes(bytes).map_err(|too_long| PrintError::AnswerTooLong {
            what: format!(
                "the note to question {} (\"{}\")",
                index + 1,
                in_file.question
            ),
            too_long,
        })?;
        Ok(answer.map(|a| a.with_notes(in_file.notes.clone())))
    });
    Ok(Progress {
        answers: answers.collect::<Result<_, PrintError>>()?,
    })
}

/// Checks a reply in words, which answers every question, against the cap of one answer.
pub(crate) fn check_reply(text: &str) -> Result<(), PrintError> {
    ask_core::check_answer_bytes(text.len()).map_err(|too_long| PrintError::AnswerTooLong {
        what: "the reply".to_string(),
        too_long,
    })
}

/// Reads the answers written into the pending file.
pub fn read_file_answers(input: &AskUserInput, values: &[&Value]) -> Result<Progress, PrintError> {
    let answers = input
        .questions
        .iter()
        .zip(values)
        .enumerate()
        .map(|(i, (question, value))| read_answer(i, question, value))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Progress { answers })
}

/// Parses the `--answers` JSON array: one entry per question, in order; `null` keeps the
/// question as it is in the file.
pub fn parse_inline(text: &str, expected: usize) -> Result<Vec<Value>, PrintError> {
    let value: Value = serde_json::from_str(text).map_err(|e| PrintError::InlineNotJson {
        line: e.line(),
        column: e.column(),
        reason: strip_position(&e.to_string()),
    })?;
    match value {
        Value::Array(items) if items.len() == expected => Ok(items),
        Value::Array(items) => Err(PrintError::WrongAnswerCount {
            given: items.len(),
            expected,
        }),
        other => Err(PrintError::InlineNotArray {
            found: kind_of(&other),
        }),
    }
}

/// serde_json appends " at line L column C" to its messages; the position is reported apart.
pub(crate) fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(at) => message[..at].to_string(),
        None => message.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn db() -> Question {
        Question::choice("Which database?", ["PostgreSQL (Recommended)", "SQLite"])
    }

    fn features() -> Question {
        Question::choice(
            "Which features?",
            ["Authentication", "REST API", "Admin Dashboard"],
        )
        .multi()
    }

    #[track_caller]
    fn check(question: Question, value: Value, expected: Option<Answer>) {
        assert_eq!(read_answer(0, &question, &value).unwrap(), expected);
    }

    #[test]
    fn labels_select_and_other_text_is_custom() {
        check(
            db(),
            json!("PostgreSQL (Recommended)"),
            Some(Answer::selected(
                "Which database?",
                "PostgreSQL (Recommended)",
            )),
        );
        check(
            db(),
            json!("sqlite"),
            Some(Answer::selected("Which database?", "SQLite")),
        );
        check(
            db(),
            json!("I want DynamoDB"),
            Some(Answer::custom("Which database?", "I want DynamoDB")),
        );
        check(
            db(),
            json!(["SQLite"]),
            Some(Answer::selected("Which database?", "SQLite")),
        );
        check(db(), json!(null), None);
        check(db(), json!("  "), None);
        check(
            db(),
            json!("postgresql"),
            Some(Answer::selected(
                "Which database?",
                "PostgreSQL (Recommended)",
            )),
        );
    }

    #[test]
    fn empty_answers_are_unanswered() {
        for question in [db(), features(), Question::text("Name?")] {
            for value in [
                json!(null),
                json!(""),
                json!(" "),
                json!([""]),
                json!(["", " "]),
            ] {
                check(question.clone(), value, None);
            }
        }
        for question in [db(), Question::text("Name?")] {
            check(question, json!([]), None);
        }
    }

    #[test]
    fn an_empty_list_answers_a_multi_select_with_none_of_these() {
        check(
            features(),
            json!([]),
            Some(Answer::none_of_these("Which features?")),
        );
    }

    #[test]
    fn the_answer_maps_joined_labels_are_split_when_every_part_is_a_label() {
        let joined = read_answer(0, &features(), &json!("Authentication, REST API"))
            .unwrap()
            .unwrap();
        assert_eq!(
            joined.answer,
            AnswerValue::Choices(vec!["Authentication".into(), "REST API".into()])
        );
        assert!(!joined.was_custom);
        let typo = read_answer(0, &features(), &json!("Authentication, REST APO"))
            .unwrap()
            .unwrap();
        assert_eq!(
            typo.answer,
            AnswerValue::Choices(vec!["Authentication, REST APO".into()])
        );
        assert!(typo.was_custom);
    }

    #[test]
    fn multi_select_takes_a_list_or_one_string() {
        let answer = read_answer(
            0,
            &features(),
            &json!(["Admin Dashboard", "Authentication", "GraphQL"]),
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            answer.answer,
            AnswerValue::Choices(vec![
                "Authentication".into(),
                "Admin Dashboard".into(),
                "GraphQL".into()
            ])
        );
        assert!(answer.was_custom);
        let one = read_answer(0, &features(), &json!("REST API"))
            .unwrap()
            .unwrap();
        assert_eq!(one.answer, AnswerValue::Choices(vec!["REST API".into()]));
        assert!(!one.was_custom);
    }

    #[test]
    fn wrong_types_are_named() {
        let err = read_answer(2, &features(), &json!(7)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "the answer to question 3 (\"Which features?\") is a number; write a string, or a list of strings for this multiSelect question"
        );
        let err =
            read_answer(0, &db(), &json!(["SQLite", "PostgreSQL (Recommended)"])).unwrap_err();
        assert_eq!(
            err.to_string(),
            "the answer to question 1 (\"Which database?\") is an array; write one string (an option label or your own words)"
        );
        let err = read_answer(0, &features(), &json!(["Auth", {"x": 1}])).unwrap_err();
        assert!(err.to_string().contains("is an object"), "{err}");
    }

    #[test]
    fn inline_array_length_is_checked() {
        assert_eq!(
            parse_inline(r#"["a"]"#, 2).unwrap_err().to_string(),
            "--answers has 1 answer for 2 questions; give one entry per question, in order (null to leave one unanswered)"
        );
        assert_eq!(
            parse_inline(r#"{"a": 1}"#, 2).unwrap_err().to_string(),
            "--answers must be a JSON array with one entry per question, not an object"
        );
        assert_eq!(
            parse_inline(r#"["a", ]"#, 2).unwrap_err().to_string(),
            "--answers is not valid JSON at line 1, column 7: trailing comma"
        );
        assert_eq!(
            parse_inline(r#"["a", null]"#, 2).unwrap(),
            vec![json!("a"), Value::Null]
        );
    }
}

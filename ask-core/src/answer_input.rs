//! A client's answers as every protocol receives them (JSON lines, the web page, the inbox),
//! and their reading into [`Answer`]s, checked against the questions.

use serde::{Deserialize, Serialize};

use crate::input::Question;
use crate::result::{Answer, AnswerValue};

/// One answer as a client sends it. `selectedOption` and `wasCustom` may be left out; they are
/// then derived from the option labels.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    rename_all = "camelCase",
    expecting = "an answer object: {\"question\", \"answer\"}, where answer is a string or a list of strings"
)]
pub struct AnswerInput {
    /// The question answered; when left out, answers are matched to questions by position.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub question: Option<String>,
    /// A label or typed text, or a list of them for a multi-select question (`[]`: "None of
    /// these"). `null` is no answer, as `""` is: it is refused as empty.
    #[serde(deserialize_with = "null_is_no_answer")]
    pub answer: AnswerValue,
    /// The chosen option label, if the client tracks it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selected_option: Option<String>,
    /// Whether the person typed the answer, if the client tracks it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub was_custom: Option<bool>,
    /// A note the person attached to this answer; a blank note is no note.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
}

/// Reads `null` as the empty text, which is no answer ([`AnswerValue::is_empty`]), so that it is
/// refused naming its question rather than as a message of the wrong shape.
fn null_is_no_answer<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<AnswerValue, D::Error> {
    Ok(Option::<AnswerValue>::deserialize(deserializer)?
        .unwrap_or_else(|| AnswerValue::Text(String::new())))
}

/// The most one question's answer may hold: 64 KiB of UTF-8, the typed text and the picked
/// labels of a multi-select together; a note has the same cap of its own.
///
/// This is a bound like every other input's, not a judgement of what the person meant: it sits
/// far above [`crate::Limits::LONG_ANSWER_CHARS`], past which the terminal UI only asks for a
/// confirmation. Every presenter checks it with [`check_answer_bytes`]: the terminal UI and the
/// page stop input at it, a client's answer over it is refused, and a form's counts as declined.
pub const MAX_ANSWER_BYTES: usize = 64 * 1024;

/// An answer or note over [`MAX_ANSWER_BYTES`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error(
    "is {bytes} bytes of UTF-8, over the cap of {} bytes (64 KiB) per question",
    MAX_ANSWER_BYTES
)]
pub struct AnswerTooLong {
    /// The bytes given.
    pub bytes: usize,
}

/// Checks that `bytes` of UTF-8 fit in one answer (or one note): at most [`MAX_ANSWER_BYTES`].
///
/// ```
/// use ask_core::{MAX_ANSWER_BYTES, check_answer_bytes};
/// assert!(check_answer_bytes(MAX_ANSWER_BYTES).is_ok());
/// assert_eq!(
///     check_answer_bytes(MAX_ANSWER_BYTES + 1).unwrap_err().to_string(),
///     "is 65537 bytes of UTF-8, over the cap of 65536 bytes (64 KiB) per question"
/// );
/// ```
pub fn check_answer_bytes(bytes: usize) -> Result<(), AnswerTooLong> {
    if bytes > MAX_ANSWER_BYTES {
        Err(AnswerTooLong { bytes })
    } else {
        Ok(())
    }
}

/// Why a client's answers do not fit the questions; each reads as a sentence the client can act
/// on.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum AnswerError {
    /// Not one answer per question.
    #[error(
        "{given} {} given for {asked} {}; give one answer per question",
        if *given == 1 { "answer" } else { "answers" },
        if *asked == 1 { "question" } else { "questions" }
    )]
    WrongCount {
        /// The answers given.
        given: usize,
        /// The questions asked.
        asked: usize,
    },
    /// An answer names a question that was not asked.
    #[error("answer {} is for \"{question}\", which was not asked", position + 1)]
    NotAsked {
        /// The answer's position among those given, from 0.
        position: usize,
        /// The question it names.
        question: String,
    },
    /// Two answers for one question.
    #[error("question {} (\"{question}\") is answered twice", index + 1)]
    AnsweredTwice {
        /// The question's index, from 0.
        index: usize,
        /// The question's text.
        question: String,
    },
    /// A list of answers for a question that takes one.
    #[error("question {} (\"{question}\") takes one answer, not a list", index + 1)]
    NotAList {
        /// The question's index, from 0.
        index: usize,
        /// The question's text.
        question: String,
    },
    /// An empty answer, which is no answer.
    #[error(
        "question {} (\"{question}\") has an empty answer, which is no answer; give an option \
         label or the person's text{}, or send ask_user_cancel",
        index + 1,
        if *multi_select { ", or [] for \"None of these\"" } else { "" }
    )]
    Empty {
        /// The question's index, from 0.
        index: usize,
        /// The question's text.
        question: String,
        /// True for a multi-select question, which `[]` answers with "None of these".
        multi_select: bool,
    },
    /// An answer, or its note, over [`MAX_ANSWER_BYTES`].
    #[error("question {} (\"{question}\"): the {what} {too_long}; send a shorter one", index + 1)]
    TooLong {
        /// The question's index, from 0.
        index: usize,
        /// The question's text.
        question: String,
        /// `"answer"` or `"note"`.
        what: &'static str,
        /// How long it is.
        too_long: AnswerTooLong,
    },
    /// A `selectedOption` that names no offered option or disagrees with the answer.
    #[error("question {} (\"{question}\"): {problem}", index + 1)]
    SelectedOption {
        /// The question's index, from 0.
        index: usize,
        /// The question's text.
        question: String,
        /// What is wrong with it.
        problem: SelectedOptionError,
    },
}

/// What is wrong with an answer's `selectedOption`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SelectedOptionError {
    /// The question is free text and offers no options.
    #[error(
        "selectedOption is \"{named}\", but this free-text question offers no options; leave \
         selectedOption out"
    )]
    NoOptions {
        /// The option named.
        named: String,
    },
    /// The option named is not offered.
    #[error(
        "selectedOption \"{named}\" is not one of the options offered; name an offered option or \
         leave selectedOption out"
    )]
    NotOffered {
        /// The option named.
        named: String,
    },
    /// The option is named while `wasCustom` is true, for a single choice.
    #[error("selectedOption \"{label}\" contradicts wasCustom true; send one or the other")]
    ContradictsWasCustom {
        /// The option's label.
        label: String,
    },
    /// The option is not what the answer picks.
    #[error(
        "selectedOption \"{label}\" does not match the answer {}; send the option's label as the \
         answer, or leave selectedOption out",
        serde_json::to_string(answer).unwrap_or_default()
    )]
    DisagreesWithAnswer {
        /// The option's label.
        label: String,
        /// The answer sent.
        answer: AnswerValue,
    },
}

/// Matches `given` to `questions` (by question text, or by position when texts are left out) and
/// derives what the client left out. The error names the problem when they do not fit.
pub fn to_answers(
    questions: &[Question],
    given: &[AnswerInput],
) -> Result<Vec<Answer>, AnswerError> {
    if given.len() != questions.len() {
        return Err(AnswerError::WrongCount {
            given: given.len(),
            asked: questions.len(),
        });
    }
    let mut slots: Vec<Option<Answer>> = vec![None; questions.len()];
    for (position, input) in given.iter().enumerate() {
        let index = match &input.question {
            None => position,
            Some(text) => questions
                .iter()
                .position(|q| q.question == *text)
                .ok_or_else(|| AnswerError::NotAsked {
                    position,
                    question: text.clone(),
                })?,
        };
        if slots[index].is_some() {
            return Err(AnswerError::AnsweredTwice {
                index,
                question: questions[index].question.clone(),
            });
        }
        slots[index] = Some(to_answer(index, &questions[index], input)?);
    }
    Ok(slots.into_iter().flatten().collect())
}

fn to_answer(
    index: usize,
    question: &Question,
    input: &AnswerInput,
) -> Result<Answer, AnswerError> {
    if matches!(input.answer, AnswerValue::Choices(_)) && !question.multi_select {
        return Err(AnswerError::NotAList {
            index,
            question: question.question.clone(),
        });
    }
    let too_long = |what, too_long| AnswerError::TooLong {
        index,
        question: question.question.clone(),
        what,
        too_long,
    };
    check_answer_bytes(input.answer.utf8_len()).map_err(|e| too_long("answer", e))?;
    check_answer_bytes(input.notes.as_deref().map_or(0, str::len))
        .map_err(|e| too_long("note", e))?;
    // An empty answer is no answer, in every mode (`AnswerValue::is_empty`).
    let Some(mut answer) = Answer::from_value(question, &input.answer) else {
        return Err(AnswerError::Empty {
            index,
            question: question.question.clone(),
            multi_select: question.multi_select,
        });
    };
    // A client that knows the person typed an answer equal to a label says so.
    if input.was_custom == Some(true) && !answer.was_custom {
        answer.was_custom = true;
        answer.selected_option = None;
    }
    check_selected_option(question, input, &answer).map_err(|problem| {
        AnswerError::SelectedOption {
            index,
            question: question.question.clone(),
            problem,
        }
    })?;
    Ok(answer.with_notes(input.notes.clone()))
}

/// A `selectedOption` the client sends (if any) must name an offered option, and agree with the answer:
/// for a single choice, the option the answer's text picks; for a multi-select, one of the
/// options chosen. A client that contradicts itself is told so, rather than one half of its
/// message being taken silently.
fn check_selected_option(
    question: &Question,
    input: &AnswerInput,
    answer: &Answer,
) -> Result<(), SelectedOptionError> {
    let Some(named) = input.selected_option.as_deref() else {
        return Ok(());
    };
    let Some(option) = question.find_option(named) else {
        let named = named.to_string();
        return Err(if question.options().is_empty() {
            SelectedOptionError::NoOptions { named }
        } else {
            SelectedOptionError::NotOffered { named }
        });
    };
    let label = &question.options()[option].label;
    if input.was_custom == Some(true) && !question.multi_select {
        return Err(SelectedOptionError::ContradictsWasCustom {
            label: label.clone(),
        });
    }
    let agrees = match &answer.answer {
        AnswerValue::Choices(chosen) => chosen.iter().any(|c| c == label),
        AnswerValue::Text(_) => answer.selected_option.as_deref() == Some(label.as_str()),
    };
    if agrees {
        Ok(())
    } else {
        Err(SelectedOptionError::DisagreesWithAnswer {
            label: label.clone(),
            answer: input.answer.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(answer: AnswerValue, selected: &str) -> AnswerInput {
        AnswerInput {
            question: None,
            answer,
            selected_option: Some(selected.to_string()),
            was_custom: None,
            notes: None,
        }
    }

    #[test]
    fn a_selected_option_must_be_offered_and_agree_with_the_answer() {
        let qs = questions();
        let text = |t: &str| AnswerValue::Text(t.into());
        let list = |l: &[&str]| AnswerValue::Choices(l.iter().map(|s| s.to_string()).collect());
        // Agreeing: taken (the label is matched loosely, as answers are).
        let answers = to_answers(
            &qs,
            &[
                named(text("sqlite"), "SQLite"),
                named(list(&["API"]), "api"),
            ],
        )
        .unwrap();
        assert_eq!(answers[0], Answer::selected("Which database?", "SQLite"));
        let fixed = [input(None, list(&["Auth"]))];
        let check = |first: AnswerInput, expected: &str| {
            let given = [first, fixed[0].clone()];
            assert_eq!(to_answers(&qs, &given).unwrap_err().to_string(), expected);
        };
        check(
            named(text("SQLite"), "MongoDB"),
            "question 1 (\"Which database?\"): selectedOption \"MongoDB\" is not one of the options offered; name an offered option or leave selectedOption out",
        );
        check(
            named(text("SQLite"), "PostgreSQL"),
            "question 1 (\"Which database?\"): selectedOption \"PostgreSQL\" does not match the answer \"SQLite\"; send the option's label as the answer, or leave selectedOption out",
        );
        check(
            named(text("something typed"), "SQLite"),
            "question 1 (\"Which database?\"): selectedOption \"SQLite\" does not match the answer \"something typed\"; send the option's label as the answer, or leave selectedOption out",
        );
        let mut custom = named(text("SQLite"), "SQLite");
        custom.was_custom = Some(true);
        check(
            custom,
            "question 1 (\"Which database?\"): selectedOption \"SQLite\" contradicts wasCustom true; send one or the other",
        );
        let given = [input(None, text("SQLite")), named(list(&["Auth"]), "API")];
        assert_eq!(
            to_answers(&qs, &given).unwrap_err().to_string(),
            "question 2 (\"Which features?\"): selectedOption \"API\" does not match the answer [\"Auth\"]; send the option's label as the answer, or leave selectedOption out"
        );
    }

    fn input(question: Option<&str>, answer: AnswerValue) -> AnswerInput {
        AnswerInput {
            question: question.map(str::to_string),
            answer,
            selected_option: None,
            was_custom: None,
            notes: None,
        }
    }

    fn questions() -> Vec<Question> {
        vec![
            Question::choice("Which database?", ["PostgreSQL", "SQLite"]),
            Question::choice("Which features?", ["Auth", "API"]).multi(),
        ]
    }

    #[test]
    fn an_answer_or_note_over_the_cap_is_refused_and_one_at_the_cap_taken() {
        let qs = questions();
        let at_cap = "é".repeat(MAX_ANSWER_BYTES / 2);
        let over = format!("{at_cap}x");
        let typed = |text: &str| AnswerValue::Choices(vec!["Auth".into(), text.into()]);
        let at = [
            input(None, AnswerValue::Text(at_cap.clone())),
            input(None, AnswerValue::Text("Auth".into())),
        ];
        assert_eq!(to_answers(&qs, &at).unwrap()[0].answer.joined(), at_cap);
        let given = [
            input(None, AnswerValue::Text(over.clone())),
            input(None, AnswerValue::Text("Auth".into())),
        ];
        assert_eq!(
            to_answers(&qs, &given).unwrap_err().to_string(),
            "question 1 (\"Which database?\"): the answer is 65537 bytes of UTF-8, over the cap of 65536 bytes (64 KiB) per question; send a shorter one"
        );
        // A multi-select's typed "Other" counts with the labels picked.
        let other = "x".repeat(MAX_ANSWER_BYTES - "Auth".len());
        let at = [
            input(None, AnswerValue::Text("SQLite".into())),
            input(None, typed(&other)),
        ];
        assert!(to_answers(&qs, &at).is_ok());
        let over_other = format!("{other}x");
        let given = [
            input(None, AnswerValue::Text("SQLite".into())),
            input(None, typed(&over_other)),
        ];
        assert!(matches!(
            to_answers(&qs, &given),
            Err(AnswerError::TooLong {
                index: 1,
                what: "answer",
                ..
            })
        ));
        let mut noted = input(None, AnswerValue::Text("SQLite".into()));
        noted.notes = Some(over);
        let given = [noted, input(None, AnswerValue::Text("Auth".into()))];
        assert!(matches!(
            to_answers(&qs, &given),
            Err(AnswerError::TooLong {
                index: 0,
                what: "note",
                ..
            })
        ));
    }

    #[test]
    fn derived_by_text_in_any_order() {
        let answers = to_answers(
            &questions(),
            &[
                input(
                    Some("Which features?"),
                    AnswerValue::Choices(vec!["api".into(), "GraphQL".into()]),
                ),
                input(Some("Which database?"), AnswerValue::Text("sqlite".into())),
            ],
        )
        .unwrap();
        assert_eq!(answers[0], Answer::selected("Which database?", "SQLite"));
        assert_eq!(
            answers[1],
            Answer::multi(
                "Which features?",
                vec!["API".into()],
                Some("GraphQL".into())
            )
        );
    }

    #[test]
    fn misfits_are_named() {
        let qs = questions();
        let one = [input(None, AnswerValue::Text("x".into()))];
        assert_eq!(
            to_answers(&qs, &one).unwrap_err().to_string(),
            "1 answer given for 2 questions; give one answer per question"
        );
        let unknown = [
            input(Some("Nope?"), AnswerValue::Text("x".into())),
            input(None, AnswerValue::Text("y".into())),
        ];
        assert_eq!(
            to_answers(&qs, &unknown).unwrap_err().to_string(),
            "answer 1 is for \"Nope?\", which was not asked"
        );
        let list = [
            input(None, AnswerValue::Choices(vec![])),
            input(None, AnswerValue::Text("Auth".into())),
        ];
        assert_eq!(
            to_answers(&qs, &list).unwrap_err().to_string(),
            "question 1 (\"Which database?\") takes one answer, not a list"
        );
        for empty in [
            AnswerValue::Text(String::new()),
            AnswerValue::Text("  ".into()),
        ] {
            let given = [
                input(None, empty),
                input(None, AnswerValue::Text("Auth".into())),
            ];
            assert_eq!(
                to_answers(&qs, &given).unwrap_err().to_string(),
                "question 1 (\"Which database?\") has an empty answer, which is no answer; give an option label or the person's text, or send ask_user_cancel"
            );
        }
        for empty in [
            AnswerValue::Text(String::new()),
            AnswerValue::Choices(vec![String::new()]),
            AnswerValue::Choices(vec![" ".into(), String::new()]),
        ] {
            let given = [
                input(None, AnswerValue::Text("SQLite".into())),
                input(None, empty),
            ];
            assert_eq!(
                to_answers(&qs, &given).unwrap_err().to_string(),
                "question 2 (\"Which features?\") has an empty answer, which is no answer; give an option label or the person's text, or [] for \"None of these\", or send ask_user_cancel"
            );
        }
        // `[]` given deliberately to a multi-select question is "None of these".
        let none = [
            input(None, AnswerValue::Text("SQLite".into())),
            input(None, AnswerValue::Choices(vec![])),
        ];
        assert_eq!(
            to_answers(&qs, &none).unwrap()[1],
            Answer::none_of_these("Which features?")
        );
        let twice = [
            input(Some("Which database?"), AnswerValue::Text("x".into())),
            input(Some("Which database?"), AnswerValue::Text("y".into())),
        ];
        assert_eq!(
            to_answers(&qs, &twice).unwrap_err().to_string(),
            "question 1 (\"Which database?\") is answered twice"
        );
    }
}

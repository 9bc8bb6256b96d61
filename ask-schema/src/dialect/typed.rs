//! The fast path of the agents' `questions` dialects: a call that reads as the agent's own types
//! and validates is read straight from the text, with no intermediate value. Anything else
//! (an envelope, a problem, a repeated key) takes the value path, which names the problems; so
//! this path only ever accepts what the value path accepts, with the same warnings.

use ask_core::{AskUserInput, Limits, Question, QuestionKind, QuestionOption};
use serde::Deserialize;
use serde_json::{Map, Value};

use super::{Dialect, DialectCall, Warning, detected, given_answers};
use crate::parse::ParsedCall;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Claude {
    questions: Vec<Question>,
    #[serde(default)]
    answers: Option<Map<String, Value>>,
    /// Claude Code's own record of what the person saw; only its shape is checked.
    #[serde(default, rename = "annotations")]
    _annotations: Option<std::collections::HashMap<String, Map<String, Value>>>,
    #[serde(default)]
    metadata: Option<Map<String, Value>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Questions<Q> {
    questions: Vec<Q>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Codex {
    id: String,
    #[serde(default)]
    header: Option<String>,
    question: String,
    #[serde(rename = "isOther", default)]
    is_other: Option<bool>,
    #[serde(rename = "isSecret", default)]
    is_secret: Option<bool>,
    #[serde(default)]
    options: Option<Vec<QuestionOption>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OpenCode {
    question: String,
    #[serde(default)]
    header: Option<String>,
    #[serde(default)]
    options: Option<Vec<QuestionOption>>,
    #[serde(default)]
    multiple: bool,
}

#[derive(Deserialize, PartialEq)]
#[serde(rename_all = "lowercase")]
enum GeminiType {
    Choice,
    Text,
    Yesno,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Gemini {
    question: String,
    #[serde(default)]
    header: Option<String>,
    #[serde(rename = "type")]
    kind: GeminiType,
    #[serde(default)]
    options: Option<Vec<QuestionOption>>,
    #[serde(default)]
    multi_select: bool,
    #[serde(default)]
    placeholder: Option<String>,
    #[serde(default, rename = "unconstrainedHeight")]
    _unconstrained_height: Option<bool>,
}

fn question(
    text: String,
    header: Option<String>,
    options: Option<Vec<QuestionOption>>,
) -> Question {
    let mut question = Question::text(text);
    question.header = header;
    question.options = options;
    question
}

fn warn(warnings: &mut Vec<Warning>, path: String, message: &str) {
    warnings.push(Warning {
        path,
        message: message.to_string(),
    });
}

/// The call in `text` as the named dialect, or (none named) as the first of the agents'
/// `questions` dialects whose types it fits.
pub(super) fn read(text: &str, named: Option<Dialect>, limits: &Limits) -> Option<DialectCall> {
    let order = [
        Dialect::Codex,
        Dialect::Gemini,
        Dialect::OpenCode,
        Dialect::Claude,
    ];
    let one;
    let tries: &[Dialect] = match named {
        Some(dialect) => {
            one = [dialect];
            &one
        }
        None => &order,
    };
    tries
        .iter()
        .find_map(|dialect| read_as(text, (*dialect, named.is_none()), limits))
}

/// Reads `text` as `dialect`'s own types; `detected_here` when the dialect was not named, so the
/// call carries the warning that it was detected.
fn read_as(
    text: &str,
    (dialect, detected_here): (Dialect, bool),
    limits: &Limits,
) -> Option<DialectCall> {
    let mut warnings = Vec::new();
    let mut prefill = Map::new();
    let (questions, metadata) = match dialect {
        Dialect::Claude => {
            let call: Claude = serde_json::from_str(text).ok()?;
            if call
                .answers
                .as_ref()
                .is_some_and(|a| a.values().any(|v| !v.is_string()))
            {
                return None;
            }
            prefill = call.answers.unwrap_or_default();
            (call.questions, call.metadata)
        }
        Dialect::Codex => {
            let call: Questions<Codex> = serde_json::from_str(text).ok()?;
            let questions = call
                .questions
                .into_iter()
                .enumerate()
                .map(|(i, q)| {
                    if q.is_other.is_some() {
                        warn(
                            &mut warnings,
                            format!("/questions/{i}/isOther"),
                            super::IS_OTHER_IGNORED,
                        );
                    }
                    if q.is_secret.is_some() {
                        warn(
                            &mut warnings,
                            format!("/questions/{i}/isSecret"),
                            super::IS_SECRET_OLDER,
                        );
                    }
                    let mut question = question(q.question, q.header, q.options);
                    question.id = Some(q.id);
                    question.secret = q.is_secret.unwrap_or(false);
                    question
                })
                .collect();
            (questions, None)
        }
        Dialect::OpenCode => {
            let call: Questions<OpenCode> = serde_json::from_str(text).ok()?;
            let questions = call
                .questions
                .into_iter()
                .map(|q| {
                    let mut question = question(q.question, q.header, q.options);
                    question.multi_select = q.multiple;
                    question
                })
                .collect();
            (questions, None)
        }
        Dialect::Gemini => {
            let call: Questions<Gemini> = serde_json::from_str(text).ok()?;
            let questions = call
                .questions
                .into_iter()
                .enumerate()
                .map(|(i, q)| {
                    let mut options = q.options;
                    let ignored = match q.kind {
                        GeminiType::Yesno => Some(super::YESNO_OPTIONS_IGNORED),
                        GeminiType::Text => Some(super::TEXT_OPTIONS_IGNORED),
                        GeminiType::Choice => None,
                    };
                    if let Some(message) = ignored
                        && options.take().is_some_and(|o| !o.is_empty())
                    {
                        warn(&mut warnings, format!("/questions/{i}/options"), message);
                    }
                    let mut question = question(q.question, q.header, options);
                    question.multi_select = q.multi_select;
                    question.placeholder = q.placeholder;
                    if q.kind == GeminiType::Yesno {
                        question.kind = QuestionKind::YesNo;
                    }
                    question
                })
                .collect();
            (questions, None)
        }
        _ => return None,
    };
    let input = ask_core::validate(
        AskUserInput {
            questions,
            metadata,
        },
        limits,
    )
    .ok()?;
    if detected_here {
        warnings.insert(0, detected(dialect));
    }
    let given = given_answers(&input, &prefill);
    Some(DialectCall {
        dialect,
        call: ParsedCall {
            call_id: None,
            input,
        },
        warnings,
        given,
        modes: Vec::new(),
    })
}

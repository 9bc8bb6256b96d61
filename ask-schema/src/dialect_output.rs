//! A finished call in a dialect's own result shape, and each dialect's tool descriptor.
//!
//! Used only when the caller names the dialect (`--dialect X`); an auto-detected input is
//! answered in the canonical shape.

use ask_core::{Answer, Limits, Record, Status};
use serde_json::{Map, Value, json};

use crate::dialect::Dialect;

/// Claude Code's words for a refused tool use, which its agent loop knows.
pub(crate) const CLAUDE_REJECTED: &str = "The user doesn't want to proceed with this tool use. The tool \
use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP \
what you are doing and wait for the user to tell you how to proceed.";

/// Codex's words for a `request_user_input` that ended without a response.
pub(crate) const CODEX_CANCELLED: &str =
    "request_user_input was cancelled before receiving a response";

/// Gemini CLI's words for a dismissed `ask_user` dialog.
pub(crate) const GEMINI_DISMISSED: &str = "User dismissed ask_user dialog without answering.";

/// OpenCode's words for a dismissed question.
pub(crate) const OPENCODE_DISMISSED: &str = "The user dismissed this question";

/// The answers of `record`, one per question (a question left without one reads as `None`).
fn answers(record: &Record) -> Vec<Option<&Answer>> {
    record
        .questions
        .iter()
        .map(|question| {
            record
                .answers
                .iter()
                .find(|a| a.question == question.question)
        })
        .collect()
}

/// The answer of one question as its dialect's list of texts.
fn texts(answer: &Answer) -> Vec<String> {
    match &answer.answer {
        ask_core::AnswerValue::Text(text) => vec![text.clone()],
        ask_core::AnswerValue::Choices(choices) => choices.clone(),
    }
}

/// The text of a one-question dialect's answer: the reply in the person's words, or the answer.
fn single_text(record: &Record) -> Option<String> {
    if let Some(reply) = &record.reply {
        return Some(reply.clone());
    }
    answers(record)
        .first()
        .copied()
        .flatten()
        .map(|a| a.answer.joined())
}

/// The guidance of an unanswered outcome in the dialect's words, when it has its own.
fn unanswered_message(dialect: Dialect, record: &Record) -> Option<String> {
    let own = match (dialect, record.status) {
        (_, Status::Answered) => return None,
        (Dialect::Claude, Status::Cancelled) => Some(CLAUDE_REJECTED),
        (Dialect::Codex, Status::Cancelled | Status::ConnectionLost) => Some(CODEX_CANCELLED),
        (Dialect::Gemini, Status::Cancelled) => Some(GEMINI_DISMISSED),
        (Dialect::OpenCode, Status::Cancelled) => Some(OPENCODE_DISMISSED),
        _ => None,
    };
    own.map(str::to_string)
        .or_else(|| record.outcome().message())
}

/// The result of `record` in `dialect`'s shape. `modes` are Roo Code's modes of the options of
/// its one question (empty when unknown).
///
/// - Claude Code: `{questions, answers: {question: "label, label"}, annotations?}`, the
///   `updatedInput` an Agent SDK host returns from `canUseTool`; `annotations` holds, per
///   question, the chosen option's `preview` and the person's `notes`.
/// - Codex: `{answers: {id: {answers: [...]}}}`, a note as a last `"user_note: …"` entry.
/// - OpenCode: `{answers: [[labels], …]}` in question order.
/// - Gemini CLI: `{answers: {"0": "answer", …}}` keyed by question index.
/// - Roo Code, Cline, simplified form: `{answer}` (Roo: `mode` of the chosen suggestion).
/// - canonical: the structured result.
///
/// Not answered: the same shape with no answers, plus `cancelled`, `connectionLost` or
/// `pendingFile`, and `message` in the agent's own words where it has them.
pub(crate) fn result_in(dialect: Dialect, record: &Record, modes: &[Option<String>]) -> Value {
    let answered = record.status == Status::Answered;
    let each = answers(record);
    let mut out = match dialect {
        Dialect::Canonical => {
            return serde_json::to_value(record.result()).unwrap_or(Value::Null);
        }
        Dialect::Claude => {
            let mut map = Map::new();
            let mut annotations = Map::new();
            for (question, answer) in record.questions.iter().zip(&each) {
                let text = match (&record.reply, answer) {
                    (Some(reply), _) => reply.clone(),
                    (None, Some(answer)) => answer.answer.joined(),
                    (None, None) => continue,
                };
                map.insert(question.question.clone(), Value::String(text));
                let mut note = Map::new();
                if let Some(preview) = answer
                    .and_then(|a| a.selected_option.as_deref())
                    .and_then(|label| question.options().iter().find(|o| o.label == label))
                    .and_then(|o| o.preview.clone())
                {
                    note.insert("preview".into(), Value::String(preview));
                }
                if let Some(notes) = answer.and_then(|a| a.notes.clone()) {
                    note.insert("notes".into(), Value::String(notes));
                }
                if !note.is_empty() {
                    annotations.insert(question.question.clone(), Value::Object(note));
                }
            }
            let mut out = json!({
                "questions": record.questions,
                "answers": map,
            });
            if !annotations.is_empty() {
                out["annotations"] = Value::Object(annotations);
            }
            out
        }
        Dialect::Codex => {
            let mut map = Map::new();
            for (i, (question, answer)) in record.questions.iter().zip(&each).enumerate() {
                let mut list = match (&record.reply, answer) {
                    (Some(reply), _) => vec![reply.clone()],
                    (None, Some(answer)) => texts(answer),
                    (None, None) => continue,
                };
                // Codex carries a note as one more entry of the list.
                if let Some(notes) = answer.and_then(|a| a.notes.as_deref()) {
                    list.push(format!("user_note: {notes}"));
                }
                let id = question.id.clone().unwrap_or_else(|| i.to_string());
                map.insert(id, json!({ "answers": list }));
            }
            json!({ "answers": map })
        }
        Dialect::OpenCode => {
            let lists: Vec<Vec<String>> = each
                .iter()
                .map(|answer| match (&record.reply, answer) {
                    (Some(reply), _) => vec![reply.clone()],
                    (None, Some(answer)) => texts(answer),
                    (None, None) => Vec::new(),
                })
                .collect();
            if answered {
                json!({ "answers": lists })
            } else {
                json!({ "answers": [] })
            }
        }
        Dialect::Gemini => {
            let mut map = Map::new();
            for (i, answer) in each.iter().enumerate() {
                let text = match (&record.reply, answer) {
                    (Some(reply), _) => reply.clone(),
                    (None, Some(answer)) => answer.answer.joined(),
                    (None, None) => continue,
                };
                map.insert(i.to_string(), Value::String(text));
            }
            json!({ "answers": map })
        }
        Dialect::Roo | Dialect::Cline | Dialect::Simple => {
            let text = if answered { single_text(record) } else { None };
            let mut out = json!({ "answer": text });
            let mode = each
                .first()
                .copied()
                .flatten()
                .and_then(|a| a.selected_option.as_deref())
                .and_then(|label| {
                    let question = record.questions.first()?;
                    let index = question.options().iter().position(|o| o.label == label)?;
                    modes.get(index).cloned().flatten()
                });
            if dialect == Dialect::Roo
                && let Some(mode) = mode
            {
                out["mode"] = Value::String(mode);
            }
            out
        }
    };
    match record.status {
        Status::Answered => {}
        Status::Cancelled => out["cancelled"] = Value::Bool(true),
        Status::ConnectionLost => out["connectionLost"] = Value::Bool(true),
        Status::Pending => {
            out["pendingFile"] = json!(record.pending_file.clone().unwrap_or_default());
        }
    }
    if let Some(message) = unanswered_message(dialect, record) {
        out["message"] = Value::String(message);
    }
    out
}

/// The text the model reads for `record` in `dialect`'s words: what the agent's own tool returns.
///
/// - Claude Code and OpenCode: `User has answered your questions: "Q"="A", …. You can now
///   continue with the user's answers in mind.`
/// - Codex and Gemini CLI: the JSON of their result.
/// - Roo Code: `<user_message>…</user_message>`; Cline: `<answer>…</answer>`; the simplified
///   form: the answer itself.
///
/// Not answered: the dialect's own cancel words where it has them, else the canonical guidance
/// (the pending instructions for a pending call).
pub(crate) fn tool_text_in(dialect: Dialect, record: &Record, modes: &[Option<String>]) -> String {
    if let Some(message) = unanswered_message(dialect, record) {
        return message;
    }
    match dialect {
        Dialect::Canonical => ask_core::ToolOutput::from_record(record.clone()).content,
        Dialect::Claude | Dialect::OpenCode => {
            let pairs: Vec<String> = record
                .questions
                .iter()
                .zip(answers(record))
                .map(|(question, answer)| {
                    let text = match (&record.reply, answer) {
                        (Some(reply), _) => reply.clone(),
                        (None, Some(answer)) => answer.answer.joined(),
                        (None, None) => "Unanswered".to_string(),
                    };
                    format!("\"{}\"=\"{text}\"", question.question)
                })
                .collect();
            format!(
                "User has answered your questions: {}. You can now continue with the user's \
                 answers in mind.",
                pairs.join(", ")
            )
        }
        Dialect::Codex | Dialect::Gemini => result_in(dialect, record, modes).to_string(),
        Dialect::Roo => format!(
            "<user_message>\n{}\n</user_message>",
            single_text(record).unwrap_or_default()
        ),
        Dialect::Cline => format!(
            "<answer>\n{}\n</answer>",
            single_text(record).unwrap_or_default()
        ),
        Dialect::Simple => single_text(record).unwrap_or_default(),
    }
}

/// The tool output `{content, details, isError}` in `dialect`'s words: `content` is
/// [`tool_text_in`], `details` is [`result_in`].
pub(crate) fn tool_output_in(dialect: Dialect, record: &Record, modes: &[Option<String>]) -> Value {
    json!({
        "content": tool_text_in(dialect, record, modes),
        "details": result_in(dialect, record, modes),
        "isError": false,
    })
}

/// The description every dialect's descriptor carries, after the agent's own first sentence.
const SERVED_BY: &str = "Served by ask-user: an \"Other\" answer the person types is always \
available, so never add an \"Other\" option.";

/// `dialect`'s tool descriptor under its native tool name, so a harness can register ask-user in
/// place of its built-in tool: `{name, description, input_schema}` for Claude Code (Anthropic's
/// shape), `{name, description, parameters}` for the others.
pub fn dialect_descriptor(dialect: Dialect, limits: &Limits) -> Value {
    let max_q = limits.max_questions;
    let (min_o, max_o) = (limits.min_options, limits.max_options);
    let option = |extra: Value| {
        let mut properties = json!({
            "label": {"type": "string", "description": "The text of the choice, 1 to 5 words."},
            "description": {"type": "string", "description": "What the choice means or implies."},
        });
        if let (Some(p), Value::Object(extra)) = (properties.as_object_mut(), extra) {
            p.extend(extra);
        }
        json!({
            "type": "object",
            "properties": properties,
            "required": ["label"],
            "additionalProperties": false,
        })
    };
    let options =
        |item: Value| json!({"type": "array", "items": item, "minItems": min_o, "maxItems": max_o});
    let (description, parameters) = match dialect {
        Dialect::Canonical => return crate::tool_descriptor(crate::ToolFormat::Anthropic, limits),
        Dialect::Claude => (
            "Ask the user multiple-choice questions to gather preferences, clarify requirements or choose between approaches.",
            json!({
                "type": "object",
                "properties": {
                    "questions": {"type": "array", "minItems": 1, "maxItems": max_q, "items": {
                        "type": "object",
                        "properties": {
                            "question": {"type": "string", "description": "The complete question, ending with a question mark."},
                            "header": {"type": "string", "description": "Very short label displayed as a chip (12 characters or fewer)."},
                            "options": options(option(json!({"preview": {"type": "string", "description": "Content shown while the option is focused: a mockup, a code snippet."}}))),
                            "multiSelect": {"type": "boolean", "description": "Allow several options to be selected."},
                        },
                        "required": ["question", "header", "options", "multiSelect"],
                        "additionalProperties": false,
                    }},
                    "answers": {"type": "object", "additionalProperties": {"type": "string"}, "description": "Answers already given, keyed by question text."},
                    "annotations": {"type": "object", "additionalProperties": {"type": "object", "properties": {"preview": {"type": "string"}, "notes": {"type": "string"}}}},
                    "metadata": {"type": "object", "properties": {"source": {"type": "string"}}},
                },
                "required": ["questions"],
                "additionalProperties": false,
            }),
        ),
        Dialect::Codex => (
            // Codex 0.169.0's own words and limits.
            "Request user input for one to three short questions and wait for the response.",
            json!({
                "type": "object",
                "properties": {
                    "questions": {"type": "array", "minItems": 1, "maxItems": max_q.min(3),
                        "description": "Questions to show the user. Prefer 1 and do not exceed 3",
                        "items": {
                        "type": "object",
                        "properties": {
                            "id": {"type": "string", "description": "Stable identifier for mapping answers (snake_case)."},
                            "header": {"type": "string", "description": "Short header label shown in the UI (12 or fewer chars)."},
                            "question": {"type": "string", "description": "Single-sentence prompt shown to the user."},
                            "options": {"type": "array", "minItems": 2, "maxItems": 3,
                                "description": "Provide 2-3 mutually exclusive choices. Put the recommended option first and suffix its label with \"(Recommended)\". Do not include an \"Other\" option in this list; the client will add a free-form \"Other\" option automatically.",
                                "items": {
                                "type": "object",
                                "properties": {
                                    "label": {"type": "string", "description": "User-facing label (1-5 words)."},
                                    "description": {"type": "string", "description": "One short sentence explaining impact/tradeoff if selected."},
                                },
                                "required": ["label", "description"],
                                "additionalProperties": false,
                            }},
                        },
                        "required": ["id", "header", "question", "options"],
                        "additionalProperties": false,
                    }},
                },
                "required": ["questions"],
                "additionalProperties": false,
            }),
        ),
        Dialect::OpenCode => (
            "Ask the user questions during execution, to gather preferences, clarify ambiguous instructions or choose between approaches.",
            json!({
                "type": "object",
                "properties": {
                    "questions": {"type": "array", "minItems": 1, "maxItems": max_q, "items": {
                        "type": "object",
                        "properties": {
                            "question": {"type": "string", "description": "The complete question."},
                            "header": {"type": "string", "description": "Very short label (30 characters or fewer)."},
                            "options": options(option(json!({}))),
                            "multiple": {"type": "boolean", "description": "Allow selecting several choices."},
                        },
                        "required": ["question", "header", "options"],
                        "additionalProperties": false,
                    }},
                },
                "required": ["questions"],
                "additionalProperties": false,
            }),
        ),
        Dialect::Gemini => (
            "Ask the user one or more questions to gather preferences, clarify requirements, or make decisions.",
            json!({
                "type": "object",
                "properties": {
                    "questions": {"type": "array", "minItems": 1, "maxItems": max_q, "items": {
                        "type": "object",
                        "properties": {
                            "question": {"type": "string", "description": "The complete question."},
                            "header": {"type": "string", "description": "Very short label (12 characters or fewer)."},
                            "type": {"type": "string", "enum": ["choice", "text", "yesno"], "description": "choice: selectable options; text: free-form input; yesno: Yes or No."},
                            "options": options(option(json!({}))),
                            "multiSelect": {"type": "boolean", "description": "Allow several selections (type choice only)."},
                            "placeholder": {"type": "string", "description": "Hint text shown in an empty input field."},
                        },
                        "required": ["question", "header", "type"],
                        "additionalProperties": false,
                    }},
                },
                "required": ["questions"],
                "additionalProperties": false,
            }),
        ),
        Dialect::Roo => (
            "Ask the user a question to gather additional information needed to complete the task, with 2 to 4 suggested answers.",
            json!({
                "type": "object",
                "properties": {
                    "question": {"type": "string", "description": "A clear, specific question."},
                    "follow_up": {"type": "array", "minItems": min_o, "maxItems": max_o, "items": {
                        "type": "object",
                        "properties": {
                            "text": {"type": "string", "description": "A complete suggested answer."},
                            "mode": {"type": ["string", "null"], "description": "A mode to switch to when this answer is chosen."},
                        },
                        "required": ["text"],
                        "additionalProperties": false,
                    }},
                },
                "required": ["question", "follow_up"],
                "additionalProperties": false,
            }),
        ),
        Dialect::Cline | Dialect::Simple => {
            let key = if dialect == Dialect::Cline {
                "options"
            } else {
                "suggestions"
            };
            let mut properties = Map::new();
            properties.insert(
                "question".into(),
                json!({"type": "string", "description": "A clear, specific question."}),
            );
            properties.insert(
                key.into(),
                json!({"type": "array", "minItems": min_o, "maxItems": max_o, "items": {"type": "string"}, "description": "Suggested answers; leave out for a free-text question."}),
            );
            (
                "Ask the user a question to gather additional information needed to complete the task.",
                json!({
                    "type": "object",
                    "properties": properties,
                    "required": ["question"],
                    "additionalProperties": false,
                }),
            )
        }
    };
    let description = format!("{description} {SERVED_BY}");
    if dialect == Dialect::Claude {
        json!({"name": dialect.tool_name(), "description": description, "input_schema": parameters})
    } else {
        json!({"name": dialect.tool_name(), "description": description, "parameters": parameters})
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ask_core::{Mode, Outcome, Question, QuestionOption};

    fn record(outcome: Outcome) -> Record {
        let mut database = Question::choice("Which database?", ["Postgres", "SQLite"]);
        database.id = Some("db".into());
        if let Some(options) = database.options.as_mut() {
            options[1] = QuestionOption::new("SQLite").with_description("File");
            options[1].preview = Some("sqlite3 app.db".into());
        }
        let features = Question::choice("Which features?", ["Auth", "Search"]).multi();
        let input = ask_core::AskUserInput {
            questions: vec![database, features],
            metadata: None,
        };
        Record::new(input, Mode::Print, outcome)
    }

    fn answered() -> Record {
        let r = record(Outcome::Cancelled);
        let answers = vec![
            Answer::from_text(&r.questions[0], "sqlite"),
            Answer::multi("Which features?", vec!["Auth".into()], Some("SSO".into())),
        ];
        record(Outcome::Answered(answers))
    }

    #[test]
    fn answered_in_each_shape() {
        let r = answered();
        let claude = result_in(Dialect::Claude, &r, &[]);
        assert_eq!(
            claude["answers"],
            json!({"Which database?": "SQLite", "Which features?": "Auth, SSO"})
        );
        assert_eq!(
            claude["annotations"],
            json!({"Which database?": {"preview": "sqlite3 app.db"}})
        );
        assert_eq!(
            result_in(Dialect::Codex, &r, &[]),
            json!({"answers": {"db": {"answers": ["SQLite"]}, "1": {"answers": ["Auth", "SSO"]}}})
        );
        assert_eq!(
            result_in(Dialect::OpenCode, &r, &[]),
            json!({"answers": [["SQLite"], ["Auth", "SSO"]]})
        );
        assert_eq!(
            result_in(Dialect::Gemini, &r, &[]),
            json!({"answers": {"0": "SQLite", "1": "Auth, SSO"}})
        );
        assert_eq!(
            tool_text_in(Dialect::Gemini, &r, &[]),
            r#"{"answers":{"0":"SQLite","1":"Auth, SSO"}}"#
        );
        assert_eq!(
            tool_text_in(Dialect::OpenCode, &r, &[]),
            "User has answered your questions: \"Which database?\"=\"SQLite\", \"Which features?\"=\"Auth, SSO\". You can now continue with the user's answers in mind."
        );
    }

    #[test]
    fn notes_go_where_each_agent_keeps_them() {
        let r = answered();
        let mut answers = r.answers;
        answers[0] = answers[0]
            .clone()
            .with_notes(Some("only for the prototype"));
        let r = record(Outcome::Answered(answers));
        // Claude Code: beside the chosen option's preview, keyed by the question; the answer
        // string is unchanged.
        let claude = result_in(Dialect::Claude, &r, &[]);
        assert_eq!(claude["answers"]["Which database?"], "SQLite");
        assert_eq!(
            claude["annotations"],
            json!({"Which database?": {"preview": "sqlite3 app.db", "notes": "only for the prototype"}})
        );
        // Codex: a last "user_note: …" entry of that question's answers.
        assert_eq!(
            result_in(Dialect::Codex, &r, &[])["answers"]["db"],
            json!({"answers": ["SQLite", "user_note: only for the prototype"]})
        );
    }

    #[test]
    fn roo_names_the_mode_of_the_chosen_suggestion() {
        let question = Question::choice("Implement it?", ["Yes", "Plan only"]);
        let answer = Answer::from_text(&question, "plan only");
        let input = ask_core::AskUserInput {
            questions: vec![question],
            metadata: None,
        };
        let r = Record::new(input, Mode::Print, Outcome::Answered(vec![answer]));
        let modes = [Some("code".to_string()), Some("architect".to_string())];
        assert_eq!(
            result_in(Dialect::Roo, &r, &modes),
            json!({"answer": "Plan only", "mode": "architect"})
        );
        assert_eq!(
            tool_text_in(Dialect::Roo, &r, &modes),
            "<user_message>\nPlan only\n</user_message>"
        );
        assert_eq!(
            result_in(Dialect::Cline, &r, &modes),
            json!({"answer": "Plan only"})
        );
    }

    #[test]
    fn cancelled_in_each_agents_words() {
        let r = record(Outcome::Cancelled);
        let cases = [
            (Dialect::Claude, CLAUDE_REJECTED),
            (Dialect::Codex, CODEX_CANCELLED),
            (Dialect::Gemini, GEMINI_DISMISSED),
            (Dialect::OpenCode, OPENCODE_DISMISSED),
        ];
        for (dialect, words) in cases {
            let result = result_in(dialect, &r, &[]);
            assert_eq!(result["cancelled"], true, "{dialect}");
            assert_eq!(result["message"], words, "{dialect}");
            assert_eq!(tool_text_in(dialect, &r, &[]), words, "{dialect}");
        }
        // No words of its own: the canonical guidance.
        let roo = result_in(Dialect::Roo, &r, &[]);
        assert_eq!(roo["answer"], Value::Null);
        assert!(
            roo["message"]
                .as_str()
                .unwrap()
                .starts_with("The user cancelled the questions")
        );
        assert_eq!(result_in(Dialect::OpenCode, &r, &[])["answers"], json!([]));
        assert_eq!(result_in(Dialect::Claude, &r, &[])["answers"], json!({}));
    }

    #[test]
    fn pending_and_connection_lost() {
        let instructions = "Questions pending. Answer in /tmp/p.json.";
        let r = record(Outcome::Pending {
            file: "/tmp/p.json".into(),
            instructions: instructions.into(),
        });
        // Every dialect relays the instructions of the frontend that wrote the file.
        for dialect in Dialect::ALL {
            let result = result_in(dialect, &r, &[]);
            assert_eq!(result["pendingFile"], "/tmp/p.json", "{dialect}");
            assert_eq!(result["message"], instructions, "{dialect}");
            assert_eq!(tool_text_in(dialect, &r, &[]), instructions, "{dialect}");
        }
        let lost = record(Outcome::ConnectionLost);
        assert_eq!(tool_text_in(Dialect::Codex, &lost, &[]), CODEX_CANCELLED);
        assert_eq!(
            result_in(Dialect::Gemini, &lost, &[])["connectionLost"],
            true
        );
    }

    #[test]
    fn descriptors_carry_native_names() {
        let limits = Limits::default();
        let names: Vec<Value> = Dialect::ALL
            .into_iter()
            .map(|d| dialect_descriptor(d, &limits)["name"].clone())
            .collect();
        assert_eq!(
            names,
            [
                "AskUserQuestion",
                "request_user_input",
                "question",
                "ask_user",
                "ask_followup_question",
                "ask_followup_question",
                "ask_user",
                "ask_user"
            ]
        );
    }
}

//! What the model gets back: answers, outcomes, the tool output and the persisted record.

use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Value};

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
    /// records an empty string as what the person said.
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
    /// The answer: a label or typed text, or a list for a multi-select question.
    pub answer: AnswerValue,
    /// The option label that was chosen, for a single-choice answer that picked an option.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selected_option: Option<String>,
    /// True when the person typed the answer through "Other" (for a multi-select question: when
    /// typed text is among the answers).
    pub was_custom: bool,
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
        }
    }

    /// The person typed `text`.
    pub fn custom(question: impl Into<String>, text: impl Into<String>) -> Answer {
        Answer {
            question: question.into(),
            answer: AnswerValue::Text(text.into()),
            selected_option: None,
            was_custom: true,
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
        }
    }

    /// The answer to `question` given as a value, as print mode, RPC and MCP receive it, or
    /// `None` when the value is empty ([`AnswerValue::is_empty`]): the question is then
    /// unanswered. A text is read by [`Answer::from_text`] (or, for a multi-select question,
    /// [`Answer::from_texts`]), a list by [`Answer::from_texts`].
    pub fn from_value(question: &Question, value: &AnswerValue) -> Option<Answer> {
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

/// How an ask ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The person answered every question; one answer per question, in order.
    Answered(Vec<Answer>),
    /// The person cancelled; every answer was discarded.
    Cancelled,
    /// The client presenting the questions went away before an answer.
    ConnectionLost,
    /// The questions were written to a pending file for the person to answer later.
    Pending {
        /// The path of the pending file.
        file: String,
    },
}

impl Outcome {
    /// The wire result for this outcome of a call of `questions` questions.
    pub fn to_result(&self, questions: usize) -> AskUserResult {
        let mut result = AskUserResult {
            answered: false,
            answers: Vec::new(),
            cancelled: false,
            connection_lost: false,
            pending_file: None,
            reply: None,
            message: self.message(questions),
        };
        match self {
            Outcome::Answered(answers) => {
                result.answered = true;
                result.answers = answers.clone();
            }
            Outcome::Cancelled => result.cancelled = true,
            Outcome::ConnectionLost => result.connection_lost = true,
            Outcome::Pending { file } => result.pending_file = Some(file.clone()),
        }
        result
    }

    /// The guidance for the model when the person did not answer: what happened and what to do
    /// next (the cancellation guidance, the pending-file instructions to relay). `None` when
    /// answered: the answers speak for themselves. `questions` is the number of questions
    /// asked (the pending instructions give one example answer per question).
    pub fn message(&self, questions: usize) -> Option<String> {
        match self {
            Outcome::Answered(_) => None,
            Outcome::Cancelled => Some(CANCELLED.to_string()),
            Outcome::ConnectionLost => Some(CONNECTION_LOST.to_string()),
            Outcome::Pending { file } => Some(pending_instructions(file, questions)),
        }
    }

    /// The status word of this outcome, as persisted.
    pub fn status(&self) -> Status {
        match self {
            Outcome::Answered(_) => Status::Answered,
            Outcome::Cancelled => Status::Cancelled,
            Outcome::ConnectionLost => Status::ConnectionLost,
            Outcome::Pending { .. } => Status::Pending,
        }
    }
}

/// The structured result of `ask_user`: whether the person answered, and the answers in
/// question order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct AskUserResult {
    /// True when the person answered every question.
    pub answered: bool,
    /// One answer per question, in question order; empty unless answered.
    pub answers: Vec<Answer>,
    /// True when the person cancelled.
    #[serde(default, skip_serializing_if = "is_false")]
    pub cancelled: bool,
    /// True when the client presenting the questions disconnected.
    #[serde(default, skip_serializing_if = "is_false")]
    pub connection_lost: bool,
    /// The pending-questions file, when the questions wait there for an answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending_file: Option<String>,
    /// The person's own words, when they answered all the questions at once in one reply
    /// instead of one answer per question. Each answer then holds this whole reply: read it
    /// and work out what it says about each question.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reply: Option<String>,
    /// What to do next when the person did not answer: relay the pending-file instructions to
    /// the user, or proceed without the answers after a cancellation. The same text as the
    /// tool's text content; absent when answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

fn is_false(value: &bool) -> bool {
    !*value
}

impl AskUserResult {
    /// The outcome this result describes.
    pub fn outcome(&self) -> Outcome {
        if self.answered {
            Outcome::Answered(self.answers.clone())
        } else if let Some(file) = &self.pending_file {
            Outcome::Pending { file: file.clone() }
        } else if self.connection_lost {
            Outcome::ConnectionLost
        } else {
            Outcome::Cancelled
        }
    }

    /// The answer map of REQ-AUQ-003.
    pub fn answer_map(&self) -> AnswerMap {
        AnswerMap::from_answers(&self.answers)
    }
}

/// The answer map `{"answers": {"question text": "answer"}}`, multi-select joined with `", "`,
/// in question order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AnswerMap(pub Vec<(String, String)>);

impl AnswerMap {
    /// Builds the map from answers.
    pub fn from_answers(answers: &[Answer]) -> AnswerMap {
        AnswerMap(
            answers
                .iter()
                .map(|a| (a.question.clone(), a.answer.joined()))
                .collect(),
        )
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
        let mut outer = serializer.serialize_map(Some(1))?;
        outer.serialize_entry("answers", &Inner(&self.0))?;
        outer.end()
    }
}

/// Where a call was answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// The terminal UI.
    Interactive,
    /// The pending-file workflow.
    Print,
    /// An external client over the JSON-lines protocol.
    Rpc,
    /// A web page (`ask-user --mode web`).
    Web,
}

impl Mode {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Interactive => "interactive",
            Mode::Print => "print",
            Mode::Rpc => "rpc",
            Mode::Web => "web",
        }
    }
}

/// The final status of a call, as persisted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Every question was answered.
    Answered,
    /// The person cancelled.
    Cancelled,
    /// The client went away.
    ConnectionLost,
    /// The questions wait in a pending file.
    Pending,
}

/// The persisted record of one call: what was asked, what was answered, when and where.
///
/// It is the `details` of the tool output and one line of a session log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Record {
    /// The agent's tool-call id, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
    /// The questions as asked.
    pub questions: Vec<Question>,
    /// The answers; empty unless the status is `answered`.
    pub answers: Vec<Answer>,
    /// When the outcome became final, in milliseconds since the Unix epoch.
    pub answered_at: u64,
    /// Where the call was answered.
    pub mode: Mode,
    /// The metadata of the call, untouched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
    /// How the call ended.
    pub status: Status,
    /// The pending file, for the `pending` status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending_file: Option<String>,
    /// The person's one reply to all the questions, when they answered in their own words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reply: Option<String>,
}

impl Record {
    /// The outcome this record holds.
    pub fn outcome(&self) -> Outcome {
        match self.status {
            Status::Answered => Outcome::Answered(self.answers.clone()),
            Status::Cancelled => Outcome::Cancelled,
            Status::ConnectionLost => Outcome::ConnectionLost,
            Status::Pending => Outcome::Pending {
                file: self.pending_file.clone().unwrap_or_default(),
            },
        }
    }

    /// The wire result this record replays.
    pub fn result(&self) -> AskUserResult {
        let mut result = self.outcome().to_result(self.questions.len());
        result.reply = self.reply.clone();
        result
    }

    /// The compaction summary: one sentence per question and answer.
    pub fn summary(&self) -> Vec<String> {
        crate::summary::summarize(self)
    }
}

/// The sentence a sub-agent gets back.
pub const SUBAGENT_REFUSAL: &str = "ask_user is only available to the parent conversation; sub-agents cannot ask the user questions";

/// The tool output handed to an agent harness: `{content, details, isError}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ToolOutput {
    /// The text for the model: the answer map when answered, a plain sentence otherwise.
    pub content: String,
    /// The persisted record, when the call reached a frontend.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Record>,
    /// True when the call was refused or invalid.
    pub is_error: bool,
}

impl ToolOutput {
    /// The output for a finished call.
    ///
    /// ```
    /// use ask_core::{Answer, Mode, Outcome, Question, Record, Status, ToolOutput};
    /// let q = Question::choice("Which database?", ["PostgreSQL", "SQLite"]);
    /// let record = Record {
    ///     call_id: None,
    ///     questions: vec![q.clone()],
    ///     answers: vec![Answer::from_text(&q, "sqlite")],
    ///     answered_at: 0,
    ///     mode: Mode::Interactive,
    ///     metadata: None,
    ///     status: Status::Answered,
    ///     pending_file: None,
    ///     reply: None,
    /// };
    /// let output = ToolOutput::from_record(record);
    /// assert_eq!(output.content, r#"{"answers":{"Which database?":"SQLite"}}"#);
    /// assert!(!output.is_error);
    /// ```
    pub fn from_record(record: Record) -> ToolOutput {
        let content = match record.status {
            Status::Answered => match &record.reply {
                Some(reply) => reply_content(&record.questions, reply),
                None => AnswerMap::from_answers(&record.answers).to_json(),
            },
            Status::Cancelled | Status::ConnectionLost | Status::Pending => record
                .outcome()
                .message(record.questions.len())
                .unwrap_or_default(),
        };
        ToolOutput {
            content,
            details: Some(record),
            is_error: false,
        }
    }

    /// The output for a sub-agent's call.
    pub fn refused() -> ToolOutput {
        ToolOutput {
            content: SUBAGENT_REFUSAL.to_string(),
            details: None,
            is_error: true,
        }
    }

    /// The output for an invalid call: every problem, one per line.
    pub fn invalid(problems: &crate::Problems) -> ToolOutput {
        ToolOutput {
            content: format!("The ask_user call is invalid:\n{problems}"),
            details: None,
            is_error: true,
        }
    }
}

/// The guidance for the model after a cancellation.
const CANCELLED: &str = "The user cancelled the questions without answering. Proceed without \
                         these answers; do not ask the same questions again unless the user asks \
                         you to.";

/// The guidance for the model when the presenting client went away.
const CONNECTION_LOST: &str = "The client that was showing the questions disconnected before \
                               the user answered. No answers were given.";

/// The text for the model when the person answered every question at once in their own words.
fn reply_content(questions: &[Question], reply: &str) -> String {
    let mut text = String::from(
        "The user answered the pending questions in one reply, in their own words. The reply \
         covers all of the questions below; work out what it says about each one.\n\nQuestions:\n",
    );
    for (i, question) in questions.iter().enumerate() {
        text.push_str(&format!("{}. {}\n", i + 1, question.question));
    }
    text.push_str("\nThe user's reply:\n");
    text.push_str(reply);
    text
}

/// The instructions shown to the model when `questions` questions are left in a pending file.
/// The example `--answers` array has one entry per question.
pub fn pending_instructions(pending_file: &str, questions: usize) -> String {
    let file = shell_quote(pending_file);
    let example = if questions <= 1 {
        "\"your answer\"".to_string()
    } else {
        (1..=questions)
            .map(|n| format!("\"answer {n}\""))
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!(
        "Questions pending. User input required.\n\
         \n\
         To answer, re-run with:\n\
         \x20 ask-user -p @{file} \"your answers\"\n\
         \n\
         Or edit the JSON file and run:\n\
         \x20 ask-user -c --pending-file {file}\n\
         \n\
         Or give the answers in question order:\n\
         \x20 ask-user -p --answers '[{example}]' --pending-file {file}\n\
         \n\
         Questions saved to: {pending_file}"
    )
}

/// Quotes a path for a POSIX shell when it needs quoting.
fn shell_quote(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+:@%,=".contains(c));
    if plain {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn features() -> Question {
        Question::choice(
            "Which features should we include?",
            ["Authentication", "REST API", "Admin Dashboard"],
        )
        .multi()
    }

    #[test]
    fn result_shapes_match_the_contract() {
        let answered = Outcome::Answered(vec![Answer::selected("Q?", "A")]).to_result(1);
        assert_eq!(
            serde_json::to_value(&answered).unwrap(),
            json!({"answered": true, "answers": [{"question": "Q?", "answer": "A", "selectedOption": "A", "wasCustom": false}]})
        );
        assert_eq!(
            serde_json::to_value(Outcome::Cancelled.to_result(1)).unwrap(),
            json!({"answered": false, "cancelled": true, "answers": [], "message": CANCELLED})
        );
        assert_eq!(
            serde_json::to_value(Outcome::ConnectionLost.to_result(1)).unwrap(),
            json!({"answered": false, "connectionLost": true, "answers": [],
                   "message": CONNECTION_LOST})
        );
        assert_eq!(
            serde_json::to_value(
                Outcome::Pending {
                    file: "p.json".into()
                }
                .to_result(1)
            )
            .unwrap(),
            json!({"answered": false, "answers": [], "pendingFile": "p.json",
                   "message": pending_instructions("p.json", 1)})
        );
    }

    #[test]
    fn structured_result_carries_the_same_guidance_as_the_text() {
        for status in [Status::Cancelled, Status::ConnectionLost, Status::Pending] {
            let record = Record {
                call_id: None,
                questions: vec![features()],
                answers: Vec::new(),
                answered_at: 0,
                mode: Mode::Rpc,
                metadata: None,
                status,
                pending_file: (status == Status::Pending).then(|| "/tmp/p.json".into()),
                reply: None,
            };
            let message = record.result().message;
            assert_eq!(
                message.as_deref(),
                Some(ToolOutput::from_record(record).content.as_str()),
                "{status:?}"
            );
        }
    }

    #[test]
    fn result_round_trips_to_outcome() {
        for outcome in [
            Outcome::Answered(vec![Answer::custom("Q?", "x")]),
            Outcome::Cancelled,
            Outcome::ConnectionLost,
            Outcome::Pending { file: "f".into() },
        ] {
            assert_eq!(outcome.to_result(1).outcome(), outcome);
        }
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
                AnswerValue::Choices(vec![]),
                AnswerValue::Choices(vec![String::new()]),
                AnswerValue::Choices(vec![" ".into(), String::new()]),
            ] {
                assert_eq!(Answer::from_value(question, &value), None, "{value:?}");
            }
        }
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

    #[test]
    fn tool_output_for_each_status() {
        let record = |status, answers: Vec<Answer>| Record {
            call_id: Some("toolu_1".into()),
            questions: vec![features()],
            answers,
            answered_at: 1_707_091_200_000,
            mode: Mode::Print,
            metadata: None,
            status,
            pending_file: (status == Status::Pending).then(|| ".pi/pending-questions.json".into()),
            reply: None,
        };
        let cancelled = ToolOutput::from_record(record(Status::Cancelled, vec![]));
        assert!(cancelled.content.starts_with("The user cancelled"));
        assert!(!cancelled.is_error);
        let pending = ToolOutput::from_record(record(Status::Pending, vec![]));
        assert!(
            pending
                .content
                .starts_with("Questions pending. User input required.")
        );
        assert!(
            pending
                .content
                .contains("ask-user -p @.pi/pending-questions.json \"your answers\"")
        );
        assert!(
            pending
                .content
                .ends_with("Questions saved to: .pi/pending-questions.json")
        );
        let refused = ToolOutput::refused();
        assert!(refused.is_error);
        assert_eq!(
            serde_json::to_value(&refused).unwrap(),
            json!({"content": SUBAGENT_REFUSAL, "isError": true})
        );
    }

    #[test]
    fn record_wire_shape() {
        let q = Question::text("Name?");
        let record = Record {
            call_id: None,
            questions: vec![q],
            answers: vec![Answer::custom("Name?", "order-processor")],
            answered_at: 1_707_091_200_000,
            mode: Mode::Interactive,
            metadata: Some(
                json!({"source": "project-setup"})
                    .as_object()
                    .unwrap()
                    .clone(),
            ),
            status: Status::Answered,
            pending_file: None,
            reply: None,
        };
        assert_eq!(
            serde_json::to_value(&record).unwrap(),
            json!({
                "questions": [{"question": "Name?", "multiSelect": false}],
                "answers": [{"question": "Name?", "answer": "order-processor", "wasCustom": true}],
                "answeredAt": 1_707_091_200_000u64,
                "mode": "interactive",
                "metadata": {"source": "project-setup"},
                "status": "answered"
            })
        );
    }

    #[test]
    fn shell_quoting() {
        assert_eq!(
            shell_quote(".pi/pending-questions.json"),
            ".pi/pending-questions.json"
        );
        assert_eq!(shell_quote("my dir/it's.json"), r"'my dir/it'\''s.json'");
    }
}

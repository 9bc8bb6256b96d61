//! How an ask ended, and the record of it that is persisted and handed on.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::input::Question;

use super::answer::{Answer, AnswerValue, SECRET_PLACEHOLDER, answer_mask, any_secret};
use super::tool_output::AskUserResult;

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
        /// What the model relays to the person: how to answer the pending questions, in the
        /// commands of the host that runs the frontend which wrote the file.
        instructions: String,
    },
}

impl Outcome {
    /// The wire result for this outcome.
    pub fn to_result(&self) -> AskUserResult {
        let mut result = AskUserResult {
            message: self.message(),
            ..AskUserResult::unanswered()
        };
        match self {
            Outcome::Answered(answers) => {
                result.answered = true;
                result.answers = answers.clone();
            }
            Outcome::Cancelled => result.cancelled = true,
            Outcome::ConnectionLost => result.connection_lost = true,
            Outcome::Pending { file, .. } => result.pending_file = Some(file.clone()),
        }
        result
    }

    /// The guidance for the model when the person did not answer: what happened and what to do
    /// next (the cancellation guidance, the pending-file instructions to relay). `None` when
    /// answered: the answers speak for themselves.
    pub fn message(&self) -> Option<String> {
        match self {
            Outcome::Answered(_) => None,
            Outcome::Cancelled => Some(CANCELLED.to_string()),
            Outcome::ConnectionLost => Some(CONNECTION_LOST.to_string()),
            Outcome::Pending { instructions, .. } => Some(instructions.clone()),
        }
    }

    /// The outcome of questions pending in `file`, with the `instructions` that came with them,
    /// or when those are not known (a record read back, which never keeps them) the sentence
    /// that says where the questions wait.
    pub(super) fn pending(file: String, instructions: Option<String>) -> Outcome {
        let instructions = instructions.unwrap_or_else(|| {
            format!("Questions pending. User input required.\n\nQuestions saved to: {file}")
        });
        Outcome::Pending { file, instructions }
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

/// The guidance for the model after a cancellation.
pub(super) const CANCELLED: &str = "The user cancelled the questions without answering. \
    Proceed without these answers; do not ask the same questions again unless the user asks you \
    to.";

/// The guidance for the model when the presenting client went away.
pub(super) const CONNECTION_LOST: &str = "The client that was showing the questions \
    disconnected before the user answered. No answers were given.";

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
    /// Frames drawn inside a host's own terminal UI.
    Embedded,
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
            Mode::Embedded => "embedded",
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
    /// The preview of each chosen option that has one, in question and option order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub previews: Vec<ChosenPreview>,
    /// For the `pending` status, the instructions of the frontend that wrote the pending file
    /// ([`Outcome::Pending`]). Never kept: a record read back has none.
    #[serde(skip)]
    pub pending_instructions: Option<String>,
}

/// The preview of an option the person chose, as the record (the tool output's `details`)
/// keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ChosenPreview {
    /// The question, as asked.
    pub question: String,
    /// The chosen option's label.
    pub option: String,
    /// That option's preview, as the call gave it.
    pub preview: String,
}

impl ChosenPreview {
    /// The previews of the options chosen in `answers` to `questions`: the selected option of a
    /// single choice, each chosen label of a multi-select; typed text has none.
    pub fn of(questions: &[Question], answers: &[Answer]) -> Vec<ChosenPreview> {
        let mut out = Vec::new();
        for answer in answers {
            let Some(question) = questions.iter().find(|q| q.question == answer.question) else {
                continue;
            };
            let chosen: Vec<&str> = match (&answer.selected_option, &answer.answer) {
                (Some(label), _) => vec![label.as_str()],
                (None, AnswerValue::Choices(texts)) => texts.iter().map(String::as_str).collect(),
                (None, AnswerValue::Text(_)) => Vec::new(),
            };
            for option in question.options() {
                if let Some(preview) = &option.preview
                    && chosen.contains(&option.label.as_str())
                {
                    out.push(ChosenPreview {
                        question: question.question.clone(),
                        option: option.label.clone(),
                        preview: preview.clone(),
                    });
                }
            }
        }
        out
    }
}

impl Record {
    /// The outcome this record holds.
    pub fn outcome(&self) -> Outcome {
        match self.status {
            Status::Answered => Outcome::Answered(self.answers.clone()),
            Status::Cancelled => Outcome::Cancelled,
            Status::ConnectionLost => Outcome::ConnectionLost,
            Status::Pending => Outcome::pending(
                self.pending_file.clone().unwrap_or_default(),
                self.pending_instructions.clone(),
            ),
        }
    }

    /// The wire result this record replays.
    pub fn result(&self) -> AskUserResult {
        let mut result = self.outcome().to_result();
        result.reply = self.reply.clone();
        result
    }

    /// The answer map of the call (`--output answers`): `{"answers": {question: answer}}`. While
    /// the questions wait, or after a cancellation or a lost connection, the map is empty and a
    /// field beside it says why, so an empty map never reads as "answered nothing".
    ///
    /// The map keeps the questions in the order they were asked, so it is given as JSON text.
    pub fn answers_output(&self) -> String {
        let value = match self.status {
            Status::Answered => return self.result().answer_map().to_json(),
            Status::Pending => serde_json::json!({"answers": {}, "pendingFile": self.pending_file}),
            Status::Cancelled => serde_json::json!({"answers": {}, "cancelled": true}),
            Status::ConnectionLost => serde_json::json!({"answers": {}, "connectionLost": true}),
        };
        value.to_string()
    }

    /// True when a question of the call is secret: its record holds no answer to replay.
    pub fn has_secret(&self) -> bool {
        any_secret(&self.questions)
    }

    /// The record as it may be kept or shown: the answer of each secret question (with its
    /// chosen option and note) replaced by [`SECRET_PLACEHOLDER`], and a whole-call reply too
    /// when a question is secret. Only the result handed to the model holds a secret; every
    /// session log line, tool-output `details` and display holds this form.
    #[must_use]
    pub fn redacted(&self) -> Record {
        if !self.has_secret() {
            return self.clone();
        }
        let question = |text: &str| self.questions.iter().find(|q| q.question == text);
        let secret = |text: &str| question(text).and_then(answer_mask).is_some();
        let mut record = self.clone();
        for answer in &mut record.answers {
            if let Some(question) = question(&answer.question) {
                *answer = answer.shown(question).into_owned();
            }
        }
        // The chosen option's preview would tell which option a secret answer is.
        record.previews.retain(|chosen| !secret(&chosen.question));
        if record.reply.is_some() {
            record.reply = Some(SECRET_PLACEHOLDER.to_string());
        }
        record
    }

    /// A record of `input`, asked in `mode`, ending in `outcome`; it has no call id and is
    /// answered at 0 until [`Record::with_call_id`] and [`Record::with_answered_at`] say
    /// otherwise.
    ///
    /// ```
    /// use ask_core::{AskUserInput, Mode, Outcome, Question, Record};
    /// let input = AskUserInput { questions: vec![Question::text("Name?")], metadata: None };
    /// let record = Record::new(input, Mode::Print, Outcome::Cancelled)
    ///     .with_call_id(Some("toolu_1".into()))
    ///     .with_answered_at(1_700_000_000_000);
    /// assert_eq!(record.call_id.as_deref(), Some("toolu_1"));
    /// assert_eq!(record.answered_at, 1_700_000_000_000);
    /// ```
    pub fn new(input: crate::AskUserInput, mode: Mode, outcome: Outcome) -> Record {
        let status = outcome.status();
        let (answers, pending_file, pending_instructions) = match outcome {
            Outcome::Answered(answers) => (answers, None, None),
            Outcome::Pending { file, instructions } => (Vec::new(), Some(file), Some(instructions)),
            Outcome::Cancelled | Outcome::ConnectionLost => (Vec::new(), None, None),
        };
        let previews = crate::ChosenPreview::of(&input.questions, &answers);
        Record {
            call_id: None,
            questions: input.questions,
            answers,
            answered_at: 0,
            mode,
            metadata: input.metadata,
            status,
            pending_file,
            reply: None,
            previews,
            pending_instructions,
        }
    }

    /// The record with the call id the ask answered, if it had one.
    pub fn with_call_id(mut self, call_id: Option<String>) -> Record {
        self.call_id = call_id;
        self
    }

    /// The record answered at `answered_at`, in milliseconds since the Unix epoch.
    pub fn with_answered_at(mut self, answered_at: u64) -> Record {
        self.answered_at = answered_at;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::ToolOutput;
    use crate::result::test_support::features;
    use serde_json::json;

    fn secret_record() -> Record {
        let token = Question::text("Paste the deploy token").secret();
        let mut env = Question::choice("Which environment?", ["staging", "production"]);
        env.options.as_mut().unwrap()[1].preview = Some("prod.example.com".into());
        let mut hidden = Question::choice("Which key?", ["old", "new"]).secret();
        hidden.options.as_mut().unwrap()[1].preview = Some("key id 42".into());
        let answers = vec![
            Answer::custom("Paste the deploy token", "tok-123").with_notes(Some("expires Friday")),
            Answer::selected("Which environment?", "production"),
            Answer::selected("Which key?", "new"),
        ];
        Record::new(
            crate::AskUserInput {
                questions: vec![token, env, hidden],
                metadata: None,
            },
            Mode::Interactive,
            Outcome::Answered(answers),
        )
        .with_call_id(Some("toolu_1".into()))
        .with_answered_at(7)
    }

    #[test]
    fn a_record_keeps_secret_answers_only_as_a_placeholder() {
        let record = secret_record();
        assert!(record.has_secret());
        let kept = record.redacted();
        let text = serde_json::to_string(&kept).unwrap();
        for secret in ["tok-123", "expires Friday"] {
            assert!(!text.contains(secret), "{secret} in {text}");
        }
        // The questions are kept as asked; which option a secret answer chose is not.
        let chosen = serde_json::to_string(&(&kept.answers, &kept.previews)).unwrap();
        for secret in ["key id 42", "\"new\""] {
            assert!(!chosen.contains(secret), "{secret} in {chosen}");
        }
        assert_eq!(
            serde_json::to_value(&kept.answers).unwrap(),
            json!([
                {"question": "Paste the deploy token", "answer": "[secret]", "wasCustom": true,
                 "notes": "[secret]"},
                {"question": "Which environment?", "answer": "production",
                 "selectedOption": "production", "wasCustom": false},
                {"question": "Which key?", "answer": "[secret]", "selectedOption": "[secret]",
                 "wasCustom": false}
            ])
        );
        // The preview of a chosen option that is not secret stays.
        assert_eq!(
            kept.previews,
            vec![ChosenPreview {
                question: "Which environment?".into(),
                option: "production".into(),
                preview: "prod.example.com".into(),
            }]
        );
        // A record without a secret question is kept whole.
        let mut plain = secret_record();
        plain.questions.iter_mut().for_each(|q| q.secret = false);
        assert_eq!(plain.redacted(), plain);
    }

    #[test]
    fn the_model_gets_the_secret_and_the_details_do_not() {
        let output = ToolOutput::from_record(secret_record());
        assert!(output.content.contains("tok-123"), "{}", output.content);
        let details = serde_json::to_string(&output.details).unwrap();
        assert!(!details.contains("tok-123"), "{details}");
        assert!(details.contains("[secret]"), "{details}");
    }

    #[test]
    fn the_chosen_options_previews_go_into_the_record() {
        let mut q = features();
        for (option, preview) in q.options.as_mut().unwrap().iter_mut().zip(["a", "b", "c"]) {
            option.preview = Some(format!("preview {preview}"));
        }
        let previews = ChosenPreview::of(
            std::slice::from_ref(&q),
            &[Answer::multi(
                &q.question,
                vec![q.options()[0].label.clone(), q.options()[2].label.clone()],
                Some("typed".into()),
            )],
        );
        let shown: Vec<(&str, &str)> = previews
            .iter()
            .map(|p| (p.option.as_str(), p.preview.as_str()))
            .collect();
        assert_eq!(
            shown,
            [
                (q.options()[0].label.as_str(), "preview a"),
                (q.options()[2].label.as_str(), "preview c")
            ]
        );
        // Typed text has no preview.
        assert!(
            ChosenPreview::of(
                std::slice::from_ref(&q),
                &[Answer::custom(&q.question, "x")]
            )
            .is_empty()
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
            previews: Vec::new(),
            pending_instructions: None,
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
}

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
    /// The answer: a label or typed text, or a list for a multi-select question. The answer to
    /// a secret question is here, in this result, only: records and logs hold "[secret]".
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
    fn pending(file: String, instructions: Option<String>) -> Outcome {
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
    /// True when the call was refused before anything was shown: the caller is a sub-agent.
    #[serde(default, skip_serializing_if = "is_false")]
    pub refused: bool,
    /// True when the call is invalid and nothing was shown; `problems` says what to fix.
    #[serde(default, skip_serializing_if = "is_false")]
    pub invalid: bool,
    /// Each problem of an invalid call, with its JSON path; fix them all and call again.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<ProblemReport>,
}

/// One problem of an invalid call as results and reports carry it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ProblemReport {
    /// The JSON pointer of the offending value in the call (empty for the whole call), shown
    /// safely: it names the model's own keys.
    pub path: String,
    /// What is wrong, in a sentence a model can act on.
    pub message: String,
}

impl ProblemReport {
    /// A report of `message` at `path`, the path sanitised for display.
    pub fn new(path: &str, message: impl Into<String>) -> ProblemReport {
        ProblemReport {
            path: crate::sanitize_for_display(path).into_owned(),
            message: message.into(),
        }
    }

    /// Every problem of `problems`, in order.
    pub fn all(problems: &crate::Problems) -> Vec<ProblemReport> {
        problems
            .iter()
            .map(|problem| ProblemReport::new(&problem.path, problem.kind.to_string()))
            .collect()
    }
}

fn is_false(value: &bool) -> bool {
    !*value
}

impl AskUserResult {
    /// The result of a sub-agent's call: refused before anything was shown.
    pub fn refused() -> AskUserResult {
        AskUserResult {
            refused: true,
            message: Some(SUBAGENT_REFUSAL.to_string()),
            ..AskUserResult::unanswered()
        }
    }

    /// The result of an invalid call: nothing was shown; every problem with its path.
    pub fn invalid(problems: &crate::Problems) -> AskUserResult {
        AskUserResult {
            invalid: true,
            problems: ProblemReport::all(problems),
            message: Some(ToolOutput::invalid(problems).content),
            ..AskUserResult::unanswered()
        }
    }

    fn unanswered() -> AskUserResult {
        AskUserResult {
            answered: false,
            answers: Vec::new(),
            cancelled: false,
            connection_lost: false,
            pending_file: None,
            reply: None,
            message: None,
            refused: false,
            invalid: false,
            problems: Vec::new(),
        }
    }

    /// The outcome this result describes.
    pub fn outcome(&self) -> Outcome {
        if self.answered {
            Outcome::Answered(self.answers.clone())
        } else if let Some(file) = &self.pending_file {
            Outcome::pending(file.clone(), self.message.clone())
        } else if self.connection_lost {
            Outcome::ConnectionLost
        } else {
            Outcome::Cancelled
        }
    }

    /// The answer map: each question's text with its answer, in question order ([`AnswerMap`]).
    pub fn answer_map(&self) -> AnswerMap {
        AnswerMap::from_answers(&self.answers)
    }
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
    ///     previews: Vec::new(),
    ///     pending_instructions: None,
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
            Status::Cancelled | Status::ConnectionLost | Status::Pending => {
                record.outcome().message().unwrap_or_default()
            }
        };
        ToolOutput {
            content,
            // The details are kept by the agent's harness: never a secret.
            details: Some(record.redacted()),
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

    /// The output for a call whose questions were interrupted before an outcome: Ctrl+C twice
    /// in the terminal UI (`signal` is `None`), or a signal such as SIGTERM (its name). Nothing
    /// was answered and nothing is recorded, so there are no details.
    pub fn interrupted(signal: Option<&str>) -> ToolOutput {
        ToolOutput {
            content: interrupted_text(signal),
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

/// The sentence for the model when the questions were interrupted before an outcome: by Ctrl+C
/// twice (`signal` is `None`) or by the named signal.
pub fn interrupted_text(signal: Option<&str>) -> String {
    match signal {
        None => "The user interrupted the questions with Ctrl+C twice; nothing was answered."
            .to_string(),
        Some(name) => format!(
            "The questions were interrupted by {name} before the user answered; nothing was \
             answered."
        ),
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
        let answered = Outcome::Answered(vec![Answer::selected("Q?", "A")]).to_result();
        assert_eq!(
            serde_json::to_value(&answered).unwrap(),
            json!({"answered": true, "answers": [{"question": "Q?", "answer": "A", "selectedOption": "A", "wasCustom": false}]})
        );
        assert_eq!(
            serde_json::to_value(Outcome::Cancelled.to_result()).unwrap(),
            json!({"answered": false, "cancelled": true, "answers": [], "message": CANCELLED})
        );
        assert_eq!(
            serde_json::to_value(Outcome::ConnectionLost.to_result()).unwrap(),
            json!({"answered": false, "connectionLost": true, "answers": [],
                   "message": CONNECTION_LOST})
        );
        assert_eq!(
            serde_json::to_value(
                Outcome::Pending {
                    file: "p.json".into(),
                    instructions: "Answer in p.json.".into(),
                }
                .to_result()
            )
            .unwrap(),
            json!({"answered": false, "answers": [], "pendingFile": "p.json",
                   "message": "Answer in p.json."})
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
                previews: Vec::new(),
                pending_instructions: None,
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
            Outcome::Pending {
                file: "f".into(),
                instructions: "Answer in f.".into(),
            },
        ] {
            assert_eq!(outcome.to_result().outcome(), outcome);
        }
    }

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
            Some("toolu_1".into()),
            crate::AskUserInput {
                questions: vec![token, env, hidden],
                metadata: None,
            },
            Mode::Interactive,
            Outcome::Answered(answers),
            7,
        )
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
            previews: Vec::new(),
            pending_instructions: None,
        };
        let cancelled = ToolOutput::from_record(record(Status::Cancelled, vec![]));
        assert!(cancelled.content.starts_with("The user cancelled"));
        assert!(!cancelled.is_error);
        // A pending record says what its frontend wrote, and a record read back, which never
        // keeps that, still says where the questions wait.
        let mut pending = record(Status::Pending, vec![]);
        pending.pending_instructions = Some("Answer in the file.".into());
        assert_eq!(
            ToolOutput::from_record(pending.clone()).content,
            "Answer in the file."
        );
        let read_back: Record =
            serde_json::from_str(&serde_json::to_string(&pending).unwrap()).unwrap();
        assert_eq!(read_back.pending_instructions, None);
        assert_eq!(
            ToolOutput::from_record(read_back).content,
            "Questions pending. User input required.\n\n\
             Questions saved to: .pi/pending-questions.json"
        );
        let refused = ToolOutput::refused();
        assert!(refused.is_error);
        assert_eq!(
            serde_json::to_value(&refused).unwrap(),
            json!({"content": SUBAGENT_REFUSAL, "isError": true})
        );
    }

    #[test]
    fn interrupted_output_is_an_error_without_a_record() {
        assert_eq!(
            serde_json::to_value(ToolOutput::interrupted(None)).unwrap(),
            json!({"content": "The user interrupted the questions with Ctrl+C twice; nothing was answered.",
                   "isError": true})
        );
        let by_signal = ToolOutput::interrupted(Some("SIGTERM"));
        assert_eq!(
            by_signal.content,
            "The questions were interrupted by SIGTERM before the user answered; nothing was answered."
        );
        assert!(by_signal.is_error && by_signal.details.is_none());
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

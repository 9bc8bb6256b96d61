//! The pending-questions file: its format, and how a call goes into it and comes back out.
//!
//! Nothing here touches the disk; `store.rs` does.

use ask_core::{AskUserInput, Question, QuestionKind, QuestionOption, Record};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The format version this build writes and understands.
pub const FORMAT_VERSION: u32 = 1;

/// The pending-questions file.
///
/// The fields the person edits are `questions[].answer`; the others let pass 2 rebuild the exact
/// call. A file the person writes by hand needs only `questions`, each with its `question` and
/// `answer` (`{"questions": [{"question": "Service name?", "answer": "order-processor"}]}`):
/// `version`, `sessionId`, `timestamp` and `revision` may be left out, and a file without
/// `fingerprints` is taken as the questions it shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PendingFile {
    /// The format version ([`FORMAT_VERSION`], when left out).
    #[serde(default = "format_version")]
    pub version: u32,
    /// The agent session that asked (empty when left out).
    #[serde(default)]
    pub session_id: String,
    /// The agent's tool-call id, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
    /// The file's revision: 1 as pass 1 writes it, 2 once pass 2 has put it in the `answered`
    /// state. Pass 2 writes or removes the file only if it still holds the bytes it read, and
    /// names this revision when it does not. 1 when left out.
    #[serde(default = "first_revision")]
    pub revision: u64,
    /// When the questions were asked (RFC 3339, UTC; empty when left out).
    #[serde(default)]
    pub timestamp: String,
    /// A note for the person editing the file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub how_to_answer: Option<String>,
    /// The questions, each with its answer (`null` until answered).
    pub questions: Vec<PendingQuestion>,
    /// The call's metadata, untouched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
    /// The `answered` state: pass 2 took a complete set of answers and keeps them here until
    /// they are recorded and delivered. The next pass-2 command of any form delivers this
    /// record instead of reading the answers again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answered: Option<Record>,
    /// One fingerprint per question as the model asked it (its text, header, options and their
    /// descriptions, multiSelect): the result echoes the questions as asked, so pass 2 refuses a
    /// file whose questions were edited. Empty in a file written before fingerprints were kept.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fingerprints: Vec<String>,
    /// True when the answers go back to the model through its next call of the same questions
    /// (a file written by `ask-user mcp`): pass 2 stops at the `answered` state instead of
    /// removing the file, and that call delivers the answers and removes it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub awaits_call: bool,
}

fn format_version() -> u32 {
    FORMAT_VERSION
}

fn first_revision() -> u64 {
    1
}

/// How the questions of a pending file differ from the questions that were asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Edited {
    /// Questions were added or removed.
    Count {
        /// Questions asked.
        asked: usize,
        /// Questions in the file now.
        found: usize,
    },
    /// The question at this 0-based index was changed.
    Question(usize),
}

/// One question of the pending file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PendingQuestion {
    /// The question text.
    pub question: String,
    /// The short header.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header: Option<String>,
    /// The option labels; absent for a free-text question.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub options: Option<Vec<String>>,
    /// The descriptions of the options that have one, by label, in option order.
    #[serde(default, skip_serializing_if = "Descriptions::is_empty")]
    pub option_descriptions: Descriptions,
    /// The previews of the options that have one, by label, in option order.
    #[serde(default, skip_serializing_if = "Descriptions::is_empty")]
    pub option_previews: Descriptions,
    /// True when several options may be chosen.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub multi_select: bool,
    /// The kind of answer: absent for a choice or free-text question, `yesno` or `path`.
    #[serde(default, skip_serializing_if = "QuestionKind::is_choice")]
    pub kind: QuestionKind,
    /// The example text the call gave for the answer, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placeholder: Option<String>,
    /// The question's identifier, if the call gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The answer: `null` until answered, then a string (an option label or the person's own
    /// words), or a list of strings for a multi-select question.
    #[serde(default)]
    pub answer: Value,
    /// A note the person may add to the answer (optional; written in by the person, never by
    /// pass 1): it returns beside the answer as `notes`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
}

/// The descriptions of a question's options, by label: a JSON object whose keys stay in the
/// order they were written (option order), where a map type would sort them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Descriptions(pub Vec<(String, String)>);

impl Descriptions {
    /// The description of the option `label`, if it has one.
    pub fn get(&self, label: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(l, _)| l == label)
            .map(|(_, description)| description.as_str())
    }

    /// True when no option has a description.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl Serialize for Descriptions {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.0.iter().map(|(l, d)| (l, d)))
    }
}

impl<'de> Deserialize<'de> for Descriptions {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct InOrder;
        impl<'de> serde::de::Visitor<'de> for InOrder {
            type Value = Descriptions;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object of option labels and their descriptions")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Descriptions, A::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = map.next_entry::<String, String>()? {
                    entries.push(entry);
                }
                Ok(Descriptions(entries))
            }
        }
        deserializer.deserialize_map(InOrder)
    }
}

impl PendingQuestion {
    /// A fingerprint of everything but the answer: 64-bit FNV-1a of the question's JSON with
    /// the answer left out and the descriptions sorted by label (a tool that rewrites the file
    /// may reorder an object's keys), in hex. It catches an edit, not a forgery.
    pub fn fingerprint(&self) -> String {
        let mut asked = PendingQuestion {
            answer: Value::Null,
            notes: None,
            ..self.clone()
        };
        asked.option_descriptions.0.sort();
        asked.option_previews.0.sort();
        let text = serde_json::to_string(&asked).unwrap_or_default();
        let hash = text.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
            (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
        });
        format!("{hash:016x}")
    }
}

impl PendingFile {
    /// How the questions differ from the ones asked, if they were edited.
    pub fn edited(&self) -> Option<Edited> {
        if self.fingerprints.is_empty() {
            return None;
        }
        if self.fingerprints.len() != self.questions.len() {
            return Some(Edited::Count {
                asked: self.fingerprints.len(),
                found: self.questions.len(),
            });
        }
        self.questions
            .iter()
            .zip(&self.fingerprints)
            .position(|(question, asked)| question.fingerprint() != *asked)
            .map(Edited::Question)
    }

    /// The pending file for a call, without the call id, the session id, the time or the
    /// `howToAnswer` note (which names the commands of the host that writes it): its writer
    /// fills them in.
    pub(crate) fn new(input: &AskUserInput) -> PendingFile {
        let questions: Vec<PendingQuestion> = input
            .questions
            .iter()
            .map(|q| PendingQuestion {
                question: q.question.clone(),
                header: q.header.clone(),
                options: q
                    .options
                    .as_ref()
                    .map(|o| o.iter().map(|o| o.label.clone()).collect()),
                option_descriptions: Descriptions(
                    q.options()
                        .iter()
                        .filter_map(|o| Some((o.label.clone(), o.description.clone()?)))
                        .collect(),
                ),
                option_previews: Descriptions(
                    q.options()
                        .iter()
                        .filter_map(|o| Some((o.label.clone(), o.preview.clone()?)))
                        .collect(),
                ),
                multi_select: q.multi_select,
                kind: q.kind,
                placeholder: q.placeholder.clone(),
                id: q.id.clone(),
                answer: Value::Null,
                notes: None,
            })
            .collect();
        let fingerprints = questions.iter().map(PendingQuestion::fingerprint).collect();
        PendingFile {
            version: FORMAT_VERSION,
            session_id: String::new(),
            call_id: None,
            revision: 1,
            timestamp: String::new(),
            how_to_answer: None,
            questions,
            metadata: input.metadata.clone(),
            answered: None,
            fingerprints,
            awaits_call: false,
        }
    }

    /// True when `input` asks exactly the questions of this file (their fingerprints), whatever
    /// answers the file holds.
    pub fn asks(&self, input: &AskUserInput) -> bool {
        let asked = PendingFile::new(input);
        !self.fingerprints.is_empty() && self.fingerprints == asked.fingerprints
    }

    /// True when this file was written by hand (it has no fingerprints) and shows the questions
    /// of `input`, word for word and in order: its answers are taken for that call.
    pub fn shows(&self, input: &AskUserInput) -> bool {
        self.fingerprints.is_empty()
            && self.questions.len() == input.questions.len()
            && self
                .questions
                .iter()
                .zip(&input.questions)
                .all(|(shown, asked)| shown.question == asked.question)
    }

    /// The file in the `answered` state: the record is kept, and each question's `answer` shows
    /// what was taken, so that `ask-user questions` shows it too.
    #[must_use]
    pub fn into_answered(mut self, record: Record) -> PendingFile {
        for (question, answer) in self.questions.iter_mut().zip(&record.answers) {
            question.answer = serde_json::to_value(&answer.answer).unwrap_or(Value::Null);
        }
        self.answered = Some(record);
        self.revision += 1;
        self
    }

    /// The call as it was asked, rebuilt from the file.
    pub fn to_input(&self) -> AskUserInput {
        let questions = self
            .questions
            .iter()
            .map(|q| Question {
                question: q.question.clone(),
                header: q.header.clone(),
                options: q.options.as_ref().map(|labels| {
                    labels
                        .iter()
                        .map(|label| QuestionOption {
                            label: label.clone(),
                            description: q.option_descriptions.get(label).map(str::to_string),
                            preview: q.option_previews.get(label).map(str::to_string),
                        })
                        .collect()
                }),
                multi_select: q.multi_select,
                kind: q.kind,
                placeholder: q.placeholder.clone(),
                secret: false,
                id: q.id.clone(),
            })
            .collect();
        AskUserInput {
            questions,
            metadata: self.metadata.clone(),
        }
    }

    /// The file as pretty JSON with a final newline.
    pub fn to_text(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        text
    }
}

/// A field of a pending file that is present but of the wrong kind, or a required one that is
/// missing: where it is, what was found, and what to write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WrongField {
    /// Where the field is, as a JSON path: `version`, `questions[1].multiSelect`.
    pub field: String,
    /// What was found: "a string", "missing".
    pub found: &'static str,
    /// What to write instead.
    pub write: &'static str,
}

/// What a field of the pending file may hold, and what to write when it holds something else.
#[derive(Clone, Copy)]
enum Kind {
    /// A whole number of at least 1.
    Count(&'static str),
    /// A string.
    Text(&'static str),
    /// `true` or `false`.
    Flag,
    /// A list of strings.
    Texts(&'static str),
    /// An object whose values are strings.
    TextsByLabel,
    /// An object.
    Object,
    /// Anything: checked later, or by the record's own reader.
    Any,
}

impl Kind {
    fn fits(self, value: &Value) -> bool {
        match self {
            Kind::Count(_) => value
                .as_u64()
                .is_some_and(|n| n >= 1 && n <= u64::from(u32::MAX)),
            Kind::Text(_) => value.is_string(),
            Kind::Flag => value.is_boolean(),
            Kind::Texts(_) => value
                .as_array()
                .is_some_and(|items| items.iter().all(Value::is_string)),
            Kind::TextsByLabel => value
                .as_object()
                .is_some_and(|map| map.values().all(Value::is_string)),
            Kind::Object => value.is_object(),
            Kind::Any => true,
        }
    }

    fn write(self) -> &'static str {
        match self {
            Kind::Count(write) | Kind::Text(write) | Kind::Texts(write) => write,
            Kind::Flag => "write true or false, or leave it out",
            Kind::TextsByLabel => {
                "write an object of option labels and their texts, or leave it out"
            }
            Kind::Object => "write an object, or leave it out",
            Kind::Any => "",
        }
    }
}

/// The fields of the file, and what each may hold.
const FILE_FIELDS: [(&str, Kind); 10] = [
    ("version", Kind::Count("write 1, or leave it out")),
    ("sessionId", Kind::Text("write a string, or leave it out")),
    ("callId", Kind::Text("write a string, or leave it out")),
    (
        "revision",
        Kind::Count("write a whole number such as 1, or leave it out"),
    ),
    (
        "timestamp",
        Kind::Text("write a time such as \"2026-02-04T22:16:32Z\", or leave it out"),
    ),
    ("howToAnswer", Kind::Text("write a string, or leave it out")),
    ("metadata", Kind::Object),
    ("answered", Kind::Any),
    (
        "fingerprints",
        Kind::Texts("leave it as ask-user wrote it, or leave it out"),
    ),
    ("awaitsCall", Kind::Flag),
];

/// The fields of a question, and what each may hold.
const QUESTION_FIELDS: [(&str, Kind); 11] = [
    (
        "question",
        Kind::Text("write the question's text as a string"),
    ),
    (
        "header",
        Kind::Text("write a short string, or leave it out"),
    ),
    (
        "options",
        Kind::Texts("write the option labels as a list of strings, or leave it out"),
    ),
    ("optionDescriptions", Kind::TextsByLabel),
    ("optionPreviews", Kind::TextsByLabel),
    ("multiSelect", Kind::Flag),
    (
        "kind",
        Kind::Text("write \"yesno\" or \"path\", or leave it out"),
    ),
    ("placeholder", Kind::Text("write a string, or leave it out")),
    ("id", Kind::Text("write a string, or leave it out")),
    ("answer", Kind::Any),
    (
        "notes",
        Kind::Text("write your note as a string, or leave it out"),
    ),
];

/// The fields that `null` leaves out.
const NULLABLE: [&str; 10] = [
    "callId",
    "howToAnswer",
    "metadata",
    "answered",
    "header",
    "options",
    "placeholder",
    "id",
    "answer",
    "notes",
];

/// The first field of a pending file's JSON that is present but holds the wrong kind of value,
/// or `questions` or a question's `question` missing; fields it does not know are left to the
/// parser, which names them. `null` is taken as left out where the parser takes it so.
pub(crate) fn wrong_field(value: &Value) -> Option<WrongField> {
    let wrong = |field: String, found: &'static str, write: &'static str| {
        Some(WrongField {
            field,
            found,
            write,
        })
    };
    let Some(file) = value.as_object() else {
        return wrong(
            "the file".into(),
            crate::answers::kind_of(value),
            "write an object: {\"questions\": [{\"question\": \"…\", \"answer\": \"…\"}]}",
        );
    };
    let present = |map: &'_ Map<String, Value>, field: &str, kind: Kind| {
        map.get(field)
            .filter(|value| !kind.fits(value))
            .filter(|value| !(value.is_null() && NULLABLE.contains(&field)))
            .map(|value| (crate::answers::kind_of(value), kind.write()))
    };
    for (field, kind) in FILE_FIELDS {
        if let Some((found, write)) = present(file, field, kind) {
            return wrong(field.into(), found, write);
        }
    }
    let questions = match file.get("questions") {
        None => {
            return wrong(
                "questions".into(),
                "missing",
                "write the questions, each with its answer: \"questions\": [{\"question\": \"…\", \"answer\": \"…\"}]",
            );
        }
        Some(Value::Array(questions)) => questions,
        Some(other) => {
            return wrong(
                "questions".into(),
                crate::answers::kind_of(other),
                "write a list: \"questions\": [{\"question\": \"…\", \"answer\": \"…\"}]",
            );
        }
    };
    for (index, question) in questions.iter().enumerate() {
        let Some(question) = question.as_object() else {
            return wrong(
                format!("questions[{index}]"),
                crate::answers::kind_of(question),
                "write an object: {\"question\": \"…\", \"answer\": \"…\"}",
            );
        };
        for (field, kind) in QUESTION_FIELDS {
            if let Some((found, write)) = present(question, field, kind) {
                return wrong(format!("questions[{index}].{field}"), found, write);
            }
        }
        if !question.contains_key("question") {
            return wrong(
                format!("questions[{index}].question"),
                "missing",
                "write the question's text, as the agent asked it",
            );
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_call_survives_the_file() {
        let input: AskUserInput = serde_json::from_str(
            r#"{"questions": [
                {"question": "Which database should we use?", "header": "Database",
                 "options": [{"label": "PostgreSQL (Recommended)", "description": "Battle-tested"},
                             {"label": "SQLite"}]},
                {"question": "Which features?", "multiSelect": true,
                 "options": [{"label": "Auth"}, {"label": "API"}]},
                {"question": "What should we name this service?"}],
                "metadata": {"source": "project-setup"}}"#,
        )
        .unwrap();
        let mut file = PendingFile::new(&input);
        file.call_id = Some("toolu_1".into());
        file.session_id = "s1".into();
        file.timestamp = "t".into();
        let text = file.to_text();
        let back: PendingFile = serde_json::from_str(&text).unwrap();
        assert_eq!(back.to_input(), input);
        assert_eq!(back.call_id.as_deref(), Some("toolu_1"));
    }

    #[test]
    fn descriptions_keep_option_order() {
        let input: AskUserInput = serde_json::from_str(
            r#"{"questions": [{"question": "Which?", "options": [
                {"label": "Zeta", "description": "last letter"}, {"label": "Alpha"},
                {"label": "Mu", "description": "middle"}]}]}"#,
        )
        .unwrap();
        let file = PendingFile::new(&input);
        let text = file.to_text();
        let zeta = text.find("\"Zeta\": \"last letter\"").unwrap();
        let mu = text.find("\"Mu\": \"middle\"").unwrap();
        assert!(zeta < mu, "{text}");
        let back: PendingFile = serde_json::from_str(&text).unwrap();
        assert_eq!(back.to_input(), input);
    }

    #[test]
    fn an_edited_question_is_found_and_an_answer_is_no_edit() {
        let input: AskUserInput = serde_json::from_str(
            r#"{"questions": [{"question": "Which?", "options": [{"label": "A"}, {"label": "B"}]},
                              {"question": "Name?"}]}"#,
        )
        .unwrap();
        let file = PendingFile::new(&input);
        let mut answered = file;
        answered.questions[0].answer = Value::String("A".into());
        answered.questions[1].answer = Value::String("Falcon".into());
        assert_eq!(answered.edited(), None);
        let mut reworded = answered.clone();
        reworded.questions[1].question = "Project name?".into();
        assert_eq!(reworded.edited(), Some(Edited::Question(1)));
        let mut relabelled = answered.clone();
        relabelled.questions[0].options = Some(vec!["A".into(), "C".into()]);
        assert_eq!(relabelled.edited(), Some(Edited::Question(0)));
        let mut removed = answered;
        removed.questions.pop();
        assert_eq!(removed.edited(), Some(Edited::Count { asked: 2, found: 1 }));
        let mut old = reworded;
        old.fingerprints.clear();
        assert_eq!(
            old.edited(),
            None,
            "a file without fingerprints is not checked"
        );
    }

    #[test]
    fn the_file_holds_the_session_id_timestamp_questions_and_open_answers() {
        let input: AskUserInput = serde_json::from_str(
            r#"{"questions": [{"question": "Which database?", "options": [{"label": "A"}, {"label": "B"}]},
                              {"question": "Name?"}]}"#,
        )
        .unwrap();
        let mut file = PendingFile::new(&input);
        file.session_id = "abc123".into();
        file.timestamp = "2026-02-04T22:16:32Z".into();
        let value: Value = serde_json::from_str(&file.to_text()).unwrap();
        assert_eq!(value["sessionId"], "abc123");
        assert_eq!(value["timestamp"], "2026-02-04T22:16:32Z");
        assert_eq!(
            value["questions"][0]["options"],
            serde_json::json!(["A", "B"])
        );
        assert_eq!(value["questions"][0]["answer"], Value::Null);
        assert_eq!(
            value["questions"][1],
            serde_json::json!({"question": "Name?", "answer": null})
        );
    }
}

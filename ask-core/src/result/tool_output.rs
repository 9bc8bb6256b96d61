//! The structured result and the tool output an agent harness hands the model.

use serde::{Deserialize, Serialize};

use crate::input::Question;

use super::answer::{Answer, AnswerMap};
use super::multi::multi_select_line;
use super::record::{Outcome, Record, Status};

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

    pub(super) fn unanswered() -> AskUserResult {
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

/// The sentence a sub-agent gets back.
pub const SUBAGENT_REFUSAL: &str = "ask_user is only available to the parent conversation; sub-agents cannot ask the user questions";

/// The tool output handed to an agent harness: `{content, details, isError}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ToolOutput {
    /// The text for the model: the answer map when answered (followed, when the call has a
    /// multi-select question, by a line `Multi-select answers: {…}` that gives each one's picked
    /// labels and typed text apart), a plain sentence otherwise.
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
                None => answered_content(&record.questions, &record.answers),
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
    ///
    /// A host that asked for the tool output gets this explicit error, which is not a result:
    /// nothing is recorded, and the call is asked again.
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

/// The text for the model when the person answered each question: the answer map, exactly, and
/// when the call has a multi-select question, the line that tells its picks from its typed text
/// ([`multi_select_line`]) on the line after it.
fn answered_content(questions: &[Question], answers: &[Answer]) -> String {
    let map = AnswerMap::from_answers(answers).to_json();
    match multi_select_line(questions, answers) {
        Some(line) => format!("{map}\n{line}"),
        None => map,
    }
}

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
    use crate::result::Mode;
    use crate::result::record::{CANCELLED, CONNECTION_LOST};
    use crate::result::test_support::features;
    use serde_json::json;

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
    fn a_call_with_a_multi_select_question_has_its_line_after_the_map() {
        let single = Question::choice("Which database?", ["PostgreSQL", "SQLite"]);
        let record = |answers: Vec<Answer>| Record {
            call_id: None,
            questions: vec![single.clone(), features()],
            answers,
            answered_at: 0,
            mode: Mode::Print,
            metadata: None,
            status: Status::Answered,
            pending_file: None,
            reply: None,
            previews: Vec::new(),
            pending_instructions: None,
        };
        let features = "Which features should we include?";
        let picked = ToolOutput::from_record(record(vec![
            Answer::selected("Which database?", "SQLite"),
            Answer::multi(
                features,
                vec!["Authentication".into()],
                Some("SSO, Google only".into()),
            ),
        ]));
        assert_eq!(
            picked.content,
            "{\"answers\":{\"Which database?\":\"SQLite\",\
             \"Which features should we include?\":\"Authentication, SSO, Google only\"}}\n\
             Multi-select answers: {\"Which features should we include?\":\
             {\"picked\":[\"Authentication\"],\"typed\":\"SSO, Google only\"}}"
        );
        let none = ToolOutput::from_record(record(vec![
            Answer::selected("Which database?", "SQLite"),
            Answer::none_of_these(features),
        ]));
        assert_eq!(
            none.content,
            "{\"answers\":{\"Which database?\":\"SQLite\",\
             \"Which features should we include?\":\"\"}}\n\
             Multi-select answers: {\"Which features should we include?\":{\"picked\":[]}}"
        );
        assert_eq!(
            serde_json::to_value(none.details.unwrap().answers[1].clone()).unwrap()["answer"],
            json!([])
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
}

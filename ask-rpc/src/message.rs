//! The wire messages: one JSON object per line, camelCase fields, a snake_case `type` tag.

use ask_core::{
    Answer, AnswerInput, AskUserResult, ProblemReport, Question, Record, ToolOutput, WireState,
};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A message from the agent side to the client.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMessage {
    /// Questions for the person.
    AskUserRequest(AskUserRequest),
    /// The state of an ask changed.
    AskUserState(AskUserStateNotification),
    /// A line from the client could not be used.
    Error(ErrorNotification),
    /// The final result of `ask-user --rpc`, its last line.
    AskUserResult(AskUserResultNotification),
}

/// A message from the client to the agent side.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ClientMessage {
    /// The person's answers.
    AskUserResponse(AskUserResponse),
    /// The person cancelled.
    AskUserCancel(AskUserCancel),
}

/// `ask_user_request`: questions for the person.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AskUserRequest {
    /// The id to answer with.
    pub request_id: String,
    /// The questions, as the model sent them.
    pub questions: Vec<Question>,
    /// The call's metadata, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
    /// Answers the person already gave elsewhere (an MCP form that came back incomplete, the
    /// answers the call carried), one per question in order, `null` for a question still open;
    /// absent when nothing was given. A client shows them pre-filled, so nothing is lost.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub given: Vec<Option<Answer>>,
}

/// `ask_user_state`: the waiting state of one ask.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AskUserStateNotification {
    /// The ask.
    pub request_id: String,
    /// Its new state.
    pub state: WireState,
    /// The questions, with `waiting_for_user`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub questions: Option<Vec<Question>>,
}

/// `error`: a line that could not be used. The connection carries on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ErrorNotification {
    /// A stable code, such as `invalid_json` (see `ErrorCode`).
    pub code: ErrorCode,
    /// A sentence for people.
    pub message: String,
    /// The ask the line was about, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
}

/// The codes of `error` messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The line is longer than 1 MiB.
    LineTooLong,
    /// The line is not UTF-8.
    InvalidUtf8,
    /// The line is not JSON.
    InvalidJson,
    /// The `type` is not one the client may send.
    UnknownType,
    /// The message lacks a field or has one of the wrong type.
    InvalidMessage,
    /// No ask with this requestId is in flight.
    UnknownRequest,
    /// The ask with this requestId has already ended.
    DuplicateResponse,
    /// The answers do not fit the questions; the ask stays open.
    InvalidAnswers,
}

/// `ask_user_result`: the final result of `ask-user --rpc`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AskUserResultNotification {
    /// The ask; absent only when a call was refused or invalid before it had an id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
    /// The structured result.
    pub result: AskUserResult,
    /// The tool output `{content, details, isError}`, when asked for (`ask-user --rpc --output
    /// tool`), so that a host bridging the protocol hands it to its agent as it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_output: Option<Box<ToolOutput>>,
}

/// `ask_user_response`: the person's answers, one per question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    rename_all = "camelCase",
    expecting = "an ask_user_response object: {\"type\", \"requestId\", \"answers\"}"
)]
pub struct AskUserResponse {
    /// The ask being answered.
    pub request_id: String,
    /// The answers, one per question.
    pub answers: Vec<AnswerInput>,
}

/// `ask_user_cancel`: the person cancelled.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    rename_all = "camelCase",
    expecting = "an ask_user_cancel object: {\"type\", \"requestId\"}"
)]
pub struct AskUserCancel {
    /// The ask cancelled.
    pub request_id: String,
}

impl AskUserResultNotification {
    /// The last line of a finished ask: its result, the tool output too when `with_tool`, and
    /// the lenient forms the call was read with in `details.warnings`, so the model can learn
    /// the canonical shape. The request id is the call id, or `ask-1` for a call without one.
    pub fn line_for(record: &Record, with_tool: bool, warnings: &[ProblemReport]) -> String {
        let message = ServerMessage::AskUserResult(AskUserResultNotification {
            request_id: Some(record.call_id.clone().unwrap_or_else(|| "ask-1".into())),
            result: record.result(),
            tool_output: with_tool.then(|| Box::new(ToolOutput::from_record(record.clone()))),
        });
        if warnings.is_empty() {
            return message.to_line();
        }
        let mut line = serde_json::to_value(&message).unwrap_or_default();
        line["details"] = serde_json::json!({ "warnings": warnings });
        let mut text = line.to_string();
        text.push('\n');
        text
    }
}

impl AskUserResultNotification {
    /// The last line of a call refused or invalid before anything was shown: its result, and
    /// the tool output when one is given.
    pub fn unasked_line(
        request_id: Option<String>,
        result: AskUserResult,
        tool_output: Option<ToolOutput>,
    ) -> String {
        let tool_output = tool_output.map(Box::new);
        ServerMessage::AskUserResult(AskUserResultNotification {
            request_id,
            result,
            tool_output,
        })
        .to_line()
    }
}

impl ServerMessage {
    /// The message as one line of JSON, with its line feed.
    pub fn to_line(&self) -> String {
        let mut line = serde_json::to_string(self).unwrap_or_default();
        line.push('\n');
        line
    }
}

impl ClientMessage {
    /// The message as one line of JSON, with its line feed.
    pub fn to_line(&self) -> String {
        let mut line = serde_json::to_string(self).unwrap_or_default();
        line.push('\n');
        line
    }
}

//! Other agents' shapes of "ask the user", read into the canonical input.
//!
//! Each dialect is converted to the canonical JSON value and then parsed like any call, so every
//! check is the canonical one; a problem's path is then written back in the caller's own shape
//! (`/follow_up/1/text`, not `/questions/0/options/1/label`). The canonical dialect also takes a
//! short, listed set of normalisations of common model emissions, each reported as a
//! [`Warning`]. Nothing else is guessed.
//!
//! The shapes follow the agents' published tool definitions: Claude Code 2.1.330
//! (`sdk-tools.d.ts` of `@anthropic-ai/claude-code`), Codex 0.169.0 (`request_user_input`:
//! `{questions: [{id, header, question, options: [{label, description}]}]}`, all required, 1 to 3
//! questions of 2 to 3 options; the `isOther` and `isSecret` of older versions are still read,
//! with a warning), OpenCode's `question` tool, Gemini CLI 0.56 (`ask-user.ts`),
//! Roo Code 3.52 (`ask_followup_question`), Cline 4.1 (`ask_followup_question`), and the
//! simplified form of the tool specification.
//!
//! The conversion of each dialect's value into the canonical one, and of problems' paths back,
//! lives in [`convert`]; the fast path that reads an agent's call straight from its text in
//! [`typed`].

use std::fmt;

use ask_core::{
    Answer, AnswerValue, AskUserInput, Limits, Problem, ProblemKind, Problems, ValidatedInput,
};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::parse::{
    ParsedCall, envelope_input, parse_call, parse_json, prefixed, refuse_duplicate_key,
    unreachable_problems,
};
use crate::schema::TOOL_NAME;

mod convert;
mod typed;

use convert::Convert;

/// A shape of the call: the canonical input or one agent's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// The `ask_user` input of this tool.
    Canonical,
    /// Claude Code's `AskUserQuestion`.
    Claude,
    /// Codex's `request_user_input`.
    Codex,
    /// OpenCode's `question`.
    OpenCode,
    /// Gemini CLI's `ask_user`.
    Gemini,
    /// Roo Code's `ask_followup_question` (`follow_up` suggestions).
    Roo,
    /// Cline's `ask_followup_question` (`options` as plain strings).
    Cline,
    /// The tool specification's simplified form: `{question, suggestions?}`.
    Simple,
}

impl Dialect {
    /// Every dialect, in the order `--help` lists them.
    pub const ALL: [Dialect; 8] = [
        Dialect::Claude,
        Dialect::Codex,
        Dialect::OpenCode,
        Dialect::Gemini,
        Dialect::Roo,
        Dialect::Cline,
        Dialect::Simple,
        Dialect::Canonical,
    ];

    /// The name used by `--dialect` and `schema --format`.
    pub fn name(self) -> &'static str {
        match self {
            Dialect::Canonical => "canonical",
            Dialect::Claude => "claude",
            Dialect::Codex => "codex",
            Dialect::OpenCode => "opencode",
            Dialect::Gemini => "gemini",
            Dialect::Roo => "roo",
            Dialect::Cline => "cline",
            Dialect::Simple => "simple",
        }
    }

    /// The dialect named `name`, if any.
    pub fn from_name(name: &str) -> Option<Dialect> {
        Dialect::ALL.into_iter().find(|d| d.name() == name)
    }

    /// The dialect in a line of `--dialect`'s help.
    pub fn help(self) -> &'static str {
        match self {
            Dialect::Canonical => "ask_user's own input.",
            Dialect::Claude => "Claude Code's AskUserQuestion.",
            Dialect::Codex => "Codex's request_user_input.",
            Dialect::OpenCode => "OpenCode's question.",
            Dialect::Gemini => "Gemini CLI's ask_user.",
            Dialect::Roo => "Roo Code's ask_followup_question (`follow_up`).",
            Dialect::Cline => "Cline's ask_followup_question (`options` as strings).",
            Dialect::Simple => "The simplified form `{question, suggestions}`.",
        }
    }

    /// The agent's tool, as `Codex's request_user_input`.
    pub fn agent_possessive(self) -> &'static str {
        let help = self.help();
        help.split(" (")
            .next()
            .unwrap_or(help)
            .trim_end_matches('.')
    }

    /// The agent's own name of the tool.
    pub fn tool_name(self) -> &'static str {
        match self {
            Dialect::Canonical | Dialect::Gemini | Dialect::Simple => TOOL_NAME,
            Dialect::Claude => "AskUserQuestion",
            Dialect::Codex => "request_user_input",
            Dialect::OpenCode => "question",
            Dialect::Roo | Dialect::Cline => "ask_followup_question",
        }
    }

    /// The agent, for people.
    pub fn agent(self) -> &'static str {
        match self {
            Dialect::Canonical => "ask_user",
            Dialect::Claude => "Claude Code AskUserQuestion",
            Dialect::Codex => "Codex request_user_input",
            Dialect::OpenCode => "OpenCode question",
            Dialect::Gemini => "Gemini CLI ask_user",
            Dialect::Roo => "Roo Code ask_followup_question",
            Dialect::Cline => "Cline ask_followup_question",
            Dialect::Simple => "simplified {question, suggestions}",
        }
    }

    /// True for the dialects that hold one question at the root instead of a `questions` list.
    fn single(self) -> bool {
        matches!(self, Dialect::Roo | Dialect::Cline | Dialect::Simple)
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A form of the input that was read leniently, said so the model can learn the canonical shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// Where, as a JSON pointer into the caller's input (empty for the root).
    pub path: String,
    /// What was read and how to write it.
    pub message: String,
}

impl Warning {
    /// `warnings` as reports, `{path, message}` each.
    pub fn reports(warnings: &[Warning]) -> Vec<ask_core::ProblemReport> {
        warnings
            .iter()
            .map(|w| ask_core::ProblemReport::new(&w.path, w.message.clone()))
            .collect()
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = if self.path.is_empty() {
            "(root)"
        } else {
            &self.path
        };
        write!(f, "{path}: {}", self.message)
    }
}

/// How a call is read: which dialect, and whether lenient forms are taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ReadOptions {
    /// The dialect named by the caller; `None` detects it from the input's shape.
    pub dialect: Option<Dialect>,
    /// Accept only the canonical shape, unless `dialect` names another.
    pub strict: bool,
}

/// A call read in some dialect.
#[derive(Debug, Clone)]
pub struct DialectCall {
    /// The dialect the input was read as.
    pub dialect: Dialect,
    /// The canonical call.
    pub call: ParsedCall,
    /// The lenient forms that were read, in document order.
    pub warnings: Vec<Warning>,
    /// Answers the input already carries (Claude Code's `answers` and `annotations`), in question
    /// order; empty when none.
    pub given: Vec<Option<Answer>>,
    /// Roo Code's `mode` of each suggestion of the one question, in option order.
    pub modes: Vec<Option<String>>,
}

impl DialectCall {
    /// The lenient forms that were read, as reports (`{path, message}` each) for the validate
    /// report and the RPC result.
    pub fn warning_reports(&self) -> Vec<ask_core::ProblemReport> {
        Warning::reports(&self.warnings)
    }

    /// What `validate` prints for a call that can be asked: `{valid, questions, dialect}`, and
    /// its `callId` and `warnings` when it has them.
    pub fn validate_report(&self) -> serde_json::Value {
        let mut report = serde_json::json!({
            "valid": true,
            "questions": self.call.input.questions.len(),
            "dialect": self.dialect.name(),
        });
        if let Some(id) = &self.call.call_id {
            report["callId"] = id.clone().into();
        }
        if !self.warnings.is_empty() {
            report["warnings"] = serde_json::to_value(self.warning_reports()).unwrap_or_default();
        }
        report
    }

    /// What `validate` prints for a call that cannot be asked: `{valid: false, problems}`, each
    /// problem as `{path, message}`.
    pub fn invalid_report(problems: &Problems) -> serde_json::Value {
        let list = serde_json::to_value(ask_core::ProblemReport::all(problems)).unwrap_or_default();
        json!({"valid": false, "problems": list})
    }

    fn canonical(call: ParsedCall) -> DialectCall {
        DialectCall {
            dialect: Dialect::Canonical,
            call,
            warnings: Vec::new(),
            given: Vec::new(),
            modes: Vec::new(),
        }
    }
}

/// [`read_call`] of raw bytes, as a file or stdin holds them: text that is not UTF-8 is a
/// problem naming the line and column of the first bad byte, and a byte-order mark (some
/// editors save one) is not part of the JSON.
pub fn read_call_bytes(
    bytes: &[u8],
    options: ReadOptions,
    limits: &Limits,
) -> Result<DialectCall, Problems> {
    let text = std::str::from_utf8(bytes).map_err(|error| {
        let valid = &bytes[..error.valid_up_to()];
        let line = valid.iter().filter(|b| **b == b'\n').count() + 1;
        let column = valid.iter().rev().take_while(|b| **b != b'\n').count() + 1;
        let kind = ask_core::ProblemKind::InvalidJson {
            line,
            column,
            reason: "the text is not valid UTF-8".to_string(),
        };
        Problems::from(ask_core::Problem::new("", kind))
    })?;
    read_call(
        text.strip_prefix('\u{feff}').unwrap_or(text),
        options,
        limits,
    )
}

/// Reads a call in any dialect: JSON text holding the input or a tool-call envelope.
///
/// A canonical call takes the same path as [`parse_call`]. Otherwise the dialect is the one
/// named, or (when none is named and `strict` is off) the one the input's shape shows; the input
/// is converted to the canonical one and validated, and every problem names its place in the
/// caller's shape.
///
/// ```
/// use ask_schema::{Dialect, ReadOptions, read_call};
/// let call = read_call(r#"{"question": "Ship it?", "suggestions": ["Yes", "No"]}"#,
///     ReadOptions::default(), &ask_core::Limits::default()).unwrap();
/// assert_eq!(call.dialect, Dialect::Simple);
/// assert_eq!(call.call.input.questions[0].options().len(), 2);
/// let err = read_call(r#"{"question": "Ship it?", "follow_up": [{"text": 1}, {"text": "b"}]}"#,
///     ReadOptions::default(), &ask_core::Limits::default()).unwrap_err();
/// assert_eq!(err.to_string(), "/follow_up/0/text: expected a string, found a number");
/// ```
pub fn read_call(
    text: &str,
    options: ReadOptions,
    limits: &Limits,
) -> Result<DialectCall, Problems> {
    if text.trim().is_empty() {
        return Err(Problem::new("", ask_core::ProblemKind::EmptyInput).into());
    }
    let named = options.dialect.filter(|d| *d != Dialect::Canonical);
    if named.is_none() {
        // The canonical reading, whose problems are named only when they are the answer: a call
        // of another shape goes on without building them (the JSON Schema validator's walk
        // costs several times the whole reading).
        let typed = serde_json::from_str::<ask_core::AskUserInput>(text).is_ok();
        if typed || options.strict {
            return parse_call(text, limits).map(DialectCall::canonical);
        }
    }
    // The agents' shapes of a valid call, read straight from the text like a canonical call.
    if let Some(read) = typed::read(text, named, limits) {
        return Ok(read);
    }
    // One pass that also refuses a repeated key; the text is read again only to name a problem.
    let Some(value) = ask_core::unique_value(text) else {
        parse_json(text)?;
        refuse_duplicate_key(text, "")?;
        return Err(unreachable_problems());
    };
    let again = || ask_core::unique_value(text).unwrap_or_default();
    read_owned(
        Source {
            value,
            again: &again,
        },
        options,
        limits,
    )
}

/// [`read_call`] of a parsed value, always by the value path (which names problems), with
/// `options` read as there: a strict reading with no dialect named keeps to the canonical
/// dialect, with its lenient forms.
pub fn read_value(
    value: &Value,
    options: ReadOptions,
    limits: &Limits,
) -> Result<DialectCall, Problems> {
    let again = || value.clone();
    let source = Source {
        value: value.clone(),
        again: &again,
    };
    read_owned(source, options, limits)
}

/// A value to read, and the way to have it once more when its problems must be named.
struct Source<'a> {
    value: Value,
    again: &'a dyn Fn() -> Value,
}

/// Splits a tool-call envelope from the input it holds (the input itself when there is none).
fn split_envelope(value: Value) -> Result<(Envelope, Value), Problems> {
    let mut envelope = Envelope::default();
    let Value::Object(mut object) = value else {
        return Ok((envelope, value));
    };
    let Some((prefix, _)) = envelope_input(&object) else {
        return Ok((envelope, Value::Object(object)));
    };
    envelope.prefix = prefix;
    envelope.call_id = ["call_id", "id", "toolCallId", "tool_call_id"]
        .into_iter()
        .find_map(|k| object.get(k)?.as_str().map(str::to_string));
    let name = object
        .get("name")
        .map(|n| ("/name", n))
        .or_else(|| Some(("/function/name", object.get("function")?.get("name")?)));
    if let Some((path, Value::String(name))) = name {
        envelope.name = Some((path, name.clone()));
    }
    let inner = match prefix {
        "/input" => object.remove("input"),
        "/arguments" => object.remove("arguments"),
        _ => object
            .get_mut("function")
            .and_then(Value::as_object_mut)
            .and_then(|function| function.remove("arguments")),
    }
    .unwrap_or_default();
    let inner = match inner {
        Value::String(text) => {
            let value = parse_json(&text).map_err(|p| prefixed(p, prefix))?;
            refuse_duplicate_key(&text, prefix)?;
            value
        }
        inner => inner,
    };
    Ok((envelope, inner))
}

/// Reads the source's value as `options` say: the dialect named, or (for a strict reading or the
/// canonical dialect named) only the canonical one, or else the one the input's shape shows.
fn read_owned(
    source: Source<'_>,
    options: ReadOptions,
    limits: &Limits,
) -> Result<DialectCall, Problems> {
    let Source { value, again } = source;
    let named = options.dialect.filter(|d| *d != Dialect::Canonical);
    let only_canonical = options.dialect == Some(Dialect::Canonical) || options.strict;
    let (envelope, input) = split_envelope(value)?;
    let dialect = match named {
        Some(dialect) => dialect,
        None if only_canonical => Dialect::Canonical,
        None => detect(&input, envelope.name.as_ref().map(|(_, n)| n.as_str())),
    };
    if let Some((path, name)) = &envelope.name {
        let allowed = name == dialect.tool_name() || name == TOOL_NAME;
        if !allowed {
            let problem = Problem::new(*path, ProblemKind::WrongTool { name: name.clone() });
            return Err(problem.into());
        }
    }
    let mut convert = Convert::new(dialect);
    let canonical = convert.input(input);
    // Read by value, so no text is copied; a value serde refuses is converted again, only to
    // name its problems.
    let read = match AskUserInput::deserialize(canonical) {
        Ok(typed) => ask_core::validate(typed, limits).map_err(Problems::into_vec),
        Err(_) => {
            let (_, input) = split_envelope(again())?;
            let canonical = Convert::new(dialect).input(input);
            match crate::parse::parse_value_at(&canonical, limits, "") {
                Ok(_) => Err(Vec::new()),
                Err(problems) => Err(problems.into_vec()),
            }
        }
    };
    let parsed = match read {
        Ok(parsed) if convert.problems.is_empty() => parsed,
        Ok(_) => return Err(convert.remap(Vec::new(), envelope.prefix)),
        Err(problems) => return Err(convert.remap(problems, envelope.prefix)),
    };
    let mut warnings = convert.warnings;
    if named.is_none() && dialect != Dialect::Canonical {
        warnings.insert(0, detected(dialect));
    }
    for warning in &mut warnings {
        warning.path = format!("{}{}", envelope.prefix, warning.path);
    }
    let given = given_answers(&parsed, &convert.prefill);
    Ok(DialectCall {
        dialect,
        call: ParsedCall {
            call_id: envelope.call_id,
            input: parsed,
        },
        warnings,
        given,
        modes: convert.modes,
    })
}

/// The warning that the input was read in a detected dialect.
fn detected(dialect: Dialect) -> Warning {
    Warning {
        path: String::new(),
        message: format!(
            "read as the {} shape; ask_user's own input is {{\"questions\": [{{\"question\": \"…\", \"options\": [{{\"label\": \"…\"}}]}}]}}",
            dialect.agent()
        ),
    }
}

const IS_OTHER_IGNORED: &str = "`isOther`, a field of an older Codex request_user_input (Codex \
     0.169 has none), is ignored: ask_user always offers the person their own answer";
const IS_SECRET_OLDER: &str = "`isSecret`, a field of an older Codex request_user_input (Codex \
     0.169 has none), was read as `secret`";
const YESNO_OPTIONS_IGNORED: &str =
    "the options of a `yesno` question are ignored; it offers Yes and No";
const TEXT_OPTIONS_IGNORED: &str =
    "the options of a `text` question are ignored; it takes free text";

#[derive(Default)]
struct Envelope {
    prefix: &'static str,
    call_id: Option<String>,
    name: Option<(&'static str, String)>,
}

/// The dialect an input's shape shows. Only called once the canonical reading failed.
fn detect(input: &Value, tool_name: Option<&str>) -> Dialect {
    match tool_name {
        Some("AskUserQuestion") => return Dialect::Claude,
        Some("request_user_input") => return Dialect::Codex,
        Some("question") => return Dialect::OpenCode,
        _ => {}
    }
    let Some(object) = input.as_object() else {
        return Dialect::Canonical;
    };
    if object.contains_key("follow_up") {
        return Dialect::Roo;
    }
    if !object.contains_key("questions") && object.get("question").is_some_and(Value::is_string) {
        if object.contains_key("suggestions") {
            return Dialect::Simple;
        }
        let cline_keys = object.keys().all(|k| k == "question" || k == "options");
        let string_options = match object.get("options") {
            None => true,
            Some(Value::Array(items)) => items.iter().all(Value::is_string),
            Some(Value::String(_)) => true,
            Some(_) => false,
        };
        if cline_keys && string_options {
            return Dialect::Cline;
        }
        return Dialect::Canonical;
    }
    if object.contains_key("answers") || object.contains_key("annotations") {
        return Dialect::Claude;
    }
    let Some(Value::Array(questions)) = object.get("questions") else {
        return Dialect::Canonical;
    };
    let has = |key: &str| {
        questions
            .iter()
            .any(|q| q.as_object().is_some_and(|q| q.contains_key(key)))
    };
    if has("isOther") || has("isSecret") {
        Dialect::Codex
    } else if has("type") {
        Dialect::Gemini
    } else if has("multiple") {
        Dialect::OpenCode
    } else {
        Dialect::Canonical
    }
}
/// Claude Code's pre-filled answers, read like any answer given as text (a multi-select answer
/// joins its labels with ", ").
fn given_answers(input: &ValidatedInput, prefill: &Map<String, Value>) -> Vec<Option<Answer>> {
    if prefill.is_empty() {
        return Vec::new();
    }
    input
        .questions
        .iter()
        .map(|question| {
            let text = prefill.get(&question.question)?.as_str()?;
            Answer::from_value(question, &AnswerValue::Text(text.to_string()))
        })
        .collect()
}

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

use std::fmt;

use ask_core::{
    Answer, AnswerValue, AskUserInput, JsonType, Limits, Problem, ProblemKind, Problems,
    ValidatedInput,
};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::parse::{
    ParsedCall, dedup_and_sort, envelope_input, parse_call, parse_json, prefixed,
    refuse_duplicate_key, unreachable_problems,
};
use crate::schema::TOOL_NAME;

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
    let only_canonical = options.dialect == Some(Dialect::Canonical);
    let again = || ask_core::unique_value(text).unwrap_or_default();
    read_owned(value, &again, named, only_canonical, limits)
}

/// [`read_call`] of a parsed value: `named` is the dialect named (`None` detects it), and
/// `only_canonical` keeps to the canonical dialect (with its lenient forms).
pub fn read_value(
    value: &Value,
    named: Option<Dialect>,
    only_canonical: bool,
    limits: &Limits,
) -> Result<DialectCall, Problems> {
    let again = || value.clone();
    read_owned(value.clone(), &again, named, only_canonical, limits)
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

/// Reads `value`, which `again` gives once more when its problems must be named.
fn read_owned(
    value: Value,
    again: &dyn Fn() -> Value,
    named: Option<Dialect>,
    only_canonical: bool,
    limits: &Limits,
) -> Result<DialectCall, Problems> {
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

/// One dialect's input turned into the canonical value, with the way back for paths.
struct Convert {
    dialect: Dialect,
    /// `(canonical path, caller path)`: a canonical path starting with the first is reported
    /// with the second in its place.
    paths: Vec<(String, String)>,
    warnings: Vec<Warning>,
    /// Claude Code's `answers`, keyed by question text.
    prefill: Map<String, Value>,
    modes: Vec<Option<String>>,
    /// Problems of the dialect's own shape, at caller paths.
    problems: Vec<Problem>,
}

impl Convert {
    fn new(dialect: Dialect) -> Convert {
        Convert {
            dialect,
            problems: Vec::new(),
            paths: Vec::new(),
            warnings: Vec::new(),
            prefill: Map::new(),
            modes: Vec::new(),
        }
    }

    fn warn(&mut self, path: impl Into<String>, message: impl Into<String>) {
        self.warnings.push(Warning {
            path: path.into(),
            message: message.into(),
        });
    }

    fn wrong_type(&mut self, path: impl Into<String>, expected: JsonType, found: &Value) {
        let kind = ProblemKind::WrongType {
            expected,
            found: JsonType::of(found),
            shape: None,
        };
        self.problems.push(Problem::new(path.into(), kind));
    }

    fn map_path(&mut self, canonical: impl Into<String>, caller: impl Into<String>) {
        self.paths.push((canonical.into(), caller.into()));
    }

    /// The canonical value of the whole input.
    fn input(&mut self, input: Value) -> Value {
        if self.dialect.single() {
            return self.single(input);
        }
        match input {
            // A bare list of questions.
            Value::Array(items) if self.dialect == Dialect::Canonical => {
                self.warn(
                    "",
                    "a bare list of questions was read as {\"questions\": [ … ]}; wrap the list in an object",
                );
                self.map_path("/questions", "");
                let questions = self.questions(items, "");
                json!({ "questions": questions })
            }
            Value::Object(object)
                if self.dialect == Dialect::Canonical
                    && !object.contains_key("questions")
                    && object.contains_key("question") =>
            {
                self.warn(
                    "",
                    "a bare question was read as {\"questions\": [ … ]}; put the question in the `questions` list",
                );
                self.map_path("/questions/0", "");
                self.map_path("/questions", "");
                let question = self.question(Value::Object(object), 0, "");
                json!({ "questions": [question] })
            }
            Value::Object(object) => {
                let mut out = Map::new();
                for (key, value) in object {
                    match (self.dialect, key.as_str(), value) {
                        (_, "questions", Value::Array(items)) => {
                            let questions = self.questions(items, "/questions");
                            out.insert(key, Value::Array(questions));
                        }
                        (Dialect::Canonical, "questions", Value::String(text)) => {
                            match serde_json::from_str::<Value>(&text) {
                                Ok(Value::Array(items)) => {
                                    self.warn(
                                        "/questions",
                                        "the list of questions was given as JSON text and was read as the list itself; give the array, not a string",
                                    );
                                    let questions = self.questions(items, "/questions");
                                    out.insert(key, Value::Array(questions));
                                }
                                _ => {
                                    out.insert(key, Value::String(text));
                                }
                            }
                        }
                        (Dialect::Claude, "answers", Value::Object(answers)) => {
                            for (question, answer) in &answers {
                                if !answer.is_string() {
                                    let at = format!("/answers/{}", escape(question));
                                    self.wrong_type(at, JsonType::String, answer);
                                }
                            }
                            self.prefill = answers;
                        }
                        (Dialect::Claude, "annotations", Value::Object(annotations)) => {
                            // Claude Code's own record of what the person saw and noted; the
                            // answers this call gets are the person's, so it is only checked.
                            for (question, note) in &annotations {
                                if !note.is_object() {
                                    let at = format!("/annotations/{}", escape(question));
                                    self.wrong_type(at, JsonType::Object, note);
                                }
                            }
                        }
                        (Dialect::Claude, "answers" | "annotations", other) => {
                            self.wrong_type(format!("/{key}"), JsonType::Object, &other);
                        }
                        (_, _, value) => {
                            out.insert(key, value);
                        }
                    }
                }
                Value::Object(out)
            }
            other => other,
        }
    }

    fn questions(&mut self, items: Vec<Value>, caller: &str) -> Vec<Value> {
        items
            .into_iter()
            .enumerate()
            .map(|(i, item)| {
                let at = format!("{caller}/{i}");
                if caller != "/questions" {
                    self.map_path(format!("/questions/{i}"), at.clone());
                }
                self.question(item, i, &at)
            })
            .collect()
    }

    /// One question of a `questions` dialect; `at` is its caller path.
    fn question(&mut self, item: Value, index: usize, at: &str) -> Value {
        let object = match item {
            Value::Object(object) => object,
            other => return other,
        };
        let typed_text = object.get("type") == Some(&json!("text"));
        let canon = format!("/questions/{index}");
        if self.dialect == Dialect::Codex && !object.contains_key("id") {
            let kind = ProblemKind::MissingField { field: "id".into() };
            self.problems.push(Problem::new(at, kind));
        }
        let mut out = Map::new();
        let mut kind_yesno = false;
        for (key, value) in object {
            let renamed = match (self.dialect, key.as_str()) {
                (Dialect::Canonical, "multi_select") => {
                    self.warn(
                        format!("{at}/multi_select"),
                        "`multi_select` was read as `multiSelect`; write it in camelCase",
                    );
                    Some("multiSelect")
                }
                (Dialect::Codex, "isSecret") => {
                    self.warn(format!("{at}/isSecret"), IS_SECRET_OLDER);
                    Some("secret")
                }
                (Dialect::Codex, "isOther") => {
                    self.warn(format!("{at}/isOther"), IS_OTHER_IGNORED);
                    continue;
                }
                (Dialect::OpenCode, "multiple") => Some("multiSelect"),
                (Dialect::Gemini, "unconstrainedHeight") => continue,
                (Dialect::Gemini, "type") => {
                    let kind = match value.as_str() {
                        Some("yesno") => {
                            kind_yesno = true;
                            json!("yesno")
                        }
                        Some("choice" | "text") => json!("choice"),
                        Some(other) => {
                            let kind = ProblemKind::Schema {
                                keyword: "enum".into(),
                                detail: format!(
                                    "unknown type {}; use \"choice\", \"text\" or \"yesno\"",
                                    Value::String(other.to_string())
                                ),
                            };
                            self.problems.push(Problem::new(format!("{at}/type"), kind));
                            json!("choice")
                        }
                        None => {
                            self.wrong_type(format!("{at}/type"), JsonType::String, &value);
                            json!("choice")
                        }
                    };
                    self.map_path(format!("{canon}/kind"), format!("{at}/type"));
                    out.insert("kind".into(), kind);
                    continue;
                }
                _ => None,
            };
            if let Some(name) = renamed {
                self.map_path(format!("{canon}/{name}"), format!("{at}/{key}"));
                out.insert(name.into(), value);
                continue;
            }
            if key == "options" {
                let options = self.options(value, &canon, &format!("{at}/options"));
                out.insert(key, options);
                continue;
            }
            out.insert(key, value);
        }
        if kind_yesno
            && let Some(options) = out.remove("options")
            && options.as_array().is_some_and(|o| !o.is_empty())
        {
            self.warn(format!("{at}/options"), YESNO_OPTIONS_IGNORED);
        }
        if self.dialect == Dialect::Gemini
            && out.get("kind") == Some(&json!("choice"))
            && typed_text
            && let Some(options) = out.remove("options")
            && options.as_array().is_some_and(|o| !o.is_empty())
        {
            self.warn(format!("{at}/options"), TEXT_OPTIONS_IGNORED);
        }
        Value::Object(out)
    }

    /// The options of a question, with plain strings read as labels.
    fn options(&mut self, value: Value, canon: &str, at: &str) -> Value {
        let items = match value {
            Value::Array(items) => items,
            other => return other,
        };
        let strings_allowed = matches!(self.dialect, Dialect::Canonical | Dialect::Cline);
        let options = items
            .into_iter()
            .enumerate()
            .map(|(j, item)| match item {
                Value::String(label) if strings_allowed => {
                    if self.dialect == Dialect::Canonical {
                        self.warn(
                            format!("{at}/{j}"),
                            "an option given as a plain string was read as {\"label\": \"…\"}; give each option as an object",
                        );
                    }
                    self.map_path(format!("{canon}/options/{j}/label"), format!("{at}/{j}"));
                    json!({ "label": label })
                }
                other => other,
            })
            .collect();
        Value::Array(options)
    }

    /// Roo Code, Cline and the simplified form: one question at the root.
    fn single(&mut self, input: Value) -> Value {
        let object = match input {
            Value::Object(object) => object,
            other => {
                // The root itself is wrong: reported at the root.
                self.map_path("/questions", "");
                self.map_path("", "");
                return json!({ "questions": other });
            }
        };
        self.map_path("/questions/0/question", "/question");
        self.map_path("/questions/0", "");
        self.map_path("/questions", "");
        let list_key = match self.dialect {
            Dialect::Roo => "follow_up",
            Dialect::Cline => "options",
            _ => "suggestions",
        };
        let allowed: &'static [&'static str] = match self.dialect {
            Dialect::Roo => &["question", "follow_up"],
            Dialect::Cline => &["question", "options"],
            _ => &["question", "suggestions"],
        };
        let mut question = Map::new();
        for (key, value) in object {
            if key == list_key {
                self.map_path("/questions/0/options", format!("/{key}"));
                let options = self.suggestions(value, &key);
                question.insert("options".into(), options);
            } else if key == "question" {
                question.insert(key, value);
            } else {
                let kind = ProblemKind::UnknownField {
                    field: key.clone(),
                    allowed,
                };
                self.problems
                    .push(Problem::new(format!("/{}", escape(&key)), kind));
            }
        }
        json!({ "questions": [Value::Object(question)] })
    }

    /// The suggestions of a one-question dialect as canonical options.
    fn suggestions(&mut self, value: Value, key: &str) -> Value {
        let value = match value {
            // Cline's tool parameter is text holding a JSON array.
            Value::String(text) if self.dialect == Dialect::Cline => {
                match serde_json::from_str::<Value>(&text) {
                    Ok(array @ Value::Array(_)) => array,
                    _ => Value::String(text),
                }
            }
            other => other,
        };
        let Value::Array(items) = value else {
            return value;
        };
        let options = items
            .into_iter()
            .enumerate()
            .map(|(j, item)| match (self.dialect, item) {
                (Dialect::Roo, Value::Object(suggestion)) => {
                    self.map_path(
                        format!("/questions/0/options/{j}/label"),
                        format!("/{key}/{j}/text"),
                    );
                    self.map_path(format!("/questions/0/options/{j}"), format!("/{key}/{j}"));
                    self.modes.push(
                        suggestion
                            .get("mode")
                            .and_then(Value::as_str)
                            .map(str::to_string),
                    );
                    let mut option = Map::new();
                    for (field, v) in suggestion {
                        match field.as_str() {
                            "text" => {
                                option.insert("label".into(), v);
                            }
                            "mode" => {}
                            _ => {
                                option.insert(field, v);
                            }
                        }
                    }
                    Value::Object(option)
                }
                (Dialect::Roo, other) => {
                    self.modes.push(None);
                    self.map_path(format!("/questions/0/options/{j}"), format!("/{key}/{j}"));
                    other
                }
                (_, Value::String(label)) => {
                    self.map_path(
                        format!("/questions/0/options/{j}/label"),
                        format!("/{key}/{j}"),
                    );
                    json!({ "label": label })
                }
                (_, other) => {
                    self.wrong_type(format!("/{key}/{j}"), JsonType::String, &other);
                    json!({ "label": "" })
                }
            })
            .collect();
        Value::Array(options)
    }
    /// The problems of the canonical value, with paths in the caller's shape below `prefix`.
    /// Together with the problems of the dialect's own shape.
    fn remap(&self, problems: Vec<Problem>, prefix: &str) -> Problems {
        let list = problems
            .into_iter()
            .map(|p| {
                let kind = match p.kind {
                    // A required field is named as the caller spells it (`text`, not `label`).
                    ProblemKind::MissingField { field } => {
                        let canon = format!("{}/{}", p.path, escape(&field));
                        let caller = caller_path(&self.paths, &canon);
                        let field = match caller.rsplit_once('/') {
                            Some((_, name)) if caller != canon => name.to_string(),
                            _ => field,
                        };
                        ProblemKind::MissingField { field }
                    }
                    ProblemKind::WrongType {
                        expected,
                        found,
                        shape,
                    } => ProblemKind::WrongType {
                        expected,
                        found,
                        shape: self
                            .shape(&p.path)
                            .or(shape.filter(|_| !self.dialect.single())),
                    },
                    kind => kind,
                };
                Problem::new(caller_path(&self.paths, &p.path), kind)
            })
            // A value already refused in the dialect's shape is not refused again as read.
            .filter(|p| !self.problems.iter().any(|own| within(&p.path, &own.path)))
            .map(|p| Problem::new(format!("{prefix}{}", p.path), p.kind))
            .chain(
                self.problems
                    .iter()
                    .map(|p| Problem::new(format!("{prefix}{}", p.path), p.kind.clone())),
            )
            .collect::<Vec<_>>();
        let mut list = list;
        dedup_and_sort(&mut list);
        Problems::from_vec(list).unwrap_or_else(unreachable_problems)
    }
}

impl Convert {
    /// The value expected at a canonical path, written in a one-question dialect's shape.
    fn shape(&self, canonical: &str) -> Option<&'static str> {
        let parts: Vec<&str> = canonical.split('/').skip(1).collect();
        Some(match (self.dialect, parts.as_slice()) {
            (Dialect::Roo, [] | ["questions"] | ["questions", "0"]) => {
                r#"{"question": "…", "follow_up": [{"text": "…"}, …]}"#
            }
            (Dialect::Roo, ["questions", "0", "options"]) => r#"[{"text": "…"}, …]"#,
            (Dialect::Roo, ["questions", "0", "options", _]) => r#"{"text": "…", "mode": null}"#,
            (Dialect::Cline, [] | ["questions"] | ["questions", "0"]) => {
                r#"{"question": "…", "options": ["…", …]}"#
            }
            (Dialect::Simple, [] | ["questions"] | ["questions", "0"]) => {
                r#"{"question": "…", "suggestions": ["…", …]}"#
            }
            (Dialect::Cline | Dialect::Simple, ["questions", "0", "options"]) => r#"["…", …]"#,
            _ => return None,
        })
    }
}

/// True when `path` is `parent` or below it.
fn within(path: &str, parent: &str) -> bool {
    path == parent || (path.starts_with(parent) && path[parent.len()..].starts_with('/'))
}

/// A key as a JSON pointer segment.
fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// `path` with the longest matching canonical prefix of `paths` replaced by its caller path.
fn caller_path(paths: &[(String, String)], path: &str) -> String {
    let matching = paths
        .iter()
        .filter(|(canon, _)| within(path, canon))
        .max_by_key(|(canon, _)| canon.len());
    match matching {
        Some((canon, caller)) => format!("{caller}{}", &path[canon.len()..]),
        None => path.to_string(),
    }
}

/// The fast path of the agents' `questions` dialects: a call that reads as the agent's own types
/// and validates is read straight from the text, with no intermediate value. Anything else
/// (an envelope, a problem, a repeated key) takes the value path, which names the problems; so
/// this path only ever accepts what the value path accepts, with the same warnings.
mod typed {
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
            .find_map(|dialect| read_as(text, *dialect, named.is_none(), limits))
    }

    fn read_as(
        text: &str,
        dialect: Dialect,
        detected_here: bool,
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

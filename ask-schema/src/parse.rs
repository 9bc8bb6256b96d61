//! Raw JSON to a validated call, with every problem and its path.
//!
//! A valid call takes the fast path: serde reads the typed input and `ask-core` checks it; the
//! JSON Schema validator is not built. Only when serde refuses the document is the validator
//! built (once per process and limits) to name every structural problem with its path. A
//! property test (`tests/it/roundtrip.rs`) keeps the two paths in agreement.

use std::sync::{Arc, Mutex, OnceLock};

use ask_core::{
    AskUserInput, JsonType, Limits, Problem, ProblemKind, Problems, Question, TextField,
    ValidatedInput, check_metadata, check_questions, validate,
};
use jsonschema::ValidationError;
use jsonschema::Validator;
use jsonschema::error::ValidationErrorKind;
use serde::Deserialize;
use serde_json::Value;

use crate::schema::{TOOL_NAME, input_schema};

/// Something a call can be parsed from: JSON text or an already parsed value.
pub trait JsonSource {
    /// Parses a plain tool input (`{"questions": […]}`).
    fn parse_input(self, limits: &Limits) -> Result<ValidatedInput, Problems>;
    /// Parses a tool input or a tool-call envelope.
    fn parse_call(self, limits: &Limits) -> Result<ParsedCall, Problems>;
}

impl JsonSource for &str {
    fn parse_input(self, limits: &Limits) -> Result<ValidatedInput, Problems> {
        match serde_json::from_str::<AskUserInput>(self) {
            Ok(input) => validate(input, limits),
            Err(typed_error) => {
                let value = parse_json(self)?;
                Err(structural_problems((&value, ""), &typed_error, limits))
            }
        }
    }

    fn parse_call(self, limits: &Limits) -> Result<ParsedCall, Problems> {
        let typed_error = match serde_json::from_str::<AskUserInput>(self) {
            Ok(input) => {
                return Ok(ParsedCall {
                    call_id: None,
                    input: validate(input, limits)?,
                });
            }
            Err(error) => error,
        };
        let value = parse_json(self)?;
        if is_envelope(&value) {
            // A repeated key is refused in an envelope as in a bare call; the value read above
            // kept only the last one.
            refuse_duplicate_key(self, "")?;
            value.parse_call(limits)
        } else {
            // Not an envelope: report against the text, which still knows about repeated keys.
            Err(structural_problems((&value, ""), &typed_error, limits))
        }
    }
}

/// True for a tool-call envelope: an object with no `questions` whose input is in `input`,
/// `arguments` or `function.arguments`.
fn is_envelope(value: &Value) -> bool {
    value
        .as_object()
        .is_some_and(|object| envelope_input(object).is_some())
}

/// Where an envelope keeps the call's input, as a JSON pointer, and the input itself: `input`
/// (Anthropic's `tool_use`), `arguments` (MCP's `tools/call`, OpenAI's Responses API) or
/// `function.arguments` (OpenAI's Chat Completions `tool_calls` entries).
pub(crate) fn envelope_input(
    object: &serde_json::Map<String, Value>,
) -> Option<(&'static str, &Value)> {
    if object.contains_key("questions") {
        return None;
    }
    if let Some(input) = object.get("input") {
        return Some(("/input", input));
    }
    if let Some(arguments) = object.get("arguments") {
        return Some(("/arguments", arguments));
    }
    let arguments = object.get("function")?.get("arguments")?;
    Some(("/function/arguments", arguments))
}

impl JsonSource for &String {
    fn parse_input(self, limits: &Limits) -> Result<ValidatedInput, Problems> {
        self.as_str().parse_input(limits)
    }

    fn parse_call(self, limits: &Limits) -> Result<ParsedCall, Problems> {
        self.as_str().parse_call(limits)
    }
}

impl JsonSource for &Value {
    fn parse_input(self, limits: &Limits) -> Result<ValidatedInput, Problems> {
        parse_value_at(self, limits, "")
    }

    fn parse_call(self, limits: &Limits) -> Result<ParsedCall, Problems> {
        let Some(object) = self.as_object() else {
            return parse_value_at(self, limits, "").map(ParsedCall::plain);
        };
        let Some((prefix, inner)) = envelope_input(object) else {
            return parse_value_at(self, limits, "").map(ParsedCall::plain);
        };
        // The envelope: `{"name": "ask_user", "id": "…", "input": {…}}`, or an OpenAI call whose
        // `arguments` hold the input as JSON text.
        // `call_id` first: an OpenAI Responses item has both, and the reply names `call_id`.
        let call_id = ["call_id", "id", "toolCallId", "tool_call_id"]
            .into_iter()
            .find_map(|k| object.get(k)?.as_str().map(str::to_string));
        let name = match object.get("name") {
            Some(name) => Some(("/name", name)),
            None => object
                .get("function")
                .and_then(|function| function.get("name"))
                .map(|name| ("/function/name", name)),
        };
        let name = name.and_then(|(path, name)| Some((path, name.as_str()?)));
        if let Some((path, name)) = name.filter(|(_, name)| *name != TOOL_NAME) {
            let problem = Problem::new(
                path,
                ProblemKind::WrongTool {
                    name: name.to_string(),
                },
            );
            return Err(problem.into());
        }
        let input = match inner {
            Value::String(text) => {
                let value = parse_json(text).map_err(|problems| prefixed(problems, prefix))?;
                refuse_duplicate_key(text, prefix)?;
                parse_value_at(&value, limits, prefix)?
            }
            value => parse_value_at(value, limits, prefix)?,
        };
        Ok(ParsedCall { call_id, input })
    }
}

/// A call read from an input file: the validated input and, when it came in a tool-call
/// envelope, the call id.
#[derive(Debug, Clone)]
pub struct ParsedCall {
    /// The tool-call id of the envelope, if there was one.
    pub call_id: Option<String>,
    /// The validated input.
    pub input: ValidatedInput,
}

impl ParsedCall {
    fn plain(input: ValidatedInput) -> ParsedCall {
        ParsedCall {
            call_id: None,
            input,
        }
    }
}

/// Parses and validates a tool input from JSON text or a JSON value, returning every problem.
///
/// ```
/// use ask_core::Limits;
/// let ok = ask_schema::parse(r#"{"questions": [{"question": "Name?"}]}"#, &Limits::default());
/// assert!(ok.is_ok());
/// let err = ask_schema::parse(r#"{"questions": [{"question": 7}]}"#, &Limits::default()).unwrap_err();
/// assert_eq!(err.to_string(), "/questions/0/question: expected a string, found a number");
/// ```
pub fn parse<S: JsonSource>(source: S, limits: &Limits) -> Result<ValidatedInput, Problems> {
    source.parse_input(limits)
}

/// Parses a tool input or a tool-call envelope (`{"name": "ask_user", "id": …, "input": …}`,
/// or OpenAI's `{"function": {"name": …, "arguments": "…"}}` form).
pub fn parse_call<S: JsonSource>(source: S, limits: &Limits) -> Result<ParsedCall, Problems> {
    source.parse_call(limits)
}

pub(crate) fn parse_value_at(
    value: &Value,
    limits: &Limits,
    prefix: &str,
) -> Result<ValidatedInput, Problems> {
    match AskUserInput::deserialize(value) {
        Ok(input) => validate(input, limits).map_err(|problems| prefixed(problems, prefix)),
        Err(typed_error) => Err(structural_problems((value, prefix), &typed_error, limits)),
    }
}

pub(crate) fn parse_json(text: &str) -> Result<Value, Problems> {
    serde_json::from_str::<Value>(text).map_err(|error| {
        let reason = error.to_string();
        let reason = match reason.rfind(" at line ") {
            Some(at) => reason[..at].to_string(),
            None => reason,
        };
        let kind = ProblemKind::InvalidJson {
            line: error.line(),
            column: error.column(),
            reason,
        };
        Problems::from(Problem::new("", kind))
    })
}

/// Refuses JSON text that repeats a key in one object, naming the object (below `prefix`).
pub(crate) fn refuse_duplicate_key(text: &str, prefix: &str) -> Result<(), Problems> {
    match ask_core::duplicate_key(text) {
        None => Ok(()),
        Some((path, key)) => {
            let problem =
                Problem::new(format!("{prefix}{path}"), ProblemKind::DuplicateKey { key });
            Err(problem.into())
        }
    }
}

/// `Problems::from_vec` of a non-empty list never fails; this keeps the code free of panics.
pub(crate) fn unreachable_problems() -> Problems {
    Problems::from_vec(vec![Problem::new(
        "",
        ProblemKind::Schema {
            keyword: "internal".into(),
            detail: "no problem recorded".into(),
        },
    )])
    .unwrap_or_else(|| unreachable!())
}

pub(crate) fn prefixed(problems: Problems, prefix: &str) -> Problems {
    if prefix.is_empty() {
        return problems;
    }
    let list = problems
        .into_vec()
        .into_iter()
        .map(|p| Problem::new(format!("{prefix}{}", p.path), p.kind))
        .collect();
    Problems::from_vec(list).unwrap_or_else(unreachable_problems)
}

/// The validator for `limits`, built on first use and kept for the life of the process.
fn validator(limits: &Limits) -> Option<Arc<Validator>> {
    type Cache = Mutex<Vec<(Limits, Arc<Validator>)>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(Vec::new()));
    let mut cache = cache
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some((_, validator)) = cache.iter().find(|(l, _)| l == limits) {
        return Some(Arc::clone(validator));
    }
    let validator = Arc::new(jsonschema::validator_for(&input_schema(limits)).ok()?);
    cache.push((*limits, Arc::clone(&validator)));
    Some(validator)
}

/// Builds the validator for `limits` ahead of time, so that the first invalid call does not pay
/// for it. Hosts that parse many calls may call this at start-up.
pub fn warm_up(limits: &Limits) {
    let _ = validator(limits);
}

/// Every problem of a document that serde refused with `typed_error`: the schema's structural
/// problems plus the semantic problems of each question that could be read. The document is
/// `value` at the JSON pointer `prefix` of what was read.
fn structural_problems(
    (value, prefix): (&Value, &str),
    typed_error: &serde_json::Error,
    limits: &Limits,
) -> Problems {
    let mut problems = Vec::new();
    if let Some(validator) = validator(limits) {
        for error in validator.iter_errors(value) {
            problems.extend(map_schema_error(&error, limits));
        }
    }
    // Semantic checks on whatever parts could be read.
    if let Some(object) = value.as_object() {
        if let Some(Value::Array(items)) = object.get("questions") {
            let questions: Vec<(usize, Question)> = items
                .iter()
                .enumerate()
                .filter_map(|(i, item)| Some((i, lenient_question(item)?)))
                .collect();
            let refs: Vec<(usize, &Question)> = questions.iter().map(|(i, q)| (*i, q)).collect();
            check_questions(&refs, limits, &mut problems);
        }
        if let Some(Value::Object(metadata)) = object.get("metadata") {
            check_metadata(metadata, limits, &mut problems);
        }
    }
    if problems.is_empty() {
        // The schema accepted what serde refused: a duplicate key is the one such case.
        let reason = typed_error.to_string();
        let (line, column) = (typed_error.line(), typed_error.column());
        let kind = match duplicate_field(&reason) {
            Some(key) => ProblemKind::DuplicateKey {
                key: key.to_string(),
            },
            None => ProblemKind::InvalidJson {
                line,
                column,
                reason,
            },
        };
        problems.push(Problem::new("", kind));
    }
    dedup_and_sort(&mut problems);
    let problems = problems
        .into_iter()
        .map(|p| Problem::new(format!("{prefix}{}", p.path), p.kind));
    Problems::from_vec(problems.collect()).unwrap_or_else(unreachable_problems)
}

/// Reads a question while ignoring unknown fields (already reported by the schema), so that its
/// other problems are reported too.
fn lenient_question(item: &Value) -> Option<Question> {
    if let Ok(question) = Question::deserialize(item) {
        return Some(question);
    }
    let mut item = item.clone();
    let object = item.as_object_mut()?;
    object.retain(|key, _| QUESTION_FIELDS.contains(&key.as_str()));
    if let Some(Value::Array(options)) = object.get_mut("options") {
        for option in options.iter_mut().filter_map(Value::as_object_mut) {
            option.retain(|key, _| OPTION_FIELDS.contains(&key.as_str()));
        }
    }
    Question::deserialize(&item).ok()
}

fn duplicate_field(message: &str) -> Option<&str> {
    let rest = message.strip_prefix("duplicate field `")?;
    Some(&rest[..rest.find('`')?])
}

/// Removes repeated problems and puts them in document order (array indexes compared as
/// numbers), keeping the order of problems at the same path.
pub(crate) fn dedup_and_sort(problems: &mut Vec<Problem>) {
    let mut seen = std::collections::HashSet::new();
    problems.retain(|p| seen.insert(p.clone()));
    problems.sort_by(|a, b| path_key(&a.path).cmp(&path_key(&b.path)));
}

fn path_key(path: &str) -> Vec<(u8, usize, &str)> {
    path.split('/')
        .skip(1)
        .map(|segment| match segment.parse::<usize>() {
            Ok(n) => (0, n, ""),
            Err(_) => (1, 0, segment),
        })
        .collect()
}

const ROOT_FIELDS: &[&str] = &["questions", "metadata"];
const QUESTION_FIELDS: &[&str] = &[
    "question",
    "header",
    "options",
    "multiSelect",
    "kind",
    "placeholder",
    "secret",
    "id",
];
const OPTION_FIELDS: &[&str] = &["label", "description", "preview"];

/// The fields allowed in the object at `path`.
fn allowed_fields(path: &str) -> &'static [&'static str] {
    match path.split('/').skip(1).count() {
        0 => ROOT_FIELDS,
        2 => QUESTION_FIELDS,
        _ => OPTION_FIELDS,
    }
}

/// The value expected at `path` written out, for the places where a model most often sends the
/// wrong shape: a bare list of questions, options as plain strings.
fn shape_at(path: &str) -> Option<&'static str> {
    let parts: Vec<&str> = path.split('/').skip(1).collect();
    Some(match parts.as_slice() {
        [] => r#"{"questions": [ … ]}"#,
        ["questions"] => r#"[{"question": "…", "options": [ … ]}]"#,
        ["questions", _] => r#"{"question": "…", "header": "…", "options": [ … ]}"#,
        ["questions", _, "options"] => r#"[{"label": "…", "description": "…"}, …]"#,
        ["questions", _, "options", _] => r#"{"label": "…", "description": "…"}"#,
        _ => return None,
    })
}

fn text_field(path: &str) -> Option<TextField> {
    Some(match path.rsplit('/').next()? {
        "question" => TextField::Question,
        "header" => TextField::Header,
        "label" => TextField::Label,
        "description" => TextField::Description,
        "preview" => TextField::Preview,
        "placeholder" => TextField::Placeholder,
        _ => return None,
    })
}

fn map_schema_error(error: &ValidationError<'_>, limits: &Limits) -> Vec<Problem> {
    let path = error.instance_path().as_str();
    let (kind, instance, detail) = (error.kind(), error.instance(), error.to_string());
    let schema_problem = |keyword: &str| ProblemKind::Schema {
        keyword: keyword.to_string(),
        detail,
    };
    let one = |kind| vec![Problem::new(path, kind)];
    match kind {
        ValidationErrorKind::Required { property } => one(ProblemKind::MissingField {
            field: property.as_str().unwrap_or_default().to_string(),
        }),
        ValidationErrorKind::AdditionalProperties { unexpected } => unexpected
            .iter()
            .map(|field| {
                Problem::new(
                    format!("{path}/{}", escape_pointer(field)),
                    ProblemKind::UnknownField {
                        field: field.to_string(),
                        allowed: allowed_fields(path),
                    },
                )
            })
            .collect(),
        ValidationErrorKind::Type { kind: type_kind } => {
            let expected = match type_kind {
                jsonschema::error::TypeKind::Single(t) => schema_type(*t),
                jsonschema::error::TypeKind::Multiple(set) => set
                    .into_iter()
                    .filter_map(schema_type)
                    .find(|t| *t != JsonType::Null),
            };
            match expected {
                Some(expected) => one(ProblemKind::WrongType {
                    expected,
                    found: JsonType::of(instance),
                    shape: shape_at(path),
                }),
                None => one(schema_problem("type")),
            }
        }
        ValidationErrorKind::MinItems { .. } | ValidationErrorKind::MaxItems { .. } => {
            let given = instance.as_array().map_or(0, Vec::len);
            let (min, max) = (limits.min_options, limits.max_options);
            if path == "/questions" {
                if given == 0 {
                    one(ProblemKind::NoQuestions)
                } else {
                    one(ProblemKind::TooManyQuestions {
                        given,
                        max: limits.max_questions,
                        raised_with: limits.raised_with.map(|names| names.questions),
                    })
                }
            } else if given < min {
                one(ProblemKind::TooFewOptions { given, min, max })
            } else {
                one(ProblemKind::TooManyOptions {
                    given,
                    min,
                    max,
                    raised_with: limits.raised_with.map(|names| names.options),
                })
            }
        }
        ValidationErrorKind::MinLength { .. } => match text_field(path) {
            Some(field) => one(ProblemKind::EmptyText { field }),
            None => one(schema_problem("minLength")),
        },
        ValidationErrorKind::MaxLength { limit } => match text_field(path) {
            Some(field) => one(ProblemKind::TooLong {
                field,
                chars: instance.as_str().map_or(0, |s| s.chars().count()),
                max: usize::try_from(*limit).unwrap_or(usize::MAX),
            }),
            None => one(schema_problem("maxLength")),
        },
        ValidationErrorKind::Pattern { .. } if path.ends_with("/id") => one(ProblemKind::InvalidId),
        ValidationErrorKind::Enum { .. } if path.ends_with("/kind") => {
            one(ProblemKind::UnknownKind {
                given: instance.to_string(),
            })
        }
        other => one(schema_problem(keyword_name(other))),
    }
}

fn keyword_name(kind: &ValidationErrorKind) -> &'static str {
    match kind {
        ValidationErrorKind::Enum { .. } => "enum",
        ValidationErrorKind::Constant { .. } => "const",
        ValidationErrorKind::AnyOf { .. } => "anyOf",
        ValidationErrorKind::OneOfNotValid { .. }
        | ValidationErrorKind::OneOfMultipleValid { .. } => "oneOf",
        _ => "schema",
    }
}

fn schema_type(t: jsonschema::JsonType) -> Option<JsonType> {
    JsonType::from_schema_name(t.as_str())
}

fn escape_pointer(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Parses `input` with the default limits and compares the rendered problems.
    #[track_caller]
    /// The limits of these tests: the defaults, with the names a host raises them with.
    fn limits() -> Limits {
        Limits::default().raised_with(ask_core::RaisedWith {
            questions: "--max-questions",
            options: "--max-options",
        })
    }

    fn check(input: &str, expected: &[&str]) {
        let got: Vec<String> = match parse(input, &limits()) {
            Ok(_) => Vec::new(),
            Err(problems) => problems.iter().map(ToString::to_string).collect(),
        };
        assert_eq!(got, expected, "input: {input}");
        // The value path reports the same problems as the text path.
        if let Ok(value) = serde_json::from_str::<Value>(input) {
            let from_value: Vec<String> = match parse(&value, &limits()) {
                Ok(_) => Vec::new(),
                Err(problems) => problems.iter().map(ToString::to_string).collect(),
            };
            assert_eq!(from_value, expected, "value input: {input}");
        }
    }

    #[test]
    fn claude_code_style_call_validates() {
        check(
            r#"{"questions": [{"question": "Which auth method?", "header": "Auth",
                "options": [{"label": "OAuth (Recommended)", "description": "Standard"},
                            {"label": "API keys", "description": "Simple"}],
                "multiSelect": false}]}"#,
            &[],
        );
    }

    #[test]
    fn nulls_mean_absent() {
        check(
            r#"{"questions": [{"question": "Q?", "header": null, "options": null}]}"#,
            &[],
        );
    }

    #[test]
    fn metadata_is_an_object_or_absent_never_null() {
        check(
            r#"{"questions": [{"question": "Q?"}], "metadata": null}"#,
            &["/metadata: expected an object, found null"],
        );
        check(
            r#"{"questions": [{"question": "Q?"}], "metadata": {"source": "setup"}}"#,
            &[],
        );
    }

    #[test]
    fn invalid_json_names_line_and_column() {
        check(
            "{\"questions\": [\n  {\"question\": \"Q?\",}\n]}",
            &["(root): not valid JSON at line 2, column 21: trailing comma"],
        );
    }

    #[test]
    fn root_must_be_an_object() {
        check(
            "[1]",
            &[r#"(root): expected an object, found an array; write it as {"questions": [ … ]}"#],
        );
    }

    #[test]
    fn missing_questions() {
        check(
            "{}",
            &[
                r#"(root): missing required field `questions`; the call is an object holding the list of questions: {"questions": [{"question": "…", "options": [ … ]}]}"#,
            ],
        );
    }

    #[test]
    fn wrong_shapes_show_the_expected_shape() {
        check(
            r#"{"questions": [{"question": "A?", "options": ["x", {"label": "y"}]}]}"#,
            &[
                r#"/questions/0/options/0: expected an object, found a string; write it as {"label": "…", "description": "…"}"#,
            ],
        );
        check(
            r#"{"questions": ["A?"]}"#,
            &[
                r#"/questions/0: expected an object, found a string; write it as {"question": "…", "header": "…", "options": [ … ]}"#,
            ],
        );
        check(
            r#"{"questions": {"question": "A?"}}"#,
            &[
                r#"/questions: expected an array, found an object; write it as [{"question": "…", "options": [ … ]}]"#,
            ],
        );
    }

    #[test]
    fn unknown_fields_are_named() {
        check(
            r#"{"questions": [{"question": "Q?", "choices": ["a"]}], "tool": 1}"#,
            &[
                "/questions/0/choices: unknown field `choices`; did you mean `options`? The fields allowed here are `question`, `header`, `options`, `multiSelect`, `kind`, `placeholder`, `secret` and `id`",
                "/tool: unknown field `tool`; the fields allowed here are `questions` and `metadata`",
            ],
        );
        check(
            r#"{"questions": [{"question": "Q?", "options": [{"label": "a", "value": 1}, {"label": "b"}]}]}"#,
            &[
                "/questions/0/options/0/value: unknown field `value`; the fields allowed here are `label`, `description` and `preview`",
            ],
        );
    }

    #[test]
    fn numbers_where_strings_belong() {
        check(
            r#"{"questions": [{"question": "Q?", "options": [{"label": 1}, {"label": "b"}], "multiSelect": "yes"}]}"#,
            &[
                "/questions/0/multiSelect: expected a boolean, found a string",
                "/questions/0/options/0/label: expected a string, found a number",
            ],
        );
    }

    #[test]
    fn counts_through_the_schema_path() {
        check(
            r#"{"questions": []}"#,
            &["/questions: no questions given; give at least 1"],
        );
        check(
            r#"{"questions": [{"question": 1}, {"question": "B?"}, {"question": "C?"}, {"question": "D?"}, {"question": "E?"}]}"#,
            &[
                "/questions: 5 questions given; give 1 to 4, and ask the rest in a later call (a host that wants more raises the limit with `--max-questions 5`)",
                "/questions/0/question: expected a string, found a number",
            ],
        );
    }

    #[test]
    fn canonical_optional_fields_are_named_in_the_callers_words() {
        check(
            r#"{"questions":[{"question":"Ship?","kind":"text"}]}"#,
            &[
                "/questions/0/kind: unknown kind \"text\"; use \"choice\" (the default, also for \
                 free text), \"yesno\" or \"path\"",
            ],
        );
        // With another structural problem the schema reads the id too: one problem, not two.
        check(
            r#"{"questions":[{"question":"Where?","kind":"path","id":"my id","secret":"yes"}]}"#,
            &[
                "/questions/0/id: the id must be 1 to 64 characters of ASCII letters, digits, `_` \
                 or `-`, such as \"database_engine\"",
                "/questions/0/secret: expected a boolean, found a string",
            ],
        );
        check(
            r#"{"questions":[{"question":"Which?","options":[{"label":"A","preview":7},{"label":"B"}]}]}"#,
            &["/questions/0/options/0/preview: expected a string, found a number"],
        );
        let valid = parse(
            r#"{"questions":[{"question":"Ship?","kind":"yesno","id":"ship","secret":false,
                "placeholder":"say yes"}]}"#,
            &Limits::default(),
        )
        .unwrap();
        assert_eq!(valid.questions[0].options().len(), 2);
        assert_eq!(valid.questions[0].id.as_deref(), Some("ship"));
    }

    #[test]
    fn duplicate_key() {
        // Only JSON text can repeat a key; a parsed value already kept one of them.
        let err = parse(
            r#"{"questions": [{"question": "A?", "question": "B?"}]}"#,
            &Limits::default(),
        );
        assert_eq!(
            err.unwrap_err().to_string(),
            "(root): the key `question` appears twice; give each field once"
        );
    }

    #[test]
    fn duplicate_keys_in_envelopes_are_refused() {
        let check = |text: &str, expected: &str| {
            let err = parse_call(text, &Limits::default()).unwrap_err();
            assert_eq!(err.to_string(), expected, "{text}");
        };
        // In the envelope itself: two ids, two inputs.
        check(
            r#"{"id": "a", "id": "b", "name": "ask_user", "input": {"questions": [{"question": "Q?"}]}}"#,
            "(root): the key `id` appears twice; give each field once",
        );
        check(
            r#"{"name": "ask_user", "input": {"questions": [{"question": "Q?"}]}, "input": {"questions": [{"question": "R?"}]}}"#,
            "(root): the key `input` appears twice; give each field once",
        );
        // Inside the input of an envelope.
        check(
            r#"{"name": "ask_user", "input": {"questions": [{"question": "A?", "question": "B?"}]}}"#,
            "/input/questions/0: the key `question` appears twice; give each field once",
        );
        // Inside OpenAI's `arguments` text.
        check(
            r#"{"id": "c", "function": {"name": "ask_user", "arguments": "{\"questions\": [{\"question\": \"Q?\"}], \"questions\": []}"}}"#,
            "/function/arguments: the key `questions` appears twice; give each field once",
        );
    }

    #[test]
    fn five_mistakes_of_both_kinds() {
        let input = r#"{"questions": [
            {"question": "Pick?", "options": [{"label": "only"}]},
            {"question": 5},
            {"question": "pick?", "multiSelect": true},
            {"question": "Other?", "options": [{"label": "Other"}, {"label": "x"}], "extra": true}
        ]}"#;
        check(
            input,
            &[
                "/questions/0/options: 1 option given; give 2 to 4, or omit options for a free-text question",
                "/questions/1/question: expected a string, found a number",
                "/questions/2/multiSelect: multiSelect is true but the question has no options; add options or set multiSelect to false",
                "/questions/2/question: this question repeats question 0; answers are keyed by the question text, so make each one unique",
                "/questions/3/extra: unknown field `extra`; the fields allowed here are `question`, `header`, `options`, `multiSelect`, `kind`, `placeholder`, `secret` and `id`",
                "/questions/3/options/0/label: this label reads as \"Other\"; remove this option: the person always gets an \"Other\" choice to type their own answer, and a multi-select question also a \"None of these\" choice",
            ],
        );
    }

    #[test]
    fn envelope_forms() {
        let limits = Limits::default();
        let call = parse_call(
            r#"{"type": "tool_use", "id": "toolu_01", "name": "ask_user", "input": {"questions": [{"question": "Q?"}]}}"#,
            &limits,
        )
        .unwrap();
        assert_eq!(call.call_id.as_deref(), Some("toolu_01"));
        assert_eq!(call.input.questions[0].question, "Q?");
        // OpenAI Chat Completions: a `tool_calls` entry, as text and as a value.
        let chat = r#"{"id": "call_1", "type": "function", "function": {"name": "ask_user",
            "arguments": "{\"questions\": [{\"question\": \"Q?\"}]}"}}"#;
        let call = parse_call(chat, &limits).unwrap();
        assert_eq!(call.call_id.as_deref(), Some("call_1"));
        assert_eq!(call.input.questions[0].question, "Q?");
        let value: Value = serde_json::from_str(chat).unwrap();
        assert_eq!(
            parse_call(&value, &limits).unwrap().call_id.as_deref(),
            Some("call_1")
        );
        // OpenAI Responses API: a `function_call` item.
        let call = parse_call(
            &json!({"type": "function_call", "id": "fc_2", "call_id": "call_2", "name": "ask_user",
                    "arguments": "{\"questions\": [{\"question\": \"Q?\"}]}"}),
            &limits,
        )
        .unwrap();
        assert_eq!(call.call_id.as_deref(), Some("call_2"));
        let err = parse_call(
            r#"{"id": "call_3", "function": {"name": "ask_user", "arguments": "{\"questions\": 1}"}}"#,
            &limits,
        )
        .unwrap_err();
        assert!(
            err.to_string()
                .starts_with("/function/arguments/questions: "),
            "{err}"
        );
        let err = parse_call(
            r#"{"id": "call_4", "function": {"name": "shell", "arguments": "{}"}}"#,
            &limits,
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "/function/name: the tool call is for `shell`, not `ask_user`"
        );
        let err = parse_call(
            r#"{"name": "ask_user", "input": {"questions": []}}"#,
            &limits,
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "/input/questions: no questions given; give at least 1"
        );
        let err = parse_call(r#"{"name": "bash", "input": {}}"#, &limits).unwrap_err();
        assert_eq!(
            err.to_string(),
            "/name: the tool call is for `bash`, not `ask_user`"
        );
        let err = parse_call(r#"{"name": "ask_user", "arguments": "{oops"}"#, &limits).unwrap_err();
        assert_eq!(
            err.to_string(),
            "/arguments: not valid JSON at line 1, column 2: key must be a string"
        );
    }

    #[test]
    fn raised_limits_accept_long_lists() {
        let options: Vec<Value> = (0..8).map(|i| json!({"label": format!("F{i}")})).collect();
        let input = json!({"questions": [{"question": "Which framework?", "options": options}]});
        assert!(parse(&input, &Limits::default()).is_err());
        assert!(parse(&input, &Limits::default().with_max_options(8)).is_ok());
    }
}

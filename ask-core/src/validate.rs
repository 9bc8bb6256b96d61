//! Semantic validation of a call: every problem at once, each with its JSON path and a sentence a
//! model can act on.

use std::collections::HashMap;
use std::fmt;
use std::ops::Deref;

use unicode_normalization::UnicodeNormalization;
use unicode_script::{Script, UnicodeScript};

use crate::display::{
    CharClass, classify, classify_in_context, describe_char, sanitize_for_display as clean,
};
use crate::input::{
    AskUserInput, Limits, Question, QuestionKind, QuestionOption, YES_NO_LABELS, normalize_label,
    without_recommended,
};

/// A call that passed validation. Only [`validate`] (and parsers built on it) make one.
#[derive(Debug, Clone, PartialEq)]
pub struct ValidatedInput(AskUserInput);

impl ValidatedInput {
    /// The validated call.
    pub fn input(&self) -> &AskUserInput {
        &self.0
    }

    /// Gives back the call.
    pub fn into_inner(self) -> AskUserInput {
        self.0
    }
}

impl Deref for ValidatedInput {
    type Target = AskUserInput;

    fn deref(&self) -> &AskUserInput {
        &self.0
    }
}

/// A text field of the input, for messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TextField {
    /// `questions[i].question`
    Question,
    /// `questions[i].header`
    Header,
    /// `questions[i].options[j].label`
    Label,
    /// `questions[i].options[j].description`
    Description,
    /// `questions[i].options[j].preview`
    Preview,
    /// `questions[i].placeholder`
    Placeholder,
}

impl TextField {
    /// The field name as it appears in the JSON.
    pub fn name(self) -> &'static str {
        match self {
            TextField::Question => "question",
            TextField::Header => "header",
            TextField::Label => "label",
            TextField::Description => "description",
            TextField::Preview => "preview",
            TextField::Placeholder => "placeholder",
        }
    }

    fn max(self, limits: &Limits) -> usize {
        match self {
            TextField::Question => limits.max_question_chars,
            TextField::Header => limits.max_header_chars,
            TextField::Label => limits.max_label_chars,
            TextField::Description => limits.max_description_chars,
            TextField::Preview => limits.max_preview_chars,
            TextField::Placeholder => limits.max_placeholder_chars,
        }
    }

    /// True for the fields that are one line: headers, labels and placeholders.
    fn is_one_line(self) -> bool {
        matches!(
            self,
            TextField::Header | TextField::Label | TextField::Placeholder
        )
    }
}

/// The JSON type of a value, for messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum JsonType {
    /// `null`
    Null,
    /// `true` or `false`
    Boolean,
    /// A number.
    Number,
    /// A string.
    String,
    /// An array.
    Array,
    /// An object.
    Object,
}

impl JsonType {
    /// The type of a JSON value.
    pub fn of(value: &serde_json::Value) -> JsonType {
        match value {
            serde_json::Value::Null => JsonType::Null,
            serde_json::Value::Bool(_) => JsonType::Boolean,
            serde_json::Value::Number(_) => JsonType::Number,
            serde_json::Value::String(_) => JsonType::String,
            serde_json::Value::Array(_) => JsonType::Array,
            serde_json::Value::Object(_) => JsonType::Object,
        }
    }

    /// The type named by a JSON Schema `type` keyword.
    pub fn from_schema_name(name: &str) -> Option<JsonType> {
        Some(match name {
            "null" => JsonType::Null,
            "boolean" => JsonType::Boolean,
            "number" | "integer" => JsonType::Number,
            "string" => JsonType::String,
            "array" => JsonType::Array,
            "object" => JsonType::Object,
            _ => return None,
        })
    }
}

impl fmt::Display for JsonType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            JsonType::Null => "null",
            JsonType::Boolean => "a boolean",
            JsonType::Number => "a number",
            JsonType::String => "a string",
            JsonType::Array => "an array",
            JsonType::Object => "an object",
        })
    }
}

/// What is wrong at one place of a call.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ProblemKind {
    /// The text is not JSON.
    InvalidJson {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// The parser's description.
        reason: String,
    },
    /// A value has the wrong JSON type.
    WrongType {
        /// What the contract wants.
        expected: JsonType,
        /// What was given.
        found: JsonType,
        /// The expected value written out, such as `{"label": "…", "description": "…"}`, where
        /// the place has a shape worth showing.
        shape: Option<&'static str>,
    },
    /// The input holds nothing but white space.
    EmptyInput,
    /// A required field is absent.
    MissingField {
        /// The field name.
        field: String,
    },
    /// A field the contract does not know.
    UnknownField {
        /// The field name.
        field: String,
        /// The fields allowed at this place.
        allowed: &'static [&'static str],
    },
    /// The same key appears twice in one object.
    DuplicateKey {
        /// The key.
        key: String,
    },
    /// `questions` is empty.
    NoQuestions,
    /// More questions than the limit.
    TooManyQuestions {
        /// How many were given.
        given: usize,
        /// The limit.
        max: usize,
    },
    /// Fewer options than the minimum.
    TooFewOptions {
        /// How many were given.
        given: usize,
        /// The minimum.
        min: usize,
        /// The maximum.
        max: usize,
    },
    /// More options than the limit.
    TooManyOptions {
        /// How many were given.
        given: usize,
        /// The minimum.
        min: usize,
        /// The maximum.
        max: usize,
    },
    /// A text is empty or only whitespace.
    EmptyText {
        /// Which field.
        field: TextField,
    },
    /// A text is longer than its cap.
    TooLong {
        /// Which field.
        field: TextField,
        /// Its length in characters.
        chars: usize,
        /// The cap.
        max: usize,
    },
    /// A text holds a control or invisible character.
    ForbiddenCharacter {
        /// Which field.
        field: TextField,
        /// The character.
        character: char,
        /// Its 0-based position in characters.
        position: usize,
    },
    /// The question text repeats an earlier question.
    DuplicateQuestion {
        /// The index of the earlier question.
        first: usize,
    },
    /// A header or a label holds a line break: they are one line.
    LineBreak {
        /// Which field.
        field: TextField,
        /// Its 0-based position in characters.
        position: usize,
    },
    /// The label repeats an earlier label of the same question.
    DuplicateLabel {
        /// The index of the earlier option.
        first: usize,
    },
    /// The label draws like an earlier label of the same question: the two have the same
    /// Unicode confusable skeleton (UTS #39) and one of them holds a non-ASCII character.
    LookAlikeLabel {
        /// The index of the earlier option.
        first: usize,
        /// The first non-ASCII character of the label that holds one.
        character: char,
        /// Its 0-based position in characters.
        position: usize,
        /// True when that character is in the earlier label rather than in this one.
        in_first: bool,
    },
    /// The label differs from an earlier label of the same question only by its
    /// "(Recommended)" suffix, so an answer naming the option without it could mean either.
    LabelDiffersOnlyByRecommended {
        /// The index of the earlier option.
        first: usize,
    },
    /// An option is labelled "Other", which the tool adds itself.
    ReservedLabel,
    /// `multiSelect` is true on a question without options.
    MultiSelectWithoutOptions,
    /// A `yesno` or `path` question has options other than its kind allows.
    OptionsForKind {
        /// The question's kind.
        kind: QuestionKind,
    },
    /// `multiSelect` is true on a `yesno` or `path` question.
    MultiSelectForKind {
        /// The question's kind.
        kind: QuestionKind,
    },
    /// A question `id` is empty, too long, or holds a character other than ASCII letters,
    /// digits, `_` and `-`.
    InvalidId,
    /// `kind` names no known kind.
    UnknownKind {
        /// The value given, as JSON.
        given: String,
    },
    /// The question `id` repeats an earlier question's.
    DuplicateId {
        /// The index of the earlier question.
        first: usize,
    },
    /// The metadata object is too large.
    MetadataTooLarge {
        /// Its size in bytes of compact JSON.
        bytes: usize,
        /// The cap.
        max: usize,
    },
    /// A tool-call envelope names another tool.
    WrongTool {
        /// The name given.
        name: String,
    },
    /// A schema rule without a dedicated message.
    Schema {
        /// The JSON Schema keyword that failed.
        keyword: String,
        /// The validator's description.
        detail: String,
    },
    /// More problems than [`MAX_PROBLEMS`]: the rest are counted, not listed.
    MoreProblems {
        /// How many problems are not listed.
        count: usize,
    },
}

/// The most problems listed for one call; the rest are counted in a last
/// [`ProblemKind::MoreProblems`].
pub const MAX_PROBLEMS: usize = 100;

impl fmt::Display for ProblemKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProblemKind::MoreProblems { count } => write!(
                f,
                "and {count} more {}, not listed; fix the ones above and check the call again",
                plural(*count, "problem", "problems")
            ),
            ProblemKind::InvalidJson {
                line,
                column,
                reason,
            } => {
                write!(
                    f,
                    "not valid JSON at line {line}, column {column}: {}",
                    clean(reason)
                )
            }
            ProblemKind::WrongType {
                expected,
                found,
                shape,
            } => {
                write!(f, "expected {expected}, found {found}")?;
                match shape {
                    Some(shape) => write!(f, "; write it as {shape}"),
                    None => Ok(()),
                }
            }
            ProblemKind::EmptyInput => f.write_str(
                "the input is empty; give the ask_user call as JSON: {\"questions\": \
                 [{\"question\": \"…\", \"options\": [ … ]}]}",
            ),
            ProblemKind::MissingField { field } if field == "questions" => write!(
                f,
                "missing required field `questions`; the call is an object holding the list of \
                 questions: {{\"questions\": [{{\"question\": \"…\", \"options\": [ … ]}}]}}"
            ),
            ProblemKind::MissingField { field } => {
                write!(f, "missing required field `{field}`")
            }
            ProblemKind::UnknownField { field, allowed } => {
                write!(f, "unknown field `{}`; ", clean(field))?;
                match meant_field(field, allowed) {
                    Some(meant) => {
                        write!(f, "did you mean `{meant}`? The fields allowed here are ")?
                    }
                    None => f.write_str("the fields allowed here are ")?,
                }
                write_list(f, allowed)
            }
            ProblemKind::DuplicateKey { key } => {
                write!(
                    f,
                    "the key `{}` appears twice; give each field once",
                    clean(key)
                )
            }
            ProblemKind::NoQuestions => f.write_str("no questions given; give at least 1"),
            ProblemKind::TooManyQuestions { given, max } => write!(
                f,
                "{given} questions given; give 1 to {max}, and ask the rest in a later call (a \
                 host that wants more raises the limit with `--max-questions {given}`)"
            ),
            ProblemKind::TooFewOptions { given, min, max } => write!(
                f,
                "{given} {} given; give {min} to {max}, or omit options for a free-text question",
                plural(*given, "option", "options")
            ),
            ProblemKind::TooManyOptions { given, min, max } => write!(
                f,
                "{given} options given; give {min} to {max} (the person can always type another \
                 answer through \"Other\"; a host that wants more raises the limit with \
                 `--max-options {given}`)"
            ),
            ProblemKind::EmptyText {
                field: TextField::Header,
            } => f.write_str("the header is empty; write some text, or leave the header out"),
            ProblemKind::EmptyText { field } => {
                write!(f, "the {} is empty; write some text", field.name())
            }
            ProblemKind::TooLong { field, chars, max } => {
                write!(
                    f,
                    "the {} is {chars} characters long; shorten it to {max}",
                    field.name()
                )?;
                if *field == TextField::Header {
                    write!(f, " (12 or fewer reads best)")?;
                }
                Ok(())
            }
            ProblemKind::ForbiddenCharacter {
                field,
                character,
                position,
            } => {
                let noun = match character {
                    _ if classify(*character) == CharClass::Control => "control character",
                    '\u{061c}'
                    | '\u{200e}'
                    | '\u{200f}'
                    | '\u{202a}'..='\u{202e}'
                    | '\u{2066}'..='\u{2069}' => "bidi control",
                    _ => "invisible character",
                };
                write!(
                    f,
                    "the {} contains the {noun} {} at character {position}; remove it",
                    field.name(),
                    describe_char(*character)
                )?;
                if field.is_one_line() {
                    f.write_str(" (only tab is allowed)")
                } else {
                    f.write_str(" (only newline and tab are allowed)")
                }
            }
            ProblemKind::LineBreak { field, position } => {
                write!(
                    f,
                    "the {} contains a line break at character {position}; ",
                    field.name()
                )?;
                f.write_str(match field {
                    TextField::Label => {
                        "a label is one line, so put the detail in the option's description"
                    }
                    TextField::Placeholder => "a placeholder is one short line of example text",
                    _ => "a header is one short line, so put the detail in the question",
                })
            }
            ProblemKind::DuplicateQuestion { first } => write!(
                f,
                "this question repeats question {first}; answers are keyed by the question text, \
                 so make each one unique"
            ),
            ProblemKind::DuplicateLabel { first } => write!(
                f,
                "this label repeats option {first} (labels are compared ignoring case and runs of \
                 spaces); make each label distinct"
            ),
            ProblemKind::LabelDiffersOnlyByRecommended { first } => write!(
                f,
                "this label differs from option {first} only by \"(Recommended)\", so an answer \
                 could mean either; make each label distinct and mark only one option recommended"
            ),
            ProblemKind::LookAlikeLabel {
                first,
                character,
                position,
                in_first,
            } => {
                let whose = if *in_first {
                    ", which holds"
                } else {
                    " but holds"
                };
                write!(
                    f,
                    "this label looks the same as option {first}{whose} the look-alike character \
                     {} at character {position}; give each option a label that reads differently, \
                     in plain letters",
                    describe_look_alike(*character)
                )
            }
            ProblemKind::ReservedLabel => f.write_str(
                "this label reads as \"Other\", which is added automatically so the person can \
                 type their own answer; remove this option",
            ),
            ProblemKind::MultiSelectWithoutOptions => f.write_str(
                "multiSelect is true but the question has no options; add options or set \
                 multiSelect to false",
            ),
            ProblemKind::OptionsForKind {
                kind: QuestionKind::YesNo,
            } => f.write_str(
                "a yesno question gets the options \"Yes\" and \"No\" added; leave options out, \
                 or give exactly those two labels in that order",
            ),
            ProblemKind::OptionsForKind { kind } => write!(
                f,
                "a {} question takes typed text, not options; remove options, or make it a \
                 choice question",
                kind.as_str()
            ),
            ProblemKind::MultiSelectForKind { kind } => write!(
                f,
                "a {} question takes one answer; set multiSelect to false",
                kind.as_str()
            ),
            ProblemKind::InvalidId => f.write_str(
                "the id must be 1 to 64 characters of ASCII letters, digits, `_` or `-`, such as \
                 \"database_engine\"",
            ),
            ProblemKind::UnknownKind { given } => write!(
                f,
                "unknown kind {}; use \"choice\" (the default, also for free text), \"yesno\" \
                 or \"path\"",
                clean(given)
            ),
            ProblemKind::DuplicateId { first } => write!(
                f,
                "this id repeats question {first}'s; give each question its own id"
            ),
            ProblemKind::MetadataTooLarge { bytes, max } => write!(
                f,
                "metadata is {bytes} bytes of JSON; keep it to {max} bytes (it is for tracking, \
                 not for content)"
            ),
            ProblemKind::WrongTool { name } => {
                write!(f, "the tool call is for `{}`, not `ask_user`", clean(name))
            }
            ProblemKind::Schema { keyword, detail } => {
                write!(f, "{} (schema rule `{keyword}`)", clean(detail))
            }
        }
    }
}

fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 { one } else { many }
}

/// The allowed field a mistyped `field` most likely meant: one whose name is at most two edits
/// away, case ignored (`multiselect`, `mutliSelect`), or the field that a common other name
/// stands for (`choices` for `options`); `None` when nothing is that close.
fn meant_field(field: &str, allowed: &[&'static str]) -> Option<&'static str> {
    /// Names other tools give to a field of the call, and the field they mean.
    const OTHER_NAMES: [(&str, &str); 8] = [
        ("choices", "options"),
        ("answers", "options"),
        ("suggestions", "options"),
        ("multiple", "multiSelect"),
        ("allowmultiple", "multiSelect"),
        ("title", "header"),
        ("prompt", "question"),
        ("text", "question"),
    ];
    let lower = field.to_lowercase();
    if let Some((_, meant)) = OTHER_NAMES
        .iter()
        .find(|(other, meant)| *other == lower && allowed.contains(meant))
    {
        return allowed.iter().copied().find(|a| a == meant);
    }
    allowed
        .iter()
        .map(|name| (edit_distance(&lower, &name.to_lowercase()), *name))
        .filter(|(distance, _)| *distance <= 2)
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, name)| name)
}

/// The Levenshtein distance between two short names, by characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != *cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

fn write_list(f: &mut fmt::Formatter<'_>, items: &[&str]) -> fmt::Result {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(if i + 1 == items.len() { " and " } else { ", " })?;
        }
        write!(f, "`{item}`")?;
    }
    Ok(())
}

/// One problem: where (a JSON pointer such as `/questions/1/options`) and what.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Problem {
    /// The JSON pointer of the offending value; empty for the whole document.
    pub path: String,
    /// What is wrong.
    pub kind: ProblemKind,
}

impl Problem {
    /// A problem at `path`.
    pub fn new(path: impl Into<String>, kind: ProblemKind) -> Problem {
        Problem {
            path: path.into(),
            kind,
        }
    }

    /// The path as shown to people: the JSON pointer, or `(root)` for the whole document.
    pub fn display_path(&self) -> &str {
        if self.path.is_empty() {
            "(root)"
        } else {
            &self.path
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The path names the model's own keys, which may hold anything.
        write!(f, "{}: {}", clean(self.display_path()), self.kind)
    }
}

/// Every problem of a call, in document order. Never empty.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problems(Vec<Problem>);

impl From<Problem> for Problems {
    /// One problem: a list that is never empty, so no `Option` to unwrap.
    fn from(problem: Problem) -> Problems {
        Problems(vec![problem])
    }
}

impl Problems {
    /// The heading above a list of these problems, in the same words wherever a call is refused
    /// (`validate`, the ask command, the MCP server): "the call is invalid (2 problems):".
    pub fn heading(&self) -> String {
        let noun = if self.len() == 1 {
            "problem"
        } else {
            "problems"
        };
        format!("the call is invalid ({} {noun}):", self.len())
    }

    /// Wraps a list of problems; `None` when the list is empty. Past [`MAX_PROBLEMS`], the
    /// rest are counted in one last problem ("and N more problems").
    pub fn from_vec(mut problems: Vec<Problem>) -> Option<Problems> {
        if problems.is_empty() {
            return None;
        }
        if problems.len() > MAX_PROBLEMS {
            let count = problems.len() - MAX_PROBLEMS;
            problems.truncate(MAX_PROBLEMS);
            problems.push(Problem::new("", ProblemKind::MoreProblems { count }));
        }
        Some(Problems(problems))
    }

    /// The problems.
    pub fn as_slice(&self) -> &[Problem] {
        &self.0
    }

    /// How many problems there are.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Always false: a `Problems` holds at least one problem.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Iterates over the problems.
    pub fn iter(&self) -> std::slice::Iter<'_, Problem> {
        self.0.iter()
    }

    /// Gives back the list.
    pub fn into_vec(self) -> Vec<Problem> {
        self.0
    }
}

impl fmt::Display for Problems {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, problem) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{problem}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Problems {}

impl<'a> IntoIterator for &'a Problems {
    type Item = &'a Problem;
    type IntoIter = std::slice::Iter<'a, Problem>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

/// Checks a call against the contract and `limits`, returning every problem at once.
///
/// ```
/// use ask_core::{AskUserInput, Limits, Question, validate};
/// let input = AskUserInput {
///     questions: vec![Question::choice("Which database?", ["PostgreSQL", "SQLite"])],
///     metadata: None,
/// };
/// assert!(validate(input, &Limits::default()).is_ok());
/// ```
pub fn validate(mut input: AskUserInput, limits: &Limits) -> Result<ValidatedInput, Problems> {
    let mut problems = Vec::new();
    check_input(&input, limits, &mut problems);
    match Problems::from_vec(problems) {
        None => {
            complete_yes_no(&mut input);
            Ok(ValidatedInput(input))
        }
        Some(problems) => Err(problems),
    }
}

/// Gives each yes/no question that left its options out the options "Yes" and "No", so that
/// every later layer sees an ordinary two-option question.
fn complete_yes_no(input: &mut AskUserInput) {
    for question in &mut input.questions {
        if question.kind == QuestionKind::YesNo && question.options.is_none() {
            question.options = Some(YES_NO_LABELS.map(QuestionOption::new).to_vec());
        }
    }
}

/// Appends the problems of a whole call to `out`.
pub fn check_input(input: &AskUserInput, limits: &Limits, out: &mut Vec<Problem>) {
    let count = input.questions.len();
    if count == 0 {
        out.push(Problem::new("/questions", ProblemKind::NoQuestions));
    } else if count > limits.max_questions {
        out.push(Problem::new(
            "/questions",
            ProblemKind::TooManyQuestions {
                given: count,
                max: limits.max_questions,
            },
        ));
    }
    let indexed: Vec<(usize, &Question)> = input.questions.iter().enumerate().collect();
    check_questions(&indexed, limits, out);
    if let Some(metadata) = &input.metadata {
        check_metadata(metadata, limits, out);
    }
}

/// Appends the problems of the given questions, each with its index in the call, to `out`.
///
/// Parsers that could read only some questions of a call use this to check those.
pub fn check_questions(questions: &[(usize, &Question)], limits: &Limits, out: &mut Vec<Problem>) {
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut ids: HashMap<&str, usize> = HashMap::new();
    for &(index, question) in questions {
        check_question(index, question, limits, out);
        if let Some(id) = question.id.as_deref().filter(|id| is_valid_id(id)) {
            if let Some(&first) = ids.get(id) {
                out.push(Problem::new(
                    format!("/questions/{index}/id"),
                    ProblemKind::DuplicateId { first },
                ));
            } else {
                ids.insert(id, index);
            }
        }
        let key = normalize_label(&question.question);
        if key.is_empty() {
            continue;
        }
        if let Some(&first) = seen.get(&key) {
            out.push(Problem::new(
                format!("/questions/{index}/question"),
                ProblemKind::DuplicateQuestion { first },
            ));
        } else {
            seen.insert(key, index);
        }
    }
}

/// Appends the problems of the metadata object to `out`.
pub fn check_metadata(
    metadata: &serde_json::Map<String, serde_json::Value>,
    limits: &Limits,
    out: &mut Vec<Problem>,
) {
    if metadata.is_empty() {
        return;
    }
    let bytes = serde_json::to_vec(metadata)
        .map(|v| v.len())
        .unwrap_or(usize::MAX);
    if bytes > limits.max_metadata_bytes {
        out.push(Problem::new(
            "/metadata",
            ProblemKind::MetadataTooLarge {
                bytes,
                max: limits.max_metadata_bytes,
            },
        ));
    }
}

fn check_question(index: usize, question: &Question, limits: &Limits, out: &mut Vec<Problem>) {
    // Paths are built only when there is a problem to report: the valid path stays cheap.
    let at = |rest: &str| format!("/questions/{index}{rest}");
    check_text(
        || at("/question"),
        TextField::Question,
        &question.question,
        limits,
        out,
    );
    if let Some(header) = &question.header {
        check_text(|| at("/header"), TextField::Header, header, limits, out);
    }
    if let Some(placeholder) = &question.placeholder {
        check_text(
            || at("/placeholder"),
            TextField::Placeholder,
            placeholder,
            limits,
            out,
        );
    }
    if question.id.as_deref().is_some_and(|id| !is_valid_id(id)) {
        out.push(Problem::new(at("/id"), ProblemKind::InvalidId));
    }
    if question.kind != QuestionKind::Choice {
        check_kind(&at, question, out);
    }
    match &question.options {
        // A yes/no question without options gets "Yes" and "No"; one with options was checked
        // above to hold exactly those.
        None if question.kind == QuestionKind::YesNo => {}
        // `check_kind` already refused multiSelect on the other kinds.
        None if question.multi_select && question.kind == QuestionKind::Choice => {
            out.push(Problem::new(
                at("/multiSelect"),
                ProblemKind::MultiSelectWithoutOptions,
            ));
        }
        None => {}
        Some(options) => {
            let given = options.len();
            let (min, max) = (limits.min_options, limits.max_options);
            if given < min {
                out.push(Problem::new(
                    at("/options"),
                    ProblemKind::TooFewOptions { given, min, max },
                ));
            } else if given > max {
                out.push(Problem::new(
                    at("/options"),
                    ProblemKind::TooManyOptions { given, min, max },
                ));
            }
            check_labels(&at, options, limits, out);
        }
    }
}

/// Appends the problems of a question's options to `out`: each text, the imitations of "Other",
/// repeated labels and look-alike labels. Linear in the number of options.
fn check_labels(
    at: &impl Fn(&str) -> String,
    options: &[QuestionOption],
    limits: &Limits,
    out: &mut Vec<Problem>,
) {
    let mut seen: HashMap<String, usize> = HashMap::with_capacity(options.len());
    // The labels that end in "(Recommended)", by the label without it: two labels may not differ
    // only by that suffix. Only those labels are kept, so a long plain list costs no more.
    let mut recommended: HashMap<String, usize> = HashMap::new();
    // Skeletons are compared only when a label holds a non-ASCII character: plain ASCII pairs
    // such as "Modern" and "Modem" share a skeleton but read differently.
    let mut look_alikes = options
        .iter()
        .any(|o| !o.label.is_ascii())
        .then(LookAlikes::default);
    for (j, option) in options.iter().enumerate() {
        let label_path = || at(&format!("/options/{j}/label"));
        check_text(label_path, TextField::Label, &option.label, limits, out);
        // An empty description is the same as none.
        if let Some(description) = option.description.as_ref().filter(|d| !d.trim().is_empty()) {
            let path = || at(&format!("/options/{j}/description"));
            check_text(path, TextField::Description, description, limits, out);
        }
        // Like a description, an empty preview is the same as none.
        if let Some(preview) = option.preview.as_ref().filter(|p| !p.trim().is_empty()) {
            let path = || at(&format!("/options/{j}/preview"));
            check_text(path, TextField::Preview, preview, limits, out);
        }
        let key = normalize_label(&option.label);
        if key.is_empty() {
            continue;
        }
        let skeleton = look_alikes
            .as_ref()
            .map(|_| skeleton_key(&option.label))
            .filter(|k| !k.is_empty());
        // Like label pairs, a label is read by its skeleton only when it is not plain ASCII.
        let look_alike_of_other =
            || !option.label.is_ascii() && skeleton.as_deref().is_some_and(imitates_other);
        if imitates_other(&key) || look_alike_of_other() {
            out.push(Problem::new(label_path(), ProblemKind::ReservedLabel));
        } else if let Some(&first) = seen.get(&key) {
            out.push(Problem::new(
                label_path(),
                ProblemKind::DuplicateLabel { first },
            ));
        } else if let Some(first) = differs_only_by_suffix(&key, &seen, &recommended) {
            out.push(Problem::new(
                label_path(),
                ProblemKind::LabelDiffersOnlyByRecommended { first },
            ));
        } else if let (Some(look_alikes), Some(skeleton)) = (look_alikes.as_mut(), skeleton)
            && let Some(kind) = look_alikes.check(options, j, skeleton)
        {
            out.push(Problem::new(label_path(), kind));
        }
        let base = without_recommended(&key);
        if base.len() != key.len() {
            recommended.entry(base.to_string()).or_insert(j);
        }
        seen.entry(key).or_insert(j);
    }
}

/// The first earlier label that `key` (a normalised label) differs from only by a
/// "(Recommended)" suffix: for a label with the suffix, an earlier label equal to it without the
/// suffix, or an earlier one with the same text before it; for a label without, an earlier one
/// with the suffix.
fn differs_only_by_suffix(
    key: &str,
    seen: &HashMap<String, usize>,
    recommended: &HashMap<String, usize>,
) -> Option<usize> {
    let base = without_recommended(key);
    if base.len() == key.len() {
        return recommended.get(key).copied();
    }
    match (seen.get(base), recommended.get(base)) {
        (Some(a), Some(b)) => Some(*a.min(b)),
        (found, None) | (None, found) => found.copied(),
    }
}

/// The labels of one question seen so far, by confusable skeleton.
#[derive(Default)]
struct LookAlikes {
    /// The first label with each skeleton.
    first: HashMap<String, usize>,
    /// The first label with each skeleton that holds a non-ASCII character.
    first_non_ascii: HashMap<String, usize>,
}

impl LookAlikes {
    /// Records label `j` and returns the problem when it looks like an earlier label: one with
    /// the same skeleton, where at least one of the two holds a non-ASCII character.
    fn check(
        &mut self,
        options: &[QuestionOption],
        j: usize,
        skeleton: String,
    ) -> Option<ProblemKind> {
        let label = &options[j].label;
        let found = if label.is_ascii() {
            self.first_non_ascii.get(&skeleton).copied()
        } else {
            self.first.get(&skeleton).copied()
        };
        if !label.is_ascii() {
            self.first_non_ascii.entry(skeleton.clone()).or_insert(j);
        }
        self.first.entry(skeleton).or_insert(j);
        let first = found?;
        let in_first = label.is_ascii();
        let holder = if in_first {
            &options[first].label
        } else {
            label
        };
        let (position, character) = holder.chars().enumerate().find(|(_, c)| !c.is_ascii())?;
        Some(ProblemKind::LookAlikeLabel {
            first,
            character,
            position,
            in_first,
        })
    }
}

/// The key under which two labels look alike: case and spacing folded as in
/// [`normalize_label`], NFKC (fullwidth and other compatibility forms become plain letters), then
/// the confusable skeleton of UTS #39 (Cyrillic and Greek look-alikes become Latin letters, and
/// default-ignorable characters such as variation selectors are dropped).
///
/// The skeleton decomposes (NFD) first, so NFKD stands for NFKC here, and an ASCII character,
/// which neither decomposes nor combines with what follows, maps on its own: only the runs of
/// non-ASCII characters go through the Unicode tables, and an accented label costs little more
/// than a plain one.
fn skeleton_key(label: &str) -> String {
    let folded = normalize_label(label);
    let mut out = String::with_capacity(folded.len() + 8);
    let mut rest = folded.as_str();
    while !rest.is_empty() {
        let ascii = rest.find(|c: char| !c.is_ascii()).unwrap_or(rest.len());
        for c in rest[..ascii].chars() {
            out.push_str(ascii_skeleton(c));
        }
        rest = &rest[ascii..];
        let run = rest.find(|c: char| c.is_ascii()).unwrap_or(rest.len());
        if run > 0 {
            let plain: String = rest[..run].nfkd().flat_map(char::to_lowercase).collect();
            out.extend(unicode_security::skeleton(&plain).flat_map(char::to_lowercase));
        }
        rest = &rest[run..];
    }
    normalize_label(&out)
}

/// The lowercased skeleton of one ASCII character ("m" is "rn", "0" is "o"), from a table built
/// once from `unicode_security::skeleton`.
fn ascii_skeleton(c: char) -> &'static str {
    static TABLE: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        (0..128u8)
            .map(|b| {
                let c = char::from(b);
                unicode_security::skeleton(c.encode_utf8(&mut [0; 4]))
                    .flat_map(char::to_lowercase)
                    .collect()
            })
            .collect()
    });
    table.get(c as usize).map_or("", String::as_str)
}

/// A look-alike character for messages: its code point and a name, a script or the character it
/// is a compatibility form of, such as `U+043E (a Cyrillic letter)`.
fn describe_look_alike(c: char) -> String {
    let described = describe_char(c);
    if described.contains('(') {
        return described;
    }
    let plain: String = std::iter::once(c).nfkc().collect();
    if plain != c.to_string() {
        return format!("{described} (a form of \"{plain}\")");
    }
    match c.script() {
        Script::Common | Script::Inherited | Script::Unknown => described,
        script => format!("{described} (a {} letter)", script.full_name()),
    }
}

/// The names of the built-in "Other" choice and the explanations that usually follow it, as
/// letters only and lowercased, per language: one row for each language the terminal UI speaks
/// (`lang::Lang`), holding the UI's own wording of "Other" in that language, so that a model
/// cannot add a second "Other" whatever language the person reads. A new language adds a row;
/// `ask-tui/tests/it/languages.rs` checks that each UI wording is refused.
const OTHER_NAMES: &[(&str, &[&str], &[&str])] = &[
    (
        "en",
        &[
            "other",
            "others",
            "otheroption",
            "otheranswer",
            "somethingelse",
        ],
        &[
            "typeyouranswer",
            "typeyourown",
            "typeyourownanswer",
            "typeyouranswerhere",
            "pleasespecify",
            "pleasespecifybelow",
            "specify",
            "specifybelow",
            "writein",
            "writeyourown",
            "freetext",
            "custom",
            "customanswer",
            "enteryourown",
        ],
    ),
    (
        "de",
        &["andere", "anderes", "sonstige", "sonstiges", "etwasanderes"],
        &["bitteangeben", "eigeneantwort", "eigeneantworteingeben"],
    ),
    (
        "es",
        &[
            "otro",
            "otra",
            "otros",
            "otras",
            "otraopción",
            "otrarespuesta",
        ],
        &[
            "especifique",
            "especificar",
            "escribasurespuesta",
            "escribaturespuesta",
        ],
    ),
    (
        "fr",
        &["autre", "autres", "autrechose", "autreréponse"],
        &[
            "préciser",
            "précisez",
            "veuillezpréciser",
            "saisissezvotreréponse",
        ],
    ),
    (
        "ja",
        &["その他", "そのほか", "他", "ほか"],
        &[
            "自由入力",
            "自由記述",
            "記入してください",
            "入力してください",
        ],
    ),
    (
        "zh",
        &["其他", "其它", "其他选项", "其他選項"],
        &[
            "请注明",
            "請註明",
            "请输入",
            "請輸入",
            "自行输入",
            "自行輸入",
        ],
    ),
];

/// True for a label (already normalised) that the person could take for the built-in "Other"
/// choice: one of its names in [`OTHER_NAMES`], however it is spaced or punctuated ("O t h e r",
/// "Other:", "Others"), alone or with a usual explanation ("Other (please specify)"), also when
/// marked "(Recommended)". "Other tools", "None of the above" and "Skip" are ordinary labels.
fn imitates_other(key: &str) -> bool {
    let key = key.strip_suffix("(recommended)").unwrap_or(key);
    // No name with an explanation is longer than this; longer labels are not looked at.
    const LONGEST: usize = 40;
    let mut letters = String::with_capacity(LONGEST * 4);
    for c in key.chars().filter(|c| c.is_alphanumeric()) {
        if letters.len() >= LONGEST * 4 {
            return false;
        }
        letters.push(c);
    }
    OTHER_NAMES.iter().any(|(_, names, explanations)| {
        names.iter().any(|name| {
            letters.strip_prefix(name).is_some_and(|rest| {
                rest.is_empty()
                    // Older wording of the built-in choice: "Other (type your …)".
                    || rest.starts_with("typeyour")
                    || explanations.contains(&rest)
            })
        })
    })
}

/// Appends the problems of a `yesno` or `path` question's options and `multiSelect` to `out`.
fn check_kind(at: &impl Fn(&str) -> String, question: &Question, out: &mut Vec<Problem>) {
    let kind = question.kind;
    if question.multi_select {
        out.push(Problem::new(
            at("/multiSelect"),
            ProblemKind::MultiSelectForKind { kind },
        ));
    }
    let Some(options) = &question.options else {
        return;
    };
    let allowed = kind == QuestionKind::YesNo
        && options.len() == YES_NO_LABELS.len()
        && options
            .iter()
            .zip(YES_NO_LABELS)
            .all(|(option, label)| option.label == label);
    if !allowed {
        out.push(Problem::new(
            at("/options"),
            ProblemKind::OptionsForKind { kind },
        ));
    }
}

/// True for an id of 1 to 64 ASCII letters, digits, `_` and `-`.
fn is_valid_id(id: &str) -> bool {
    (1..=64).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

fn check_text(
    path: impl Fn() -> String,
    field: TextField,
    text: &str,
    limits: &Limits,
    out: &mut Vec<Problem>,
) {
    // Headers and labels may be left out, but not given empty: an empty header would draw an
    // empty tab.
    if text.trim().is_empty() {
        out.push(Problem::new(path(), ProblemKind::EmptyText { field }));
        return;
    }
    let max = field.max(limits);
    // Headers, labels and placeholders are one line: a line break there would push the rest out
    // of sight.
    if field.is_one_line()
        && let Some(position) = text.chars().position(|c| c == '\n')
    {
        out.push(Problem::new(
            path(),
            ProblemKind::LineBreak { field, position },
        ));
    }
    // Fast path for plain ASCII, by far the common case.
    if text
        .bytes()
        .all(|b| (0x20..0x7f).contains(&b) || b == b'\n' || b == b'\t')
    {
        if text.len() > max {
            out.push(Problem::new(
                path(),
                ProblemKind::TooLong {
                    field,
                    chars: text.len(),
                    max,
                },
            ));
        }
        return;
    }
    let chars: Vec<char> = text.chars().collect();
    if chars.len() > max {
        out.push(Problem::new(
            path(),
            ProblemKind::TooLong {
                field,
                chars: chars.len(),
                max,
            },
        ));
    }
    let forbidden = (0..chars.len()).find(|&position| {
        matches!(
            classify_in_context(&chars, position),
            CharClass::Control | CharClass::Invisible
        )
    });
    // One report per field is enough to act on.
    if let Some(position) = forbidden {
        let kind = ProblemKind::ForbiddenCharacter {
            field,
            character: chars[position],
            position,
        };
        out.push(Problem::new(path(), kind));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_near_miss_field_name_is_named_as_what_it_meant() {
        const QUESTION: &[&str] = &["question", "header", "options", "multiSelect"];
        assert_eq!(meant_field("multiselect", QUESTION), Some("multiSelect"));
        assert_eq!(meant_field("MutliSelect", QUESTION), Some("multiSelect"));
        assert_eq!(meant_field("optons", QUESTION), Some("options"));
        assert_eq!(meant_field("choices", QUESTION), Some("options"));
        assert_eq!(meant_field("title", QUESTION), Some("header"));
        assert_eq!(meant_field("color", QUESTION), None);
        // A name that stands for a field the place does not have suggests nothing.
        assert_eq!(meant_field("choices", &["questions", "metadata"]), None);
        let kind = ProblemKind::UnknownField {
            field: "multiselect".into(),
            allowed: QUESTION,
        };
        assert_eq!(
            kind.to_string(),
            "unknown field `multiselect`; did you mean `multiSelect`? The fields allowed here are \
             `question`, `header`, `options` and `multiSelect`"
        );
    }

    #[test]
    fn a_count_past_the_limit_names_the_flag_that_raises_it() {
        let options = ProblemKind::TooManyOptions {
            given: 8,
            min: 2,
            max: 4,
        };
        assert!(
            options
                .to_string()
                .ends_with("raises the limit with `--max-options 8`)")
        );
        let questions = ProblemKind::TooManyQuestions { given: 6, max: 4 };
        assert!(
            questions
                .to_string()
                .ends_with("raises the limit with `--max-questions 6`)")
        );
    }
    use crate::input::QuestionOption;

    fn call(questions: Vec<Question>) -> AskUserInput {
        AskUserInput {
            questions,
            metadata: None,
        }
    }

    /// Validates `input` with the default limits and compares the rendered problems.
    #[track_caller]
    fn check(input: AskUserInput, expected: &[&str]) {
        let got: Vec<String> = match validate(input, &Limits::default()) {
            Ok(_) => Vec::new(),
            Err(problems) => problems.iter().map(ToString::to_string).collect(),
        };
        assert_eq!(got, expected);
    }

    fn db() -> Question {
        Question::choice(
            "Which database should we use?",
            ["PostgreSQL (Recommended)", "SQLite"],
        )
        .with_header("Database")
    }

    #[test]
    fn valid_calls_pass() {
        check(call(vec![db()]), &[]);
        check(
            call(vec![
                db(),
                Question::text("What should we name this service?"),
            ]),
            &[],
        );
        check(
            call(vec![
                Question::choice("Features?", ["Auth", "API", "Admin"]).multi(),
            ]),
            &[],
        );
    }

    #[test]
    fn no_questions() {
        check(
            call(vec![]),
            &["/questions: no questions given; give at least 1"],
        );
    }

    #[test]
    fn too_many_questions() {
        let qs = (0..5).map(|i| Question::text(format!("Q{i}?"))).collect();
        check(
            call(qs),
            &[
                "/questions: 5 questions given; give 1 to 4, and ask the rest in a later call (a host that wants more raises the limit with `--max-questions 5`)",
            ],
        );
    }

    #[test]
    fn raised_question_limit_accepts_more() {
        let qs = (0..6).map(|i| Question::text(format!("Q{i}?"))).collect();
        assert!(validate(call(qs), &Limits::default().with_max_questions(6)).is_ok());
    }

    #[test]
    fn one_option() {
        check(
            call(vec![Question::choice("A?", ["x"])]),
            &[
                "/questions/0/options: 1 option given; give 2 to 4, or omit options for a free-text question",
            ],
        );
    }

    #[test]
    fn empty_options_array() {
        check(
            call(vec![Question::choice("A?", Vec::<String>::new())]),
            &[
                "/questions/0/options: 0 options given; give 2 to 4, or omit options for a free-text question",
            ],
        );
    }

    #[test]
    fn too_many_options() {
        check(
            call(vec![Question::choice("A?", ["a", "b", "c", "d", "e"])]),
            &[
                "/questions/0/options: 5 options given; give 2 to 4 (the person can always type another answer through \"Other\"; a host that wants more raises the limit with `--max-options 5`)",
            ],
        );
        let eight = Question::choice("A?", ["a", "b", "c", "d", "e", "f", "g", "h"]);
        assert!(validate(call(vec![eight]), &Limits::default().with_max_options(8)).is_ok());
    }

    #[test]
    fn empty_question_text() {
        check(
            call(vec![Question::text("   ")]),
            &["/questions/0/question: the question is empty; write some text"],
        );
    }

    #[test]
    fn empty_header_and_label() {
        check(
            call(vec![Question::choice("A?", ["", "b"]).with_header("")]),
            &[
                "/questions/0/header: the header is empty; write some text, or leave the header out",
                "/questions/0/options/0/label: the label is empty; write some text",
            ],
        );
    }

    #[test]
    fn long_header() {
        check(
            call(vec![Question::text("A?").with_header("h".repeat(61))]),
            &[
                "/questions/0/header: the header is 61 characters long; shorten it to 60 (12 or fewer reads best)",
            ],
        );
    }

    #[test]
    fn long_texts_count_characters_not_bytes() {
        check(call(vec![Question::text("é".repeat(1000))]), &[]);
        check(
            call(vec![Question::text("é".repeat(1001))]),
            &["/questions/0/question: the question is 1001 characters long; shorten it to 1000"],
        );
        let mut q = Question::choice("A?", ["l".repeat(201), "b".into()]);
        q.options.as_mut().unwrap()[1].description = Some("d".repeat(1001));
        check(
            call(vec![q]),
            &[
                "/questions/0/options/0/label: the label is 201 characters long; shorten it to 200",
                "/questions/0/options/1/description: the description is 1001 characters long; shorten it to 1000",
            ],
        );
    }

    #[test]
    fn control_characters_are_refused_with_position() {
        check(
            call(vec![Question::text("Clear\u{1b}[2J?")]),
            &[
                "/questions/0/question: the question contains the control character U+001B (ESC) at character 5; remove it (only newline and tab are allowed)",
            ],
        );
        check(
            call(vec![Question::choice("A?", ["ok\u{202e}txt", "b"])]),
            &[
                "/questions/0/options/0/label: the label contains the bidi control U+202E (RIGHT-TO-LEFT OVERRIDE) at character 2; remove it (only tab is allowed)",
            ],
        );
        check(
            call(vec![Question::text("Line one\nline two\twith tab?")]),
            &[],
        );
    }

    #[test]
    fn duplicate_question() {
        check(
            call(vec![Question::text("Name?"), Question::text("  name? ")]),
            &[
                "/questions/1/question: this question repeats question 0; answers are keyed by the question text, so make each one unique",
            ],
        );
    }

    #[test]
    fn duplicate_label_ignores_case_and_spaces() {
        check(
            call(vec![Question::choice(
                "A?",
                ["SQLite", "sqlite ", "Postgre  SQL", "postgre sql"],
            )]),
            &[
                "/questions/0/options/1/label: this label repeats option 0 (labels are compared ignoring case and runs of spaces); make each label distinct",
                "/questions/0/options/3/label: this label repeats option 2 (labels are compared ignoring case and runs of spaces); make each label distinct",
            ],
        );
    }

    const RESERVED: &str = "this label reads as \"Other\", which is added automatically so the person can type their own answer; remove this option";

    /// Checks that `label`, beside an ordinary label, is refused as an imitation of "Other".
    #[track_caller]
    fn check_reserved(label: &str) {
        check(
            call(vec![Question::choice("A?", ["a", label])]),
            &[&format!("/questions/0/options/1/label: {RESERVED}")],
        );
    }

    /// Checks that `labels` are accepted as they are.
    #[track_caller]
    fn check_ok(labels: &[&str]) {
        check(call(vec![Question::choice("A?", labels.to_vec())]), &[]);
    }

    #[test]
    fn labels_may_not_differ_only_by_the_recommended_suffix() {
        for labels in [
            ["PostgreSQL", "PostgreSQL (Recommended)"],
            ["postgresql (recommended)", "PostgreSQL"],
        ] {
            check(
                call(vec![Question::choice("A?", labels)]),
                &[
                    "/questions/0/options/1/label: this label differs from option 0 only by \"(Recommended)\", so an answer could mean either; make each label distinct and mark only one option recommended",
                ],
            );
        }
        // Two labels with the suffix whose text before it is the same, spaced differently.
        check(
            call(vec![Question::choice(
                "A?",
                ["SQLite (Recommended)", "sqlite(recommended)"],
            )]),
            &[
                "/questions/0/options/1/label: this label differs from option 0 only by \"(Recommended)\", so an answer could mean either; make each label distinct and mark only one option recommended",
            ],
        );
        check(
            call(vec![Question::choice(
                "A?",
                ["PostgreSQL (Recommended)", "Postgres"],
            )]),
            &[],
        );
    }

    #[test]
    fn other_is_reserved() {
        for imitation in [
            "other",
            "O t h e r",
            "Other:",
            "Other (type your answer)",
            "OTHER...",
            "Other (Recommended)",
            "Other (please specify)",
            "Others",
            "Other option",
            "Other – write in",
        ] {
            check_reserved(imitation);
        }
        for label in [
            "Other tools",
            "Other types",
            "Another",
            "None of the above",
            "Skip",
        ] {
            check_ok(&["a", label]);
        }
    }

    #[test]
    fn other_in_the_languages_of_the_ui_is_reserved() {
        for imitation in [
            "Sonstiges",
            "Andere (bitte angeben)",
            "Otro",
            "Otra opción",
            "Autre",
            "Autres (précisez)",
            "その他",
            "その他（自由入力）",
            "其他",
            "其他（请注明）",
        ] {
            check_reserved(imitation);
        }
        check_ok(&["Otro país", "Andere Datenbank"]);
    }

    #[test]
    fn look_alikes_of_other_are_reserved() {
        // A Cyrillic О, a fullwidth word, a Greek Ο with a Cyrillic е, and a variation selector.
        for imitation in [
            "\u{41e}ther (type your answer)",
            "\u{ff2f}\u{ff54}\u{ff48}\u{ff45}\u{ff52}",
            "\u{39f}th\u{435}r",
        ] {
            check_reserved(imitation);
        }
    }

    #[test]
    fn look_alike_labels_are_refused_naming_the_character() {
        check(
            call(vec![Question::choice(
                "A?",
                ["PostgreSQL", "P\u{43e}stgreSQL"],
            )]),
            &[
                "/questions/0/options/1/label: this label looks the same as option 0 but holds the look-alike character U+043E (a Cyrillic letter) at character 1; give each option a label that reads differently, in plain letters",
            ],
        );
        check(
            call(vec![Question::choice(
                "A?",
                ["P\u{43e}stgreSQL", "PostgreSQL"],
            )]),
            &[
                "/questions/0/options/1/label: this label looks the same as option 0, which holds the look-alike character U+043E (a Cyrillic letter) at character 1; give each option a label that reads differently, in plain letters",
            ],
        );
        check(
            call(vec![Question::choice("A?", ["MySQL", "\u{ff2d}ySQL"])]),
            &[
                "/questions/0/options/1/label: this label looks the same as option 0 but holds the look-alike character U+FF2D (a form of \"M\") at character 0; give each option a label that reads differently, in plain letters",
            ],
        );
        // A variation selector after a Latin letter draws nothing: refused twice over.
        check(
            call(vec![Question::choice("A?", ["SQLite", "SQLite\u{fe00}"])]),
            &[
                "/questions/0/options/1/label: the label contains the invisible character U+FE00 (VARIATION SELECTOR-1) at character 6; remove it (only tab is allowed)",
                "/questions/0/options/1/label: this label looks the same as option 0 but holds the look-alike character U+FE00 (VARIATION SELECTOR-1) at character 6; give each option a label that reads differently, in plain letters",
            ],
        );
    }

    #[test]
    fn skeleton_key_maps_ascii_runs_like_the_whole_label() {
        for label in [
            "P\u{43e}stgreSQL",
            "\u{ff2f}\u{ff54}\u{ff48}\u{ff45}\u{ff52}",
            "Re\u{301}ponse 0 (Recommended)",
            "Café\u{fe00} mode",
            "部分 1 — Москва",
            "ǅemal Ⅻ m0dern",
        ] {
            let whole: String = label.nfkc().collect::<String>();
            let whole: String = unicode_security::skeleton(&normalize_label(&whole))
                .flat_map(char::to_lowercase)
                .collect();
            assert_eq!(skeleton_key(label), normalize_label(&whole), "{label:?}");
        }
    }

    #[test]
    fn plain_ascii_labels_that_share_a_skeleton_stay_distinct() {
        // "rn" and "m" share a skeleton, and so do "l" and "I": only non-ASCII look-alikes count.
        check_ok(&["Modern", "Modem"]);
        check_ok(&["Modern", "Modem", "Café"]);
        check_ok(&["Il", "lI"]);
        // Real non-Latin labels that differ stay distinct too.
        check_ok(&["Москва", "Мосгаз", "Moscow"]);
        // An ASCII label is never read by its skeleton, whatever its neighbours hold.
        check_ok(&["0ther", "Café"]);
        check_ok(&["東京", "京都"]);
    }

    #[test]
    fn line_breaks_are_refused_in_headers_and_labels() {
        check(
            call(vec![
                Question::choice("Deploy\nto staging?", ["Yes\nand drop the database", "No"])
                    .with_header("Deploy\nNOW"),
            ]),
            &[
                "/questions/0/header: the header contains a line break at character 6; a header is one short line, so put the detail in the question",
                "/questions/0/options/0/label: the label contains a line break at character 3; a label is one line, so put the detail in the option's description",
            ],
        );
        let mut q = Question::choice("A?", ["a", "b"]);
        q.options.as_mut().unwrap()[0].description = Some("Line one\nline two".into());
        check(call(vec![q]), &[]);
    }

    #[test]
    fn blank_looking_and_invisible_characters_are_refused() {
        check(
            call(vec![Question::choice("A?", ["\u{2800}\u{2800}", "b"])]),
            &[
                "/questions/0/options/0/label: the label contains the invisible character U+2800 (BRAILLE PATTERN BLANK) at character 0; remove it (only tab is allowed)",
            ],
        );
        check(
            call(vec![Question::text("Deploy?\u{e0100}")]),
            &[
                "/questions/0/question: the question contains the invisible character U+E0100 (VARIATION SELECTOR-17) at character 7; remove it (only newline and tab are allowed)",
            ],
        );
        check(
            call(vec![Question::text("Deploy\u{e0061}\u{e0062}?")]),
            &[
                "/questions/0/question: the question contains the invisible character U+E0061 (TAG) at character 6; remove it (only newline and tab are allowed)",
            ],
        );
        check(
            call(vec![Question::text("Deploy\u{fff0}?")]),
            &[
                "/questions/0/question: the question contains the invisible character U+FFF0 at character 6; remove it (only newline and tab are allowed)",
            ],
        );
    }

    #[test]
    fn emoji_sequences_and_japanese_text_are_accepted() {
        for text in [
            // ZWJ sequences, with and without presentation selectors, skin tones and keycaps.
            "Ship it? 👩\u{200d}💻 🏳\u{fe0f}\u{200d}🌈 👨\u{200d}👩\u{200d}👧 👍🏽",
            "Love it? ❤\u{fe0f} 1\u{fe0f}\u{20e3} ©\u{fe0f} ☺\u{fe0e}",
            "👁\u{fe0f}\u{200d}🗨\u{fe0f} and 🧑🏽\u{200d}🚀",
            // Japanese with an ideographic variation sequence (葛 with U+E0100) and kana.
            "データベースはどれを使いますか？葛\u{e0100}飾区の「東京」サーバーです。",
            "漢字\u{fe00}と𠮷野家",
        ] {
            check(call(vec![Question::text(text)]), &[]);
        }
        check_ok(&["はい（推奨）", "いいえ"]);
        check_ok(&["🚀 Ship", "🐢 Wait"]);
        // Selectors and joiners out of place are still refused.
        for text in [
            "a\u{200d}b",
            "a\u{fe0f}",
            "\u{200d}👩",
            "👩\u{200d}",
            "x\u{e0100}",
        ] {
            assert!(
                validate(call(vec![Question::text(text)]), &Limits::default()).is_err(),
                "{text:?}"
            );
        }
    }

    #[test]
    fn multi_select_needs_options() {
        check(
            call(vec![Question::text("A?").multi()]),
            &[
                "/questions/0/multiSelect: multiSelect is true but the question has no options; add options or set multiSelect to false",
            ],
        );
    }

    #[test]
    fn metadata_size() {
        let mut metadata = serde_json::Map::new();
        metadata.insert("blob".into(), "x".repeat(17 * 1024).into());
        let input = AskUserInput {
            questions: vec![db()],
            metadata: Some(metadata),
        };
        check(
            input,
            &[
                "/metadata: metadata is 17419 bytes of JSON; keep it to 16384 bytes (it is for tracking, not for content)",
            ],
        );
    }

    #[test]
    fn a_yes_no_question_gets_yes_and_no() {
        let input = call(vec![Question::yes_no("Ship it?")]);
        let valid = validate(input, &Limits::default()).unwrap();
        let labels: Vec<&str> = valid.questions[0]
            .options()
            .iter()
            .map(|o| o.label.as_str())
            .collect();
        assert_eq!(labels, ["Yes", "No"]);
        // The completed call validates again unchanged, as a replay or a pending file does.
        let again = validate(valid.input().clone(), &Limits::default()).unwrap();
        assert_eq!(again, valid);
        // Yes and No may carry descriptions.
        let mut described = Question::yes_no("Deploy?");
        described.options = Some(vec![
            QuestionOption::new("Yes").with_description("Deploy now"),
            QuestionOption::new("No").with_description("Wait for review"),
        ]);
        assert!(validate(call(vec![described]), &Limits::default()).is_ok());
    }

    #[test]
    fn yes_no_and_path_questions_refuse_other_options_and_multi_select() {
        let mut swapped = Question::yes_no("Ship it?").multi();
        swapped.options = Some(vec![QuestionOption::new("No"), QuestionOption::new("Yes")]);
        let mut path = Question::path("Which folder?");
        path.options = Some(vec![QuestionOption::new("src"), QuestionOption::new("lib")]);
        check(
            call(vec![swapped, path]),
            &[
                "/questions/0/multiSelect: a yesno question takes one answer; set multiSelect to \
                 false",
                "/questions/0/options: a yesno question gets the options \"Yes\" and \"No\" \
                 added; leave options out, or give exactly those two labels in that order",
                "/questions/1/options: a path question takes typed text, not options; remove \
                 options, or make it a choice question",
            ],
        );
        check(
            call(vec![Question::path("Which folder?").multi()]),
            &[
                "/questions/0/multiSelect: a path question takes one answer; set multiSelect to \
               false",
            ],
        );
    }

    #[test]
    fn ids_are_short_plain_and_unique() {
        let ok = call(vec![
            Question::text("A?").with_id("db_engine-2"),
            Question::text("B?").with_id("Name"),
            Question::text("C?"),
        ]);
        assert!(validate(ok, &Limits::default()).is_ok());
        check(
            call(vec![
                Question::text("A?").with_id("db engine"),
                Question::text("B?").with_id(""),
                Question::text("C?").with_id("x".repeat(65)),
                Question::text("D?").with_id("same"),
            ]),
            &[
                "/questions/0/id: the id must be 1 to 64 characters of ASCII letters, digits, `_` \
                 or `-`, such as \"database_engine\"",
                "/questions/1/id: the id must be 1 to 64 characters of ASCII letters, digits, `_` \
                 or `-`, such as \"database_engine\"",
                "/questions/2/id: the id must be 1 to 64 characters of ASCII letters, digits, `_` \
                 or `-`, such as \"database_engine\"",
            ],
        );
        check(
            call(vec![
                Question::text("A?").with_id("same"),
                Question::text("B?").with_id("other"),
                Question::text("C?").with_id("same"),
            ]),
            &["/questions/2/id: this id repeats question 0's; give each question its own id"],
        );
    }

    #[test]
    fn previews_and_placeholders_follow_the_text_rules() {
        let mut q = Question::choice("Which layout?", ["A", "B"]).with_placeholder("e.g. grid");
        q.options = Some(vec![
            QuestionOption::new("A").with_preview("+---+\n| A |\n+---+"),
            QuestionOption::new("B").with_preview("x".repeat(4000)),
        ]);
        assert!(validate(call(vec![q]), &Limits::default()).is_ok());
        let mut bad = Question::text("Name?").with_placeholder("two\nlines");
        bad.options = Some(vec![
            QuestionOption::new("A").with_preview("hidden\u{202e}text"),
            QuestionOption::new("B").with_preview("x".repeat(4001)),
        ]);
        check(
            call(vec![
                bad,
                Question::text("Other name?").with_placeholder(" "),
            ]),
            &[
                "/questions/0/placeholder: the placeholder contains a line break at character 3; \
                 a placeholder is one short line of example text",
                "/questions/0/options/0/preview: the preview contains the bidi control U+202E \
                 (RIGHT-TO-LEFT OVERRIDE) at character 6; remove it (only newline and tab are \
                 allowed)",
                "/questions/0/options/1/preview: the preview is 4001 characters long; shorten it \
                 to 4000",
                "/questions/1/placeholder: the placeholder is empty; write some text",
            ],
        );
    }

    #[test]
    fn five_mistakes_five_problems() {
        let input = call(vec![
            Question::choice("Pick?", ["only"]),
            Question::text("pick?").multi(),
            Question {
                question: "Third?".into(),
                header: Some("\u{7}".into()),
                options: Some(vec![QuestionOption::new("Other"), QuestionOption::new("x")]),
                ..Question::default()
            },
        ]);
        let problems = validate(input, &Limits::default()).unwrap_err();
        assert_eq!(problems.len(), 5, "{problems}");
    }

    #[test]
    fn past_a_hundred_problems_the_rest_are_counted() {
        // 250 options with one label: the count and 249 repeats are 250 problems.
        let labels = vec!["Same"; 250];
        let input = call(vec![Question::choice("Pick?", labels)]);
        let problems = validate(input, &Limits::default()).unwrap_err();
        assert_eq!(problems.len(), MAX_PROBLEMS + 1);
        let last = problems.iter().last().unwrap();
        assert_eq!(
            last.to_string(),
            "(root): and 150 more problems, not listed; fix the ones above and check the call again"
        );
        assert_eq!(
            problems.as_slice()[1].to_string(),
            "/questions/0/options/1/label: this label repeats option 0 (labels are compared ignoring case and runs of spaces); make each label distinct"
        );
    }

    #[test]
    fn a_huge_list_of_distinct_labels_is_refused_by_its_count() {
        let labels: Vec<String> = (0..100_000).map(|i| format!("option {i}")).collect();
        let input = call(vec![Question::choice("Pick?", labels)]);
        let problems = validate(input, &Limits::default()).unwrap_err();
        assert_eq!(problems.len(), 1, "{problems}");
        assert!(
            problems.to_string().contains("100000 options given"),
            "{problems}"
        );
    }
}

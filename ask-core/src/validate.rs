//! Semantic validation of a call: every problem at once, each with its JSON path and a sentence a
//! model can act on.

use std::collections::HashMap;
use std::fmt;
use std::ops::Deref;

use crate::display::{CharClass, classify_in_context, describe_char};
use crate::input::{AskUserInput, Limits, Question, normalize_label};

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
}

impl TextField {
    /// The field name as it appears in the JSON.
    pub fn name(self) -> &'static str {
        match self {
            TextField::Question => "question",
            TextField::Header => "header",
            TextField::Label => "label",
            TextField::Description => "description",
        }
    }

    fn max(self, limits: &Limits) -> usize {
        match self {
            TextField::Question => limits.max_question_chars,
            TextField::Header => limits.max_header_chars,
            TextField::Label => limits.max_label_chars,
            TextField::Description => limits.max_description_chars,
        }
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
    /// The label repeats an earlier label of the same question.
    DuplicateLabel {
        /// The index of the earlier option.
        first: usize,
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
}

impl fmt::Display for ProblemKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProblemKind::InvalidJson {
                line,
                column,
                reason,
            } => {
                write!(
                    f,
                    "not valid JSON at line {line}, column {column}: {reason}"
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
            ProblemKind::MissingField { field } if field == "questions" => write!(
                f,
                "missing required field `questions`; the call is an object holding the list of \
                 questions: {{\"questions\": [{{\"question\": \"…\", \"options\": [ … ]}}]}}"
            ),
            ProblemKind::MissingField { field } => {
                write!(f, "missing required field `{field}`")
            }
            ProblemKind::UnknownField { field, allowed } => {
                write!(f, "unknown field `{field}`; the fields allowed here are ")?;
                write_list(f, allowed)
            }
            ProblemKind::DuplicateKey { key } => {
                write!(f, "the key `{key}` appears twice; give each field once")
            }
            ProblemKind::NoQuestions => f.write_str("no questions given; give at least 1"),
            ProblemKind::TooManyQuestions { given, max } => write!(
                f,
                "{given} questions given; give 1 to {max}, and ask the rest in a later call"
            ),
            ProblemKind::TooFewOptions { given, min, max } => write!(
                f,
                "{given} {} given; give {min} to {max}, or omit options for a free-text question",
                plural(*given, "option", "options")
            ),
            ProblemKind::TooManyOptions { given, min, max } => write!(
                f,
                "{given} options given; give {min} to {max} (the person can always type another \
                 answer through \"Other\")"
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
            } => write!(
                f,
                "the {} contains the control character {} at character {position}; remove it \
                 (only newline and tab are allowed)",
                field.name(),
                describe_char(*character)
            ),
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
            ProblemKind::ReservedLabel => f.write_str(
                "\"Other\" is added automatically so the person can type their own answer; \
                 remove this option",
            ),
            ProblemKind::MultiSelectWithoutOptions => f.write_str(
                "multiSelect is true but the question has no options; add options or set \
                 multiSelect to false",
            ),
            ProblemKind::MetadataTooLarge { bytes, max } => write!(
                f,
                "metadata is {bytes} bytes of JSON; keep it to {max} bytes (it is for tracking, \
                 not for content)"
            ),
            ProblemKind::WrongTool { name } => {
                write!(f, "the tool call is for `{name}`, not `ask_user`")
            }
            ProblemKind::Schema { keyword, detail } => {
                write!(f, "{detail} (schema rule `{keyword}`)")
            }
        }
    }
}

fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 { one } else { many }
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
        write!(f, "{}: {}", self.display_path(), self.kind)
    }
}

/// Every problem of a call, in document order. Never empty.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problems(Vec<Problem>);

impl Problems {
    /// Wraps a list of problems; `None` when the list is empty.
    pub fn from_vec(problems: Vec<Problem>) -> Option<Problems> {
        if problems.is_empty() {
            None
        } else {
            Some(Problems(problems))
        }
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
pub fn validate(input: AskUserInput, limits: &Limits) -> Result<ValidatedInput, Problems> {
    let mut problems = Vec::new();
    check_input(&input, limits, &mut problems);
    match Problems::from_vec(problems) {
        None => Ok(ValidatedInput(input)),
        Some(problems) => Err(problems),
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
    for &(index, question) in questions {
        check_question(index, question, limits, out);
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
    match &question.options {
        None if question.multi_select => {
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
            let mut seen: Vec<String> = Vec::with_capacity(options.len());
            for (j, option) in options.iter().enumerate() {
                let label_path = || at(&format!("/options/{j}/label"));
                check_text(label_path, TextField::Label, &option.label, limits, out);
                // An empty description is the same as none.
                if let Some(description) =
                    option.description.as_ref().filter(|d| !d.trim().is_empty())
                {
                    let path = || at(&format!("/options/{j}/description"));
                    check_text(path, TextField::Description, description, limits, out);
                }
                let key = normalize_label(&option.label);
                if key.is_empty() {
                    seen.push(key);
                    continue;
                }
                let base = crate::input::without_recommended(&key);
                if imitates_other(&key) {
                    out.push(Problem::new(label_path(), ProblemKind::ReservedLabel));
                } else if let Some(first) = seen.iter().position(|k| *k == key) {
                    out.push(Problem::new(
                        label_path(),
                        ProblemKind::DuplicateLabel { first },
                    ));
                } else if let Some(first) = seen
                    .iter()
                    .position(|k| crate::input::without_recommended(k) == base)
                {
                    out.push(Problem::new(
                        label_path(),
                        ProblemKind::LabelDiffersOnlyByRecommended { first },
                    ));
                }
                seen.push(key);
            }
        }
    }
}

/// True for a label (already normalised) that the person could take for the built-in "Other"
/// choice: "Other" however it is spaced or punctuated ("O t h e r", "Other:"), also marked
/// "(Recommended)", and imitations of "Other (type your answer)". "Others", "Other tools" and
/// "Other types" are ordinary labels.
fn imitates_other(key: &str) -> bool {
    let key = key.strip_suffix("(recommended)").unwrap_or(key);
    // Compared letter by letter, without building a string: this runs for every label.
    let mut letters = key.chars().filter(|c| c.is_alphanumeric());
    if !"other".chars().all(|c| letters.next() == Some(c)) {
        return false;
    }
    match letters.next() {
        None => true,
        Some(first) => std::iter::once(first)
            .chain(letters)
            .take(8)
            .eq("typeyour".chars()),
    }
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
            &["/questions: 5 questions given; give 1 to 4, and ask the rest in a later call"],
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
                "/questions/0/options: 5 options given; give 2 to 4 (the person can always type another answer through \"Other\")",
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
                "/questions/0/options/0/label: the label contains the control character U+202E (RIGHT-TO-LEFT OVERRIDE) at character 2; remove it (only newline and tab are allowed)",
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
        check(
            call(vec![Question::choice("A?", ["a", "other"])]),
            &[
                "/questions/0/options/1/label: \"Other\" is added automatically so the person can type their own answer; remove this option",
            ],
        );
        for imitation in [
            "O t h e r",
            "Other:",
            "Other (type your answer)",
            "OTHER...",
            "Other (Recommended)",
        ] {
            check(
                call(vec![Question::choice("A?", ["a", imitation])]),
                &[
                    "/questions/0/options/1/label: \"Other\" is added automatically so the person can type their own answer; remove this option",
                ],
            );
        }
        for label in ["Others", "Other tools", "Other types", "Another"] {
            assert!(
                validate(
                    call(vec![Question::choice("A?", ["a", label])]),
                    &Limits::default()
                )
                .is_ok(),
                "{label} is an ordinary label"
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
    fn five_mistakes_five_problems() {
        let input = call(vec![
            Question::choice("Pick?", ["only"]),
            Question::text("pick?").multi(),
            Question {
                question: "Third?".into(),
                header: Some("\u{7}".into()),
                options: Some(vec![QuestionOption::new("Other"), QuestionOption::new("x")]),
                multi_select: false,
            },
        ]);
        let problems = validate(input, &Limits::default()).unwrap_err();
        assert_eq!(problems.len(), 5, "{problems}");
    }
}

//! The problems validation finds: where each is, what is wrong, and the sentence a model reads.

use std::fmt;

use crate::display::{CharClass, classify, describe_char, sanitize_for_display as clean};
use crate::input::{Limits, QuestionKind};

use super::lookalike::describe_look_alike;

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

    pub(super) fn max(self, limits: &Limits) -> usize {
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
    pub(super) fn is_one_line(self) -> bool {
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
        /// What raises the limit, in the host's words
        /// ([`RaisedWith::questions`](crate::RaisedWith::questions)).
        raised_with: Option<&'static str>,
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
        /// What raises the limit, in the host's words
        /// ([`RaisedWith::options`](crate::RaisedWith::options)).
        raised_with: Option<&'static str>,
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
    /// An option reads as "Other" (or "Type your own answer", or the word in another language),
    /// which the tool adds itself.
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
            ProblemKind::TooManyQuestions {
                given,
                max,
                raised_with,
            } => {
                write!(
                    f,
                    "{given} questions given; give 1 to {max}, and ask the rest in a later call"
                )?;
                if let Some(name) = raised_with {
                    write!(
                        f,
                        " (a host that wants more raises the limit with `{name} {given}`)"
                    )?;
                }
                Ok(())
            }
            ProblemKind::TooFewOptions { given, min, max } => write!(
                f,
                "{given} {} given; give {min} to {max}, or omit options for a free-text question",
                plural(*given, "option", "options")
            ),
            ProblemKind::TooManyOptions {
                given,
                min,
                max,
                raised_with,
            } => {
                write!(
                    f,
                    "{given} options given; give {min} to {max} (the person can always type \
                     another answer through \"Other\""
                )?;
                if let Some(name) = raised_with {
                    write!(
                        f,
                        "; a host that wants more raises the limit with `{name} {given}`"
                    )?;
                }
                f.write_str(")")
            }
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
                "this label reads as \"Other\"; remove this option: the person always gets an \
                 \"Other\" choice to type their own answer, and a multi-select question also a \
                 \"None of these\" choice",
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
    fn a_count_past_the_limit_names_what_the_host_raises_it_with() {
        let options = |raised_with| ProblemKind::TooManyOptions {
            given: 8,
            min: 2,
            max: 4,
            raised_with,
        };
        assert_eq!(
            options(Some("--max-options")).to_string(),
            "8 options given; give 2 to 4 (the person can always type another answer through \
             \"Other\"; a host that wants more raises the limit with `--max-options 8`)"
        );
        assert_eq!(
            options(None).to_string(),
            "8 options given; give 2 to 4 (the person can always type another answer through \
             \"Other\")"
        );
        let questions = |raised_with| ProblemKind::TooManyQuestions {
            given: 6,
            max: 4,
            raised_with,
        };
        assert_eq!(
            questions(Some("maxQuestions")).to_string(),
            "6 questions given; give 1 to 4, and ask the rest in a later call (a host that wants \
             more raises the limit with `maxQuestions 6`)"
        );
        assert_eq!(
            questions(None).to_string(),
            "6 questions given; give 1 to 4, and ask the rest in a later call"
        );
    }
}

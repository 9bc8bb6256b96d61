//! The input contract: what the model sends when it calls `ask_user`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The arguments of one `ask_user` call.
///
/// Field names are camelCase on the wire and unknown fields are refused.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AskUserInput {
    /// The questions to ask, in the order the person sees them.
    /// Batch related questions into one call instead of asking several times.
    pub questions: Vec<Question>,
    /// Optional data for tracking, such as `{"source": "setup-wizard"}`.
    /// It is stored with the answers and never shown to the person.
    /// Leave it out when there is none (`null` is refused).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "metadata_object"
    )]
    #[cfg_attr(feature = "schema", schemars(with = "Map<String, Value>"))]
    pub metadata: Option<Map<String, Value>>,
}

/// Reads a present `metadata` field, which must be an object: `null` is refused like any other
/// non-object, so that the parser and the schema (`"type": "object"`) agree.
fn metadata_object<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Map<String, Value>>, D::Error> {
    Map::deserialize(deserializer).map(Some)
}

/// One question for the person.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Question {
    /// The complete question, ending with a question mark. Answers are keyed by this text, so it
    /// must be unique within the call.
    pub question: String,
    /// A very short label shown as a tab or chip, such as "Database" (12 characters or fewer
    /// reads best), on one line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header: Option<String>,
    /// The suggested answers. Omit for a free-text question. An "Other" choice that lets the
    /// person type their own answer is always added; do not add one yourself (labels such as
    /// "Other", "Others" or "Other (please specify)" are refused). Put the recommended option
    /// first and end its label with "(Recommended)".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub options: Option<Vec<QuestionOption>>,
    /// Allow the person to pick several options; the answer is then a list of labels, with any
    /// text they typed added last, or `[]` when they chose none of the options.
    #[serde(default)]
    pub multi_select: bool,
    /// What kind of answer the question takes: `"choice"` (the default: pick an option, or type
    /// free text when there are no options), `"yesno"` (the options "Yes" and "No" are added, so
    /// leave `options` out; the answer is "Yes" or "No") or `"path"` (the person types a file or
    /// folder path, with completion; no options).
    #[serde(default, skip_serializing_if = "QuestionKind::is_choice")]
    pub kind: QuestionKind,
    /// Dim example text shown in the empty free-text field, such as "e.g. my-project", on one
    /// line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placeholder: Option<String>,
    /// The answer is sensitive, such as a token: it is typed masked and never echoed, given to
    /// you in this result only, never recorded or replayed, and cannot be answered in print mode.
    #[serde(default, skip_serializing_if = "is_false")]
    pub secret: bool,
    /// A stable identifier for the question (letters, digits, `_` or `-`), unique within the
    /// call; answers stay keyed by the question text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
}

/// What kind of answer a question takes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum QuestionKind {
    /// Pick among the options (or type free text when there are none).
    #[default]
    Choice,
    /// Yes or no: the options "Yes" and "No" are added.
    ///
    /// Validation gives such a question exactly these two options, and accepts a call that
    /// already has them, so a stored or replayed call validates again unchanged. Every presenter
    /// and answer reader therefore sees an ordinary two-option question; a UI may translate how
    /// the two are drawn, never their labels.
    #[serde(rename = "yesno")]
    YesNo,
    /// A file or folder path typed by the person, with completion; never checked against the
    /// disk.
    Path,
}

impl QuestionKind {
    /// True for the default kind, which is left out when a question is written.
    pub fn is_choice(&self) -> bool {
        *self == QuestionKind::Choice
    }

    /// The name used in the JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            QuestionKind::Choice => "choice",
            QuestionKind::YesNo => "yesno",
            QuestionKind::Path => "path",
        }
    }
}

fn is_false(value: &bool) -> bool {
    !*value
}

/// The labels of a yes/no question's options, whatever the language of the UI.
pub(crate) const YES_NO_LABELS: [&str; 2] = ["Yes", "No"];

/// One suggested answer to a question.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct QuestionOption {
    /// The text of the choice, short and distinct (1 to 5 words), on one line.
    pub label: String,
    /// What the choice means or implies, shown under the label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// A longer text shown beside the options while this one is focused, such as a code sample
    /// or an ASCII mock-up (shown as written, in a monospace box; several lines allowed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preview: Option<String>,
}

impl Question {
    /// A free-text question, with no options.
    pub fn text(question: impl Into<String>) -> Question {
        Question {
            question: question.into(),
            ..Question::default()
        }
    }

    /// A single-choice question with the given option labels and no descriptions.
    pub fn choice<I, S>(question: impl Into<String>, labels: I) -> Question
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Question {
            question: question.into(),
            options: Some(labels.into_iter().map(QuestionOption::new).collect()),
            ..Question::default()
        }
    }

    /// Sets the header.
    #[must_use]
    pub fn with_header(mut self, header: impl Into<String>) -> Question {
        self.header = Some(header.into());
        self
    }

    /// Makes the question multi-select.
    #[must_use]
    pub fn multi(mut self) -> Question {
        self.multi_select = true;
        self
    }

    /// A yes/no question: [`validate`](crate::validate) adds the options "Yes" and "No".
    pub fn yes_no(question: impl Into<String>) -> Question {
        Question {
            question: question.into(),
            kind: QuestionKind::YesNo,
            ..Question::default()
        }
    }

    /// A question whose answer is a path typed by the person.
    pub fn path(question: impl Into<String>) -> Question {
        Question {
            question: question.into(),
            kind: QuestionKind::Path,
            ..Question::default()
        }
    }

    /// Sets the placeholder shown in an empty free-text field.
    #[must_use]
    pub fn with_placeholder(mut self, placeholder: impl Into<String>) -> Question {
        self.placeholder = Some(placeholder.into());
        self
    }

    /// Makes the answer secret: masked, never recorded.
    #[must_use]
    pub fn secret(mut self) -> Question {
        self.secret = true;
        self
    }

    /// Sets the question's identifier.
    #[must_use]
    pub fn with_id(mut self, id: impl Into<String>) -> Question {
        self.id = Some(id.into());
        self
    }

    /// The options, or an empty slice for a free-text question.
    pub fn options(&self) -> &[QuestionOption] {
        self.options.as_deref().unwrap_or(&[])
    }

    /// True when the question has no options and takes free text only.
    pub fn is_free_text(&self) -> bool {
        self.options().is_empty()
    }

    /// The index of the option whose label matches `text`.
    ///
    /// The match ignores case, surrounding whitespace and the width of runs of whitespace, so an
    /// answer typed as `sqlite` selects the option `SQLite`. When no label matches so, a label
    /// matches without its "(Recommended)" suffix: `postgresql` selects
    /// `PostgreSQL (Recommended)` (validation keeps two labels from differing only by it).
    pub fn find_option(&self, text: &str) -> Option<usize> {
        let wanted = normalize_label(text);
        if wanted.is_empty() {
            return None;
        }
        let keys: Vec<String> = self
            .options()
            .iter()
            .map(|option| normalize_label(&option.label))
            .collect();
        keys.iter().position(|key| *key == wanted).or_else(|| {
            keys.iter()
                .position(|key| without_recommended(key) == wanted)
        })
    }

    /// The labels of the options whose flag in `chosen` is set, in option order (as a
    /// multi-select answer lists them). Flags past the last option are ignored.
    pub fn chosen_labels(&self, chosen: &[bool]) -> Vec<String> {
        self.options()
            .iter()
            .zip(chosen)
            .filter(|(_, on)| **on)
            .map(|(option, _)| option.label.clone())
            .collect()
    }
}

impl QuestionOption {
    /// An option with a label and no description.
    pub fn new(label: impl Into<String>) -> QuestionOption {
        QuestionOption {
            label: label.into(),
            ..QuestionOption::default()
        }
    }

    /// Sets the description.
    #[must_use]
    pub fn with_description(mut self, description: impl Into<String>) -> QuestionOption {
        self.description = Some(description.into());
        self
    }

    /// Sets the preview shown while the option is focused.
    #[must_use]
    pub fn with_preview(mut self, preview: impl Into<String>) -> QuestionOption {
        self.preview = Some(preview.into());
        self
    }
}

/// The form in which labels and question texts are compared for uniqueness and matching:
/// trimmed, runs of whitespace collapsed to one space, lower-cased.
pub fn normalize_label(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    // Plain ASCII, the common case, takes a path without Unicode table lookups. U+000B is the
    // one ASCII character that `split_whitespace` treats as space and `split_ascii_whitespace`
    // does not, so text holding it takes the general path.
    if text.is_ascii() && !text.contains('\u{b}') {
        for word in text.split_ascii_whitespace() {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(word);
        }
        out.make_ascii_lowercase();
        return out;
    }
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.extend(word.chars().flat_map(char::to_lowercase));
    }
    out
}

/// A normalised label (see [`normalize_label`]) without its "(Recommended)" suffix, if any.
pub(crate) fn without_recommended(key: &str) -> &str {
    key.strip_suffix("(recommended)").map_or(key, str::trim_end)
}

/// The limits a call is checked against.
///
/// The defaults are the contract of the tool (1–4 questions, 2–4 options); a host may raise the
/// counts, and the exported schema follows the limits in force.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Most questions in one call.
    pub max_questions: usize,
    /// Fewest options a question with options may have.
    pub min_options: usize,
    /// Most options one question may have.
    pub max_options: usize,
    /// Longest question text, in characters.
    pub max_question_chars: usize,
    /// Longest header, in characters.
    pub max_header_chars: usize,
    /// Longest option label, in characters.
    pub max_label_chars: usize,
    /// Longest option description, in characters.
    pub max_description_chars: usize,
    /// Longest option preview, in characters.
    pub max_preview_chars: usize,
    /// Longest placeholder, in characters.
    pub max_placeholder_chars: usize,
    /// Largest metadata object, in bytes of compact JSON.
    pub max_metadata_bytes: usize,
    /// How the host raises the counts, named in the problem a model reads when a call passes
    /// one; `None` names nothing.
    pub raised_with: Option<RaisedWith>,
}

/// The host's own names for what raises the most questions and the most options of a call: a
/// command-line flag, or a setting. A call past a count is told, for example, "a host that wants
/// more raises the limit with `--max-options 5`": the name comes from here and the number from
/// the call, so the library names no flag of any program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RaisedWith {
    /// What raises [`Limits::max_questions`], such as `--max-questions`.
    pub questions: &'static str,
    /// What raises [`Limits::max_options`], such as `--max-options`.
    pub options: &'static str,
}

impl Limits {
    /// The header length the schema recommends; longer headers are shortened with `…` in tabs.
    pub const RECOMMENDED_HEADER_CHARS: usize = 12;
    /// Answers longer than this many characters ask for confirmation in the terminal UI.
    pub const LONG_ANSWER_CHARS: usize = 2000;

    /// Returns these limits with `max_questions` raised (never lowered below the default).
    #[must_use]
    pub fn with_max_questions(mut self, max: usize) -> Limits {
        self.max_questions = max.max(1);
        self
    }

    /// Returns these limits with `max_options` set (never below `min_options`).
    #[must_use]
    pub fn with_max_options(mut self, max: usize) -> Limits {
        self.max_options = max.max(self.min_options);
        self
    }

    /// Returns these limits with the host's names for what raises the counts.
    #[must_use]
    pub fn raised_with(mut self, names: RaisedWith) -> Limits {
        self.raised_with = Some(names);
        self
    }
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_questions: 4,
            min_options: 2,
            max_options: 4,
            max_question_chars: 1000,
            max_header_chars: 60,
            max_label_chars: 200,
            max_description_chars: 1000,
            max_preview_chars: 4000,
            max_placeholder_chars: 200,
            max_metadata_bytes: 16 * 1024,
            raised_with: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_collapses_case_and_whitespace() {
        assert_eq!(normalize_label("  Postgre  SQL\t"), "postgre sql");
        assert_eq!(normalize_label("ÄBC"), "äbc");
        assert_eq!(normalize_label("Use ÄBC  Now"), "use äbc now");
        assert_eq!(normalize_label("a\u{b}B\r\nC\u{c}d"), "a b c d");
    }

    proptest::proptest! {
        /// The ASCII path gives what the general Unicode path gives, for any ASCII text.
        #[test]
        fn ascii_path_agrees_with_unicode_path(text in "[\\x00-\\x7f]{0,40}") {
            let general: Vec<String> = text
                .split_whitespace()
                .map(|word| word.chars().flat_map(char::to_lowercase).collect())
                .collect();
            proptest::prop_assert_eq!(normalize_label(&text), general.join(" "));
        }
    }

    #[test]
    fn chosen_labels_keep_option_order() {
        let q = Question::choice("Which?", ["A", "B", "C"]).multi();
        assert_eq!(q.chosen_labels(&[true, false, true]), ["A", "C"]);
        assert_eq!(q.chosen_labels(&[false, true, false, true]), ["B"]);
        assert!(q.chosen_labels(&[]).is_empty());
    }

    #[test]
    fn find_option_ignores_case() {
        let q = Question::choice("Which?", ["PostgreSQL", "SQLite"]);
        assert_eq!(q.find_option(" sqlite "), Some(1));
        assert_eq!(q.find_option("Mongo"), None);
        assert_eq!(q.find_option(""), None);
    }

    #[test]
    fn find_option_takes_a_label_without_its_recommended_suffix() {
        let q = Question::choice("Which?", ["PostgreSQL (Recommended)", "SQLite", "My  SQL"]);
        assert_eq!(q.find_option("postgresql"), Some(0));
        assert_eq!(q.find_option("PostgreSQL  (recommended)"), Some(0));
        assert_eq!(q.find_option("my sql"), Some(2));
        // Only runs of whitespace collapse; spaces are not removed.
        assert_eq!(q.find_option("mysql"), None);
        assert_eq!(q.find_option("postgres"), None);
        assert_eq!(q.find_option("(Recommended)"), None);
    }

    #[test]
    fn multi_select_defaults_to_false() {
        let q: Question = serde_json::from_str(r#"{"question":"Name?"}"#).unwrap();
        assert!(!q.multi_select);
        assert!(q.is_free_text());
    }
}

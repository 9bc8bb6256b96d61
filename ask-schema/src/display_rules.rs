//! The display rules of `ask-core` as data, for the code that draws model text outside Rust
//! (the pi package, the web page's script): the character classes of the sanitiser and what a
//! secret answer hides, read by calling `ask-core` itself, so that a generated copy can never
//! disagree with the rules it was made from.

use ask_core::{
    Answer, AnswerValue, ChosenPreview, Mode, Question, Record, Status, classify,
    classify_in_context,
};
use serde_json::Value;

pub use ask_core::{CharClass, MAX_ANSWER_BYTES, RECOMMENDED_SUFFIX, SECRET_PLACEHOLDER};

const ZWJ: char = '\u{200d}';

/// A display rule of `ask-core` that the generated tables cannot express.
#[derive(Debug, thiserror::Error)]
pub enum DisplayRulesError {
    /// A character takes one of the emoji and text forms but not the other.
    #[error("U+{code_point:04X} takes only one of U+FE0E and U+FE0F; display.ts assumes both")]
    OneEmojiForm {
        /// The character's code point.
        code_point: u32,
    },
    /// A character takes the plain variation selectors but not the ideographic ones, or the
    /// other way round.
    #[error(
        "U+{code_point:04X} takes only one kind of variation selector; display.ts assumes both"
    )]
    OneSelectorKind {
        /// The character's code point.
        code_point: u32,
    },
    /// A zero-width joiner joins other characters before it than after it.
    #[error(
        "a zero-width joiner joins different characters before and after it; display.ts assumes \
         one set"
    )]
    JoinerSides,
    /// No character takes a joiner or a selector.
    #[error("classify_in_context allows no joiner or selector anywhere")]
    NoContext,
    /// An answer could not be written as JSON.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// A redacted multi-select answer is not a list holding the placeholder.
    #[error("a redacted multi-select answer is no longer [placeholder]")]
    MultiSelectShape,
    /// `Record::redacted` replaces no field of a secret answer.
    #[error("Record::redacted replaces no field of a secret answer")]
    NothingRedacted,
}

/// The display rules of `ask-core`, read by calling its functions: the tables are what
/// `classify` and `classify_in_context` answer, so a change there changes the generated files.
#[derive(Debug, Clone, PartialEq)]
pub struct DisplayRules {
    /// Ranges `(first, last, class)` of the code points that are not plain out of context.
    pub classes: Vec<(u32, u32, CharClass)>,
    /// The characters a zero-width joiner may join (before and after it).
    pub pictographs: Vec<(u32, u32)>,
    /// The characters U+FE0E and U+FE0F may follow.
    pub emoji_forms: Vec<(u32, u32)>,
    /// The characters the other variation selectors may follow.
    pub ideographs: Vec<(u32, u32)>,
    /// The fields of an answer to a secret question that records and displays replace.
    pub secret_answer_fields: Vec<String>,
    /// Whether the preview of an option chosen for a secret question is dropped.
    pub secret_hides_preview: bool,
    /// Whether a whole-call reply is replaced when a question is secret.
    pub secret_hides_reply: bool,
}

impl DisplayRules {
    /// Reads the rules by calling `ask-core`: every code point through `classify`, the
    /// joiner and selector contexts through `classify_in_context`, and a secret call through
    /// `Record::redacted`; an error names a rule the generated tables cannot express.
    pub fn probe() -> Result<DisplayRules, DisplayRulesError> {
        let mut classes: Vec<(u32, u32, CharClass)> = Vec::new();
        let mut pictographs = Ranges::default();
        let mut pictographs_after = Ranges::default();
        let mut emoji_forms = Ranges::default();
        let mut ideographs = Ranges::default();
        // A pictograph that certainly takes part in emoji sequences (👩).
        let woman = '\u{1f469}';
        for c in (0..=0x10ffff).filter_map(char::from_u32) {
            let class = classify(c);
            if class != CharClass::Plain {
                match classes.last_mut() {
                    Some(last) if last.2 == class && last.1 + 1 == c as u32 => last.1 = c as u32,
                    _ => classes.push((c as u32, c as u32, class)),
                }
            }
            let plain_at =
                |chars: &[char], index| classify_in_context(chars, index) == CharClass::Plain;
            pictographs.add(c, plain_at(&[c, ZWJ, woman], 1));
            pictographs_after.add(c, plain_at(&[woman, ZWJ, c], 1));
            let fe0e = plain_at(&[c, '\u{fe0e}'], 1);
            let fe0f = plain_at(&[c, '\u{fe0f}'], 1);
            if fe0e != fe0f {
                return Err(DisplayRulesError::OneEmojiForm {
                    code_point: c as u32,
                });
            }
            emoji_forms.add(c, fe0f);
            let fe00 = plain_at(&[c, '\u{fe00}'], 1);
            let ivs = plain_at(&[c, '\u{e0100}'], 1);
            if fe00 != ivs {
                return Err(DisplayRulesError::OneSelectorKind {
                    code_point: c as u32,
                });
            }
            ideographs.add(c, fe00);
        }
        if pictographs.0 != pictographs_after.0 {
            return Err(DisplayRulesError::JoinerSides);
        }
        if pictographs.0.is_empty() || emoji_forms.0.is_empty() || ideographs.0.is_empty() {
            return Err(DisplayRulesError::NoContext);
        }
        // JavaScript strings may hold lone surrogates, which no Rust string can: they are shown
        // as escapes, like the other characters that draw nothing.
        classes.push((0xd800, 0xdfff, CharClass::Invisible));
        classes.sort_by_key(|range| range.0);
        let (secret_answer_fields, secret_hides_preview, secret_hides_reply) = probe_secrets()?;
        Ok(DisplayRules {
            classes,
            pictographs: pictographs.0,
            emoji_forms: emoji_forms.0,
            ideographs: ideographs.0,
            secret_answer_fields,
            secret_hides_preview,
            secret_hides_reply,
        })
    }
}

/// Sorted, merged ranges of code points.
#[derive(Debug, Default)]
struct Ranges(Vec<(u32, u32)>);

impl Ranges {
    fn add(&mut self, c: char, member: bool) {
        if !member {
            return;
        }
        let c = c as u32;
        match self.0.last_mut() {
            // Surrogates are no chars: a range runs on across the gap they leave.
            Some(last) if last.1 + 1 == c || (last.1 == 0xd7ff && c == 0xe000) => last.1 = c,
            _ => self.0.push((c, c)),
        }
    }
}

/// What `Record::redacted` hides of a call with a secret question: the answer fields it
/// replaces by the placeholder, whether it drops the chosen option's preview, and whether it
/// replaces a whole-call reply.
fn probe_secrets() -> Result<(Vec<String>, bool, bool), DisplayRulesError> {
    let question = Question::choice("Which key?", ["old", "new"]).secret();
    let answer = Answer::selected("Which key?", "new").with_notes(Some("a note"));
    let record = Record {
        call_id: None,
        questions: vec![question],
        answers: vec![answer],
        answered_at: 0,
        mode: Mode::Interactive,
        metadata: None,
        status: Status::Answered,
        pending_file: None,
        reply: Some("my reply".into()),
        previews: vec![ChosenPreview {
            question: "Which key?".into(),
            option: "new".into(),
            preview: "key id 42".into(),
        }],
        pending_instructions: None,
    };
    let redacted = record.redacted();
    let before = serde_json::to_value(&record.answers[0])?;
    let after = serde_json::to_value(&redacted.answers[0])?;
    let placeholder = Value::String(SECRET_PLACEHOLDER.into());
    let mut fields = Vec::new();
    if let (Value::Object(before), Value::Object(after)) = (&before, &after) {
        for (key, value) in before {
            if after.get(key) == Some(&placeholder) && value != &placeholder {
                fields.push(key.clone());
            }
        }
    }
    // A multi-select answer keeps its shape: a list holding the placeholder.
    let multi = Answer::multi("Which key?", vec!["old".into()], None).redacted();
    if multi.answer != AnswerValue::Choices(vec![SECRET_PLACEHOLDER.into()]) {
        return Err(DisplayRulesError::MultiSelectShape);
    }
    if fields.is_empty() {
        return Err(DisplayRulesError::NothingRedacted);
    }
    Ok((
        fields,
        redacted.previews.is_empty(),
        redacted.reply.as_deref() == Some(SECRET_PLACEHOLDER),
    ))
}

//! The rules a call must follow: counts, lengths, characters, ids, kinds and repeated labels.

use std::collections::HashMap;

use crate::display::{CharClass, classify_in_context};
use crate::input::{
    AskUserInput, Limits, Question, QuestionKind, QuestionOption, YES_NO_LABELS, normalize_label,
    without_recommended,
};

use super::lookalike::{LookAlikes, imitates_other, skeleton_key};
use super::problem::{Problem, ProblemKind, TextField};

/// Appends the problems of a whole call to `out`.
pub(crate) fn check_input(input: &AskUserInput, limits: &Limits, out: &mut Vec<Problem>) {
    let count = input.questions.len();
    if count == 0 {
        out.push(Problem::new("/questions", ProblemKind::NoQuestions));
    } else if count > limits.max_questions {
        out.push(Problem::new(
            "/questions",
            ProblemKind::TooManyQuestions {
                given: count,
                max: limits.max_questions,
                raised_with: limits.raised_with.map(|names| names.questions),
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
        check_question(index, question, &mut Sink { limits, out });
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

/// Where the checks of one question write: the limits they follow and the list of problems.
struct Sink<'a> {
    limits: &'a Limits,
    out: &'a mut Vec<Problem>,
}

/// Appends the problems of one question, at `index` in the call, to the sink.
fn check_question(index: usize, question: &Question, sink: &mut Sink<'_>) {
    // Paths are built only when there is a problem to report: the valid path stays cheap.
    let at = |rest: &str| format!("/questions/{index}{rest}");
    check_text(
        || at("/question"),
        (TextField::Question, &question.question),
        sink,
    );
    if let Some(header) = &question.header {
        check_text(|| at("/header"), (TextField::Header, header), sink);
    }
    if let Some(placeholder) = &question.placeholder {
        check_text(
            || at("/placeholder"),
            (TextField::Placeholder, placeholder),
            sink,
        );
    }
    if question.id.as_deref().is_some_and(|id| !is_valid_id(id)) {
        sink.out
            .push(Problem::new(at("/id"), ProblemKind::InvalidId));
    }
    if question.kind != QuestionKind::Choice {
        check_kind(&at, question, sink.out);
    }
    match &question.options {
        // A yes/no question without options gets "Yes" and "No"; one with options was checked
        // above to hold exactly those.
        None if question.kind == QuestionKind::YesNo => {}
        // `check_kind` already refused multiSelect on the other kinds.
        None if question.multi_select && question.kind == QuestionKind::Choice => {
            sink.out.push(Problem::new(
                at("/multiSelect"),
                ProblemKind::MultiSelectWithoutOptions,
            ));
        }
        None => {}
        Some(options) => {
            let given = options.len();
            let (min, max) = (sink.limits.min_options, sink.limits.max_options);
            if given < min {
                sink.out.push(Problem::new(
                    at("/options"),
                    ProblemKind::TooFewOptions { given, min, max },
                ));
            } else if given > max {
                sink.out.push(Problem::new(
                    at("/options"),
                    ProblemKind::TooManyOptions {
                        given,
                        min,
                        max,
                        raised_with: sink.limits.raised_with.map(|names| names.options),
                    },
                ));
            }
            check_labels(&at, options, sink);
        }
    }
}

/// Appends the problems of a question's options to `out`: each text, the imitations of "Other",
/// repeated labels and look-alike labels. Linear in the number of options.
fn check_labels(at: &impl Fn(&str) -> String, options: &[QuestionOption], sink: &mut Sink<'_>) {
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
        check_text(label_path, (TextField::Label, &option.label), sink);
        // An empty description is the same as none.
        if let Some(description) = option.description.as_ref().filter(|d| !d.trim().is_empty()) {
            let path = || at(&format!("/options/{j}/description"));
            check_text(path, (TextField::Description, description), sink);
        }
        // Like a description, an empty preview is the same as none.
        if let Some(preview) = option.preview.as_ref().filter(|p| !p.trim().is_empty()) {
            let path = || at(&format!("/options/{j}/preview"));
            check_text(path, (TextField::Preview, preview), sink);
        }
        let key = normalize_label(&option.label);
        if key.is_empty() {
            continue;
        }
        let skeleton = look_alikes
            .as_ref()
            .map(|_| skeleton_key(&option.label))
            .filter(|k| !k.is_empty());
        if imitates_other(&key) {
            sink.out
                .push(Problem::new(label_path(), ProblemKind::ReservedLabel));
        } else if let Some(&first) = seen.get(&key) {
            sink.out.push(Problem::new(
                label_path(),
                ProblemKind::DuplicateLabel { first },
            ));
        } else if let Some(first) = differs_only_by_suffix(&key, &seen, &recommended) {
            sink.out.push(Problem::new(
                label_path(),
                ProblemKind::LabelDiffersOnlyByRecommended { first },
            ));
        } else if let (Some(look_alikes), Some(skeleton)) = (look_alikes.as_mut(), skeleton)
            && let Some(kind) = look_alikes.check(&options[..=j], skeleton)
        {
            sink.out.push(Problem::new(label_path(), kind));
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

/// Appends the problems of one text, in the field it fills, to the sink.
fn check_text(path: impl Fn() -> String, (field, text): (TextField, &str), sink: &mut Sink<'_>) {
    let (limits, out) = (sink.limits, &mut *sink.out);
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
    use crate::validate::test_support::{call, check, check_ok, db};
    use crate::validate::{MAX_PROBLEMS, validate};

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

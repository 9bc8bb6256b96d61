//! Labels that look alike: the confusable skeleton two labels are compared by, and the labels
//! that imitate the built-in "Other" choice in any language the terminal UI speaks.
//!
//! Label uniqueness compares confusable skeletons (UTS #39 after NFKC) only when a label of the
//! question holds a non-ASCII character, so plain ASCII pairs such as "Modern" and "Modem" stay
//! distinct. The check that a label does not imitate "Other" reads every label by its skeleton
//! as well, with the digits that pass for letters folded, so "0ther" is "other"; an ASCII label
//! takes the table of ASCII skeletons, built once, and no Unicode table.

use std::collections::HashMap;

use unicode_normalization::UnicodeNormalization;
use unicode_script::{Script, UnicodeScript};

use crate::display::describe_char;
use crate::input::{QuestionOption, normalize_label};

use super::problem::ProblemKind;

/// The labels of one question seen so far, by confusable skeleton.
#[derive(Default)]
pub(super) struct LookAlikes {
    /// The first label with each skeleton.
    first: HashMap<String, usize>,
    /// The first label with each skeleton that holds a non-ASCII character.
    first_non_ascii: HashMap<String, usize>,
}

impl LookAlikes {
    /// Records the last label of `options`, whose skeleton is `skeleton`, and returns the problem
    /// when it looks like an earlier label: one with the same skeleton, where at least one of the
    /// two holds a non-ASCII character.
    pub(super) fn check(
        &mut self,
        options: &[QuestionOption],
        skeleton: String,
    ) -> Option<ProblemKind> {
        let j = options.len() - 1;
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
pub(super) fn skeleton_key(label: &str) -> String {
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
pub(super) fn describe_look_alike(c: char) -> String {
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
/// cannot add a second "Other" whatever language the person reads, and rows for languages
/// people often read beyond those (Russian, Italian, Portuguese, Korean). A new language adds a
/// row; `ask-tui/tests/it/languages.rs` checks that each UI wording is refused.
///
/// A name is refused alone, followed by any phrase in brackets ("Others (type)"), or followed
/// by one of its row's explanations without brackets ("Other - please specify"). Every entry
/// is compared as written and as its confusable skeleton with digits folded, so "0ther" and a
/// Cyrillic "Оther" match "other".
const OTHER_NAMES: &[(&str, &[&str], &[&str])] = &[
    (
        "en",
        &[
            "other",
            "others",
            "otheroption",
            "otheranswer",
            "somethingelse",
            "typeyouranswer",
            "typeyourown",
            "typeyourownanswer",
            "customanswer",
            "writeyourown",
            "enteryourown",
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
    (
        "ru",
        &[
            "другое",
            "другой",
            "другая",
            "другие",
            "иное",
            "прочее",
            "свойвариант",
            "свойответ",
        ],
        &["укажите", "уточните", "свойвариант", "свойответ", "впишите"],
    ),
    (
        "it",
        &["altro", "altra", "altri", "altre", "altrarisposta"],
        &[
            "specificare",
            "specifica",
            "specificate",
            "scrivilatuarisposta",
            "inseriscilatuarisposta",
        ],
    ),
    (
        "pt",
        &[
            "outro",
            "outra",
            "outros",
            "outras",
            "outraopção",
            "outraresposta",
        ],
        &[
            "especifique",
            "especificar",
            "digitesuaresposta",
            "escrevasuaresposta",
        ],
    ),
    (
        "ko",
        &["기타", "기타의견", "기타답변", "직접입력"],
        &["직접입력", "입력해주세요", "입력하세요", "기재해주세요"],
    ),
];

/// The start of the older wording of the built-in choice's explanation, "Other (type your …)",
/// which may follow a name without brackets.
const OLDER_EXPLANATION: &str = "typeyour";

/// No name with an explanation is longer than this, in letters; longer labels are not looked at.
const LONGEST: usize = 40;

/// The two forms a label is compared in.
#[derive(Clone, Copy)]
enum Form {
    /// The letters and digits as written, lowercased.
    Plain,
    /// The confusable skeleton of those letters, with the digits that pass for letters folded
    /// (0 to o, 3 to e, 1 to l).
    Skeleton,
}

impl Form {
    /// The letters and digits of `text` in this form.
    fn letters(self, text: &str) -> String {
        let plain: String = text
            .chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect();
        match self {
            Form::Plain => plain,
            Form::Skeleton => skeleton_key(&plain)
                .chars()
                .filter(|c| c.is_alphanumeric())
                .map(fold_digit)
                .collect(),
        }
    }

    /// The first two letters of `key` (already normalised) in this form, as [`Form::letters`]
    /// gives them, found without building the letters; `None` for a skeleton that starts with a
    /// non-ASCII letter, which takes the Unicode tables to find.
    fn start(self, key: &str) -> Option<[Option<char>; 2]> {
        let mut alnum = key
            .chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase);
        let mut start = [None, None];
        match self {
            Form::Plain => start = [alnum.next(), alnum.next()],
            Form::Skeleton => {
                let mut found = 0;
                for c in alnum {
                    if !c.is_ascii() {
                        return None;
                    }
                    // An ASCII letter's skeleton does not depend on the letters around it.
                    for s in ascii_skeleton(c).chars().filter(|c| c.is_alphanumeric()) {
                        if let Some(slot) = start.get_mut(found) {
                            *slot = Some(fold_digit(s));
                            found += 1;
                        }
                    }
                    if found == start.len() {
                        break;
                    }
                }
            }
        }
        Some(start)
    }

    /// [`OTHER_NAMES`] and [`OLDER_EXPLANATION`] in this form, built once.
    fn table(self) -> &'static Names {
        static TABLES: std::sync::OnceLock<[Names; 2]> = std::sync::OnceLock::new();
        let tables = TABLES.get_or_init(|| [Names::new(Form::Plain), Names::new(Form::Skeleton)]);
        match self {
            Form::Plain => &tables[0],
            Form::Skeleton => &tables[1],
        }
    }
}

/// A digit that passes for a letter, as that letter.
fn fold_digit(c: char) -> char {
    match c {
        '0' => 'o',
        '3' => 'e',
        '1' => 'l',
        c => c,
    }
}

/// The names of "Other" and their explanations, per language, in one form.
struct Names {
    rows: Vec<(Vec<String>, Vec<String>)>,
    older: String,
    /// The first two letters of every name (one for a name of one letter): a label that starts
    /// with none of them names nothing, and most labels are turned away by this alone.
    starts: std::collections::HashSet<[Option<char>; 2]>,
}

impl Names {
    fn new(form: Form) -> Names {
        let all = |words: &[&str]| words.iter().map(|w| form.letters(w)).collect();
        let rows: Vec<(Vec<String>, Vec<String>)> = OTHER_NAMES
            .iter()
            .map(|(_, names, explanations)| (all(names), all(explanations)))
            .collect();
        let starts = rows
            .iter()
            .flat_map(|(names, _)| names)
            .map(|name| {
                let mut chars = name.chars();
                [chars.next(), chars.next()]
            })
            .collect();
        Names {
            rows,
            older: form.letters(OLDER_EXPLANATION),
            starts,
        }
    }

    /// False when a label whose first two letters are `start` cannot begin with a name.
    fn may_start(&self, start: [Option<char>; 2]) -> bool {
        self.starts.contains(&start) || self.starts.contains(&[start[0], None])
    }
}

/// True for a label (already normalised) that the person could take for the built-in "Other"
/// choice: one of its names in [`OTHER_NAMES`], however it is spaced, punctuated or spelt with
/// look-alike letters and digits ("O t h e r", "Other:", "0ther", "Оther" with a Cyrillic О),
/// alone, with any phrase in brackets ("Others (type)", "Other (Recommended)"), or with a usual
/// explanation ("Other - please specify"). "Other tools", "Other team's repository",
/// "Otherwise, keep it", "None of the above" and "Skip" are ordinary labels.
pub(super) fn imitates_other(key: &str) -> bool {
    if key
        .chars()
        .filter(|c| c.is_alphanumeric())
        .nth(LONGEST)
        .is_some()
    {
        return false;
    }
    // The text before a phrase in brackets that ends the label.
    let head = key
        .find(['(', '（', '['])
        .filter(|_| key.trim_end().ends_with([')', '）', ']']))
        .map(|at| &key[..at]);
    [Form::Plain, Form::Skeleton].into_iter().any(|form| {
        let table = form.table();
        if form.start(key).is_some_and(|start| !table.may_start(start)) {
            return false;
        }
        let letters = form.letters(key);
        let head = head.map(|head| form.letters(head));
        table.rows.iter().any(|(names, explanations)| {
            names.iter().any(|name| {
                head.as_ref() == Some(name)
                    || letters.strip_prefix(name.as_str()).is_some_and(|rest| {
                        rest.is_empty()
                            || rest.starts_with(table.older.as_str())
                            || explanations.iter().any(|e| e == rest)
                    })
            })
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::Question;
    use crate::validate::test_support::{call, check, check_ok, limits};

    const RESERVED: &str = "this label reads as \"Other\"; remove this option: the person always gets an \"Other\" choice to type their own answer, and a multi-select question also a \"None of these\" choice";

    /// Checks that `label`, beside an ordinary label, is refused as an imitation of "Other".
    #[track_caller]
    fn check_reserved(label: &str) {
        check(
            call(vec![Question::choice("A?", ["a", label])]),
            &[&format!("/questions/0/options/1/label: {RESERVED}")],
        );
    }

    /// Whether `label`, beside an ordinary label in a single-choice and in a multi-select
    /// question, is refused as an imitation of "Other": `Some` naming what went wrong when the
    /// two questions disagree with `refused`.
    fn mismatch(label: &str, refused: bool) -> Option<String> {
        for multi in [false, true] {
            let mut question = Question::choice("A?", ["a", label]);
            question.multi_select = multi;
            let problems: Vec<String> = match crate::validate(call(vec![question]), &limits()) {
                Ok(_) => Vec::new(),
                Err(problems) => problems.iter().map(ToString::to_string).collect(),
            };
            let got = problems.iter().any(|p| p.contains("reads as \"Other\""));
            if got != refused {
                let kind = if multi {
                    "multi-select"
                } else {
                    "single-choice"
                };
                let verdict = if refused { "accepted" } else { "refused" };
                return Some(format!(
                    "{label:?} was {verdict} in a {kind} question: {problems:?}"
                ));
            }
        }
        None
    }

    /// Checks every label of `labels`, each on its own, and names every one that `refused` does
    /// not describe.
    #[track_caller]
    fn check_each(labels: &[&str], refused: bool) {
        let wrong: Vec<String> = labels
            .iter()
            .filter_map(|label| mismatch(label, refused))
            .collect();
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    /// Imitations of "Other" that passed validation while it read only non-ASCII labels by their
    /// skeleton and knew no phrase in brackets, with the rest of thirty tried beside them.
    #[test]
    fn the_thirty_imitations_of_other_are_refused() {
        let thirty = [
            "0ther (type your answer)",
            "Others (type)",
            "Type your own answer",
            "Custom answer",
            "Type your answer",
            "Something else",
            "OTHER (specify)",
            "0thers",
            "Oth3r",
            "0th3r (please specify)",
            "Other (write your own)",
            "Other (free text)",
            "Others (please describe)",
            "Something else (type it)",
            "Other\u{2026}",
            "[Other]",
            "\u{41e}thers (type)",
            "\u{ff2f}\u{ff34}\u{ff28}\u{ff25}\u{ff32}",
            "\u{414}\u{440}\u{443}\u{433}\u{43e}\u{435}",
            "\u{421}\u{432}\u{43e}\u{439} \u{432}\u{430}\u{440}\u{438}\u{430}\u{43d}\u{442}",
            "Altro",
            "Altro (specificare)",
            "Outro",
            "Outra (especifique)",
            "\u{AE30}\u{D0C0}",
            "\u{AE30}\u{D0C0} (\u{C9C1}\u{C811} \u{C785}\u{B825})",
            "Sonstiges (bitte angeben)",
            "Otro (especifique)",
            "Autre (pr\u{e9}ciser)",
            "\u{305d}\u{306e}\u{4ed6}(\u{81ea}\u{7531}\u{5165}\u{529b})",
        ];
        assert_eq!(thirty.len(), 30);
        check_each(&thirty, true);
    }

    /// Each name of [`OTHER_NAMES`] is refused alone, with a phrase in brackets, and followed by
    /// each explanation of its row; each explanation is refused after the row's first name.
    #[test]
    fn every_entry_of_the_table_is_refused() {
        for (lang, names, explanations) in OTHER_NAMES {
            let mut labels = Vec::new();
            for name in *names {
                labels.push(name.to_string());
                labels.push(format!("{name} (x)"));
                labels.push(name.to_uppercase());
                for explanation in *explanations {
                    labels.push(format!("{name} - {explanation}"));
                }
            }
            let wrong: Vec<String> = labels
                .iter()
                .filter_map(|label| mismatch(label, true))
                .collect();
            assert!(wrong.is_empty(), "{lang}:\n{}", wrong.join("\n"));
        }
    }

    /// Labels that start like a name of "Other" but read as something else stay allowed, in a
    /// multi-select question too, where "None of the above" is an ordinary pick.
    #[test]
    fn near_misses_of_other_are_allowed() {
        check_each(
            &[
                "None of the above",
                "Otherwise, keep the current setting",
                "Other team's repository",
                "Other tools",
                "Other types",
                "Another",
                "Custom",
                "Custom build (slower)",
                "Type",
                "Something",
                "Mother",
                "0.3.1 (current)",
                "Otro pa\u{ed}s",
                "Andere Datenbank",
                "Altro database",
                "Outro servidor",
                "\u{414}\u{440}\u{443}\u{433}\u{43e}\u{439} \u{441}\u{435}\u{440}\u{432}\u{435}\u{440}",
                "\u{AE30}\u{D0C0} \u{C5F0}\u{C2B5}",
            ],
            false,
        );
    }

    #[test]
    fn none_of_the_above_is_an_ordinary_pick_of_a_multi_select() {
        let question = Question::choice("Which?", ["Redis", "None of the above"]).multi();
        let input = crate::validate(call(vec![question]), &limits()).expect("a valid call");
        let answer = crate::Answer::from_text(&input.questions[0], "None of the above");
        assert!(!answer.was_custom, "{answer:?}");
        assert_eq!(answer.answer.joined(), "None of the above");
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
        check_ok(&["C0de", "Code", "Café"]);
        check_ok(&["東京", "京都"]);
    }
}

//! Labels that look alike: the confusable skeleton two labels are compared by, and the labels
//! that imitate the built-in "Other" choice in any language the terminal UI speaks.

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
/// cannot add a second "Other" whatever language the person reads. A new language adds a row;
/// `ask-tui/tests/languages.rs` checks that each UI wording is refused.
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
pub(super) fn imitates_other(key: &str) -> bool {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::Question;
    use crate::validate::test_support::{call, check, check_ok};

    const RESERVED: &str = "this label reads as \"Other\", which is added automatically so the person can type their own answer; remove this option";

    /// Checks that `label`, beside an ordinary label, is refused as an imitation of "Other".
    #[track_caller]
    fn check_reserved(label: &str) {
        check(
            call(vec![Question::choice("A?", ["a", label])]),
            &[&format!("/questions/0/options/1/label: {RESERVED}")],
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
}

//! Text from the model made safe to show, and small display conventions.
//!
//! The model's text is untrusted: a prompt-injected model may try to clear the screen, move the
//! cursor over the help line, set the window title or reorder text with bidi overrides. Every
//! frontend shows agent text only through [`sanitize_for_display`].
//!
//! Validation refuses control, bidi, default-ignorable and blank-looking characters in a call
//! (a variation selector or joiner only where it applies), so sanitising is the second line of
//! defence. [`classify`] and [`classify_in_context`] are the one definition of both; the pi
//! package and the web page carry sanitisers generated from them by `cargo xtask schema`.

use std::borrow::Cow;

/// How a character is treated in agent text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CharClass {
    /// Printable text.
    Plain,
    /// A line feed or a tab: allowed in a question or a description, laid out by the frontend.
    Layout,
    /// A C0 or C1 control character or DEL (a terminal would interpret it).
    Control,
    /// A bidi control, a default-ignorable code point (zero-width characters, fillers, tag
    /// characters, variation selectors out of place) or a blank-looking character: it would
    /// hide or reorder text, or make a label look empty or like another.
    Invisible,
}

/// Classifies one character of agent text, out of context.
///
/// The zero-width joiner and the variation selectors are [`CharClass::Invisible`] here;
/// [`classify_in_context`] allows them after a character they apply to.
pub fn classify(c: char) -> CharClass {
    match c {
        '\n' | '\t' => CharClass::Layout,
        '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' => CharClass::Control,
        // Bidi marks, embeddings, overrides and isolates.
        '\u{061c}'
        | '\u{200e}'
        | '\u{200f}'
        | '\u{202a}'..='\u{202e}'
        | '\u{2066}'..='\u{2069}' => CharClass::Invisible,
        // The default-ignorable code points of Unicode (DerivedCoreProperties.txt): zero-width
        // characters, fillers, format controls that draw nothing, variation selectors and tag
        // characters. A terminal draws none of them, so they hide text or make twins.
        '\u{00ad}'
        | '\u{034f}'
        | '\u{115f}'
        | '\u{1160}'
        | '\u{17b4}'
        | '\u{17b5}'
        | '\u{180b}'..='\u{180f}'
        | '\u{200b}'..='\u{200d}'
        | '\u{2060}'..='\u{2065}'
        | '\u{206a}'..='\u{206f}'
        | '\u{3164}'
        | '\u{fe00}'..='\u{fe0f}'
        | '\u{feff}'
        | '\u{ffa0}'
        | '\u{fff0}'..='\u{fff8}'
        | '\u{1bca0}'..='\u{1bca3}'
        | '\u{1d173}'..='\u{1d17a}'
        | '\u{e0000}'..='\u{e0fff}' => CharClass::Invisible,
        // Other characters that draw nothing or look blank: interlinear annotation controls,
        // Egyptian hieroglyph format controls, and the braille blank, which makes a label look
        // empty.
        '\u{fff9}'..='\u{fffb}' | '\u{13430}'..='\u{1343f}' | '\u{2800}' => CharClass::Invisible,
        // Line and paragraph separators would break the layout like a raw line feed.
        '\u{2028}' | '\u{2029}' => CharClass::Invisible,
        _ => CharClass::Plain,
    }
}

/// Classifies `chars[index]`, allowing the joiners and selectors that belong to the character
/// before them:
///
/// - a zero-width joiner between two pictographs (emoji ZWJ sequences such as 👩‍💻);
/// - the emoji and text presentation selectors U+FE0E and U+FE0F after a character that has an
///   emoji form (❤️, 1️⃣);
/// - the variation selectors U+FE00–U+FE0D and the ideographic variation selectors
///   U+E0100–U+E01EF after a CJK ideograph (葛󠄀).
///
/// Anywhere else they are [`CharClass::Invisible`]: `SQLite` followed by U+FE00 would draw
/// exactly like `SQLite`.
pub fn classify_in_context(chars: &[char], index: usize) -> CharClass {
    let c = chars[index];
    let before = index.checked_sub(1).map(|i| chars[i]);
    let applies = match c {
        '\u{200d}' => {
            emoji_ends_at(chars, index)
                && chars.get(index + 1).copied().is_some_and(is_pictographic)
        }
        '\u{fe0e}' | '\u{fe0f}' => before.is_some_and(has_emoji_form),
        '\u{fe00}'..='\u{fe0d}' | '\u{e0100}'..='\u{e01ef}' => before.is_some_and(is_ideograph),
        _ => false,
    };
    if applies {
        CharClass::Plain
    } else {
        classify(c)
    }
}

/// True when the characters before `index` end with a pictograph, possibly followed by its
/// emoji presentation selector.
fn emoji_ends_at(chars: &[char], index: usize) -> bool {
    match index.checked_sub(1).map(|i| chars[i]) {
        Some('\u{fe0f}') => index
            .checked_sub(2)
            .is_some_and(|i| is_pictographic(chars[i])),
        Some(c) => is_pictographic(c),
        None => false,
    }
}

/// A rough test for pictographs, the characters that take part in emoji sequences.
fn is_pictographic(c: char) -> bool {
    matches!(c,
        '\u{2600}'..='\u{27bf}' | '\u{2b00}'..='\u{2bff}' | '\u{1f000}'..='\u{1faff}')
}

/// Characters with an emoji presentation that U+FE0E or U+FE0F may select: pictographs, the
/// keycap bases, and the older symbols of emoji-data.txt outside the pictograph blocks.
fn has_emoji_form(c: char) -> bool {
    is_pictographic(c)
        || matches!(c,
            '0'..='9' | '#' | '*' | '\u{a9}' | '\u{ae}' | '\u{203c}' | '\u{2049}' | '\u{2122}'
            | '\u{2139}' | '\u{2194}'..='\u{2199}' | '\u{21a9}' | '\u{21aa}' | '\u{231a}'
            | '\u{231b}' | '\u{2328}' | '\u{23cf}' | '\u{23e9}'..='\u{23fa}' | '\u{24c2}'
            | '\u{25aa}' | '\u{25ab}' | '\u{25b6}' | '\u{25c0}' | '\u{25fb}'..='\u{25fe}'
            | '\u{2934}' | '\u{2935}' | '\u{3030}' | '\u{303d}' | '\u{3297}' | '\u{3299}')
}

/// CJK unified and compatibility ideographs, the bases of ideographic variation sequences.
fn is_ideograph(c: char) -> bool {
    matches!(c,
        '\u{3400}'..='\u{4dbf}' | '\u{4e00}'..='\u{9fff}' | '\u{f900}'..='\u{faff}'
        | '\u{20000}'..='\u{323af}')
}

/// Returns `text` with every character a terminal would interpret, and every invisible character
/// that could hide or reorder text, made visible.
///
/// - C0 controls and DEL become caret notation: ESC is `^[`, NUL is `^@`, DEL is `^?`.
/// - A line feed becomes `⏎` and a tab four spaces, so the result is one line; split on `'\n'`
///   first to keep the lines.
/// - C1 controls, bidi controls, invisible and blank-looking characters (see [`classify`])
///   become `\u{…}` notation.
///
/// The result contains only printable characters, and sanitising it again changes nothing.
///
/// ```
/// use ask_core::sanitize_for_display;
/// assert_eq!(sanitize_for_display("a\u{1b}[2Jb"), "a^[[2Jb");
/// assert_eq!(sanitize_for_display("evil\u{202e}txt"), "evil\\u{202e}txt");
/// assert_eq!(sanitize_for_display("plain"), "plain");
/// ```
pub fn sanitize_for_display(text: &str) -> Cow<'_, str> {
    if text.chars().all(|c| classify(c) == CharClass::Plain) {
        return Cow::Borrowed(text);
    }
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len() + 8);
    for index in 0..chars.len() {
        let c = chars[index];
        match classify_in_context(&chars, index) {
            CharClass::Plain => out.push(c),
            CharClass::Layout if c == '\t' => out.push_str("    "),
            CharClass::Layout => out.push('⏎'),
            CharClass::Control if (c as u32) < 0x20 => {
                out.push('^');
                out.push(char::from(b'@' + c as u8));
            }
            CharClass::Control if c == '\u{7f}' => out.push_str("^?"),
            CharClass::Control | CharClass::Invisible => {
                out.push_str(&format!("\\u{{{:x}}}", c as u32));
            }
        }
    }
    Cow::Owned(out)
}

/// `text` as one word of a POSIX shell command line: as it is when it holds only characters no
/// shell treats specially, else in single quotes (a quote inside written `'\''`). Every command
/// printed for a person or a model to run (print mode's instructions, the pending file's
/// `howToAnswer`, `questions show`, print mode's errors) names its paths through this, so the
/// command runs as printed whatever the path holds.
///
/// ```
/// use ask_core::shell_quote;
/// assert_eq!(shell_quote(".pi/pending-questions.json"), ".pi/pending-questions.json");
/// assert_eq!(shell_quote("my dir/it's.json"), r"'my dir/it'\''s.json'");
/// assert_eq!(shell_quote(""), "''");
/// ```
pub fn shell_quote(text: &str) -> Cow<'_, str> {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+:@%,=".contains(c));
    if plain {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(format!("'{}'", text.replace('\'', r"'\''")))
    }
}

/// A short name for a character in error messages, such as `U+001B (ESC)`.
pub fn describe_char(c: char) -> String {
    let name = match c {
        '\u{0}' => Some("NUL"),
        '\u{7}' => Some("BEL"),
        '\u{8}' => Some("BS"),
        '\r' => Some("CR"),
        '\u{1b}' => Some("ESC"),
        '\u{7f}' => Some("DEL"),
        '\u{9b}' => Some("CSI"),
        '\u{202e}' => Some("RIGHT-TO-LEFT OVERRIDE"),
        '\u{202d}' => Some("LEFT-TO-RIGHT OVERRIDE"),
        '\u{200b}' => Some("ZERO WIDTH SPACE"),
        '\u{200d}' => Some("ZERO WIDTH JOINER"),
        '\u{feff}' => Some("ZERO WIDTH NO-BREAK SPACE"),
        '\u{2066}' => Some("LEFT-TO-RIGHT ISOLATE"),
        '\u{2067}' => Some("RIGHT-TO-LEFT ISOLATE"),
        '\u{2069}' => Some("POP DIRECTIONAL ISOLATE"),
        '\u{2028}' => Some("LINE SEPARATOR"),
        '\u{2029}' => Some("PARAGRAPH SEPARATOR"),
        '\u{2800}' => Some("BRAILLE PATTERN BLANK"),
        '\u{3164}' => Some("HANGUL FILLER"),
        '\u{e0000}'..='\u{e007f}' => Some("TAG"),
        _ => None,
    };
    let selector = match c {
        '\u{fe00}'..='\u{fe0f}' => Some(c as u32 - 0xfe00 + 1),
        '\u{e0100}'..='\u{e01ef}' => Some(c as u32 - 0xe0100 + 17),
        _ => None,
    };
    match (name, selector) {
        (Some(name), _) => format!("U+{:04X} ({name})", c as u32),
        (None, Some(n)) => format!("U+{:04X} (VARIATION SELECTOR-{n})", c as u32),
        (None, None) => format!("U+{:04X}", c as u32),
    }
}

/// The suffix that marks the recommended option, by convention.
pub const RECOMMENDED_SUFFIX: &str = "(Recommended)";

/// True when an option label ends with "(Recommended)" (ignoring case and trailing spaces).
///
/// ```
/// assert!(ask_core::is_recommended("PostgreSQL (Recommended)"));
/// assert!(!ask_core::is_recommended("SQLite"));
/// ```
pub fn is_recommended(label: &str) -> bool {
    let trimmed = label.trim_end();
    trimmed.len() >= RECOMMENDED_SUFFIX.len()
        && trimmed.is_char_boundary(trimmed.len() - RECOMMENDED_SUFFIX.len())
        && trimmed[trimmed.len() - RECOMMENDED_SUFFIX.len()..]
            .eq_ignore_ascii_case(RECOMMENDED_SUFFIX)
}

/// The label without its "(Recommended)" suffix.
#[cfg(test)]
fn strip_recommended(label: &str) -> &str {
    if is_recommended(label) {
        let trimmed = label.trim_end();
        trimmed[..trimmed.len() - RECOMMENDED_SUFFIX.len()].trim_end()
    } else {
        label
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[track_caller]
    fn check(input: &str, expected: &str) {
        assert_eq!(sanitize_for_display(input), expected);
    }

    #[test]
    fn plain_text_is_borrowed() {
        assert!(matches!(
            sanitize_for_display("héllo 世界 🎉"),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn escape_sequences_become_caret_notation() {
        check("\u{1b}[2J\u{1b}[H", "^[[2J^[[H");
        check("\u{1b}]0;title\u{7}", "^[]0;title^G");
        check("\u{1b}]52;c;aGk=\u{7}", "^[]52;c;aGk=^G");
        check("nul\u{0}del\u{7f}", "nul^@del^?");
        check("cr\rlf", "cr^Mlf");
    }

    #[test]
    fn c1_and_invisible_become_escapes() {
        check("\u{9b}2J", "\\u{9b}2J");
        check("a\u{202e}b\u{2066}c", "a\\u{202e}b\\u{2066}c");
        check("zero\u{200b}width\u{feff}", "zero\\u{200b}width\\u{feff}");
        check("tag\u{e0041}", "tag\\u{e0041}");
    }

    #[test]
    fn blank_looking_and_default_ignorable_characters_become_escapes() {
        check("\u{2800}\u{2800}", "\\u{2800}\\u{2800}");
        check("SQLite\u{fe00}", "SQLite\\u{fe00}");
        check("x\u{e0100}", "x\\u{e0100}");
        check(
            "a\u{2065}b\u{fff0}c\u{e0fff}",
            "a\\u{2065}b\\u{fff0}c\\u{e0fff}",
        );
        check("soft\u{ad}hyphen", "soft\\u{ad}hyphen");
    }

    #[test]
    fn selectors_kept_after_the_characters_they_apply_to() {
        check(
            "❤\u{fe0f} ☺\u{fe0e} 1\u{fe0f}\u{20e3}",
            "❤\u{fe0f} ☺\u{fe0e} 1\u{fe0f}\u{20e3}",
        );
        check("葛\u{e0100}飾", "葛\u{e0100}飾");
        check("🏳\u{fe0f}\u{200d}🌈", "🏳\u{fe0f}\u{200d}🌈");
        // After a letter that has no such variant, or after an escaped selector, they show.
        check("a\u{fe0f}\u{200d}👩", "a\\u{fe0f}\\u{200d}👩");
        check("👩\u{200d}\u{fe0f}", "👩\\u{200d}\\u{fe0f}");
    }

    #[test]
    fn layout_characters_stay_readable() {
        check("a\tb", "a    b");
        check("a\nb", "a⏎b");
    }

    #[test]
    fn zero_width_joiner_kept_inside_emoji() {
        check("👩\u{200d}💻", "👩\u{200d}💻");
        check("a\u{200d}b", "a\\u{200d}b");
    }

    #[test]
    fn describe_names_common_controls() {
        assert_eq!(describe_char('\u{1b}'), "U+001B (ESC)");
        assert_eq!(describe_char('\u{202e}'), "U+202E (RIGHT-TO-LEFT OVERRIDE)");
        assert_eq!(describe_char('\u{85}'), "U+0085");
    }

    #[test]
    fn recommended_detection() {
        assert!(is_recommended("PostgreSQL (Recommended)"));
        assert!(is_recommended("PostgreSQL (recommended)  "));
        assert!(!is_recommended("Recommended"));
        assert!(!is_recommended("é"));
        assert_eq!(strip_recommended("PostgreSQL (Recommended)"), "PostgreSQL");
        assert_eq!(strip_recommended("SQLite"), "SQLite");
    }

    /// A character a terminal would act on, or one that hides or reorders text. This is the
    /// tests' own oracle, written from the Unicode tables rather than from `classify`, so that
    /// a character `classify` forgets makes the property fail.
    fn is_dangerous(c: char) -> bool {
        c.is_control()
            || matches!(c,
                // Bidi marks, embeddings, overrides, isolates.
                '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
                // Zero-width spaces, non-joiner, word joiner and invisible operators, BOM.
                | '\u{200b}' | '\u{200c}' | '\u{2060}'..='\u{2064}' | '\u{feff}'
                // Line and paragraph separators, tag characters.
                | '\u{2028}' | '\u{2029}' | '\u{e0000}'..='\u{e007f}'
                // Hangul fillers and musical format controls, which draw nothing.
                | '\u{115f}' | '\u{1160}' | '\u{3164}' | '\u{ffa0}' | '\u{1d173}'..='\u{1d17a}'
                // The braille blank and the rest of the default-ignorable code points, but for
                // the ideographic variation selectors, which `check_selectors_in_place` checks.
                | '\u{2800}' | '\u{fff0}'..='\u{fff8}' | '\u{e0080}'..='\u{e00ff}'
                | '\u{e01f0}'..='\u{e0fff}')
    }

    /// A selector or joiner that survived sanitising must sit where it applies.
    fn check_selectors_in_place(out: &str) -> Result<(), TestCaseError> {
        let chars: Vec<char> = out.chars().collect();
        for (i, c) in chars.iter().enumerate() {
            if matches!(c, '\u{200d}' | '\u{fe00}'..='\u{fe0f}' | '\u{e0100}'..='\u{e01ef}') {
                prop_assert_eq!(
                    classify_in_context(&chars, i),
                    CharClass::Plain,
                    "{:?}",
                    out
                );
            }
        }
        Ok(())
    }

    proptest! {
        #[test]
        fn sanitized_text_has_no_dangerous_characters(text in "\\PC*|[\\x00-\\x20\\x7f-\\x9f\u{200b}-\u{200f}\u{202a}-\u{202e}\u{2066}-\u{2069}\u{3164}\u{1d173}-\u{1d17a}a-z🎉]*") {
            let out = sanitize_for_display(&text);
            prop_assert!(!out.chars().any(is_dangerous), "{out:?}");
            // A joiner or a selector survives only where it applies.
            check_selectors_in_place(&out)?;
        }

        #[test]
        fn selectors_and_joiners_are_kept_only_in_place(text in "[a1葛👩🌈❤\u{200d}\u{fe00}\u{fe0e}\u{fe0f}\u{e0100}\u{2800}]*") {
            let out = sanitize_for_display(&text);
            check_selectors_in_place(&out)?;
            prop_assert!(!out.contains('\u{2800}'), "{:?}", out);
            prop_assert_eq!(sanitize_for_display(&out), out.clone());
        }

        #[test]
        fn sanitizing_is_idempotent(text in "\\PC*|[\\x00-\\x20\\x7f-\\x9f\u{200b}-\u{200f}\u{202a}-\u{202e}\u{fe00}-\u{fe0f}a-z1葛👩💻]*") {
            let once = sanitize_for_display(&text).into_owned();
            let twice = sanitize_for_display(&once).into_owned();
            prop_assert_eq!(once, twice);
        }

        #[test]
        fn sanitizing_arbitrary_chars_is_safe(chars in proptest::collection::vec(any::<char>(), 0..64)) {
            let text: String = chars.into_iter().collect();
            let out = sanitize_for_display(&text);
            prop_assert!(!out.chars().any(is_dangerous), "{out:?}");
            // An ideographic variation selector after an ideograph (葛󠄀) is kept, as it applies.
            check_selectors_in_place(&out)?;
            prop_assert_eq!(sanitize_for_display(&out), out.clone());
        }
    }
}

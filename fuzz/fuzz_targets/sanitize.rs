//! Sanitised text contains nothing a terminal would interpret and nothing invisible: no control
//! character, no bidi control, no default-ignorable code point or blank-looking character
//! outside the joiners and selectors that apply to the character before them. Sanitising is
//! idempotent, and text that validation accepts is shown as written, line by line.

#![no_main]

use ask_core::{CharClass, Limits, Question, classify_in_context, sanitize_for_display};
use libfuzzer_sys::fuzz_target;

/// The fuzzer's own oracle, from the Unicode tables rather than from `classify`: characters a
/// terminal acts on, that reorder text, or that draw nothing.
fn is_hidden(c: char) -> bool {
    c.is_control()
        || matches!(c,
            '\u{061c}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{206f}'
            | '\u{2028}' | '\u{2029}' | '\u{00ad}' | '\u{034f}' | '\u{115f}' | '\u{1160}'
            | '\u{17b4}' | '\u{17b5}' | '\u{180b}'..='\u{180f}' | '\u{2800}' | '\u{3164}'
            | '\u{fe00}'..='\u{fe0f}' | '\u{feff}' | '\u{ffa0}' | '\u{fff0}'..='\u{fffb}'
            | '\u{1bca0}'..='\u{1bca3}' | '\u{1d173}'..='\u{1d17a}' | '\u{e0000}'..='\u{e0fff}')
}

fuzz_target!(|text: &str| {
    let once = sanitize_for_display(text);
    let chars: Vec<char> = once.chars().collect();
    for index in 0..chars.len() {
        assert_eq!(classify_in_context(&chars, index), CharClass::Plain, "{once:?}");
        let c = chars[index];
        // Joiners and selectors are kept only where they apply (checked just above).
        let joins = matches!(c, '\u{200d}' | '\u{fe00}'..='\u{fe0f}' | '\u{e0100}'..='\u{e01ef}');
        assert!(joins || !is_hidden(c), "{c:?} survived in {once:?}");
    }
    assert_eq!(sanitize_for_display(&once), once);

    // A question that validates is shown as written: sanitising each line changes nothing.
    let input = ask_core::AskUserInput {
        questions: vec![Question::text(text)],
        metadata: None,
    };
    if ask_core::validate(input, &Limits::default()).is_ok() {
        for line in text.split('\n') {
            let shown = sanitize_for_display(line);
            assert!(
                shown == line.replace('\t', "    "),
                "valid text changed on display: {line:?} → {shown:?}"
            );
        }
    }

    // A label that validates beside plain ones is one line, shown as written, and neither an
    // imitation of "Other" nor a look-alike of its neighbour (the skeleton check never panics).
    let input = ask_core::AskUserInput {
        questions: vec![Question::choice("Which?", [text, "PostgreSQL", "Other tools"])],
        metadata: None,
    };
    if ask_core::validate(input, &Limits::default()).is_ok() {
        assert!(!text.contains('\n'));
        assert!(sanitize_for_display(text) == text.replace('\t', "    "));
    }
});

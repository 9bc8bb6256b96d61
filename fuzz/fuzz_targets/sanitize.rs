//! Sanitised text contains nothing a terminal would interpret, and sanitising is idempotent.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let once = ask_core::sanitize_for_display(text);
    for c in once.chars() {
        assert!(!c.is_control(), "{c:?} survived in {once:?}");
    }
    let chars: Vec<char> = once.chars().collect();
    for index in 0..chars.len() {
        assert_eq!(ask_core::classify_in_context(&chars, index), ask_core::CharClass::Plain);
    }
    assert_eq!(ask_core::sanitize_for_display(&once), once);
});

//! Any bytes as a call: never a panic; a valid call survives serialise → parse unchanged.

#![no_main]

use ask_core::Limits;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let limits = Limits::default();
    let _ = ask_schema::parse(text, &limits);
    if let Ok(call) = ask_schema::parse_call(text, &limits) {
        let again = serde_json::to_string(call.input.input()).expect("a valid call serialises");
        let back = ask_schema::parse(again.as_str(), &limits).expect("a valid call parses again");
        assert_eq!(back.input(), call.input.input());
        for question in &call.input.questions {
            // Validated text is already safe to show.
            assert!(!ask_core::sanitize_for_display(&question.question).contains('\u{1b}'));
        }
    }
});

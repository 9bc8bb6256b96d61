//! Any bytes as a pending file: never a panic; a file that parses survives write → read, and its
//! answers are read without a panic.

#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = Path::new("pending.json");
    let Ok(file) = ask_print::testing::parse(path, data) else { return };
    let text = file.to_text();
    let again = ask_print::testing::parse(path, text.as_bytes()).expect("a written file reads back");
    assert_eq!(again, file);
    let input = file.to_input();
    let values: Vec<&serde_json::Value> = file.questions.iter().map(|q| &q.answer).collect();
    let _ = ask_print::testing::read_file_answers(&input, &values);
    let inline = serde_json::to_string(&values).unwrap_or_default();
    let _ = ask_print::testing::parse_inline(&inline, values.len());
});

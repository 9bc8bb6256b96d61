//! Any bytes as the client's side of an RPC connection: framing, parsing and answer checking
//! never panic.

#![no_main]

use ask_core::Question;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let questions = vec![
        Question::choice("Which database?", ["PostgreSQL", "SQLite"]),
        Question::choice("Which features?", ["Auth", "API"]).multi(),
        Question::text("Name?"),
    ];
    let runtime = tokio::runtime::Builder::new_current_thread().build().expect("a runtime");
    runtime.block_on(async {
        let mut lines = ask_rpc::LineReader::with_max(data, 256);
        while let Ok(Some(line)) = lines.next_line().await {
            let Ok(line) = line else { continue };
            if let Ok(ask_rpc::ClientMessage::AskUserResponse(response)) = serde_json::from_str(&line) {
                if let Ok(answers) = ask_rpc::to_answers(&questions, &response.answers) {
                    assert_eq!(answers.len(), questions.len());
                }
            }
        }
    });
});

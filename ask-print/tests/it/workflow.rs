//! The pending-file workflow through the library: locking, revisions and round trips.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Barrier};

use ask_core::{Answer, AskUserInput, Limits, ValidatedInput};
use ask_print::testing::Store;
use ask_print::{Host, PassTwo, PassTwoOutcome, PrintError, PrintFrontend, pass_two};
use proptest::prelude::*;

/// Pass 1 of the call to `path`, by the print frontend of `ask-user`.
fn pass_one(
    path: &std::path::Path,
    call: &ValidatedInput,
    call_id: Option<String>,
    session_id: &str,
) -> Result<ask_core::Outcome, PrintError> {
    PrintFrontend::new(path)
        .with_call_id(call_id)
        .with_session_id(session_id)
        .pass_one(call, &[])
}

fn call() -> ValidatedInput {
    let input: AskUserInput = serde_json::from_str(
        r#"{"questions": [{"question": "Which database?", "options": [{"label": "PostgreSQL"}, {"label": "SQLite"}]},
                          {"question": "Name?"}]}"#,
    )
    .unwrap();
    ask_core::validate(input, &Limits::default()).unwrap()
}

#[test]
fn concurrent_first_passes_write_one_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p/pending.json");
    let barrier = Arc::new(Barrier::new(8));
    let handles: Vec<_> = (0..8)
        .map(|i| {
            let (path, barrier) = (path.clone(), Arc::clone(&barrier));
            std::thread::spawn(move || {
                barrier.wait();
                pass_one(&path, &call(), None, &format!("session-{i}"))
            })
        })
        .collect();
    let results: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    assert_eq!(results.iter().filter(|r| r.is_ok()).count(), 1);
    for refused in results.iter().filter_map(|r| r.as_ref().err()) {
        assert!(
            matches!(refused, PrintError::AlreadyPending { count: 2, .. }),
            "{refused}"
        );
    }
    // The file is whole and parses.
    assert!(ask_print::show(&path).unwrap().is_some());
}

#[test]
fn an_edit_between_read_and_write_is_detected() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pending.json");
    pass_one(&path, &call(), None, "s").unwrap();
    let store = Store::new(&path);
    let loaded = store.read().unwrap().unwrap();
    // Someone edits the file after it was read.
    let edited = String::from_utf8(loaded.bytes.clone())
        .unwrap()
        .replacen("null", "\"SQLite\"", 1);
    std::fs::write(&path, &edited).unwrap();
    let err = store.remove(&loaded).unwrap_err();
    assert!(matches!(err, PrintError::Changed { read: 1, .. }), "{err}");
    assert!(err.to_string().contains("nothing was overwritten"));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), edited);
}

#[test]
fn incomplete_inline_answers_leave_the_file_and_null_takes_the_files_answer() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pending.json");
    pass_one(&path, &call(), Some("toolu_7".into()), "s").unwrap();
    let before = std::fs::read(&path).unwrap();
    let PassTwoOutcome::Incomplete { unanswered, .. } = pass_two(
        &path,
        PassTwo::Inline(r#"["postgresql", null]"#.into()),
        &Host::AskUser.into(),
    )
    .unwrap() else {
        panic!("one question is still open");
    };
    assert_eq!(unanswered, [(1, "Name?".to_string())]);
    assert_eq!(
        std::fs::read(&path).unwrap(),
        before,
        "the file is as it was"
    );
    // The person writes the first answer into the file; null keeps it.
    let edited = String::from_utf8(before).unwrap().replacen(
        "\"answer\": null",
        "\"answer\": \"sqlite\"",
        1,
    );
    std::fs::write(&path, edited).unwrap();
    let PassTwoOutcome::Answered(record) = pass_two(
        &path,
        PassTwo::Inline(r#"[null, "svc"]"#.into()),
        &Host::AskUser.into(),
    )
    .unwrap() else {
        panic!("both questions are answered");
    };
    assert_eq!(record.call_id.as_deref(), Some("toolu_7"));
    assert_eq!(record.answers[0].selected_option.as_deref(), Some("SQLite"));
    assert_eq!(record.answers[1].answer.joined(), "svc");
    assert!(!path.exists());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Any answer text written into the file comes back as that answer: a label as a selection,
    /// anything else as the person's own words.
    #[test]
    fn file_answers_round_trip(text in "\\PC{1,40}") {
        prop_assume!(!text.trim().is_empty());
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pending.json");
        pass_one(&path, &call(), None, "s").unwrap();
        let answers = serde_json::to_string(&[&text, &text]).unwrap();
        let PassTwoOutcome::Answered(record) = pass_two(&path, PassTwo::Inline(answers), &Host::AskUser.into()).unwrap() else {
            panic!("complete");
        };
        let first = &record.answers[0];
        let is_label = ["postgresql", "sqlite"].contains(&ask_core::testing::normalize_label(&text).as_str());
        prop_assert_eq!(first.was_custom, !is_label);
        prop_assert_eq!(record.answers[1].answer.joined(), text);
    }
}

#[test]
fn answers_given_elsewhere_are_written_into_the_file_and_count_in_pass_two() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pending.json");
    let given = [Some(Answer::selected("Which database?", "SQLite")), None];
    PrintFrontend::new(&path).pass_one(&call(), &given).unwrap();
    let file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(file["questions"][0]["answer"], "SQLite");
    assert_eq!(file["questions"][1]["answer"], serde_json::Value::Null);
    // Only the open question is left to answer; null takes the answer already in the file.
    let PassTwoOutcome::Answered(record) = pass_two(
        &path,
        PassTwo::Inline(r#"[null, "Falcon"]"#.into()),
        &Host::AskUser.into(),
    )
    .unwrap() else {
        panic!("both questions are answered");
    };
    assert_eq!(
        record.answers,
        [
            Answer::selected("Which database?", "SQLite"),
            Answer::custom("Name?", "Falcon")
        ]
    );
}

#[test]
fn state_follows_the_file_from_pass_one_to_the_answered_state() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pending.json");
    let state = ask_print::state(&path).unwrap();
    assert!(!state.pending && !state.complete);
    assert_eq!(state.pending_file, path.display().to_string());

    pass_one(&path, &call(), Some("toolu_3".into()), "s").unwrap();
    let state = ask_print::state(&path).unwrap();
    assert_eq!(
        serde_json::to_value(&state).unwrap(),
        serde_json::json!({"pending": true, "pendingFile": path.display().to_string(),
                           "callId": "toolu_3", "questions": 2, "unanswered": [0, 1],
                           "complete": false, "answered": false})
    );

    // One answer written: one still open. Both: complete, and the file is untouched by reading.
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(
        &path,
        text.replacen("\"answer\": null", "\"answer\": \"sqlite\"", 1),
    )
    .unwrap();
    assert_eq!(ask_print::state(&path).unwrap().unanswered, [1]);
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(
        &path,
        text.replacen("\"answer\": null", "\"answer\": \"orders\"", 1),
    )
    .unwrap();
    let before = std::fs::read(&path).unwrap();
    let state = ask_print::state(&path).unwrap();
    assert!(state.complete && state.unanswered.is_empty() && state.problem.is_none());
    assert_eq!(std::fs::read(&path).unwrap(), before);

    // An edited question: a pass 2 would be refused, and the state says why.
    std::fs::write(
        &path,
        String::from_utf8(before.clone())
            .unwrap()
            .replace("Which database?", "Which DB?"),
    )
    .unwrap();
    let state = ask_print::state(&path).unwrap();
    assert!(!state.complete);
    assert!(state.problem.unwrap().contains("question 1"), "names it");

    // The answered state (a pass 2 ended before delivering) is complete and says so.
    std::fs::write(&path, &before).unwrap();
    let ask_print::PassTwoStep::Answered(answering) =
        ask_print::answer(&path, PassTwo::Edited, &Host::AskUser.into()).unwrap()
    else {
        panic!("complete");
    };
    drop(answering);
    let state = ask_print::state(&path).unwrap();
    assert!(state.answered && state.complete);
}

#[test]
fn a_host_names_its_own_pass_two_command_in_the_file() {
    use ask_core::{AskRequest, Frontend, Outcome};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pending.json");
    let frontend = ask_print::PrintFrontend::new(&path).with_host(Host::Pi);
    let request = AskRequest {
        request_id: "ask-1".into(),
        input: call(),
        given: Vec::new(),
    };
    let outcome = futures_lite_block_on(frontend.present(&request)).unwrap();
    // The frontend writes the instructions the model relays, in its host's commands.
    let Outcome::Pending { file, instructions } = outcome else {
        panic!("pending: {outcome:?}");
    };
    assert_eq!(
        instructions,
        ask_print::Commands::from(Host::Pi).instructions(&file, 2)
    );
    assert!(
        instructions.contains("pi -c -p \"continue\""),
        "{instructions}"
    );
    assert!(!instructions.contains("ask-user"), "{instructions}");
    let pending = ask_print::show(&path).unwrap().unwrap();
    assert!(
        pending
            .how_to_answer
            .unwrap()
            .ends_with("Then run: pi -c -p \"continue\"")
    );
    // A pass 2 that leaves a question open keeps the questions pending with the same words.
    let PassTwoOutcome::Incomplete { record, .. } = pass_two(
        &path,
        PassTwo::Inline(r#"["SQLite", null]"#.into()),
        &Host::Pi.into(),
    )
    .unwrap() else {
        panic!("one question is open");
    };
    assert_eq!(record.result().message, Some(instructions.clone()));
    assert_eq!(
        ask_core::ToolOutput::from_record(record).content,
        instructions
    );
}

/// Runs a future that never waits on anything outside itself.
fn futures_lite_block_on<F: std::future::Future>(future: F) -> F::Output {
    use std::task::{Context, Poll, Waker};
    let mut future = std::pin::pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(out) = future.as_mut().poll(&mut cx) {
            return out;
        }
    }
}

/// Pass 1 of `call` by a frontend whose answers go back through the model's next call.
fn ask_awaiting(
    path: &std::path::Path,
    call: &ValidatedInput,
) -> Result<ask_core::Outcome, PrintError> {
    PrintFrontend::new(path)
        .awaiting_call(true)
        .pass_one(call, &[])
}

fn other_call() -> ValidatedInput {
    let input: AskUserInput =
        serde_json::from_str(r#"{"questions": [{"question": "Ship it?", "options": [{"label": "Yes"}, {"label": "No"}]}]}"#)
            .unwrap();
    ask_core::validate(input, &Limits::default()).unwrap()
}

#[test]
fn the_same_call_again_gets_the_instructions_then_the_answers_pass_two_left_in_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pending.json");
    let first = ask_awaiting(&path, &call()).unwrap();
    let ask_core::Outcome::Pending { instructions, .. } = &first else {
        panic!("{first:?}");
    };
    assert!(ask_print::show(&path).unwrap().unwrap().awaits_call);
    // Unanswered: the same call gets the same instructions, not an error.
    assert_eq!(ask_awaiting(&path, &call()).unwrap(), first);
    // A different call is refused in words the model can act on.
    let refused = ask_awaiting(&path, &other_call()).unwrap_err();
    let text = refused.to_string();
    assert!(
        text.starts_with(&format!(
            "The user was not asked: 2 questions of an earlier ask_user call wait in {}, not yet \
             answered. Call ask_user again with exactly those questions",
            path.display()
        )),
        "{text}"
    );
    assert!(matches!(
        ask_core::PresentError::from(refused),
        ask_core::PresentError::Unasked(_)
    ));
    // Pass 2 delivers the answers and stops at the `answered` state.
    let outcome = pass_two(
        &path,
        PassTwo::Inline(r#"["SQLite", "Falcon"]"#.into()),
        &Host::AskUser.into(),
    )
    .unwrap();
    assert!(matches!(outcome, PassTwoOutcome::Answered(_)));
    let kept = ask_print::show(&path)
        .unwrap()
        .expect("the file waits for the call");
    assert!(kept.answered.is_some());
    // The same call again receives them, and the file is gone.
    let again = ask_awaiting(&path, &call()).unwrap();
    assert_eq!(
        again,
        ask_core::Outcome::Answered(vec![
            Answer::selected("Which database?", "SQLite"),
            Answer::custom("Name?", "Falcon"),
        ])
    );
    assert!(!path.exists());
    assert!(
        instructions.contains("Questions pending."),
        "{instructions}"
    );
}

#[test]
fn answers_written_into_the_file_reach_the_same_call_without_a_pass_two() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pending.json");
    ask_awaiting(&path, &call()).unwrap();
    let mut file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    file["questions"][0]["answer"] = "PostgreSQL".into();
    file["questions"][1]["answer"] = "Atlas".into();
    std::fs::write(&path, file.to_string()).unwrap();
    assert_eq!(
        ask_awaiting(&path, &call()).unwrap(),
        ask_core::Outcome::Answered(vec![
            Answer::selected("Which database?", "PostgreSQL"),
            Answer::custom("Name?", "Atlas"),
        ])
    );
    assert!(!path.exists());
    // A file of print mode's own (no waiting call) is still removed by pass 2.
    pass_one(&path, &call(), None, "s").unwrap();
    pass_two(
        &path,
        PassTwo::Inline(r#"["SQLite", "x"]"#.into()),
        &Host::AskUser.into(),
    )
    .unwrap();
    assert!(!path.exists());
}

#[test]
fn the_relay_names_who_answers_by_the_client() {
    use ask_print::Relay;
    let file = "/tmp/p.json";
    assert_eq!(Relay::for_client(Some("claude-code")), Relay::ModelShell);
    assert_eq!(
        Relay::for_client(Some("codex-mcp-client")),
        Relay::ModelShell
    );
    assert_eq!(Relay::for_client(None), Relay::ModelShell);
    assert_eq!(
        Relay::for_client(Some("gemini-cli-mcp-client")),
        Relay::PersonBang
    );
    assert_eq!(Relay::for_client(Some("opencode")), Relay::PersonBang);
    let names = ask_print::Names::default();
    // Claude Code and OpenCode hold the terminal in raw mode only for their chat.
    let call = |client, questions| ask_print::PendingCall {
        client: Some(client),
        terminal: ask_print::Terminal::Held,
        file,
        questions,
        names: &names,
    };
    let shell = ask_print::pending_instructions(&call("claude-code", 2));
    assert!(
        shell.contains("run with your shell tool:\n  ask-user -p --answers '[\"answer 1\", \"answer 2\"]' --pending-file /tmp/p.json"),
        "{shell}"
    );
    let bang = ask_print::pending_instructions(&call("opencode", 1));
    assert!(
        bang.contains("typing this into the chat, with their answers in question order:\n  !ask-user -p --answers '[\"your answer\"]' --pending-file /tmp/p.json"),
        "{bang}"
    );
    for text in [shell, bang, ask_print::pending_instructions(&call("pi", 1))] {
        assert!(
            text.ends_with("Then call ask_user again with exactly the same questions: the answers come back as its result (until they are given, it returns these instructions again)."),
            "{text}"
        );
    }
}

/// An answer or a note one byte over the 64 KiB cap, in `--answers` or in the file, is refused
/// with a sentence naming the cap, and the file stays as it was: the call keeps waiting. An
/// answer at exactly the cap is taken.
#[test]
fn an_answer_over_the_cap_is_refused_and_the_file_keeps_waiting() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pending.json");
    pass_one(&path, &call(), None, "s").unwrap();
    let before = std::fs::read(&path).unwrap();
    let at_cap = "ß".repeat(ask_core::MAX_ANSWER_BYTES / 2);
    let over = format!("{at_cap}.");
    let inline = serde_json::json!(["SQLite", over]).to_string();
    let refused = pass_two(&path, PassTwo::Inline(inline), &Host::AskUser.into()).unwrap_err();
    assert_eq!(
        refused.to_string(),
        "the answer to question 2 (\"Name?\") is 65537 bytes of UTF-8, over the cap of 65536 bytes (64 KiB) per question; write a shorter one"
    );
    let edited = String::from_utf8(before.clone()).unwrap().replacen(
        "\"answer\": null",
        &format!("\"answer\": \"{over}\""),
        1,
    );
    std::fs::write(&path, &edited).unwrap();
    let refused = pass_two(&path, PassTwo::Edited, &Host::AskUser.into()).unwrap_err();
    assert!(
        matches!(refused, PrintError::AnswerTooLong { .. }),
        "{refused}"
    );
    let noted = String::from_utf8(before.clone()).unwrap().replacen(
        "\"answer\": null",
        &format!("\"answer\": \"SQLite\", \"notes\": \"{over}\""),
        1,
    );
    std::fs::write(&path, &noted).unwrap();
    let inline = r#"[null, "svc"]"#.to_string();
    let refused = pass_two(&path, PassTwo::Inline(inline), &Host::AskUser.into()).unwrap_err();
    assert!(
        refused
            .to_string()
            .starts_with("the note to question 1 (\"Which database?\") is 65537 bytes"),
        "{refused}"
    );
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        noted,
        "the file is as it was"
    );
    std::fs::write(&path, &before).unwrap();
    let inline = serde_json::json!(["SQLite", at_cap]).to_string();
    let PassTwoOutcome::Answered(record) =
        pass_two(&path, PassTwo::Inline(inline), &Host::AskUser.into()).unwrap()
    else {
        panic!("both questions are answered");
    };
    assert_eq!(record.answers[1].answer.joined(), at_cap);
}

//! A pending file the person writes by hand, in the shape `{"questions": [{"question",
//! "answer"}, …]}`: taken as the questions it shows, a wrong field named with what to write, and
//! the note when it takes the place of a file whose answers waited for the model's next call.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use ask_core::{AnswerValue, AskUserInput, Limits};
use ask_print::{Host, PassTwo, PassTwoOutcome, PassTwoStep, PrintFrontend, pass_two};

/// The hand-written answers of the project's own walkthrough, as it prints them.
const WALKTHROUGH: &str = r#"{
  "questions": [
    { "question": "Which database?", "answer": "PostgreSQL (Recommended)" },
    { "question": "Service name?", "answer": "order-processor" }
  ]
}
"#;

fn written(text: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pending-questions.json");
    std::fs::write(&path, text).unwrap();
    (dir, path)
}

#[test]
fn the_walkthrough_file_is_taken_as_the_questions_it_shows() {
    let (_dir, path) = written(WALKTHROUGH);
    let PassTwoOutcome::Answered(record) =
        pass_two(&path, PassTwo::Edited, &Host::AskUser.into()).unwrap()
    else {
        panic!("the answers were not taken");
    };
    let answers: Vec<(&str, &AnswerValue)> = record
        .answers
        .iter()
        .map(|a| (a.question.as_str(), &a.answer))
        .collect();
    assert_eq!(
        answers,
        [
            (
                "Which database?",
                &AnswerValue::Text("PostgreSQL (Recommended)".into())
            ),
            (
                "Service name?",
                &AnswerValue::Text("order-processor".into())
            ),
        ]
    );
    assert!(!path.exists(), "the answered file is removed");
}

#[test]
fn a_hand_written_file_with_an_answer_missing_stays_pending() {
    let (_dir, path) = written(
        r#"{"questions": [{"question": "Which database?", "answer": "SQLite"},
                          {"question": "Service name?", "answer": null}]}"#,
    );
    let PassTwoOutcome::Incomplete { unanswered, .. } =
        pass_two(&path, PassTwo::Edited, &Host::AskUser.into()).unwrap()
    else {
        panic!("an open question was taken as answered");
    };
    assert_eq!(unanswered, [(1, "Service name?".to_string())]);
    assert!(path.exists());
}

/// The message for a file holding `text`, after the file's own path.
fn refusal(text: &str) -> String {
    let (_dir, path) = written(text);
    let error = pass_two(&path, PassTwo::Edited, &Host::AskUser.into()).unwrap_err();
    let message = error.to_string();
    let shown = format!(
        "`{}` is not a valid pending-questions file: ",
        path.display()
    );
    message
        .strip_prefix(&shown)
        .unwrap_or_else(|| panic!("{message}"))
        .to_string()
}

#[test]
fn a_field_present_but_wrong_is_named_with_what_to_write() {
    let cases = [
        (
            r#"{"version": "1", "questions": []}"#,
            "`version` is a string; write 1, or leave it out",
        ),
        (
            r#"{"sessionId": 7, "questions": []}"#,
            "`sessionId` is a number; write a string, or leave it out",
        ),
        (
            r#"{"revision": 0, "questions": []}"#,
            "`revision` is a number; write a whole number such as 1, or leave it out",
        ),
        (
            r#"{"timestamp": null, "questions": []}"#,
            "`timestamp` is null; write a time such as \"2026-02-04T22:16:32Z\", or leave it out",
        ),
        (
            r#"{"answers": []}"#,
            "`questions` is missing; write the questions, each with its answer: \"questions\": \
             [{\"question\": \"…\", \"answer\": \"…\"}]",
        ),
        (
            r#"{"questions": {"question": "Which?"}}"#,
            "`questions` is an object; write a list: \"questions\": [{\"question\": \"…\", \
             \"answer\": \"…\"}]",
        ),
        (
            r#"{"questions": [{"answer": "SQLite"}]}"#,
            "`questions[0].question` is missing; write the question's text, as the agent asked it",
        ),
        (
            r#"{"questions": [{"question": "Which?"}, {"question": "Why?", "multiSelect": "yes"}]}"#,
            "`questions[1].multiSelect` is a string; write true or false, or leave it out",
        ),
        (
            r#"{"questions": [{"question": "Which?", "options": [{"label": "A"}]}]}"#,
            "`questions[0].options` is an array; write the option labels as a list of strings, or \
             leave it out",
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(refusal(text), expected, "{text}");
    }
}

fn asked() -> ask_core::ValidatedInput {
    let input: AskUserInput = serde_json::from_str(
        r#"{"questions": [
            {"question": "Which database should we use?",
             "options": [{"label": "PostgreSQL (Recommended)"}, {"label": "SQLite"}]},
            {"question": "What should we name this service?"}]}"#,
    )
    .unwrap();
    ask_core::validate(input, &Limits::default()).unwrap()
}

/// The pending file of [`asked`] in `dir`, as pass 1 writes it for a server whose answers wait
/// for the model's next call (`awaits`) or not.
fn asked_by_the_server(dir: &std::path::Path, awaits: bool) -> std::path::PathBuf {
    let path = dir.join("pending-questions.json");
    PrintFrontend::new(&path)
        .awaiting_call(awaits)
        .pass_one(&asked(), &[])
        .unwrap();
    path
}

/// The questions of [`asked`], answered by hand in the walkthrough's shape.
const ASKED_BY_HAND: &str = r#"{"questions": [
  {"question": "Which database should we use?", "answer": "PostgreSQL (Recommended)"},
  {"question": "What should we name this service?", "answer": "order-processor"}]}"#;

/// Pass 2 of a hand-written file over one that pass 1 wrote, awaiting the model's next call
/// or not: whether pass 2 tells the two apart, and whether the file is still there after it.
fn replaced(awaits: bool) -> (bool, bool, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let path = asked_by_the_server(dir.path(), awaits);
    std::fs::write(&path, ASKED_BY_HAND).unwrap();
    let PassTwoStep::Answered(answering) =
        ask_print::answer(&path, PassTwo::Edited, &Host::AskUser.into()).unwrap()
    else {
        panic!("the answers were not taken");
    };
    let replaced = answering.replaced_awaiting();
    answering.mark_delivered().unwrap();
    (replaced, path.exists(), dir)
}

#[test]
fn a_hand_written_file_over_one_that_awaited_the_models_call_is_told_apart() {
    assert!(replaced(true).0);
    assert!(!replaced(false).0);
}

#[test]
fn answers_written_by_hand_over_an_awaited_file_reach_the_models_next_call() {
    let (_, kept, dir) = replaced(true);
    assert!(
        kept,
        "the answers wait in the file for the model's next call"
    );
    let path = dir.path().join("pending-questions.json");
    let outcome = PrintFrontend::new(&path)
        .awaiting_call(true)
        .pass_one(&asked(), &[])
        .unwrap();
    let ask_core::Outcome::Answered(answers) = outcome else {
        panic!("the next call did not take the answers: {outcome:?}");
    };
    // Read against the questions as the model asked them, the label picks its option.
    assert_eq!(
        answers[0].selected_option.as_deref(),
        Some("PostgreSQL (Recommended)")
    );
    assert_eq!(
        answers[1].answer,
        AnswerValue::Text("order-processor".into())
    );
    assert!(!path.exists(), "the delivered file is removed");
    let (_, kept, _dir) = replaced(false);
    assert!(
        !kept,
        "without a call to wait for, pass 2 delivers and removes the file"
    );
}

#[test]
fn a_hand_written_file_showing_other_questions_is_not_taken_for_the_call() {
    let dir = tempfile::tempdir().unwrap();
    let path = asked_by_the_server(dir.path(), true);
    std::fs::write(&path, WALKTHROUGH).unwrap();
    let error = PrintFrontend::new(&path)
        .awaiting_call(true)
        .pass_one(&asked(), &[])
        .unwrap_err();
    assert!(
        matches!(error, ask_print::PrintError::EarlierCallPending { .. }),
        "{error:?}"
    );
    assert!(path.exists(), "the person's file is kept");
}

#[test]
fn once_that_file_is_gone_a_new_hand_written_file_is_not_taken_for_a_replacement() {
    let dir = tempfile::tempdir().unwrap();
    let path = asked_by_the_server(dir.path(), true);
    ask_print::clear(&path).unwrap();
    std::fs::write(&path, WALKTHROUGH).unwrap();
    let PassTwoStep::Answered(answering) =
        ask_print::answer(&path, PassTwo::Edited, &Host::AskUser.into()).unwrap()
    else {
        panic!("the answers were not taken");
    };
    assert!(!answering.replaced_awaiting());
}

//! Print mode end to end: the binary in a temporary folder, as an agent and a person use it.

#![allow(clippy::unwrap_used, clippy::expect_used)]

/// Runs `ask-user` in `dir` with no terminal and no stdin.
fn run(dir: &Path, args: &[&str]) -> Output {
    common::run_in(dir, args)
}

use crate::common;

use std::path::Path;
use std::process::{Command, Output, Stdio};

use common::{example, stderr, stdout_json};

use serde_json::{Value, json};

const PENDING: &str = ".pi/pending-questions.json";

/// A temporary folder with the project-setup questions pending.
fn pending_setup() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let output = run(
        dir.path(),
        &["-p", example("project-setup.json").to_str().unwrap()],
    );
    assert_eq!(output.status.code(), Some(4), "{}", stderr(&output));
    dir
}

/// The pending file in `dir` as the results and instructions name it: an absolute path.
fn pending_in(dir: &Path) -> String {
    dir.join(PENDING).display().to_string()
}

fn pending_file(dir: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(dir.join(PENDING)).unwrap()).unwrap()
}

fn write_answers(dir: &Path, answers: &[Value]) {
    let mut file = pending_file(dir);
    for (i, answer) in answers.iter().enumerate() {
        file["questions"][i]["answer"] = answer.clone();
    }
    std::fs::write(
        dir.join(PENDING),
        serde_json::to_string_pretty(&file).unwrap(),
    )
    .unwrap();
}

#[test]
fn pass_one_writes_the_pending_file_and_exits_4() {
    let dir = tempfile::tempdir().unwrap();
    let output = run(
        dir.path(),
        &["-p", example("project-setup.json").to_str().unwrap()],
    );
    assert_eq!(output.status.code(), Some(4));
    assert_eq!(
        stdout_json(&output),
        json!({"answered": false, "answers": [], "pendingFile": pending_in(dir.path()),
               "message": own_commands().instructions(&pending_in(dir.path()), 2)})
    );
    let file = pending_file(dir.path());
    assert_eq!(file["version"], 1);
    assert_eq!(file["revision"], 1);
    assert!(file["sessionId"].as_str().is_some_and(|s| !s.is_empty()));
    assert!(file["timestamp"].as_str().unwrap().ends_with('Z'));
    assert_eq!(file["metadata"], json!({"source": "project-setup"}));
    assert_eq!(
        file["questions"][0]["options"],
        json!(["PostgreSQL (Recommended)", "SQLite", "MongoDB"])
    );
    assert_eq!(
        file["questions"][0]["optionDescriptions"]["SQLite"],
        "Lightweight, file-based"
    );
    assert_eq!(file["questions"][0]["answer"], Value::Null);
    assert_eq!(file["questions"][1]["answer"], Value::Null);
    assert!(stderr(&output).contains(&format!("Questions saved to: {}", pending_in(dir.path()))));
}

#[test]
fn pending_tool_output_carries_the_instructions() {
    let dir = tempfile::tempdir().unwrap();
    let output = run(
        dir.path(),
        &[
            "-p",
            "--output",
            "tool",
            example("tool-call.json").to_str().unwrap(),
        ],
    );
    assert_eq!(output.status.code(), Some(4));
    let tool = stdout_json(&output);
    assert_eq!(tool["isError"], false);
    let shown = pending_in(dir.path());
    assert_eq!(tool["content"], own_commands().instructions(&shown, 1));
    let content = tool["content"].as_str().unwrap();
    assert!(
        content.starts_with(&format!(
            "Questions pending. User input required.\n\nTo answer, re-run with:\n  {} -p @{shown} \"your answers\"",
            common::names("ask_user").program()
        )),
        "{content}"
    );
    // The example names one answer for the one question.
    assert!(
        content.contains(&format!(
            "ask-user -p --answers '[\"your answer\"]' --pending-file {shown}"
        )),
        "{content}"
    );
    assert_eq!(tool["details"]["status"], "pending");
    assert_eq!(
        pending_file(dir.path())["callId"],
        "toolu_01A09q90qw90lq917835lq9"
    );
}

#[test]
fn auto_mode_without_a_terminal_uses_print_mode() {
    let dir = tempfile::tempdir().unwrap();
    let output = run(dir.path(), &[example("features.json").to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(4), "{}", stderr(&output));
    assert_eq!(stdout_json(&output)["pendingFile"], pending_in(dir.path()));
    assert!(dir.path().join(PENDING).exists());
}

#[test]
fn a_second_pass_one_is_refused_and_the_file_kept() {
    let dir = pending_setup();
    let before = std::fs::read(dir.path().join(PENDING)).unwrap();
    let output = run(
        dir.path(),
        &["-p", example("features.json").to_str().unwrap()],
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    let message = stderr(&output);
    assert!(
        message.contains("2 questions are already pending"),
        "{message}"
    );
    // The commands run this ask-user by its path, whatever the shell's PATH holds.
    let program = common::names("ask_user").program().to_string();
    assert!(
        message.contains(&format!("({program} questions clear --pending-file ")),
        "{message}"
    );
    assert!(
        message.contains(&format!("then run {program} -c --pending-file ")),
        "{message}"
    );
    assert_eq!(std::fs::read(dir.path().join(PENDING)).unwrap(), before);
}

#[test]
fn edited_file_answers_and_removes_the_file() {
    let dir = pending_setup();
    write_answers(
        dir.path(),
        &[json!("PostgreSQL (Recommended)"), json!("order-processor")],
    );
    let output = run(dir.path(), &["-c"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        stdout_json(&output),
        json!({"answered": true, "answers": [
            {"question": "Which database should we use?", "answer": "PostgreSQL (Recommended)",
             "selectedOption": "PostgreSQL (Recommended)", "wasCustom": false},
            {"question": "What should we name this service?", "answer": "order-processor", "wasCustom": true}
        ]})
    );
    assert!(!dir.path().join(PENDING).exists());
}

/// The hand-written file of the project's own walkthrough ("edit JSON directly"), as it prints it.
const WALKTHROUGH: &str = r#"{
  "questions": [
    { "question": "Which database?", "answer": "PostgreSQL (Recommended)" },
    { "question": "Service name?", "answer": "order-processor" }
  ]
}
"#;

#[test]
fn a_hand_written_file_of_questions_and_answers_is_taken_by_dash_c() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".pi")).unwrap();
    std::fs::write(dir.path().join(PENDING), WALKTHROUGH).unwrap();
    let output = run(dir.path(), &["-c", "--output", "answers"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        stdout_json(&output),
        json!({"answers": {"Which database?": "PostgreSQL (Recommended)",
                           "Service name?": "order-processor"}})
    );
    assert!(
        !stderr(&output).contains("ask-user mcp"),
        "{}",
        stderr(&output)
    );
    assert!(!dir.path().join(PENDING).exists());
}

#[test]
fn a_hand_written_file_with_a_wrong_field_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".pi")).unwrap();
    let text = WALKTHROUGH.replace(
        "{\n  \"questions\"",
        "{\n  \"version\": \"1\",\n  \"questions\"",
    );
    assert!(text.contains("\"version\": \"1\""));
    std::fs::write(dir.path().join(PENDING), text).unwrap();
    check_refused(
        dir.path(),
        &["-c"],
        "is not a valid pending-questions file: `version` is a string; write 1, or leave it out",
    );
}

/// A hand-written file in place of the one `ask-user mcp` wrote: pass 2 says in one line how
/// the answers reach the model, and the model's next call of its questions gets them, under the
/// questions it asked (the walkthrough's file words them differently), a label picking its option.
#[test]
fn a_hand_written_file_over_the_mcp_servers_says_how_the_answers_reach_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(PENDING);
    let input: ask_core::AskUserInput =
        serde_json::from_slice(&std::fs::read(example("project-setup.json")).unwrap()).unwrap();
    let call = ask_core::validate(input, &ask_core::Limits::default()).unwrap();
    let server = ask_print::PrintFrontend::new(&path).awaiting_call(true);
    server.pass_one(&call, &[]).unwrap();
    std::fs::write(&path, WALKTHROUGH).unwrap();
    let output = run(dir.path(), &["-c"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let said: Vec<String> = stderr(&output)
        .lines()
        .filter(|line| line.contains("ask-user mcp"))
        .map(str::to_string)
        .collect();
    assert_eq!(
        said,
        [format!(
            "ask-user: {PENDING} was written by hand over the file ask-user mcp wrote: its \
             answers, in the order of the agent's questions, wait in it and reach the model when \
             it calls ask_user again with the same questions (tell it to)"
        )]
    );
    let ask_core::Outcome::Answered(answers) = server.pass_one(&call, &[]).unwrap() else {
        panic!("the model's next call did not get the answers");
    };
    assert_eq!(answers[0].question, "Which database should we use?");
    assert_eq!(
        answers[0].selected_option.as_deref(),
        Some("PostgreSQL (Recommended)")
    );
    assert_eq!(
        answers[1].answer,
        ask_core::AnswerValue::Text("order-processor".into())
    );
    assert!(!path.exists(), "the delivered file is removed");
}

/// A hand-written file that answers another number of questions than the waiting call asked is
/// refused, naming the questions asked, and left as it is for the person to fix.
#[test]
fn a_hand_written_file_answering_other_questions_than_the_waiting_call_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(PENDING);
    let input: ask_core::AskUserInput =
        serde_json::from_slice(&std::fs::read(example("project-setup.json")).unwrap()).unwrap();
    let call = ask_core::validate(input, &ask_core::Limits::default()).unwrap();
    ask_print::PrintFrontend::new(&path)
        .awaiting_call(true)
        .pass_one(&call, &[])
        .unwrap();
    let one = r#"{"questions": [{"question": "Which database?", "answer": "SQLite"}]}"#;
    std::fs::write(&path, one).unwrap();
    check_refused(
        dir.path(),
        &["-c"],
        "answers 1 question but the agent asked 2, and its next call waits for answers to \
         those: \"Which database should we use?\", \"What should we name this service?\". Write \
         one entry per question, in this order, then run this again",
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), one);
}

#[test]
fn edited_file_with_a_custom_database() {
    let dir = pending_setup();
    write_answers(
        dir.path(),
        &[json!("I want to use DynamoDB"), json!("orders")],
    );
    let output = run(dir.path(), &["-c", "--output", "answers"]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        stdout_json(&output),
        json!({"answers": {"Which database should we use?": "I want to use DynamoDB",
                           "What should we name this service?": "orders"}})
    );
}

#[test]
fn incomplete_edit_names_the_gap_and_keeps_the_file() {
    let dir = pending_setup();
    write_answers(dir.path(), &[json!("SQLite")]);
    let before = std::fs::read(dir.path().join(PENDING)).unwrap();
    let output = run(dir.path(), &["-c"]);
    assert_eq!(output.status.code(), Some(4));
    assert_eq!(stdout_json(&output)["pendingFile"], pending_in(dir.path()));
    let message = stderr(&output);
    assert!(
        message.contains(&format!(
            "nothing was recorded and {0} is as it was: write the missing answers into it and run {1} -c --pending-file {0} again",
            pending_in(dir.path()),
            common::names("ask_user").program()
        )),
        "{message}"
    );
    assert!(!message.contains("Questions saved to"), "{message}");
    assert!(
        message.contains("1 of 2 questions still has no answer"),
        "{message}"
    );
    assert!(
        message.contains("2. What should we name this service?"),
        "{message}"
    );
    assert_eq!(std::fs::read(dir.path().join(PENDING)).unwrap(), before);
}

#[test]
fn inline_answers_with_a_multi_select_list() {
    let dir = tempfile::tempdir().unwrap();
    run(
        dir.path(),
        &["-p", example("features.json").to_str().unwrap()],
    );
    let output = run(
        dir.path(),
        &[
            "-p",
            "--answers",
            r#"[["Admin Dashboard", "authentication", "GraphQL"]]"#,
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        stdout_json(&output),
        json!({"answered": true, "answers": [{"question": "Which features should we include?",
            "answer": ["Authentication", "Admin Dashboard", "GraphQL"], "wasCustom": true}]})
    );
    assert!(!dir.path().join(PENDING).exists());
}

#[test]
fn an_empty_list_is_none_of_these_and_null_or_blank_stay_unanswered() {
    let features = "Which features should we include?";
    let dir = tempfile::tempdir().unwrap();
    let pass_one = run(
        dir.path(),
        &["-p", example("features.json").to_str().unwrap()],
    );
    assert_eq!(pass_one.status.code(), Some(4), "{}", stderr(&pass_one));
    for blank in [json!(null), json!(""), json!([""])] {
        write_answers(dir.path(), std::slice::from_ref(&blank));
        let output = run(dir.path(), &["-c"]);
        assert_eq!(
            output.status.code(),
            Some(4),
            "{blank}: {}",
            stderr(&output)
        );
        assert!(
            stderr(&output).contains("1. Which features should we include?"),
            "{blank}: {}",
            stderr(&output)
        );
    }
    // `[]` written into the file is the answer "None of these".
    write_answers(dir.path(), &[json!([])]);
    let output = run(dir.path(), &["-c", "--output", "tool"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let tool = stdout_json(&output);
    assert_eq!(
        tool["content"],
        format!(
            "{{\"answers\":{{\"{features}\":\"\"}}}}\n\
             Multi-select answers: {{\"{features}\":{{\"picked\":[]}}}}"
        )
    );
    assert_eq!(tool["details"]["answers"][0]["answer"], json!([]));
    assert!(!dir.path().join(PENDING).exists());
    // And so it is given inline; typed text beside picks is told apart in the text.
    for (inline, line) in [
        ("[[]]", r#"{"picked":[]}"#),
        (
            r#"[["REST API", "Search, and filters"]]"#,
            r#"{"picked":["REST API"],"typed":"Search, and filters"}"#,
        ),
    ] {
        run(
            dir.path(),
            &["-p", example("features.json").to_str().unwrap()],
        );
        let output = run(dir.path(), &["-p", "--answers", inline, "--output", "tool"]);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{inline}: {}",
            stderr(&output)
        );
        let content = stdout_json(&output)["content"]
            .as_str()
            .unwrap()
            .to_string();
        assert_eq!(
            content.lines().nth(1).unwrap(),
            format!("Multi-select answers: {{\"{features}\":{line}}}"),
            "{inline}"
        );
    }
}

#[test]
fn partial_inline_answers_leave_the_file_as_it_was() {
    let dir = pending_setup();
    let before = std::fs::read(dir.path().join(PENDING)).unwrap();
    let output = run(dir.path(), &["--answers", r#"["sqlite", null]"#]);
    assert_eq!(output.status.code(), Some(4));
    let message = stderr(&output);
    assert!(
        message.contains("2. What should we name this service?"),
        "{message}"
    );
    assert!(message.contains("nothing was recorded"), "{message}");
    assert!(!message.contains("Questions saved to"), "{message}");
    assert_eq!(std::fs::read(dir.path().join(PENDING)).unwrap(), before);
    // null takes the answer written in the file.
    write_answers(dir.path(), &[json!("sqlite")]);
    let output = run(dir.path(), &["--answers", r#"[null, "order-processor"]"#]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let result = stdout_json(&output);
    assert_eq!(result["answers"][0]["selectedOption"], "SQLite");
    assert_eq!(result["answers"][1]["answer"], "order-processor");
}

#[test]
fn natural_language_reply_reaches_the_model_verbatim() {
    let dir = pending_setup();
    let reply = "use postgres, call it order-processor";
    let output = run(
        dir.path(),
        &[
            "-p",
            "@.pi/pending-questions.json",
            reply,
            "--output",
            "tool",
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let tool = stdout_json(&output);
    let content = tool["content"].as_str().unwrap();
    assert!(
        content.contains("The user answered the pending questions in one reply"),
        "{content}"
    );
    assert!(
        content.contains("1. Which database should we use?\n2. What should we name this service?")
    );
    assert!(content.ends_with(&format!("The user's reply:\n{reply}")));
    assert_eq!(tool["details"]["reply"], reply);
    // No mapping is guessed: every answer is the whole reply, typed by the person.
    for answer in tool["details"]["answers"].as_array().unwrap() {
        assert_eq!(answer["answer"], reply);
        assert_eq!(answer["wasCustom"], true);
    }
    assert!(!dir.path().join(PENDING).exists());
}

#[test]
fn questions_shows_and_clears() {
    let dir = pending_setup();
    let shown = run(dir.path(), &["questions"]);
    assert_eq!(shown.status.code(), Some(0));
    let text = String::from_utf8(shown.stdout).unwrap();
    assert!(
        text.starts_with("2 pending questions in .pi/pending-questions.json"),
        "{text}"
    );
    assert!(
        text.contains("1. [Database] Which database should we use?"),
        "{text}"
    );
    assert!(
        text.contains("   - PostgreSQL (Recommended) — Battle-tested relational DB"),
        "{text}"
    );
    assert!(text.contains("   answer: (not answered yet)"), "{text}");
    let json_output = run(dir.path(), &["questions", "--json"]);
    assert_eq!(
        stdout_json(&json_output)["questions"][1]["question"],
        "What should we name this service?"
    );
    let cleared = run(dir.path(), &["questions", "clear"]);
    assert_eq!(cleared.status.code(), Some(0));
    assert!(!dir.path().join(PENDING).exists());
    let empty = run(dir.path(), &["questions"]);
    assert_eq!(
        String::from_utf8(empty.stdout).unwrap(),
        "No questions are pending.\n"
    );
    // With nothing pending, a new pass 1 is accepted again.
    let again = run(
        dir.path(),
        &["-p", example("features.json").to_str().unwrap()],
    );
    assert_eq!(again.status.code(), Some(4));
}

/// Runs a bad pass 2 and checks the exit code, the message and that the file is unchanged.
#[track_caller]
fn check_refused(dir: &Path, args: &[&str], message: &str) {
    let before = std::fs::read(dir.join(PENDING)).unwrap();
    let output = run(dir, args);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(output.stdout.is_empty());
    assert!(stderr(&output).contains(message), "{}", stderr(&output));
    assert_eq!(
        std::fs::read(dir.join(PENDING)).unwrap(),
        before,
        "the pending file changed"
    );
}

#[test]
fn malformed_edit_names_line_and_column() {
    let dir = pending_setup();
    let path = dir.path().join(PENDING);
    let text = std::fs::read_to_string(&path).unwrap();
    let broken = text.replacen("\"answer\": null", "\"answer\": \"SQLite\",", 1);
    std::fs::write(&path, &broken).unwrap();
    let line = broken
        .lines()
        .position(|l| l.contains("\"answer\": \"SQLite\","))
        .unwrap()
        + 2;
    check_refused(
        dir.path(),
        &["-c"],
        &format!("is not a valid pending-questions file: trailing comma at line {line}, column 5"),
    );
}

#[test]
fn inline_answers_of_the_wrong_length() {
    let dir = pending_setup();
    check_refused(
        dir.path(),
        &["--answers", r#"["SQLite"]"#],
        "--answers has 1 answer for 2 questions; give one entry per question, in order",
    );
}

#[test]
fn multi_select_answer_of_the_wrong_type() {
    let dir = tempfile::tempdir().unwrap();
    run(
        dir.path(),
        &["-p", example("features.json").to_str().unwrap()],
    );
    check_refused(
        dir.path(),
        &["--answers", "[42]"],
        "the answer to question 1 (\"Which features should we include?\") is a number; write a string, or a list of strings for this multiSelect question",
    );
    write_answers(dir.path(), &[json!({"pick": "Authentication"})]);
    check_refused(
        dir.path(),
        &["-c"],
        "is an object; write a string, or a list of strings",
    );
}

#[test]
fn newer_format_version_is_refused() {
    let dir = pending_setup();
    let mut file = pending_file(dir.path());
    file["version"] = json!(2);
    file["somethingNew"] = json!(true);
    std::fs::write(
        dir.path().join(PENDING),
        serde_json::to_string(&file).unwrap(),
    )
    .unwrap();
    check_refused(
        dir.path(),
        &["-c"],
        "is in format version 2, but this ask-user reads version 1",
    );
}

#[test]
fn pass_two_without_pending_questions() {
    let dir = tempfile::tempdir().unwrap();
    let output = run(dir.path(), &["-c"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output)
            .contains("no questions are pending: `.pi/pending-questions.json` does not exist")
    );
}

#[test]
fn pending_file_flag_and_environment() {
    let dir = tempfile::tempdir().unwrap();
    let output = run(
        dir.path(),
        &[
            "-p",
            "--pending-file",
            "custom/q.json",
            example("features.json").to_str().unwrap(),
        ],
    );
    assert_eq!(output.status.code(), Some(4));
    assert!(dir.path().join("custom/q.json").exists());
    let output = Command::new("setsid")
        .arg(env!("CARGO_BIN_EXE_ask-user"))
        .args(["questions", "--json"])
        .current_dir(dir.path())
        .env("ASK_USER_PENDING_FILE", "custom/q.json")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(stdout_json(&output)["questions"][0]["multiSelect"], true);
}

#[test]
fn a_stray_argument_after_the_input_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let output = run(
        dir.path(),
        &[
            "-p",
            example("project-setup.json").to_str().unwrap(),
            "extra",
        ],
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("unexpected argument `extra` after INPUT"),
        "{}",
        stderr(&output)
    );
    assert!(!dir.path().join(PENDING).exists(), "nothing was written");
}

#[test]
fn an_edited_file_saved_with_a_byte_order_mark_is_read() {
    let dir = pending_setup();
    write_answers(dir.path(), &[json!("SQLite"), json!("orders")]);
    let text = std::fs::read(dir.path().join(PENDING)).unwrap();
    std::fs::write(
        dir.path().join(PENDING),
        [b"\xef\xbb\xbf".as_slice(), &text].concat(),
    )
    .unwrap();
    let output = run(dir.path(), &["-c"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        stdout_json(&output)["answers"][0]["selectedOption"],
        "SQLite"
    );
}

#[test]
fn the_answer_map_of_a_pending_call_names_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let output = run(
        dir.path(),
        &[
            "-p",
            "--output",
            "answers",
            example("project-setup.json").to_str().unwrap(),
        ],
    );
    assert_eq!(output.status.code(), Some(4));
    assert_eq!(
        stdout_json(&output),
        json!({"answers": {}, "pendingFile": pending_in(dir.path())})
    );
}

#[test]
fn a_temporary_file_left_by_a_killed_writer_is_cleaned_up() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".pi")).unwrap();
    let stale = dir.path().join(".pi/pending-questions.json.tmp-31337");
    std::fs::write(&stale, b"{\"questions\": [").unwrap();
    let output = run(
        dir.path(),
        &["-p", example("project-setup.json").to_str().unwrap()],
    );
    assert_eq!(output.status.code(), Some(4), "{}", stderr(&output));
    assert!(!stale.exists(), "the half-written file is gone");
    assert_eq!(
        pending_file(dir.path())["questions"][0]["answer"],
        Value::Null
    );
}

#[test]
fn pass_one_instructions_name_absolute_paths_and_one_example_answer_per_question() {
    let dir = tempfile::tempdir().unwrap();
    let output = run(
        dir.path(),
        &["-p", example("project-setup.json").to_str().unwrap()],
    );
    assert_eq!(output.status.code(), Some(4));
    let shown = pending_in(dir.path());
    let message = stderr(&output);
    for line in [
        format!("ask-user -p @{shown} \"your answers\""),
        format!("ask-user -c --pending-file {shown}"),
        format!("ask-user -p --answers '[\"answer 1\", \"answer 2\"]' --pending-file {shown}"),
        format!("Questions saved to: {shown}"),
    ] {
        assert!(message.contains(&line), "{line}\n{message}");
    }
    // The command in the file works from any folder.
    let file = pending_file(dir.path());
    assert!(
        file["howToAnswer"]
            .as_str()
            .unwrap()
            .ends_with(&format!("ask-user -c --pending-file {shown}")),
        "{file}"
    );
    let elsewhere = tempfile::tempdir().unwrap();
    write_answers(dir.path(), &[json!("SQLite"), json!("orders")]);
    let output = run(elsewhere.path(), &["-c", "--pending-file", &shown]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
}

#[test]
fn option_descriptions_are_written_in_option_order() {
    let dir = tempfile::tempdir().unwrap();
    let call = json!({"questions": [{"question": "Which?", "options": [
        {"label": "Zeta", "description": "the last"},
        {"label": "Alpha", "description": "the first"}]}]});
    std::fs::write(dir.path().join("call.json"), call.to_string()).unwrap();
    let output = run(dir.path(), &["-p", "call.json"]);
    assert_eq!(output.status.code(), Some(4));
    let text = std::fs::read_to_string(dir.path().join(PENDING)).unwrap();
    let zeta = text.find("\"Zeta\": \"the last\"").unwrap();
    let alpha = text.find("\"Alpha\": \"the first\"").unwrap();
    assert!(zeta < alpha, "{text}");
}

#[test]
fn an_edited_question_is_refused_and_the_file_left_as_it_is() {
    let dir = pending_setup();
    let mut file = pending_file(dir.path());
    file["questions"][0]["question"] = json!("Which DB?");
    file["questions"][0]["answer"] = json!("SQLite");
    file["questions"][1]["answer"] = json!("orders");
    let edited = serde_json::to_string_pretty(&file).unwrap();
    std::fs::write(dir.path().join(PENDING), &edited).unwrap();
    let output = run(dir.path(), &["-c"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    let message = stderr(&output);
    assert!(
        message.contains("question 1 (\"Which DB?\") in `.pi/pending-questions.json` was changed after it was asked"),
        "{message}"
    );
    assert!(
        message.contains("only the \"answer\" fields may be edited"),
        "{message}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join(PENDING)).unwrap(),
        edited
    );
    // Put back as asked, the same answers go through, and the result echoes the question.
    file["questions"][0]["question"] = json!("Which database should we use?");
    std::fs::write(
        dir.path().join(PENDING),
        serde_json::to_string_pretty(&file).unwrap(),
    )
    .unwrap();
    let output = run(dir.path(), &["-c"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        stdout_json(&output)["answers"][0]["question"],
        "Which database should we use?"
    );
}

#[test]
fn answers_match_labels_without_the_recommended_suffix_and_typos_are_named() {
    let dir = pending_setup();
    let output = run(dir.path(), &["--answers", r#"["postgresql", "orders"]"#]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let result = stdout_json(&output);
    assert_eq!(
        result["answers"][0]["selectedOption"],
        "PostgreSQL (Recommended)"
    );
    assert!(output.stderr.is_empty(), "{}", stderr(&output));

    let dir = pending_setup();
    let output = run(dir.path(), &["--answers", r#"["postgress", "orders"]"#]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(stdout_json(&output)["answers"][0]["wasCustom"], true);
    let message = stderr(&output);
    assert!(
        message.contains(
            "question 1 (\"Which database should we use?\"): \"postgress\" matches no option, so it was taken as your own answer"
        ),
        "{message}"
    );
    // A free-text question has no options to miss.
    assert!(!message.contains("question 2"), "{message}");
}

#[test]
fn a_multi_select_answer_in_the_answer_maps_form_selects_each_label() {
    let dir = tempfile::tempdir().unwrap();
    let output = run(
        dir.path(),
        &["-p", example("features.json").to_str().unwrap()],
    );
    assert_eq!(output.status.code(), Some(4));
    let output = run(
        dir.path(),
        &["--answers", r#"["Authentication, REST API"]"#],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let answer = &stdout_json(&output)["answers"][0];
    assert_eq!(answer["answer"], json!(["Authentication", "REST API"]));
    assert_eq!(answer["wasCustom"], false);
}

#[test]
fn empty_answers_leave_the_question_unanswered() {
    for empty in [r#""""#, "[]", r#"[""]"#, r#""  ""#] {
        let dir = pending_setup();
        let before = std::fs::read(dir.path().join(PENDING)).unwrap();
        let output = run(
            dir.path(),
            &["--answers", &format!(r#"[{empty}, "orders"]"#)],
        );
        assert_eq!(output.status.code(), Some(4), "{empty}");
        let message = stderr(&output);
        assert!(
            message.contains("1. Which database should we use?"),
            "{empty}: {message}"
        );
        assert_eq!(std::fs::read(dir.path().join(PENDING)).unwrap(), before);
    }
}

/// Runs `command` with `sh -c`, exactly as printed, in `dir`, with the built `ask-user` first on
/// `PATH` and no terminal.
fn run_as_printed(dir: &Path, command: &str) -> Output {
    let bin = Path::new(env!("CARGO_BIN_EXE_ask-user")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut sh = Command::new("setsid");
    sh.args(["sh", "-c", command])
        .env("PATH", path)
        .current_dir(dir)
        .stdin(Stdio::null());
    for var in [
        "ASK_USER_PENDING_FILE",
        "ASK_USER_SUBAGENT",
        "ASK_USER_SESSION",
        "ASK_USER_NO_TTY",
        "ASK_USER_HOST",
    ] {
        sh.env_remove(var);
    }
    sh.output().unwrap()
}

/// What `output` said on stderr, each line without the `ask-user: ` that starts it.
fn said(output: &Output) -> String {
    stderr(output)
        .lines()
        .map(|line| line.strip_prefix("ask-user: ").unwrap_or(line))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The text of `text` between `start` and the next `end`.
#[track_caller]
fn between<'a>(text: &'a str, start: &str, end: &str) -> &'a str {
    let from = text
        .find(start)
        .unwrap_or_else(|| panic!("{start:?} in {text}"))
        + start.len();
    let to = text[from..]
        .find(end)
        .unwrap_or_else(|| panic!("{end:?} in {text}"));
    &text[from..from + to]
}

/// Runs a printed pass-2 command and checks that it delivered the answers and removed the file.
#[track_caller]
fn answers_as_printed(dir: &Path, pending: &Path, command: &str) -> Value {
    let output = run_as_printed(dir, command);
    assert_eq!(
        output.status.code(),
        Some(0),
        "`{command}` failed: {}",
        stderr(&output)
    );
    let result = stdout_json(&output);
    assert_eq!(result["answered"], true, "`{command}`: {result}");
    assert!(!pending.exists(), "`{command}` left {}", pending.display());
    result
}

/// Writes answers to both project-setup questions into the pending file.
fn answer_in_file(pending: &Path) {
    let mut file: Value = serde_json::from_slice(&std::fs::read(pending).unwrap()).unwrap();
    file["questions"][0]["answer"] = json!("SQLite");
    file["questions"][1]["answer"] = json!("orders");
    std::fs::write(pending, serde_json::to_string_pretty(&file).unwrap()).unwrap();
}

#[test]
fn every_printed_command_runs_as_printed_when_the_path_has_a_space_or_a_quote() {
    let dir = tempfile::tempdir().unwrap();
    let call = example("project-setup.json");
    let call = call.to_str().unwrap();
    for folder in ["my answers", "it's here"] {
        std::fs::create_dir(dir.path().join(folder)).unwrap();
        let pending = dir.path().join(folder).join("pending questions.json");
        let file = pending.to_str().unwrap();
        let pass_one = || {
            let output = run(dir.path(), &["-p", "--pending-file", file, call]);
            assert_eq!(output.status.code(), Some(4), "{}", stderr(&output));
            said(&output)
        };

        // The three commands of the instructions on stderr, each in a fresh pass 1.
        let instructions = pass_one();
        let reply = between(&instructions, "To answer, re-run with:\n  ", "\n");
        let edited = between(&instructions, "Or edit the JSON file and run:\n  ", "\n");
        let inline = between(
            &instructions,
            "Or give the answers in question order:\n  ",
            "\n",
        );
        let result = answers_as_printed(dir.path(), &pending, reply);
        assert_eq!(result["reply"], "your answers");
        pass_one();
        let result = answers_as_printed(dir.path(), &pending, inline);
        assert_eq!(result["answers"][1]["answer"], "answer 2");
        pass_one();
        answer_in_file(&pending);
        answers_as_printed(dir.path(), &pending, edited);

        // The pending file's own note names the same command.
        pass_one();
        let note: Value = serde_json::from_slice(&std::fs::read(&pending).unwrap()).unwrap();
        let how = note["howToAnswer"].as_str().unwrap();
        let command = how.rsplit("Then run: ").next().unwrap();
        assert_eq!(command, edited);
        answer_in_file(&pending);
        answers_as_printed(dir.path(), &pending, command);

        // `questions show`: answer, reply, clear.
        let show = |dir: &Path| {
            let output = run(dir, &["questions", "show", "--pending-file", file]);
            assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
            String::from_utf8(output.stdout).unwrap()
        };
        pass_one();
        let shown = show(dir.path());
        let edited = between(&shown, "and run:\n  ", "\n").to_string();
        let reply = between(&shown, "own words:\n  ", "\n").to_string();
        let clear = shown.rsplit("clear them:\n  ").next().unwrap().to_string();
        let cleared = run_as_printed(dir.path(), &clear);
        assert_eq!(
            cleared.status.code(),
            Some(0),
            "`{clear}`: {}",
            stderr(&cleared)
        );
        assert!(!pending.exists(), "`{clear}` cleared nothing");
        pass_one();
        answers_as_printed(dir.path(), &pending, &reply);
        pass_one();
        answer_in_file(&pending);
        answers_as_printed(dir.path(), &pending, &edited);

        // Questions already pending: the refusal names the commands that answer or clear them.
        pass_one();
        let refused = run(dir.path(), &["-p", "--pending-file", file, call]);
        assert_eq!(refused.status.code(), Some(2));
        let message = said(&refused);
        let edited = between(&message, "then run ", ")").to_string();
        let clear = between(&message, "or clear them (", ")").to_string();
        let cleared = run_as_printed(dir.path(), &clear);
        assert_eq!(
            cleared.status.code(),
            Some(0),
            "`{clear}`: {}",
            stderr(&cleared)
        );
        assert!(!pending.exists(), "`{clear}` cleared nothing");
        pass_one();
        answer_in_file(&pending);
        answers_as_printed(dir.path(), &pending, &edited);

        // A pass 2 that leaves questions open names the command to run once they are answered.
        pass_one();
        let open = run(dir.path(), &["-c", "--pending-file", file]);
        let message = said(&open);
        let again = between(
            &message,
            "write the missing answers into it and run ",
            " again",
        );
        answer_in_file(&pending);
        answers_as_printed(dir.path(), &pending, again);

        // An empty reply, and a reply left out, each name a command with a reply.
        let at = format!("@{file}");
        pass_one();
        let empty = run(dir.path(), &["-p", &at, ""]);
        assert_eq!(empty.status.code(), Some(2), "{}", stderr(&empty));
        let example = said(&empty);
        let example = example.trim_end().rsplit("e.g. ").next().unwrap();
        answers_as_printed(dir.path(), &pending, example);
        pass_one();
        let missing = run(dir.path(), &["-p", &at]);
        assert_eq!(missing.status.code(), Some(2), "{}", stderr(&missing));
        let example = said(&missing);
        let example = example.trim_end().rsplit("e.g. ").next().unwrap();
        answers_as_printed(dir.path(), &pending, example);
    }
}

/// The commands of `ask-user -p` run as the binary under test.
fn own_commands() -> ask_print::Commands {
    ask_print::Commands {
        host: ask_print::Host::AskUser,
        names: common::names("ask_user"),
    }
}

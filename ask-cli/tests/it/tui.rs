//! End-to-end tests of the terminal UI: the real `ask-user` binary runs in a pseudo-terminal,
//! the test types keys and reads the screen through a terminal emulator, and stdout (sent to a
//! file, apart from the terminal) must hold exactly the result JSON.
//!
//! The emulated terminal never answers any query, so every test also shows that the UI draws
//! its first frame without waiting for one. Waits poll the screen with generous time limits and
//! nothing asserts a duration.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::pty::{DOWN, ENTER, ESC, Session, TAB};

fn call(value: serde_json::Value) -> String {
    value.to_string()
}

fn database_call() -> String {
    call(serde_json::json!({"questions": [{
        "question": "Which database should we use?",
        "header": "Database",
        "options": [
            {"label": "PostgreSQL (Recommended)", "description": "Battle-tested relational DB"},
            {"label": "SQLite", "description": "Lightweight, file-based"},
            {"label": "MongoDB", "description": "Document store"}
        ]
    }]}))
}

fn name_call() -> String {
    call(serde_json::json!({"questions": [{
        "question": "What should we name this service?",
        "header": "Service Name"
    }]}))
}

fn features_call() -> String {
    call(serde_json::json!({"questions": [{
        "question": "Which features should we include?",
        "header": "Features",
        "multiSelect": true,
        "options": [
            {"label": "Authentication", "description": "OAuth2 + JWT"},
            {"label": "REST API", "description": "OpenAPI spec included"},
            {"label": "Admin Dashboard"}
        ]
    }]}))
}

/// What stdout carries after a cancellation: the result, with the guidance for the model.
const CANCELLED_RESULT: &str = "{\"answered\":false,\"answers\":[],\"cancelled\":true,\
    \"message\":\"The user cancelled the questions without answering. Proceed without these \
    answers; do not ask the same questions again unless the user asks you to.\"}\n";

/// The demo answered with the first database, "order-processor" and Authentication, as
/// `--output answers` prints it.
const DEMO_ANSWERS: &str = r#"{"answers":{"Which database should we use?":"PostgreSQL (Recommended)","What should we name this service?":"order-processor","Which features should we include?":"Authentication"}}"#;

#[test]
fn arrow_and_enter_answer_a_single_question() {
    let db = database_call();
    let mut session = Session::ask("--mode tui call.json", &[("call.json", &db)]);
    session.wait_for("↑↓ navigate • Enter select • Esc cancel • ? more keys");
    session.wait_for("> 1. PostgreSQL (Recommended)");
    session.key(DOWN, "> 2. SQLite");
    session.send(ENTER);
    let (code, stdout) = session.finish();
    assert_eq!(code, 0);
    assert_eq!(
        stdout,
        r#"{"answered":true,"answers":[{"question":"Which database should we use?","answer":"SQLite","selectedOption":"SQLite","wasCustom":false}]}"#
            .to_string()
            + "\n"
    );
}

#[test]
fn a_digit_answers_at_once_with_the_call_on_stdin() {
    let db = database_call();
    let mut session = Session::start(
        "exec \"$ASK\" - < call.json > stdout.json 2> stderr.txt",
        &[("call.json", &db)],
    );
    session.wait_for("4. Other (type your answer)");
    session.send("3");
    let (code, stdout) = session.finish();
    assert_eq!(code, 0);
    assert_eq!(
        stdout,
        r#"{"answered":true,"answers":[{"question":"Which database should we use?","answer":"MongoDB","selectedOption":"MongoDB","wasCustom":false}]}"#
            .to_string()
            + "\n"
    );
}

#[test]
fn other_takes_a_typed_answer() {
    let db = database_call();
    let mut session = Session::ask("call.json", &[("call.json", &db)]);
    session.wait_for("4. Other (type your answer)");
    session.key("0", "Ctrl+N add note • Enter submit • Esc back");
    session.key(
        "I want to use DynamoDB",
        "> 4. Other: I want to use DynamoDB",
    );
    session.send(ENTER);
    let (code, stdout) = session.finish();
    assert_eq!(code, 0);
    assert_eq!(
        stdout,
        r#"{"answered":true,"answers":[{"question":"Which database should we use?","answer":"I want to use DynamoDB","wasCustom":true}]}"#
            .to_string()
            + "\n"
    );
}

#[test]
fn multi_select_ticks_with_space() {
    let features = features_call();
    let mut session = Session::ask("call.json", &[("call.json", &features)]);
    session.wait_for("Space toggle • Enter submit • Esc cancel • ? more keys");
    session.key(" ", "> [x] 1. Authentication");
    session.key(DOWN, "> [ ] 2. REST API");
    session.key(DOWN, "> [ ] 3. Admin Dashboard");
    session.key(" ", "> [x] 3. Admin Dashboard");
    session.send(ENTER);
    let (code, stdout) = session.finish();
    assert_eq!(code, 0);
    assert_eq!(
        stdout,
        r#"{"answered":true,"answers":[{"question":"Which features should we include?","answer":["Authentication","Admin Dashboard"],"wasCustom":false}]}"#
            .to_string()
            + "\n"
    );
}

#[test]
fn enter_with_nothing_ticked_asks_none_of_these() {
    let features = features_call();
    let mut session = Session::ask("call.json --output tool", &[("call.json", &features)]);
    session.wait_for("Space toggle");
    // The open "Other" field says that its text is added to the ticks.
    session.key("0", "(added to the options you tick)");
    session.key(ESC, "Space toggle");
    session.key("k", "> [ ] 3. Admin Dashboard");
    session.key(ENTER, "None of these? [y/N]");
    // No goes back to the list with nothing ticked; yes answers with none of the options.
    session.key("n", "Space toggle");
    session.key(ENTER, "None of these? [y/N]");
    session.send("y");
    let (code, stdout) = session.finish();
    assert_eq!(code, 0);
    let tool: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        tool["content"],
        "{\"answers\":{\"Which features should we include?\":\"\"}}\n\
         Multi-select answers: {\"Which features should we include?\":{\"picked\":[]}}"
    );
    assert_eq!(
        tool["details"]["answers"][0]["answer"],
        serde_json::json!([])
    );
}

#[test]
fn demo_walks_the_tabs_and_submits() {
    let mut session = Session::ask("demo --output answers", &[]);
    session.wait_for("← ▸□ Database  □ Service Name  □ Features  ✓ Submit →");
    session.wait_for("↑↓ navigate • Enter select • Esc cancel • ? more keys");
    session.key(ENTER, "← ■ Database  ▸□ Service Name");
    session.wait_for("What should we name this service?");
    session.key("order-processor", "> order-processor");
    session.key(ENTER, "Which features should we include?");
    session.key(" ", "> [x] 1. Authentication");
    session.key(ENTER, "All answered. Press Enter to submit.");
    // Walk back to the first tab and forth again before submitting.
    session.key(TAB, "Which database should we use?");
    session.key("\x1b[Z", "All answered. Press Enter to submit.");
    session.send(ENTER);
    let (code, stdout) = session.finish();
    assert_eq!(code, 0);
    assert_eq!(stdout, format!("{DEMO_ANSWERS}\n"));
}

#[test]
fn cancelling_after_an_answer_asks_first() {
    let mut session = Session::ask("demo", &[]);
    session.wait_for("Which database should we use?");
    session.key(ENTER, "What should we name this service?");
    session.key(ESC, "Discard 1 answer? [y/N]");
    session.key(
        "n",
        "Tab switch • Ctrl+N add note • Enter confirm • Esc cancel",
    );
    session.key(ESC, "Discard 1 answer? [y/N]");
    session.send("y");
    let (code, stdout) = session.finish();
    assert_eq!(code, 130);
    assert_eq!(stdout, CANCELLED_RESULT);
}

/// Esc on a lone multi-select with boxes ticked asks first, as typed text does; No keeps the
/// ticks, Yes cancels.
#[test]
fn esc_with_boxes_ticked_asks_before_discarding_them() {
    let features = features_call();
    let mut session = Session::ask("call.json", &[("call.json", &features)]);
    session.wait_for("Space toggle • Enter submit • Esc cancel • ? more keys");
    session.key("1", "> [x] 1. Authentication");
    session.key("3", "> [x] 3. Admin Dashboard");
    session.key(ESC, "Discard 2 answers? [y/N]");
    session.key(
        "n",
        "Space toggle • Enter submit • Esc cancel • ? more keys",
    );
    session.key(ESC, "Discard 2 answers? [y/N]");
    session.send("y");
    let (code, stdout) = session.finish();
    assert_eq!(code, 130);
    assert_eq!(stdout, CANCELLED_RESULT);
}

/// `?` names every key; the review says where Enter goes while a question is open; an example
/// in an empty field is never taken as the answer.
#[test]
fn the_keys_the_review_and_an_example_say_what_enter_does() {
    let mut session = Session::ask("demo --showcase", &[]);
    session.wait_for("Space toggle • Enter confirm • Esc cancel • ? more keys");
    session.key("?", "a all/none");
    session.key(
        "\x1b[Z",
        "Tab/←→ switch • Enter go to unanswered • Esc cancel",
    );
    session.key(ENTER, "▸□ Features");
    session.key(TAB, "▸□ Migrations");
    session.key(TAB, "> █ e.g. ./config/app.toml");
    session.key(
        ENTER,
        "The example is not an answer: type yours, then Enter",
    );
    // Nothing was answered: Esc cancels at once.
    session.send(ESC);
    let (code, _) = session.finish();
    assert_eq!(code, 130);
}

#[test]
fn a_long_answer_is_accepted_after_the_warning() {
    let name = name_call();
    let long = "x".repeat(2847);
    let mut session = Session::ask("call.json", &[("call.json", &name)]);
    session.wait_for("Enter submit • Esc cancel");
    // A bracketed paste, as a terminal sends it.
    session.key(&format!("\x1b[200~{long}\x1b[201~"), "xxxxxxxx█");
    session.key(
        ENTER,
        "Answer is long (2,847 chars). Continue anyway? [Y/n]",
    );
    session.send("y");
    let (code, stdout) = session.finish();
    assert_eq!(code, 0);
    assert_eq!(
        stdout,
        format!(
            r#"{{"answered":true,"answers":[{{"question":"What should we name this service?","answer":"{long}","wasCustom":true}}]}}"#
        ) + "\n"
    );
}

/// A bracketed paste one byte over the 64 KiB cap of an answer stops at the cap and says so;
/// the answer at the cap reaches stdout whole.
#[test]
fn a_paste_over_the_answer_cap_stops_at_it_and_says_so() {
    let name = name_call();
    let cap = ask_core::MAX_ANSWER_BYTES;
    let mut session = Session::ask("call.json", &[("call.json", &name)]);
    session.wait_for("Enter submit • Esc cancel");
    let paste = "y".repeat(cap + 1);
    session.key(
        &format!("\x1b[200~{paste}\x1b[201~"),
        "An answer holds at most 64 KiB; the rest was left out",
    );
    session.key(
        ENTER,
        "Answer is long (65,536 chars). Continue anyway? [Y/n]",
    );
    session.send("y");
    let (code, stdout) = session.finish();
    assert_eq!(code, 0);
    let out: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert!(
        out["answers"][0]["answer"] == serde_json::json!("y".repeat(cap)),
        "the answer is the first 64 KiB of the paste"
    );
}

#[test]
fn first_frame_comes_from_a_terminal_that_answers_no_query() {
    // The emulator behind this pty never replies to anything the program asks, such as a
    // cursor position report; the frame must come anyway.
    let mut session = Session::ask("demo", &[]);
    session.wait_for("Which database should we use?");
    session.wait_for("4. Other (type your answer)");
    session.send(ESC);
    let (code, stdout) = session.finish();
    assert_eq!(code, 130, "nothing was answered, so Esc cancels at once");
    assert_eq!(stdout, CANCELLED_RESULT);
}

#[test]
fn sigterm_leaves_the_terminal_in_cooked_mode() {
    signal_leaves_the_terminal_in_cooked_mode("-TERM", "SIGTERM");
}

#[test]
fn sighup_leaves_the_terminal_in_cooked_mode() {
    signal_leaves_the_terminal_in_cooked_mode("-HUP", "SIGHUP");
}

#[test]
fn sigint_leaves_the_terminal_in_cooked_mode() {
    signal_leaves_the_terminal_in_cooked_mode("-INT", "SIGINT");
}

#[track_caller]
fn signal_leaves_the_terminal_in_cooked_mode(signal: &str, name: &str) {
    let script = "stty -g > before.txt; \
        \"$ASK\" demo > stdout.json 2> stderr.txt & echo $! > pid.txt; wait $!; echo $? > code.txt; \
        stty -g > after.txt; stty -a > after-a.txt; echo finished";
    let session = Session::start(script, &[]);
    session.wait_for("Which database should we use?");
    session.kill(signal);
    session.assert_terminal_restored("4. Other");
    let stdout = std::fs::read_to_string(session.path("stdout.json")).unwrap();
    assert_eq!(stdout, "", "an interrupted ask prints no result");
    let stderr = std::fs::read_to_string(session.path("stderr.txt")).unwrap();
    assert!(stderr.contains(name), "stderr names the signal: {stderr}");
    let number = match name {
        "SIGHUP" => 1,
        "SIGINT" => 2,
        _ => 15,
    };
    let code = std::fs::read_to_string(session.path("code.txt")).unwrap();
    assert_eq!(
        code.trim(),
        (128 + number).to_string(),
        "the exit code names the signal"
    );
}

#[test]
fn a_resize_redraws_at_the_new_width() {
    let mut session = Session::ask("demo", &[]);
    session.wait_for("← ▸□ Database  □ Service Name  □ Features  ✓ Submit →");
    session.resize(12, 40);
    session.wait_for("← ▸□ Dat…  □ Ser…  □ Fea…  ✓ Submit →");
    session.wait_for("↑↓ navigate • Enter select");
    session.key("2", "What should we name this service?");
    session.key(ESC, "Discard 1 answer? [y/N]");
    session.send("\x03");
    assert_eq!(
        session.exit_code(),
        130,
        "Ctrl+C at the confirmation aborts"
    );
    let stdout = std::fs::read_to_string(session.path("stdout.json")).unwrap();
    assert_eq!(stdout, "", "an aborted ask prints no result");
    let stderr = std::fs::read_to_string(session.path("stderr.txt")).unwrap();
    assert!(stderr.contains("interrupted with Ctrl+C twice"), "{stderr}");
}

#[test]
fn typed_text_is_asked_about_before_esc_discards_it() {
    let name = name_call();
    let mut session = Session::ask("call.json", &[("call.json", &name)]);
    session.wait_for("Enter submit • Esc cancel");
    session.key("order-processor", "> order-processor");
    session.key(ESC, "Discard 1 answer? [y/N]");
    session.key("n", "Enter submit • Esc cancel");
    session.wait_for("> order-processor");
    session.send(ENTER);
    let (code, stdout) = session.finish();
    assert_eq!(code, 0);
    assert_eq!(
        stdout,
        r#"{"answered":true,"answers":[{"question":"What should we name this service?","answer":"order-processor","wasCustom":true}]}"#
            .to_string()
            + "\n"
    );
}

#[test]
fn other_wider_than_its_first_line_shows_every_character() {
    let db = database_call();
    // 90 characters in which no stretch repeats: "000102…4344".
    let typed: String = (0..45).map(|i| format!("{i:02}")).collect();
    let mut session = Session::ask("call.json", &[("call.json", &db)]);
    session.wait_for("4. Other (type your answer)");
    session.key("0", "Ctrl+N add note • Enter submit • Esc back");
    session.send(&typed);
    session.wait_for("4344█");
    let screen = session.contents();
    let rows: Vec<&str> = screen.lines().collect();
    let first = rows
        .iter()
        .position(|row| row.starts_with("  > 4. Other: "))
        .unwrap();
    let shown = format!(
        "{}{}",
        &rows[first]["  > 4. Other: ".len()..],
        rows[first + 1].trim().trim_end_matches('█')
    );
    assert_eq!(shown, typed, "{screen}");
    session.send(ENTER);
    let (code, stdout) = session.finish();
    assert_eq!(code, 0);
    assert!(stdout.contains(&typed), "{stdout}");
}

/// A call whose question hides its last line behind 40 line breaks.
fn hidden_lines_call() -> String {
    let question = format!(
        "Deploy to staging?{}ALSO DROP THE PRODUCTION DATABASE",
        "\n".repeat(40)
    );
    call(serde_json::json!({"questions": [{
        "question": question,
        "options": [{"label": "Yes"}, {"label": "No"}]
    }]}))
}

#[test]
fn a_question_with_hidden_lines_scrolls_to_its_end() {
    let hostile = hidden_lines_call();
    let mut session = Session::ask("call.json", &[("call.json", &hostile)]);
    session.wait_for("… 24 more lines");
    session.wait_for("Shift+↑↓ scroll");
    assert!(!session.contents().contains("ALSO DROP"));
    // Shift+↓ as xterm sends it, more times than there are lines.
    session.send(&"\x1b[1;2B".repeat(30));
    session.wait_for("ALSO DROP THE PRODUCTION DATABASE");
    session.wait_for("… 24 lines above");
    session.send("2");
    let (code, stdout) = session.finish();
    assert_eq!(code, 0);
    assert!(stdout.contains(r#""answer":"No""#), "{stdout}");
}

#[test]
fn tab_keeps_a_typed_answer() {
    let mut session = Session::ask("demo --output answers", &[]);
    session.wait_for("Which database should we use?");
    session.key("1", "What should we name this service?");
    session.key("order-processor", "> order-processor");
    session.key(TAB, "Which features should we include?");
    session.wait_for("← ■ Database  ■ Service Name  ▸□ Features");
    session.key(" ", "> [x] 1. Authentication");
    session.key(TAB, "All answered. Press Enter to submit.");
    session.send(ENTER);
    let (code, stdout) = session.finish();
    assert_eq!(code, 0);
    assert_eq!(stdout, format!("{DEMO_ANSWERS}\n"));
}

#[test]
fn a_short_narrow_terminal_keeps_the_markers_and_the_recommended_suffix() {
    let labels = [
        "PostgreSQL with extensions (Recommended)",
        "SQLite",
        "MongoDB",
        "MySQL",
        "MariaDB",
        "CockroachDB",
        "DuckDB",
        "Redis",
    ];
    let options: Vec<serde_json::Value> = labels
        .iter()
        .map(|label| serde_json::json!({"label": label}))
        .collect();
    let db = call(serde_json::json!({"questions": [{
        "question": "Which database should we use?",
        "header": "Database",
        "options": options
    }]}));
    // The terminal is 8 rows by 40 columns from the start.
    let mut session = Session::start(
        "stty rows 8 cols 40 && exec \"$ASK\" --max-options 8 call.json > stdout.json 2> stderr.txt",
        &[("call.json", &db)],
    );
    session.wait_for("> 1. PostgreSQL with extensions");
    session.wait_for("↓ 8 more...");
    let screen = session.contents();
    assert!(
        screen.lines().any(|l| l.trim() == "(Recommended)"),
        "the suffix stays whole on a line of its own:\n{screen}"
    );
    session.key(DOWN, "↑ 1 more...");
    session.wait_for("> 2. SQLite");
    session.wait_for("↓ 7 more...");
    session.send(ENTER);
    let (code, stdout) = session.finish();
    assert_eq!(code, 0);
    assert!(stdout.contains(r#""answer":"SQLite""#), "{stdout}");
}

#[test]
fn typing_into_other_on_a_40x8_terminal_keeps_the_cursor_in_view() {
    // 124 characters in which no stretch repeats: "000102…6061".
    let typed: String = (0..62).map(|i| format!("{i:02}")).collect();
    let mut session = Session::start(
        "stty rows 8 cols 40 && exec \"$ASK\" demo > stdout.json 2> stderr.txt",
        &[],
    );
    session.wait_for("Which database should we use?");
    session.key("0", "Enter confirm • Esc back");
    session.send(&typed);
    session.wait_for("6061█");
    session.wait_for("> 4. Other: … 86 earlier characters");
    session.wait_for("↑ 3 more... · … 1 line above");
    // Esc keeps the text as the answer; the tab bar says the question is answered.
    session.key(ESC, "← ▸■ Dat…");
    session.key(ESC, "Discard 1 answer? [y/N]");
    session.send("y");
    let (code, stdout) = session.finish();
    assert_eq!(code, 130);
    assert_eq!(stdout, CANCELLED_RESULT);
}

#[test]
fn a_question_on_a_40x8_terminal_scrolls_to_its_last_word() {
    let hostile = hidden_lines_call();
    let mut session = Session::start(
        "stty rows 8 cols 40 && exec \"$ASK\" call.json > stdout.json 2> stderr.txt",
        &[("call.json", &hostile)],
    );
    // "?" never starts a line: "staging?" wraps as a whole.
    session.wait_for("Deploy to … 43 more lines");
    // Shift+↓ as xterm sends it, more times than there are lines.
    session.send(&"\x1b[1;2B".repeat(50));
    session.wait_for("DATABASE … 43 lines above");
    session.send("\x1b[1;2A");
    session.wait_for("PRODUCTION … ↑42 ↓1");
    session.send("2");
    let (code, stdout) = session.finish();
    assert_eq!(code, 0);
    assert!(stdout.contains(r#""answer":"No""#), "{stdout}");
}

#[test]
fn the_showcase_asks_every_field_in_the_terminal() {
    let mut session = Session::ask("demo --showcase --output answers", &[]);
    session.wait_for("Features  □ Migrations  □ Config  □ Token");
    // The highlighted option's preview is drawn as written.
    session.wait_for("POST /login");
    session.key(" ", "[x] 1. Authentication (Recommended)");
    session.key(ENTER, "Run the database migrations now?");
    session.key(ENTER, "Where should the configuration file go?");
    // The placeholder shows in the empty path field.
    session.wait_for("./config/app.toml");
    session.key("conf/app.toml", "> conf/app.toml");
    session.key(ENTER, "Paste the staging API token");
    // A secret is typed masked.
    session.key("stg_123", "•••••••");
    session.key(ENTER, "All answered. Press Enter to submit.");
    session.wait_for("[secret]");
    session.send(ENTER);
    let (code, stdout) = session.finish();
    assert_eq!(code, 0);
    let answers: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        answers["answers"],
        serde_json::json!({
            "Which features should we include?": "Authentication (Recommended)",
            "Run the database migrations now?": "Yes",
            "Where should the configuration file go?": "conf/app.toml",
            "Paste the staging API token": "stg_123",
        })
    );
}

#[test]
fn ctrl_c_asks_first_and_says_that_a_second_ctrl_c_abandons() {
    let mut session = Session::ask("demo", &[]);
    session.wait_for("Which database should we use?");
    session.key(ENTER, "What should we name this service?");
    session.key("\x03", "Press Ctrl+C again to abandon the questions.");
    session.wait_for("Discard 1 answer? [y/N]");
    // Esc asks the same question without the hint.
    session.key("n", "Esc cancel");
    session.key(ESC, "Discard 1 answer? [y/N]");
    assert!(
        !session.contents().contains("Press Ctrl+C again"),
        "{}",
        session.contents()
    );
    session.key("n", "Esc cancel");
    session.key("\x03", "Press Ctrl+C again to abandon the questions.");
    session.send("\x03");
    assert_eq!(session.exit_code(), 130, "the second Ctrl+C abandons");
}

#[test]
fn the_chosen_option_keeps_its_mark_when_the_highlight_moves() {
    let mut session = Session::ask("demo", &[]);
    session.wait_for("Which database should we use?");
    session.key(DOWN, "> 2. SQLite");
    session.key(ENTER, "What should we name this service?");
    session.key("\x1b[Z", "> ● 2. SQLite");
    session.key(DOWN, "> 3. MongoDB");
    session.wait_for("● 2. SQLite");
}

#[test]
fn arrows_switch_from_an_empty_field_move_the_cursor_in_a_typed_one_and_ctrl_n_notes() {
    const LEFT: &str = "\x1b[D";
    const RIGHT: &str = "\x1b[C";
    const CTRL_N: &str = "\x0e";
    let mut session = Session::ask("demo --output answers", &[]);
    session.wait_for("Which database should we use?");
    session.key(ENTER, "What should we name this service?");
    session.wait_for("Tab switch • Ctrl+N add note • Enter confirm • Esc cancel");
    // → in the empty field switches to the next tab, ← on that list comes back.
    session.key(RIGHT, "Which features should we include?");
    session.key(LEFT, "What should we name this service?");
    // Once the field holds text, ← moves the cursor; n is text.
    session.key("scaner", "> scaner");
    session.wait_for("Tab switch • Ctrl+N add note");
    session.send(LEFT);
    session.send(LEFT);
    session.key("n", "> scanner");
    assert!(
        !session.contents().contains("Note:"),
        "n in a text field is text:\n{}",
        session.contents()
    );
    // Ctrl+N opens the note; Tab keeps it and switches.
    session.key(CTRL_N, "Enter/Esc keep note");
    session.key("rename later", "Note: rename later");
    session.key(TAB, "Which features should we include?");
    session.key(" ", "> [x] 1. Authentication");
    session.key(ENTER, "All answered. Press Enter to submit.");
    session.wait_for("Note: rename later");
    session.send(ENTER);
    let (code, stdout) = session.finish();
    assert_eq!(code, 0);
    assert_eq!(
        stdout,
        r#"{"answers":{"Which database should we use?":"PostgreSQL (Recommended)","What should we name this service?":"scanner","Which features should we include?":"Authentication"},"notes":{"What should we name this service?":"rename later"}}"#
            .to_string()
            + "\n"
    );
}

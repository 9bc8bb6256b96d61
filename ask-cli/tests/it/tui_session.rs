//! The terminal UI inside a session: notifications, replay after an interruption, the events
//! stream, the sub-agent refusal, and hostile-looking text that must reach the screen as text.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::pty::{ENTER, ESC, Session};
use serde_json::{Value, json};

fn database_call() -> String {
    json!({"questions": [{"question": "Which database should we use?", "header": "Database",
        "options": [{"label": "PostgreSQL (Recommended)"}, {"label": "SQLite"}]}]})
    .to_string()
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

#[test]
fn the_bell_and_a_desktop_notification_announce_the_questions() {
    let call = database_call();
    let mut session = Session::ask("--mode tui call.json", &[("call.json", &call)]);
    session.wait_for("Esc cancel");
    let raw = session.raw();
    assert!(contains(&raw, b"\x07"), "the bell rings");
    assert!(
        contains(
            &raw,
            b"\x1b]9;The agent is waiting for your answer to a question\x07"
        ),
        "an OSC 9 notification is sent"
    );
    assert!(contains(
        &raw,
        b"\x1b]777;notify;ask-user;The agent is waiting for your answer to a question\x07"
    ));
    session.send(ESC);
    assert_eq!(session.exit_code(), 130);

    let mut quiet = Session::ask("--mode tui --no-notify call.json", &[("call.json", &call)]);
    quiet.wait_for("Esc cancel");
    let raw = quiet.raw();
    assert!(!contains(&raw, b"\x07"), "no bell with --no-notify");
    assert!(!contains(&raw, b"\x1b]9;") && !contains(&raw, b"\x1b]777;"));
    quiet.send(ESC);
    assert_eq!(quiet.exit_code(), 130);
}

#[test]
fn an_interrupted_call_is_asked_again_and_an_answered_one_replays() {
    let call = database_call();
    let ask = "\"$ASK\" --mode tui --no-notify --session s.jsonl --call-id toolu_9 call.json";
    // First run: SIGTERM while the question is on screen.
    let script = format!(
        "{ask} > out1.json 2> err1.txt & echo $! > pid.txt; wait $!; echo $? > code1.txt; \
         {ask} > out2.json 2> err2.txt; echo $? > code2.txt; \
         {ask} > out3.json 2> err3.txt; echo $? > code3.txt"
    );
    let mut session = Session::start(&script, &[("call.json", &call)]);
    session.wait_for("Which database should we use?");
    session.kill("-TERM");
    assert_eq!(session.wait_for_file("code1.txt").trim(), "143");
    assert!(
        !session.path("s.jsonl").exists(),
        "an interrupted call leaves no record"
    );

    // Second run: the same questions again, from the beginning.
    session.wait_for("> 1. PostgreSQL (Recommended)");
    session.send("2");
    assert_eq!(session.wait_for_file("code2.txt").trim(), "0");
    let answered = std::fs::read_to_string(session.path("out2.json")).unwrap();
    assert!(
        answered.contains("\"selectedOption\":\"SQLite\""),
        "{answered}"
    );

    // Third run: replayed from the log without showing anything.
    assert_eq!(session.wait_for_file("code3.txt").trim(), "0");
    assert_eq!(
        std::fs::read_to_string(session.path("out3.json")).unwrap(),
        answered
    );
    let err3 = std::fs::read_to_string(session.path("err3.txt")).unwrap();
    assert!(
        err3.contains("replaying the answer recorded for call toolu_9"),
        "{err3}"
    );
    let log = std::fs::read_to_string(session.path("s.jsonl")).unwrap();
    assert_eq!(log.lines().count(), 1);
    let record: Value = serde_json::from_str(log.trim()).unwrap();
    assert_eq!(record["mode"], "interactive");
    assert_eq!(record["callId"], "toolu_9");
}

#[test]
fn ctrl_c_twice_saves_nothing_and_the_call_is_asked_again() {
    let call = json!({"questions": [
        {"question": "Which database should we use?", "header": "Database",
         "options": [{"label": "PostgreSQL"}, {"label": "SQLite"}]},
        {"question": "Which cache should we use?", "header": "Cache",
         "options": [{"label": "Redis"}, {"label": "None"}]}]})
    .to_string();
    let ask = "\"$ASK\" --mode tui --no-notify --session s.jsonl --call-id toolu_3 --events events.jsonl call.json";
    let script = format!(
        "{ask} > out1.json 2> err1.txt; echo $? > code1.txt; \
         {ask} > out2.json 2> err2.txt; echo $? > code2.txt"
    );
    let mut session = Session::start(&script, &[("call.json", &call)]);
    session.wait_for("Which database should we use?");
    session.key("1", "Which cache should we use?");
    session.key("\x03", "Discard 1 answer? [y/N]");
    session.send("\x03");
    assert_eq!(session.wait_for_file("code1.txt").trim(), "130");
    assert_eq!(
        std::fs::read_to_string(session.path("out1.json")).unwrap(),
        "",
        "an abandoned call has no result"
    );
    let err1 = std::fs::read_to_string(session.path("err1.txt")).unwrap();
    assert!(err1.contains("interrupted with Ctrl+C twice"), "{err1}");
    assert!(
        !session.path("s.jsonl").exists(),
        "an abandoned call leaves no record"
    );
    let states: Vec<String> = std::fs::read_to_string(session.path("events.jsonl"))
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap()["state"].to_string())
        .collect();
    // (The second run may have started and appended its own events already.)
    assert_eq!(states[..2], ["\"waiting_for_user\"", "\"failed\""]);

    // Asked again from the beginning: the first answer was not kept.
    session.wait_for("□ Database");
    session.wait_for("> 1. PostgreSQL");
    session.send("2");
    session.key("1", "Review your answers");
    session.send(ENTER);
    assert_eq!(session.wait_for_file("code2.txt").trim(), "0");
    let log = std::fs::read_to_string(session.path("s.jsonl")).unwrap();
    assert_eq!(log.lines().count(), 1);
    assert!(log.contains("\"SQLite\""), "{log}");
}

/// The client of `ask-user mcp` in the MCP tests below: a plain JSON-RPC writer that asks one
/// question, then stays until the file `go` appears (or for at most 20 seconds) and leaves.
const MCP_CLIENT: &str = r#"
import json, os, sys, time
def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()
send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "test", "version": "1"}}})
time.sleep(0.2)
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "ask_user",
    "arguments": {"questions": [{"question": "Which database should we use?",
        "header": "Database", "options": [{"label": "PostgreSQL"}, {"label": "SQLite"}]}]}}})
start = time.time()
while not os.path.exists("go") and time.time() - start < 20:
    time.sleep(0.02)
"#;

/// Runs `ask-user mcp` fed by [`MCP_CLIENT`], with the terminal's settings saved before and
/// after; `pid.txt` holds the server's pid, `code.txt` its exit code.
fn mcp_with_terminal() -> Session {
    let script = "stty -g > before.txt; mkfifo in; python3 client.py > in & \
        \"$ASK\" mcp --present tui --no-notify < in > out.jsonl 2> err.txt & echo $! > pid.txt; wait $!; \
        echo $? > code.txt; stty -g > after.txt; stty -a > after-a.txt; touch go; echo finished";
    let session = Session::start(script, &[("client.py", MCP_CLIENT)]);
    session.wait_for("Which database should we use?");
    session
}

#[test]
fn an_mcp_client_that_leaves_mid_question_withdraws_the_terminal_ui() {
    let session = mcp_with_terminal();
    std::fs::write(session.path("go"), "").unwrap();
    session.assert_terminal_restored("3. Other");
    assert_eq!(session.wait_for_file("code.txt").trim(), "0");
    let err = std::fs::read_to_string(session.path("err.txt")).unwrap();
    assert!(
        err.contains("the client went away before an answer"),
        "{err}"
    );
}

#[test]
fn sigterm_ends_the_mcp_server_showing_the_terminal_ui() {
    let session = mcp_with_terminal();
    session.kill("-TERM");
    session.assert_terminal_restored("3. Other");
    assert_eq!(session.wait_for_file("code.txt").trim(), "143");
    let err = std::fs::read_to_string(session.path("err.txt")).unwrap();
    assert!(err.contains("interrupted by SIGTERM"), "{err}");
}

fn events(session: &Session) -> Vec<Value> {
    std::fs::read_to_string(session.path("events.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn events_for_answered_and_cancelled_runs() {
    let call = database_call();
    let mut answered = Session::ask(
        "--mode tui --no-notify --events events.jsonl call.json",
        &[("call.json", &call)],
    );
    answered.wait_for("Esc cancel");
    answered.send(ENTER);
    assert_eq!(answered.exit_code(), 0);
    let lines = events(&answered);
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["state"], "waiting_for_user");
    assert_eq!(
        lines[0]["questions"][0]["question"],
        "Which database should we use?"
    );
    assert_eq!(lines[1]["state"], "answered");

    let mut cancelled = Session::ask(
        "--mode tui --no-notify --events events.jsonl call.json",
        &[("call.json", &call)],
    );
    cancelled.wait_for("Esc cancel");
    cancelled.send(ESC);
    assert_eq!(cancelled.exit_code(), 130);
    let states: Vec<Value> = events(&cancelled)
        .iter()
        .map(|e| e["state"].clone())
        .collect();
    assert_eq!(states, [json!("waiting_for_user"), json!("cancelled")]);
}

#[test]
fn a_sub_agent_is_refused_before_the_ui_opens() {
    let call = database_call();
    let mut session = Session::start(
        "ASK_USER_SUBAGENT=1 \"$ASK\" --mode tui call.json > stdout.json 2> stderr.txt; echo $? > code.txt",
        &[("call.json", &call)],
    );
    assert_eq!(session.wait_for_file("code.txt").trim(), "3");
    let raw = session.raw();
    assert!(
        !contains(&raw, b"\x1b[?1049h"),
        "the alternate screen never opened"
    );
    assert!(!session.contents().contains("Which database"));
    let stderr = std::fs::read_to_string(session.path("stderr.txt")).unwrap();
    assert!(
        stderr.contains("sub-agents cannot ask the user questions"),
        "{stderr}"
    );
    let _ = session.exit_code();
}

/// Every corpus entry that validates is drawn as text: the screen shows the help line intact,
/// and the terminal receives no OSC sequence, no bell and no escape that the agent's text could
/// have carried (the UI's own sequences are CSI drawing commands), and no C1, bidi or invisible
/// character.
#[test]
fn valid_corpus_entries_render_as_plain_text() {
    let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let expected: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(corpus.join("expected.json")).unwrap())
            .unwrap();
    let mut checked = 0;
    for case in expected.iter().filter(|c| c["valid"] == true) {
        let name = case["name"].as_str().unwrap();
        let call = std::fs::read_to_string(corpus.join(format!("{name}.json"))).unwrap();
        let mut session = Session::ask("--mode tui --no-notify call.json", &[("call.json", &call)]);
        session.wait_for("Esc cancel");
        let raw = session.raw();
        assert!(
            !contains(&raw, b"\x1b]"),
            "{name}: an OSC sequence reached the terminal"
        );
        assert!(
            !contains(&raw, b"\x07"),
            "{name}: a bell reached the terminal"
        );
        assert!(
            !contains(&raw, b"\x1bP") && !contains(&raw, b"\x1b_"),
            "{name}: DCS or APC"
        );
        // No C1 control, bidi control or character that draws nothing either.
        let text = String::from_utf8_lossy(&raw);
        let hidden = text.chars().find(|c| {
            matches!(c,
                '\u{80}'..='\u{9f}' | '\u{061c}' | '\u{200b}' | '\u{200c}' | '\u{200e}'
                | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2069}' | '\u{2800}'
                | '\u{3164}' | '\u{feff}' | '\u{e0000}'..='\u{e00ff}')
        });
        assert_eq!(hidden, None, "{name}: reached the terminal");
        let screen = session.contents();
        assert!(
            screen.contains("↑↓ navigate • Enter select • Esc cancel • ? more keys"),
            "{name}:\n{screen}"
        );
        session.send(ESC);
        assert_eq!(session.exit_code(), 130, "{name}");
        checked += 1;
    }
    assert!(
        checked >= 8,
        "only {checked} valid corpus entries were drawn"
    );
}

#[test]
fn look_alike_escapes_are_shown_literally() {
    let call = json!({"questions": [{"question": "Is ^[[2J an escape?",
        "options": [{"label": "\\u001b written out"}, {"label": "<b>bold</b>"}]}]})
    .to_string();
    let mut session = Session::ask("--mode tui --no-notify call.json", &[("call.json", &call)]);
    session.wait_for("Is ^[[2J an escape?");
    session.wait_for("\\u001b written out");
    session.wait_for("<b>bold</b>");
    session.send(ESC);
    assert_eq!(session.exit_code(), 130);
}

#[test]
fn with_output_tool_an_interrupted_call_prints_an_explicit_error_and_records_nothing() {
    let call = json!({"questions": [
        {"question": "Which database should we use?", "header": "Database",
         "options": [{"label": "PostgreSQL (Recommended)"}, {"label": "SQLite"}]},
        {"question": "Which cache should we use?", "header": "Cache",
         "options": [{"label": "Redis"}, {"label": "None"}]}]})
    .to_string();
    let ask = "\"$ASK\" --mode tui --no-notify --output tool --session s.jsonl --call-id toolu_4 call.json";
    // First run: Ctrl+C twice. Second run: SIGTERM.
    let script = format!(
        "{ask} > out1.json 2> err1.txt; echo $? > code1.txt; \
         {ask} > out2.json 2> err2.txt & echo $! > pid.txt; wait $!; echo $? > code2.txt"
    );
    let mut session = Session::start(&script, &[("call.json", &call)]);
    session.wait_for("Which database should we use?");
    session.key("1", "Which cache should we use?");
    session.key("\x03", "Discard 1 answer? [y/N]");
    session.send("\x03");
    assert_eq!(session.wait_for_file("code1.txt").trim(), "130");
    let out1: Value =
        serde_json::from_str(&std::fs::read_to_string(session.path("out1.json")).unwrap()).unwrap();
    assert_eq!(
        out1,
        json!({"content": "The user interrupted the questions with Ctrl+C twice; nothing was answered.",
               "isError": true})
    );

    session.wait_for("> 1. PostgreSQL (Recommended)");
    session.kill("-TERM");
    assert_eq!(session.wait_for_file("code2.txt").trim(), "143");
    let out2: Value =
        serde_json::from_str(&std::fs::read_to_string(session.path("out2.json")).unwrap()).unwrap();
    assert_eq!(out2["isError"], true);
    assert_eq!(
        out2["content"],
        "The questions were interrupted by SIGTERM before the user answered; nothing was answered."
    );
    assert!(out2.get("details").is_none(), "no record: {out2}");
    assert!(
        !session.path("s.jsonl").exists(),
        "an interrupted call leaves no record"
    );
}

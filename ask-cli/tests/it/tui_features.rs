//! End-to-end test of the second round's terminal UI features: the real `ask-user` binary in a
//! pseudo-terminal is driven through previews and Other, a note, the filter, select-all, a path
//! completion and a secret question, and stdout must hold the answers.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::pty::{ENTER, Session};
use serde_json::{Value, json};

const CTRL_T: &str = "\x14";

fn call() -> String {
    json!({"questions": [
        {
            "question": "Which layout should the page use?",
            "header": "Layout",
            "options": [
                {"label": "Sidebar", "preview": "+------+---------+\n| nav  | content |\n+------+---------+"},
                {"label": "Top bar", "preview": "<header>nav</header>\n<main>content</main>"}
            ]
        },
        {
            "question": "Which framework should we use?",
            "header": "Framework",
            "options": [
                {"label": "Express.js"}, {"label": "Fastify"}, {"label": "Hono"}, {"label": "Koa"},
                {"label": "NestJS"}, {"label": "Elysia"}, {"label": "AdonisJS"}, {"label": "Sails.js"}
            ]
        },
        {
            "question": "Which features should we include?",
            "header": "Features",
            "multiSelect": true,
            "options": [{"label": "Authentication"}, {"label": "REST API"}, {"label": "Admin Dashboard"}]
        },
        {
            "question": "Which config file should we use?",
            "header": "Config",
            "kind": "path",
            "placeholder": "e.g. config/app.toml"
        },
        {
            "question": "What is the deploy token?",
            "header": "Token",
            "secret": true
        }
    ]})
    .to_string()
}

#[test]
fn previews_other_a_note_the_filter_select_all_a_path_and_a_secret() {
    let call = call();
    let mut session = Session::ask(
        "--mode tui --max-questions 5 --max-options 8 call.json",
        &[("call.json", &call), ("config.toml", "port = 8080\n")],
    );
    // Five questions and eight frameworks: over the default limits, raised on the command line.
    // Previews: the focused option's preview is shown, and Other is still a row of the list.
    session.wait_for("┌─ Preview");
    session.wait_for("| nav  | content |");
    session.wait_for("3. Other (type your answer)");
    session.key("\x1b[B", "<header>nav</header>");
    session.key("0", "> 3. Other: █");
    session.key("Two columns", "> 3. Other: Two columns█");
    // Enter answers and moves on to the framework.
    session.key(ENTER, "Which framework should we use?");
    // A note on the answer, then the filter picks NestJS.
    session.key("n", "Enter/Esc keep note");
    session.key("for the API only", "Note: for the API only█");
    session.key(ENTER, "? more keys");
    session.key("?", "/ filter");
    session.key("/", "Esc close filter");
    session.key("NEST", "1 of 8 options");
    session.key(ENTER, "Which features should we include?");
    // Select-all ticks every feature.
    session.key("a", "[x] 3. Admin Dashboard");
    session.wait_for("[x] 1. Authentication");
    session.key(ENTER, "Which config file should we use?");
    // The path: the placeholder, then Ctrl+T completes from the working folder.
    session.wait_for("e.g. config/app.toml");
    session.key("conf", "> conf█");
    session.key(CTRL_T, "> config.toml█");
    session.key(ENTER, "What is the deploy token?");
    // The secret is masked as it is typed.
    session.key("hunter2-token", "> •••••••••••••█");
    session.key(ENTER, "Review your answers");
    session.wait_for("[secret]");
    session.wait_for("All answered. Press Enter to submit.");
    let raw = String::from_utf8_lossy(&session.raw()).into_owned();
    assert!(!raw.contains("hunter2"), "the secret reached the terminal");
    session.send(ENTER);
    let (code, stdout) = session.finish();
    assert_eq!(code, 0);
    let result: Value = serde_json::from_str(&stdout).unwrap();
    let answers = &result["answers"];
    assert_eq!(answers[0]["answer"], "Two columns");
    assert_eq!(answers[0]["wasCustom"], true);
    assert_eq!(answers[1]["answer"], "NestJS");
    assert_eq!(answers[1]["selectedOption"], "NestJS");
    assert_eq!(
        answers[1]["notes"], "for the API only",
        "the note is beside the answer"
    );
    assert_eq!(answers[0].get("notes"), None);
    assert_eq!(
        answers[2]["answer"],
        json!(["Authentication", "REST API", "Admin Dashboard"])
    );
    assert_eq!(answers[3]["answer"], "config.toml");
    assert_eq!(
        answers[4]["answer"], "hunter2-token",
        "the model gets the secret"
    );
}

/// ↑ in a text field recalls the answer given to the same question earlier in the same
/// session log, and only in that log.
#[test]
fn up_recalls_an_earlier_answer_from_the_session_log() {
    let call =
        json!({"questions": [{"question": "What should we name this service?"}]}).to_string();
    let mut session = Session::start(
        "\"$ASK\" --session log.jsonl --call-id one call.json > first.json && \
         \"$ASK\" --session other.jsonl --call-id two call.json > second.json && \
         exec \"$ASK\" --session log.jsonl --call-id three call.json > stdout.json 2> stderr.txt",
        &[("call.json", &call)],
    );
    session.wait_for("What should we name this service?");
    session.key("orders", "> orders█");
    session.send(ENTER);
    session.wait_for_file("first.json");
    // Another log: nothing to recall, ↑ leaves the field as it is.
    session.wait_for("> █");
    session.key("\x1b[A", "> █");
    session.key("billing", "> billing█");
    session.send(ENTER);
    session.wait_for_file("second.json");
    // The first log again: ↑ brings back "orders", never "billing".
    session.wait_for("> █");
    session.key("\x1b[A", "> orders█");
    session.send(ENTER);
    let (code, stdout) = session.finish();
    assert_eq!(code, 0);
    let result: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(result["answers"][0]["answer"], "orders");
}

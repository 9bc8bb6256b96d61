//! `ask-user mcp` as an MCP client sees it: the official MCP Python SDK (`mcp` on PyPI) drives the
//! real binary over stdio through `tests/mcp_client.py`, and a raw JSON-lines session checks what
//! happens when the client goes away mid-question.
//!
//! The tests that need the SDK are ignored by a plain `cargo test`; `.ci/run` installs the SDK
//! at a pinned version and runs them with `--include-ignored`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

use ask_core::{Limits, SUBAGENT_REFUSAL, ToolOutput};
use ask_schema::ToolFormat;
use common::mcp_raw::{raw_session, raw_session_as, read_message, send_line};
use serde_json::{Value, json};

const CANCELLED: &str = "The user cancelled the questions without answering.";

/// Runs the Python client in `scenario` against `ask-user mcp ARGS` and returns what it saw.
fn python_client(scenario: &str, args: &[&str], envs: &[(&str, &str)]) -> Value {
    let probe = Command::new("python3")
        .args(["-c", "import mcp"])
        .output()
        .expect("python3 runs");
    assert!(
        probe.status.success(),
        "the MCP Python SDK is missing; run `python3 -m pip install -r ask-cli/tests/requirements.txt` \
         in a virtual environment, or `bash .ci/run` (it is the client these tests drive the server \
         with): {}",
        String::from_utf8_lossy(&probe.stderr)
    );
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_client.py");
    let mut command = Command::new("python3");
    command
        .arg(script)
        .arg(scenario)
        .arg(env!("CARGO_BIN_EXE_ask-user"))
        .arg("mcp")
        .args(args)
        .env_remove("ASK_USER_SUBAGENT")
        // No display and no browser: the page is only for a person the test sets up.
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env("ASK_USER_NO_OPEN", "1")
        .stdin(Stdio::null());
    for (key, value) in envs {
        command.env(key, value);
    }
    let output = command.output().expect("the Python client runs");
    assert!(
        output.status.success(),
        "the Python client failed ({}):\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "the Python client printed no JSON ({e}): {}",
            String::from_utf8_lossy(&output.stdout)
        )
    })
}

/// Runs a scenario with a pending file of its own (kept for the tests to read), which the
/// output holds as `pendingPath`.
fn with_pending_file(scenario: &str) -> Value {
    let dir = tempfile::tempdir().unwrap().keep();
    let pending = dir.join("pending-questions.json");
    let pending = pending.to_str().unwrap();
    let mut seen = python_client(
        scenario,
        &[],
        &[("ASK_USER_NO_TTY", "1"), ("ASK_USER_PENDING_FILE", pending)],
    );
    seen["pendingPath"] = json!(pending);
    seen
}

/// The session in which the client answers through elicitation after the initialize handshake,
/// run once for all tests.
fn handshake() -> &'static Value {
    static SEEN: OnceLock<Value> = OnceLock::new();
    SEEN.get_or_init(|| with_pending_file("elicit"))
}

/// The same calls and answers on the stateless protocol, where the form travels in an
/// input-required result and the client calls again with the reply.
fn stateless() -> &'static Value {
    static SEEN: OnceLock<Value> = OnceLock::new();
    SEEN.get_or_init(|| with_pending_file("stateless"))
}

/// Both sessions, each with the protocol version it negotiated.
fn eras() -> [(&'static str, &'static Value); 2] {
    let eras = [("handshake", handshake()), ("stateless", stateless())];
    assert_eq!(eras[0].1["protocolVersion"], "2025-11-25");
    assert_eq!(eras[1].1["protocolVersion"], "2026-07-28");
    eras
}

fn call<'a>(seen: &'a Value, name: &str) -> &'a Value {
    &seen["calls"][name]
}

fn text(result: &Value) -> &str {
    assert_eq!(result["content"][0]["type"], "text", "{result}");
    result["content"][0]["text"].as_str().unwrap()
}

fn requests<'a>(seen: &'a Value, name: &str) -> Vec<&'a Value> {
    seen["elicitations"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["call"] == name)
        .map(|r| &r["params"])
        .collect()
}

#[test]
#[ignore = "needs the Python mcp package (ask-cli/tests/requirements.txt); run by .ci/run"]
fn lists_ask_user_with_the_published_schemas() {
    let _heavy = common::heavy::heavy("mcp");
    let descriptor = ask_schema::tool_descriptor(ToolFormat::Mcp, &Limits::default());
    for (era, seen) in eras() {
        let tools = seen["tools"].as_array().unwrap();
        assert_eq!(tools.len(), 1, "{era}: {tools:?}");
        let tool = &tools[0];
        assert_eq!(tool["name"], "ask_user", "{era}");
        assert_eq!(tool["description"], descriptor["description"], "{era}");
        assert_eq!(tool["inputSchema"], descriptor["inputSchema"], "{era}");
        assert_eq!(tool["outputSchema"], descriptor["outputSchema"], "{era}");
    }
    assert_eq!(handshake()["serverInfo"]["name"], "ask-user");
}

#[test]
#[ignore = "needs the Python mcp package (ask-cli/tests/requirements.txt); run by .ci/run"]
fn elicitation_form_has_a_titled_enum_a_check_box_per_option_and_other_fields() {
    let _heavy = common::heavy::heavy("mcp");
    for (era, seen) in eras() {
        let request = requests(seen, "choices")[0];
        assert_eq!(request["mode"], "form", "{era}");
        assert_eq!(
            request["message"], "Please answer these 2 questions.",
            "{era}"
        );
        let fields = &request["requestedSchema"]["properties"];
        assert_eq!(fields["q1"]["type"], "string", "{era}");
        assert_eq!(fields["q1"]["title"], "Database", "{era}");
        assert_eq!(fields["q1"]["description"], "Which database should we use?");
        assert_eq!(
            fields["q1"]["oneOf"],
            json!([
                {"const": "PostgreSQL (Recommended)", "title": "PostgreSQL (Recommended) — Battle-tested relational DB"},
                {"const": "SQLite", "title": "SQLite — File-based, zero configuration"}
            ]),
            "{era}"
        );
        // A multi-select question: a check box per option, which every client can draw.
        for (at, label) in ["Authentication", "REST API", "Admin Dashboard"]
            .iter()
            .enumerate()
        {
            assert_eq!(
                fields[format!("q2_{}", at + 1)],
                json!({"type": "boolean", "title": format!("Features: {label}"),
                       "description": "Which features should we include?", "default": false}),
                "{era}"
            );
        }
        assert!(fields.get("q2").is_none(), "{era}");
        assert!(
            request["requestedSchema"]["required"].is_null(),
            "{era}: nothing is required"
        );
        for other in ["q1_other", "q2_other"] {
            assert_eq!(fields[other]["type"], "string", "{era}: {other}");
        }
        assert_eq!(
            fields["q1_other"]["title"],
            "Database: Other (type your answer)"
        );
        let free = &requests(seen, "free_text")[0]["requestedSchema"];
        assert_eq!(free["properties"]["q1"]["type"], "string", "{era}");
        assert_eq!(free["required"], json!(["q1"]), "{era}");
        assert!(
            free["properties"].get("q1_other").is_none(),
            "{era}: {free}"
        );
    }
}

#[test]
#[ignore = "needs the Python mcp package (ask-cli/tests/requirements.txt); run by .ci/run"]
fn accepted_form_returns_the_answer_map_and_the_structured_result() {
    let _heavy = common::heavy::heavy("mcp");
    for (era, seen) in eras() {
        let result = call(seen, "choices");
        assert_eq!(result["isError"], false, "{era}");
        assert_eq!(
            text(result),
            r#"{"answers":{"Which database should we use?":"SQLite","Which features should we include?":"Authentication, Admin Dashboard"}}
Multi-select answers: {"Which features should we include?":{"picked":["Authentication","Admin Dashboard"]}}"#,
            "{era}"
        );
        assert_eq!(
            result["structuredContent"],
            json!({"answered": true, "answers": [
                {"question": "Which database should we use?", "answer": "SQLite",
                 "selectedOption": "SQLite", "wasCustom": false},
                {"question": "Which features should we include?",
                 "answer": ["Authentication", "Admin Dashboard"], "wasCustom": false}
            ]}),
            "{era}"
        );
    }
}

#[test]
#[ignore = "needs the Python mcp package (ask-cli/tests/requirements.txt); run by .ci/run"]
fn other_text_becomes_a_custom_answer_and_wins_over_a_chosen_option() {
    let _heavy = common::heavy::heavy("mcp");
    for (era, seen) in eras() {
        let result = call(seen, "other");
        assert_eq!(
            result["structuredContent"]["answers"],
            json!([
                {"question": "Which database should we use?", "answer": "CockroachDB", "wasCustom": true},
                {"question": "Which features should we include?", "answer": ["REST API", "Webhooks"],
                 "wasCustom": true}
            ]),
            "{era}"
        );
        // The text tells the pick from the typed answer that the map joins.
        assert_eq!(
            text(result).lines().nth(1),
            Some(
                r#"Multi-select answers: {"Which features should we include?":{"picked":["REST API"],"typed":"Webhooks"}}"#
            ),
            "{era}"
        );
        assert_eq!(
            text(call(seen, "free_text")),
            r#"{"answers":{"What should the project be called?":"Falcon"}}"#,
            "{era}"
        );
    }
}

#[test]
#[ignore = "needs the Python mcp package (ask-cli/tests/requirements.txt); run by .ci/run"]
fn none_of_these_answers_a_multi_select_after_a_form_with_nothing_ticked() {
    let _heavy = common::heavy::heavy("mcp");
    for (era, seen) in eras() {
        let result = call(seen, "none");
        assert_eq!(result["isError"], false, "{era}: {result}");
        assert_eq!(
            text(result),
            r#"{"answers":{"Which features should we include?":""}}
Multi-select answers: {"Which features should we include?":{"picked":[]}}"#,
            "{era}"
        );
        assert_eq!(
            result["structuredContent"]["answers"],
            json!([{"question": "Which features should we include?", "answer": [], "wasCustom": false}]),
            "{era}"
        );
        let forms = requests(seen, "none");
        assert_eq!(forms.len(), 2, "{era}: nothing ticked asks again");
        assert_eq!(
            forms[0]["requestedSchema"]["properties"]["q1_none"]["title"],
            "Features: None of these",
            "{era}"
        );
    }
}

#[test]
#[ignore = "needs the Python mcp package (ask-cli/tests/requirements.txt); run by .ci/run"]
fn declined_and_cancelled_forms_end_as_cancelled() {
    let _heavy = common::heavy::heavy("mcp");
    for (era, seen) in eras() {
        for name in ["declined", "cancelled"] {
            let result = call(seen, name);
            assert_eq!(result["isError"], false, "{era} {name}: {result}");
            assert!(
                text(result).starts_with(CANCELLED),
                "{era} {name}: {result}"
            );
            // A client that hands the model only the structured result still passes on the
            // guidance.
            assert_eq!(
                result["structuredContent"],
                json!({"answered": false, "cancelled": true, "answers": [],
                       "message": text(result)}),
                "{era} {name}"
            );
        }
    }
}

#[test]
#[ignore = "needs the Python mcp package (ask-cli/tests/requirements.txt); run by .ci/run"]
fn a_form_with_a_question_left_open_is_shown_again_with_the_answers_so_far() {
    let _heavy = common::heavy::heavy("mcp");
    for (era, seen) in eras() {
        let shown = requests(seen, "incomplete");
        assert_eq!(shown.len(), 2, "{era}: {shown:?}");
        assert_eq!(
            shown[1]["message"],
            "Please answer every question; choose an option or type an answer for: \"What should the project be called?\"",
            "{era}"
        );
        let fields = &shown[1]["requestedSchema"]["properties"];
        assert_eq!(fields["q1"]["default"], "SQLite", "{era}");
        assert!(fields["q2"].get("default").is_none(), "{era}");
        // Answering only the open question completes the call: the first answer was kept.
        assert_eq!(
            text(call(seen, "incomplete")),
            r#"{"answers":{"Which database should we use?":"SQLite","What should the project be called?":"Falcon"}}"#,
            "{era}"
        );
    }
}

#[test]
#[ignore = "needs the Python mcp package (ask-cli/tests/requirements.txt); run by .ci/run"]
fn after_three_incomplete_forms_the_pending_file_takes_over_with_the_answers_given() {
    let _heavy = common::heavy::heavy("mcp");
    for (era, seen) in eras() {
        assert_eq!(requests(seen, "bounded").len(), 3, "{era}");
        let pending = seen["pendingPath"].as_str().unwrap();
        let result = call(seen, "bounded");
        assert_eq!(result["isError"], false, "{era}: {result}");
        // Nothing partial reaches the model: the questions wait, and both the text and the
        // structured result say how the person finishes them.
        assert_eq!(text(result), common::sdk_pending(pending, 2), "{era}");
        assert_eq!(
            result["structuredContent"],
            json!({"answered": false, "answers": [], "pendingFile": pending,
                   "message": common::sdk_pending(pending, 2)}),
            "{era}"
        );
        let file: Value = serde_json::from_str(&std::fs::read_to_string(pending).unwrap()).unwrap();
        assert_eq!(file["questions"][0]["answer"], "MariaDB", "{era}");
        assert_eq!(file["questions"][1]["answer"], Value::Null, "{era}");
    }
}

#[test]
#[ignore = "needs the Python mcp package (ask-cli/tests/requirements.txt); run by .ci/run"]
fn invalid_call_is_a_tool_error_listing_every_problem() {
    let _heavy = common::heavy::heavy("mcp");
    let problems = ask_schema::parse(
        &json!({"questions": [{"question": "Which?", "options": [{"label": "Only one"}]}], "extra": 1}),
        &Limits::default(),
    )
    .unwrap_err();
    assert_eq!(problems.len(), 2);
    for (era, seen) in eras() {
        let result = call(seen, "invalid");
        assert_eq!(result["isError"], true, "{era}");
        assert!(result.get("structuredContent").is_none(), "{era}: {result}");
        assert_eq!(
            text(result),
            ToolOutput::invalid(&problems).content,
            "{era}"
        );
        assert!(requests(seen, "invalid").is_empty(), "{era}");
    }
}

#[test]
#[ignore = "needs the Python mcp package (ask-cli/tests/requirements.txt); run by .ci/run"]
fn sub_agent_is_refused_by_flag_and_by_environment() {
    let _heavy = common::heavy::heavy("mcp");
    let by_flag = python_client("plain", &["--sub-agent"], &[("ASK_USER_NO_TTY", "1")]);
    let by_env = python_client(
        "plain",
        &[],
        &[("ASK_USER_NO_TTY", "1"), ("ASK_USER_SUBAGENT", "1")],
    );
    for seen in [by_flag, by_env] {
        let result = call(&seen, "choices");
        assert_eq!(result["isError"], true, "{result}");
        assert_eq!(text(result), SUBAGENT_REFUSAL);
    }
}

#[test]
#[ignore = "needs the Python mcp package (ask-cli/tests/requirements.txt); run by .ci/run"]
fn without_elicitation_or_terminal_the_questions_go_to_the_pending_file() {
    let _heavy = common::heavy::heavy("mcp");
    let dir = tempfile::tempdir().unwrap();
    let pending = dir.path().join("pending-questions.json");
    let pending = pending.to_str().unwrap();
    let seen = python_client(
        "plain",
        &[],
        &[("ASK_USER_NO_TTY", "1"), ("ASK_USER_PENDING_FILE", pending)],
    );
    let result = call(&seen, "choices");
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(
        result["structuredContent"],
        json!({"answered": false, "answers": [], "pendingFile": pending,
               "message": common::sdk_pending(pending, 2)})
    );
    assert_eq!(text(result), common::sdk_pending(pending, 2));
    let file: Value = serde_json::from_str(&std::fs::read_to_string(pending).unwrap()).unwrap();
    assert!(
        file.to_string()
            .contains("Which features should we include?"),
        "{file}"
    );

    // The person answers the way the relayed instructions say, and the answers come back.
    let answered = Command::new(env!("CARGO_BIN_EXE_ask-user"))
        .args([
            "-p",
            "--answers",
            r#"["SQLite", ["REST API"]]"#,
            "--pending-file",
            pending,
        ])
        .env("ASK_USER_NO_TTY", "1")
        .env_remove("ASK_USER_SUBAGENT")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(
        answered.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&answered.stderr)
    );
    let result: Value = serde_json::from_slice(&answered.stdout).unwrap();
    assert_eq!(result["answers"][0]["answer"], "SQLite");
    assert_eq!(result["answers"][1]["answer"], json!(["REST API"]));
}

#[test]
fn client_gone_mid_question_ends_the_server_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let (mut server, mut stdin, mut lines) =
        raw_session(&[], dir.path(), json!({"elicitation": {}}));
    let mut send = |message: Value| send_line(&mut stdin, &message);
    send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "ask_user",
            "arguments": {"questions": [{"question": "Ship it?", "options": [{"label": "Yes"}, {"label": "No"}]}]}
        }}),
    );
    let elicitation = read_message(&mut lines);
    assert_eq!(elicitation["method"], "elicitation/create", "{elicitation}");
    assert_eq!(elicitation["params"]["message"], "Ship it?");

    // The client goes away while the person has not answered; the server exits on its own,
    // which the test learns the moment it happens (and waits at most 20 s for).
    let mut stderr = server.stderr.take().unwrap();
    let (exited, status) = std::sync::mpsc::channel();
    std::thread::spawn(move || exited.send(server.wait().unwrap()));
    drop(stdin);
    let status = status
        .recv_timeout(Duration::from_secs(20))
        .expect("the server still runs after its client left");
    assert!(status.success(), "{status}");
    for line in lines {
        let line = line.unwrap();
        assert!(
            serde_json::from_str::<Value>(&line).is_ok(),
            "stdout carries a line that is not JSON: {line}"
        );
    }
    let mut text = String::new();
    std::io::Read::read_to_string(&mut stderr, &mut text).unwrap();
    assert!(
        text.contains("the client went away before an answer"),
        "stderr: {text}"
    );
}

#[test]
#[ignore = "needs the Python mcp package (ask-cli/tests/requirements.txt); run by .ci/run"]
fn present_file_takes_the_pending_route_even_when_the_client_has_forms() {
    let _heavy = common::heavy::heavy("mcp");
    // Claude Code in -p mode declares form elicitation and cancels every form; with
    // `--present file` (or ASK_USER_PRESENT, here with the form listed second, after the file
    // that always works) the questions go to the pending file instead.
    for by_env in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let pending = dir.path().join("pending-questions.json");
        let pending = pending.to_str().unwrap();
        let mut envs = vec![("ASK_USER_NO_TTY", "1"), ("ASK_USER_PENDING_FILE", pending)];
        let args: &[&str] = if by_env {
            envs.push(("ASK_USER_PRESENT", "file,elicitation"));
            &[]
        } else {
            &["--present", "file"]
        };
        let seen = python_client("headless", args, &envs);
        assert!(requests(&seen, "headless").is_empty(), "{seen}");
        let result = call(&seen, "choices");
        assert_eq!(
            result["structuredContent"]["pendingFile"], pending,
            "{result}"
        );
        assert_eq!(text(result), common::sdk_pending(pending, 2));
    }
}

#[test]
#[ignore = "needs the Python mcp package (ask-cli/tests/requirements.txt); run by .ci/run"]
fn without_a_listed_presenter_that_works_the_call_is_a_tool_error() {
    let _heavy = common::heavy::heavy("mcp");
    // The terminal UI is listed, but there is no terminal; nothing else is listed.
    let seen = python_client("plain", &["--present", "tui"], &[("ASK_USER_NO_TTY", "1")]);
    let result = call(&seen, "choices");
    assert_eq!(result["isError"], true, "{result}");
    assert_eq!(
        text(result),
        "The questions could not be shown to the user: none of the presenters this server was \
         given (tui) can reach the user here. Proceed without these answers."
    );
}

#[test]
fn an_unknown_or_unavailable_presenter_is_a_usage_error() {
    for (list, expected) in [
        ("elicitation,form", "unknown presenter `form`"),
        (
            "embedded",
            "the presenter `embedded` is not available in the MCP server",
        ),
    ] {
        let output = Command::new(env!("CARGO_BIN_EXE_ask-user"))
            .args(["mcp", "--present", list])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{list}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(expected), "{list}: {stderr}");
    }
}

#[test]
fn a_call_whose_arguments_repeat_a_key_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (mut server, mut stdin, mut lines) =
        raw_session(&["--present", "file"], dir.path(), json!({}));
    // serde_json cannot write a repeated key: the line is written by hand. The second
    // `question` would silently win if the server read only the parsed arguments.
    writeln!(
        stdin,
        r#"{{"jsonrpc": "2.0", "id": "call-7", "method": "tools/call", "params": {{"name": "ask_user", "arguments": {{"questions": [{{"question": "Deploy to staging?", "question": "Drop the database?", "options": [{{"label": "Yes"}}, {{"label": "No"}}]}}]}}}}}}"#
    )
    .unwrap();
    stdin.flush().unwrap();
    let reply = read_message(&mut lines);
    assert_eq!(reply["id"], "call-7", "{reply}");
    assert_eq!(reply["result"]["isError"], true, "{reply}");
    let text = reply["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("/questions/0: the key `question` appears twice"),
        "{text}"
    );
    // A well-formed call on the same connection is not affected.
    send_line(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {
            "name": "ask_user",
            "arguments": {"questions": [{"question": "Ship it?", "options": [{"label": "Yes"}, {"label": "No"}]}]}
        }}),
    );
    let reply = read_message(&mut lines);
    assert_eq!(reply["id"], 8, "{reply}");
    assert_eq!(reply["result"]["isError"], false, "{reply}");
    drop(stdin);
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut server.stderr.take().unwrap(), &mut stderr).unwrap();
    assert!(
        stderr.contains("the call is invalid (1 problem):"),
        "stderr: {stderr}"
    );
    server.wait().unwrap();
}

/// Reads messages until the one with `id` (skipping notifications).
pub(crate) fn read_reply(
    lines: &mut impl Iterator<Item = std::io::Result<String>>,
    id: i64,
) -> Value {
    loop {
        let message = read_message(lines);
        if message["id"] == id && message.get("method").is_none() {
            return message;
        }
    }
}

/// Opens `link` as a browser would (the first time; then with the credential it got) and answers
/// the one question of the waiting ask with `answer`; returns the HTTP status of the answer.
pub(crate) fn answer_on_page(link: &str, credential: &mut Option<String>, answer: &str) -> u16 {
    let rest = link.strip_prefix("http://").unwrap();
    let (host, path) = rest.split_at(rest.find('/').unwrap());
    assert!(path.starts_with("/#token="), "{link}");
    if credential.is_none() {
        *credential = Some(common::spend_link(link).unwrap());
    }
    let credential = credential.clone().unwrap();
    let origin = format!("http://{host}");
    let asks: Value = serde_json::from_str(
        &common::http(
            host,
            "GET",
            "/api/asks",
            &[("Host", host), ("Authorization", &credential)],
            "",
        )
        .body,
    )
    .unwrap();
    let waiting = asks["asks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|ask| ask["state"] == "waiting_for_user")
        .unwrap();
    let id = waiting["requestId"].as_str().unwrap().to_string();
    common::http(
        host,
        "POST",
        &format!("/api/asks/{id}/answer"),
        &[
            ("Host", host),
            ("Authorization", &credential),
            ("Origin", &origin),
            ("Content-Type", "application/json"),
        ],
        &json!({"answers": [{"answer": answer}]}).to_string(),
    )
    .status
}

#[test]
fn a_client_with_only_url_elicitation_is_sent_to_the_web_page() {
    let dir = tempfile::tempdir().unwrap();
    // The default presenters: a client that can open a page and shows no form gets the page.
    let (mut server, mut stdin, mut lines) =
        raw_session(&[], dir.path(), json!({"elicitation": {"url": {}}}));
    send_line(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "ask_user",
            "arguments": {"questions": [{"question": "Ship it?", "options": [{"label": "Yes"}, {"label": "No"}]}]}
        }}),
    );
    let elicitation = read_message(&mut lines);
    assert_eq!(elicitation["method"], "elicitation/create", "{elicitation}");
    assert_eq!(elicitation["params"]["mode"], "url", "{elicitation}");
    assert_eq!(
        elicitation["params"]["message"],
        "The agent asks you 1 question: open the page to answer."
    );
    let link = elicitation["params"]["url"].as_str().unwrap().to_string();
    assert!(link.starts_with("http://127.0.0.1:"), "{link}");
    // The client opened the page; the person answers there.
    send_line(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": elicitation["id"], "result": {"action": "accept"}}),
    );
    let mut credential = None;
    assert_eq!(answer_on_page(&link, &mut credential, "No"), 200);
    let result = read_reply(&mut lines, 2);
    let structured = &result["result"]["structuredContent"];
    assert_eq!(structured["answered"], true, "{result}");
    assert_eq!(structured["answers"][0]["answer"], "No");
    assert_eq!(structured["answers"][0]["selectedOption"], "No");
    send_line(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
            "name": "ask_user",
            "arguments": {"questions": [{"question": "Which region?", "options": [{"label": "EU"}, {"label": "US"}]}]}
        }}),
    );
    // A second call of the session: a fresh page and link, never the spent one.
    let elicitation = read_message(&mut lines);
    let second = elicitation["params"]["url"].as_str().unwrap().to_string();
    assert_ne!(second, link);
    send_line(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": elicitation["id"], "result": {"action": "accept"}}),
    );
    let mut credential = None;
    assert_eq!(answer_on_page(&second, &mut credential, "EU"), 200);
    let result = read_reply(&mut lines, 3);
    let structured = &result["result"]["structuredContent"];
    assert_eq!(
        structured["answers"][0]["question"], "Which region?",
        "{result}"
    );
    assert_eq!(structured["answers"][0]["selectedOption"], "EU");
    drop(stdin);
    assert!(server.wait().unwrap().success());
}

/// Waits until `path` holds a line, and gives it.
fn line_in(path: &Path) -> String {
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        if let Ok(text) = std::fs::read_to_string(path)
            && text.ends_with('\n')
        {
            return text.trim().to_string();
        }
        assert!(std::time::Instant::now() < deadline, "nothing in {path:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn without_forms_but_with_a_display_the_page_opens_in_the_browser_with_a_fresh_link() {
    let dir = tempfile::tempdir().unwrap();
    // The browser: a script that notes the link each redirect file it is given forwards to.
    let browser = dir.path().join("browser");
    std::fs::write(
        &browser,
        "#!/bin/sh\nlink=$(sed -n 's/.*href=\"\\([^\"]*\\)\".*/\\1/p' \"${1#file://}\")\n\
         echo \"$link\" >> \"$0.$$\"\necho \"$link\" > \"$0.last\"\n",
    )
    .unwrap();
    std::fs::set_permissions(
        &browser,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_ask-user"));
    command
        .arg("mcp")
        .current_dir(dir.path())
        .env("ASK_USER_NO_TTY", "1")
        .env("DISPLAY", ":99")
        .env("BROWSER", &browser)
        .env_remove("WAYLAND_DISPLAY")
        .env_remove("ASK_USER_NO_OPEN")
        .env_remove("ASK_USER_PRESENT")
        .env_remove("ASK_USER_SUBAGENT");
    let (mut server, mut stdin, mut lines) = common::mcp_raw::raw_session_of(command, json!({}));
    let last = dir.path().join("browser.last");
    let mut links = Vec::new();
    for (id, answer) in [(2, "No"), (3, "Yes")] {
        let _ = std::fs::remove_file(&last);
        send_line(
            &mut stdin,
            &json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
                "_meta": {"progressToken": format!("call-{id}")},
                "name": "ask_user",
                "arguments": {"questions": [{"question": "Ship it?", "options": [{"label": "Yes"}, {"label": "No"}]}]}
            }}),
        );
        // The client is told the link in a log message, then in progress notifications.
        let log = read_message(&mut lines);
        assert_eq!(log["method"], "notifications/message", "{log}");
        let link = line_in(&last);
        assert!(link.starts_with("http://127.0.0.1:"), "{link}");
        assert_eq!(
            log["params"]["data"],
            format!(
                "The agent asks you 1 question: open {link} to answer (the link works in one browser)."
            )
        );
        let progress = read_message(&mut lines);
        assert_eq!(progress["method"], "notifications/progress", "{progress}");
        assert_eq!(
            progress["params"]["message"],
            format!("Waiting for the user to answer on the page {link}")
        );
        let mut cookie = None;
        assert_eq!(answer_on_page(&link, &mut cookie, answer), 200);
        let result = read_reply(&mut lines, id);
        let structured = &result["result"]["structuredContent"];
        assert_eq!(
            structured["answers"][0]["selectedOption"], answer,
            "{result}"
        );
        links.push(link);
    }
    assert_ne!(links[0], links[1], "every call gets a fresh link");
    drop(stdin);
    assert!(server.wait().unwrap().success());
}

#[test]
fn a_client_that_declines_the_form_at_once_gets_the_pending_file() {
    let dir = tempfile::tempdir().unwrap();
    // Codex's exec declines every form within a millisecond: it cannot ask, so the default
    // chain goes on (no terminal, no display here) to the pending file.
    let (mut server, mut stdin, mut lines) =
        raw_session(&[], dir.path(), json!({"elicitation": {"form": {}}}));
    for (id, action) in [(2, "decline"), (3, "cancel")] {
        send_line(
            &mut stdin,
            &json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
                "name": "ask_user",
                "arguments": {"questions": [{"question": "Ship it?", "options": [{"label": "Yes"}, {"label": "No"}]}]}
            }}),
        );
        let elicitation = read_message(&mut lines);
        assert_eq!(elicitation["params"]["mode"], "form", "{elicitation}");
        send_line(
            &mut stdin,
            &json!({"jsonrpc": "2.0", "id": elicitation["id"], "result": {"action": action}}),
        );
        let result = read_reply(&mut lines, id);
        let structured = &result["result"]["structuredContent"];
        assert_eq!(structured["answered"], false, "{result}");
        assert!(structured.get("cancelled").is_none(), "{result}");
        assert!(
            structured["pendingFile"]
                .as_str()
                .is_some_and(|file| file.ends_with("pending-questions.json")),
            "{result}"
        );
        std::fs::remove_file(dir.path().join(".pi/pending-questions.json")).unwrap();
    }
    drop(stdin);
    assert!(server.wait().unwrap().success());
}

#[test]
fn the_pending_file_loop_closes_when_the_model_calls_again_with_the_same_questions() {
    let dir = tempfile::tempdir().unwrap();
    let (mut server, mut stdin, mut lines) = raw_session(&[], dir.path(), json!({}));
    let ship = json!({"questions": [{"question": "Ship it?", "options": [{"label": "Yes"}, {"label": "No"}]}]});
    let mut call = |id: i64, arguments: &Value| {
        send_line(
            &mut stdin,
            &json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
                "name": "ask_user", "arguments": arguments}}),
        );
        read_reply(&mut lines, id)["result"].clone()
    };
    // No form, no terminal, no display: the questions wait in the file, and the model is told
    // who answers them and that the same call brings the answers back.
    let first = call(2, &ship);
    let pending = first["structuredContent"]["pendingFile"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(text(&first), common::sdk_pending(&pending, 1));
    // Called again before the person answered: the same instructions, not an error.
    let again = call(3, &ship);
    assert_eq!(again["isError"], false, "{again}");
    assert_eq!(text(&again), text(&first));
    // Other questions meanwhile: refused in words the model can act on.
    let other = call(4, &json!({"questions": [{"question": "Which region?"}]}));
    assert_eq!(other["isError"], true, "{other}");
    assert!(
        text(&other).starts_with(&format!(
            "The user was not asked: 1 question of an earlier ask_user call waits in {pending}, \
             not yet answered. Call ask_user again with exactly those questions"
        )),
        "{other}"
    );
    // Pass 2, as the relayed instructions say: it prints the answers and leaves them in the
    // file for the model's call.
    let answered = Command::new(env!("CARGO_BIN_EXE_ask-user"))
        .args(["-p", "--answers", r#"["No"]"#, "--pending-file", &pending])
        .env("ASK_USER_NO_TTY", "1")
        .env_remove("ASK_USER_SUBAGENT")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(answered.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&answered.stderr);
    assert!(
        stderr.contains("they reach the model when it calls ask_user again"),
        "{stderr}"
    );
    assert!(Path::new(&pending).exists());
    // The same call receives the answers, and the file is gone.
    let delivered = call(5, &ship);
    assert_eq!(text(&delivered), r#"{"answers":{"Ship it?":"No"}}"#);
    assert!(!Path::new(&pending).exists());
    drop(stdin);
    assert!(server.wait().unwrap().success());
}

#[test]
fn present_url_sends_the_page_even_to_a_client_with_forms_and_a_decline_cancels() {
    let dir = tempfile::tempdir().unwrap();
    let (mut server, mut stdin, mut lines) = raw_session(
        &["--present", "url,file"],
        dir.path(),
        json!({"elicitation": {"form": {}, "url": {}}}),
    );
    send_line(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "ask_user",
            "arguments": {"questions": [{"question": "Ship it?", "options": [{"label": "Yes"}, {"label": "No"}]}]}
        }}),
    );
    let elicitation = read_message(&mut lines);
    assert_eq!(elicitation["params"]["mode"], "url", "{elicitation}");
    send_line(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": elicitation["id"], "result": {"action": "decline"}}),
    );
    let result = read_reply(&mut lines, 2);
    assert_eq!(
        result["result"]["structuredContent"]["cancelled"], true,
        "{result}"
    );
    drop(stdin);
    assert!(server.wait().unwrap().success());
}

#[test]
fn the_tool_declares_itself_read_only_and_can_be_served_under_another_name() {
    let dir = tempfile::tempdir().unwrap();
    for (args, name) in [
        (&[][..], "ask_user"),
        (&["--tool-name", "ask_person"][..], "ask_person"),
    ] {
        let (mut server, mut stdin, mut lines) = raw_session(args, dir.path(), json!({}));
        send_line(
            &mut stdin,
            &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        );
        let listed = read_message(&mut lines);
        let tool = &listed["result"]["tools"][0];
        assert_eq!(tool["name"], name, "{listed}");
        assert_eq!(
            tool["annotations"],
            json!({"title": "Ask User", "readOnlyHint": true, "destructiveHint": false,
                   "idempotentHint": false, "openWorldHint": false})
        );
        // The other name is not this server's tool.
        let other = if name == "ask_user" {
            "ask_person"
        } else {
            "ask_user"
        };
        send_line(
            &mut stdin,
            &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                    "params": {"name": other, "arguments": {}}}),
        );
        let refused = read_message(&mut lines);
        assert!(
            refused["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains(&format!("this server has only `{name}`"))),
            "{refused}"
        );
        drop(stdin);
        assert!(server.wait().unwrap().success());
    }
    let output = common::ask_user()
        .args(["mcp", "--tool-name", "ask user"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(common::stderr(&output).contains("the tool name `ask user` cannot be used"));
}

#[test]
fn a_headless_host_is_told_its_tool_name_and_a_command_that_runs_in_a_login_shell() {
    let dir = tempfile::tempdir().unwrap();
    // OpenCode's `opencode run` with no terminal at all (a session of its own), serving the tool
    // under another name.
    let mut command = Command::new("setsid");
    command
        .args(["-w", env!("CARGO_BIN_EXE_ask-user")])
        .args(["mcp", "--present", "file", "--tool-name", "ask_person"])
        .current_dir(dir.path())
        .env_remove("ASK_USER_SUBAGENT")
        .env_remove("ASK_USER_PENDING_FILE");
    let (mut server, mut stdin, mut lines) = raw_session_as(command, json!({}), "opencode");
    let ship = json!({"questions": [{"question": "Ship it?", "options": [{"label": "Yes"}, {"label": "No"}]}]});
    // A call the server cannot read names the tool as served, too.
    send_line(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {
            "name": "ask_person", "arguments": {"questions": []}}}),
    );
    let invalid = read_reply(&mut lines, 9)["result"].clone();
    assert!(
        text(&invalid).starts_with("The ask_person call is invalid:\n"),
        "{invalid}"
    );
    let mut call = |id: i64| {
        send_line(
            &mut stdin,
            &json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
                "name": "ask_person", "arguments": ship}}),
        );
        read_reply(&mut lines, id)["result"].clone()
    };
    let first = call(2);
    let pending = first["structuredContent"]["pendingFile"]
        .as_str()
        .unwrap()
        .to_string();
    let names = common::names("ask_person");
    let expected = ask_print::pending_instructions(&ask_print::PendingCall {
        client: Some("opencode"),
        terminal: ask_print::Terminal::Absent,
        file: &pending,
        questions: 1,
        names: &names,
    });
    let said = text(&first).to_string();
    assert_eq!(said, expected);
    assert!(said.contains("call ask_person again"), "{said}");
    assert!(!said.contains("ask_user"), "{said}");
    // No chat to type into: the person answers from their own shell and runs OpenCode again.
    assert!(!said.contains("into the chat"), "{said}");
    assert!(
        said.contains("\n  opencode run --continue \"continue\"\n"),
        "{said}"
    );
    // The command runs as written in a login shell whose PATH has no ask-user.
    let line = said.lines().find(|l| l.contains(" -p --answers ")).unwrap();
    let command = line.trim().replace("\"your answer\"", "\"Yes\"");
    assert!(command.starts_with(names.program()), "{command}");
    let answered = Command::new("bash")
        .args(["-lc", &command])
        .env_clear()
        .env("HOME", dir.path())
        .env("PATH", "/usr/bin:/bin")
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(answered.status.success(), "{command}: {answered:?}");
    // The person is told which tool the model calls for the answers: the one it was served.
    let told = String::from_utf8_lossy(&answered.stderr);
    assert!(
        told.contains("they reach the model when it calls ask_person again"),
        "{told}"
    );
    // The continued session's call of the same questions receives the answer.
    let delivered = call(3);
    assert_eq!(text(&delivered), r#"{"answers":{"Ship it?":"Yes"}}"#);
    assert!(!Path::new(&pending).exists());
    drop(stdin);
    assert!(server.wait().unwrap().success());
}

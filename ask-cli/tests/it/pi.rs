//! The pi package of `integrations/pi` in real pi (the version pinned in `tests/pi_host`), driven
//! against a stand-in model (`tests/pi_host/model.py`, on 127.0.0.1 only) in print mode with
//! every pass-2 route, in RPC mode with a scripted client, as a sub-agent, and interactively in
//! a pseudo-terminal; and the package as `pi install npm:pi-ask-user` installs it from the
//! packages of `cargo xtask dist`, with the binary of its npm dependency.
//!
//! They need node and `(cd ask-cli/tests/pi_host && npm ci)`; `.ci/run` installs both, and
//! builds the packages.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::slots::{Slot, Slots};

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

use common::packages::{Registry, VERSION};
use common::pty::{ENTER, Session};
use serde_json::{Value, json};

fn host_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/pi_host")
}

fn package_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../integrations/pi")
}

/// The pinned pi, or a failure that says how to install it.
fn pi_bin() -> PathBuf {
    let bin = host_dir().join("node_modules/.bin/pi");
    assert!(
        bin.exists(),
        "pi is not installed: run `(cd ask-cli/tests/pi_host && npm ci)` (needs node and npm)"
    );
    bin
}

/// The folder of the `ask-user` binary under test, put first on pi's PATH.
fn bin_dir() -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_ask-user"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The call the stand-in model makes.
fn call() -> String {
    json!({"questions": [
        {"question": "Which database should we use?", "header": "Database",
         "options": [{"label": "PostgreSQL (Recommended)", "description": "Battle-tested"},
                     {"label": "SQLite"}]},
        {"question": "What should we name the service?", "header": "Name"}]})
    .to_string()
}

/// The stand-in model, pi's agent folder that points at it, and a project folder.
struct Stage {
    model: Child,
    dir: tempfile::TempDir,
    /// The registry the package is installed from (`Stage::installed`); without one, pi loads
    /// the package from `integrations/pi` and finds the binary under test on `PATH`.
    registry: Option<Registry>,
    _slot: Slot,
}

/// How many stages run at once: each starts pi (a large Node program) and a model server, and
/// a dozen of them at once on a small machine slow pi past its own time limits.
static SLOTS: Slots = Slots::new(3);

impl Drop for Stage {
    fn drop(&mut self) {
        let _ = self.model.kill();
        let _ = self.model.wait();
    }
}

impl Stage {
    fn new() -> Stage {
        Stage::with_call(&call())
    }

    /// A stage whose stand-in model makes the call `call`.
    fn with_call(call: &str) -> Stage {
        let slot = SLOTS.take();
        let dir = tempfile::tempdir().unwrap();
        for sub in ["agent", "project", "home"] {
            std::fs::create_dir(dir.path().join(sub)).unwrap();
        }
        std::fs::write(dir.path().join("call.json"), call).unwrap();
        let mut model = Command::new("python3")
            .arg(host_dir().join("model.py"))
            .arg(dir.path().join("requests.jsonl"))
            .env("ASK_CALL", dir.path().join("call.json"))
            .env("MODEL_LIFETIME", "150")
            .stdout(Stdio::piped())
            .spawn()
            .expect("python3 runs");
        let mut port = String::new();
        BufReader::new(model.stdout.take().unwrap())
            .read_line(&mut port)
            .unwrap();
        let port: u16 = port.trim().parse().expect("the model prints its port");
        let models = json!({"providers": {"standin": {
            "baseUrl": format!("http://127.0.0.1:{port}/v1"), "api": "openai-completions",
            "apiKey": "unused",
            "compat": {"supportsDeveloperRole": false, "supportsReasoningEffort": false},
            "models": [{"id": "stand-in"}]}}});
        std::fs::write(dir.path().join("agent/models.json"), models.to_string()).unwrap();
        Stage {
            model,
            dir,
            registry: None,
            _slot: slot,
        }
    }

    /// A stage whose pi has no package and no ask-user binary yet: it installs the package
    /// from the registry of `cargo xtask dist`'s packages, with a `PATH` that has no Rust.
    fn installed() -> Stage {
        let mut stage = Stage::new();
        stage.registry = Some(Registry::start());
        stage
    }

    fn project(&self) -> PathBuf {
        self.dir.path().join("project")
    }

    fn pending(&self) -> PathBuf {
        self.project().join(".pi/pending-questions.json")
    }

    /// The environment pi runs in: its own agent and home folders, and ask-user first on PATH,
    /// or for an installed package the registry's npm configuration and a PATH without Rust.
    fn env(&self) -> Vec<(String, String)> {
        let mut env = match &self.registry {
            Some(registry) => registry.env(),
            None => vec![(
                "PATH".to_string(),
                format!(
                    "{}:{}",
                    bin_dir().display(),
                    std::env::var("PATH").unwrap_or_default()
                ),
            )],
        };
        env.retain(|(key, _)| key != "HOME");
        env.extend([
            (
                "PI_CODING_AGENT_DIR".into(),
                self.dir.path().join("agent").display().to_string(),
            ),
            (
                "HOME".into(),
                self.dir.path().join("home").display().to_string(),
            ),
        ]);
        env
    }

    /// pi's arguments before a test's own: the stand-in model and, unless it is installed,
    /// the package.
    fn pi_args(&self) -> Vec<String> {
        let mut args: Vec<String> = vec![
            "--provider".into(),
            "stand-in".replace("stand-in", "standin"),
            "--model".into(),
            "stand-in".into(),
        ];
        if self.registry.is_none() {
            args.extend(["-e".into(), package_dir().display().to_string()]);
        }
        args
    }

    fn command(&self, program: &Path) -> Command {
        let mut command = Command::new("timeout");
        command.arg("90").arg(program);
        command.current_dir(self.project());
        if self.registry.is_some() {
            command.env_clear();
        }
        for (key, value) in self.env() {
            command.env(key, value);
        }
        for var in [
            "PI_ASK_USER_OWNER",
            "ASK_USER_BIN",
            "ASK_USER_PENDING_FILE",
            "ASK_USER_SESSION",
            "ASK_USER_SUBAGENT",
            "ASK_USER_HOST",
        ] {
            command.env_remove(var);
        }
        command.stdin(Stdio::null());
        command
    }

    /// Runs `pi ARGS` with no terminal.
    fn pi(&self, args: &[&str]) -> Output {
        let output = self
            .command(&pi_bin())
            .args(self.pi_args())
            .args(args)
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "pi {args:?} failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        output
    }

    /// Every request the model received.
    fn requests(&self) -> Vec<Value> {
        std::fs::read_to_string(self.dir.path().join("requests.jsonl"))
            .unwrap_or_default()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect()
    }

    /// The messages of the last request, as (role, text).
    fn last_messages(&self) -> Vec<(String, String)> {
        let requests = self.requests();
        let last = requests.last().expect("the model was called");
        last["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                let text = match &m["content"] {
                    Value::String(s) => s.clone(),
                    Value::Array(parts) => parts
                        .iter()
                        .filter_map(|p| p["text"].as_str())
                        .collect::<Vec<_>>()
                        .join(""),
                    _ => String::new(),
                };
                (m["role"].as_str().unwrap().to_string(), text)
            })
            .collect()
    }

    /// The text of the last tool message the model received.
    fn last_tool_text(&self) -> String {
        self.last_messages()
            .into_iter()
            .rev()
            .find(|(role, _)| role == "tool")
            .expect("a tool result reached the model")
            .1
    }

    /// Pass 1: `pi -p "please ask me"`; the model gets pi's pass-2 commands.
    fn pass_one(&self) {
        self.pi(&["-p", "please ask me"]);
        let instructions = self.last_tool_text();
        let file = self.pending().display().to_string();
        assert!(
            instructions.starts_with("Questions pending. User input required."),
            "{instructions}"
        );
        assert!(
            instructions.contains(&format!("pi -c -p @{file} \"your answers\"")),
            "{instructions}"
        );
        assert!(
            instructions.contains("pi -c -p --answers '[\"answer 1\", \"answer 2\"]' \"continue\""),
            "{instructions}"
        );
        assert!(!instructions.contains("ask-user -"), "{instructions}");
        assert!(self.pending().exists());
    }

    /// After a pass 2: the answers reached the model as a message after the prompt, the pending
    /// file is gone, and the call is recorded in the package's session log.
    fn assert_delivered(&self, expected: &str) {
        let messages = self.last_messages();
        let (role, text) = messages.last().unwrap();
        assert_eq!(role, "user");
        assert!(
            text.starts_with("Answers to the pending ask_user call call_1:"),
            "{text}"
        );
        assert!(text.contains(expected), "{text}");
        assert!(!self.pending().exists(), "the pending file is removed");
        let log =
            std::fs::read_to_string(self.project().join(".pi/ask-user-session.jsonl")).unwrap();
        assert_eq!(log.lines().count(), 1, "{log}");
        let record: Value = serde_json::from_str(log.trim()).unwrap();
        assert_eq!(record["callId"], "call_1");
        assert_eq!(record["status"], "answered");
    }
}

const ANSWER_MAP: &str = r#"{"answers":{"Which database should we use?":"SQLite","What should we name the service?":"orders"}}"#;

#[test]
#[ignore = "needs pi from npm; run by .ci/run"]
fn print_mode_answers_given_with_the_answers_flag() {
    let _heavy = common::heavy::heavy("pi");
    let stage = Stage::new();
    stage.pass_one();
    stage.pi(&[
        "-c",
        "-p",
        "--answers",
        r#"["sqlite", "orders"]"#,
        "continue",
    ]);
    stage.assert_delivered(ANSWER_MAP);
    // The answers are delivered once: the next turn carries no second copy.
    stage.pi(&["-c", "-p", "thanks"]);
    let messages = stage.last_messages();
    assert_eq!(
        messages.last().unwrap(),
        &("user".to_string(), "thanks".to_string())
    );
    let copies = messages
        .iter()
        .filter(|(_, text)| text.starts_with("Answers to the pending ask_user call"))
        .count();
    assert_eq!(copies, 1);
}

#[test]
#[ignore = "needs pi from npm; run by .ci/run"]
fn print_mode_answers_given_as_a_reply_with_the_file_attached() {
    let _heavy = common::heavy::heavy("pi");
    let stage = Stage::new();
    stage.pass_one();
    let attached = format!("@{}", stage.pending().display());
    stage.pi(&["-c", "-p", &attached, "use postgres, call it orders"]);
    stage.assert_delivered("The user's reply:\nuse postgres, call it orders");
}

#[test]
#[ignore = "needs pi from npm; run by .ci/run"]
fn print_mode_answers_written_into_the_file_then_continue() {
    let _heavy = common::heavy::heavy("pi");
    let stage = Stage::new();
    stage.pass_one();
    let mut file: Value = serde_json::from_slice(&std::fs::read(stage.pending()).unwrap()).unwrap();
    assert!(
        file["howToAnswer"]
            .as_str()
            .unwrap()
            .ends_with("Then run: pi -c -p \"continue\"")
    );
    file["questions"][0]["answer"] = json!("SQLite");
    file["questions"][1]["answer"] = json!("orders");
    std::fs::write(stage.pending(), file.to_string()).unwrap();
    stage.pi(&["-c", "-p", "continue"]);
    stage.assert_delivered(ANSWER_MAP);
}

#[test]
#[ignore = "needs pi from npm; run by .ci/run"]
fn print_mode_answers_given_with_ask_user_itself() {
    let _heavy = common::heavy::heavy("pi");
    let stage = Stage::new();
    stage.pass_one();
    let output = stage
        .command(Path::new(env!("CARGO_BIN_EXE_ask-user")))
        .args([
            "-p",
            "--answers",
            r#"["sqlite", "orders"]"#,
            "--session",
            ".pi/ask-user-session.jsonl",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    stage.pi(&["-c", "-p", "continue"]);
    stage.assert_delivered(ANSWER_MAP);
}

#[test]
#[ignore = "needs pi from npm; run by .ci/run"]
fn a_pi_started_by_pi_is_a_sub_agent_and_is_refused() {
    let _heavy = common::heavy::heavy("pi");
    let stage = Stage::new();
    let output = stage
        .command(&pi_bin())
        .args(stage.pi_args())
        .args(["-p", "please ask me"])
        // The mark a parent pi with the package leaves in its children's environment.
        .env("PI_ASK_USER_OWNER", "1")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "pi failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        stage.last_tool_text(),
        "ask_user is only available to the parent conversation; sub-agents cannot ask the user questions"
    );
    assert!(
        !stage.pending().exists(),
        "a sub-agent writes no pending file"
    );
}

/// Plays `script` (see `rpc_client.py`) against `pi --mode rpc`; returns the dialogs seen.
fn rpc(stage: &Stage, script: Value) -> Value {
    let mut command = stage.command(Path::new("python3"));
    command
        .arg(host_dir().join("rpc_client.py"))
        .arg(script.to_string())
        .arg("--")
        .arg(pi_bin())
        .args(stage.pi_args())
        .args(["--mode", "rpc", "--no-session"]);
    let output = command.output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
#[ignore = "needs pi from npm; run by .ci/run"]
fn rpc_mode_asks_through_pi_dialogs() {
    let _heavy = common::heavy::heavy("pi");
    let stage = Stage::new();
    let report = rpc(&stage, json!(["Other", "Maria", "orders"]));
    assert_eq!(
        report["dialogs"],
        json!([
            {"method": "select", "title": "[Database] Which database should we use?",
             "options": ["PostgreSQL (Recommended) — Battle-tested", "SQLite", "Other…"]},
            {"method": "input", "title": "[Database] Which database should we use? (your own answer)",
             "options": null},
            {"method": "input", "title": "[Name] What should we name the service?", "options": null}
        ])
    );
    assert_eq!(
        stage.last_tool_text(),
        r#"{"answers":{"Which database should we use?":"Maria","What should we name the service?":"orders"}}"#
    );
    let log = std::fs::read_to_string(stage.project().join(".pi/ask-user-session.jsonl")).unwrap();
    let record: Value = serde_json::from_str(log.trim()).unwrap();
    assert_eq!(record["mode"], "rpc");
}

#[test]
#[ignore = "needs pi from npm; run by .ci/run"]
fn rpc_mode_cancel_in_any_dialog_cancels_the_call() {
    let _heavy = common::heavy::heavy("pi");
    let stage = Stage::new();
    let report = rpc(&stage, json!(["PostgreSQL", {"cancel": true}]));
    assert_eq!(report["dialogs"].as_array().unwrap().len(), 2);
    assert!(
        stage
            .last_tool_text()
            .starts_with("The user cancelled the questions without answering."),
        "{}",
        stage.last_tool_text()
    );
}

#[test]
#[ignore = "needs pi from npm; run by .ci/run"]
fn rpc_mode_refuses_a_secret_question_rather_than_show_it_typed() {
    let _heavy = common::heavy::heavy("pi");
    let call = json!({"questions": [
        {"question": "Paste the deploy token", "header": "Token", "secret": true}]});
    let stage = Stage::with_call(&call.to_string());
    let report = rpc(&stage, json!([]));
    // No dialog opened: pi's input dialog would show the typed secret.
    assert_eq!(report["dialogs"], json!([]));
    let text = stage.last_tool_text();
    assert!(
        text.contains(r#"The question "Paste the deploy token" is secret"#)
            && text.contains("interactive mode"),
        "{text}"
    );
    assert!(
        !stage.project().join(".pi/ask-user-session.jsonl").exists(),
        "nothing was asked, so nothing is recorded"
    );
}

/// Interactive pi in an 80×24 pseudo-terminal, with `env` set too.
fn pi_in_pty(stage: &Stage, env: &[(&str, &str)]) -> Session {
    let mut script = String::from(
        "unset PI_ASK_USER_OWNER ASK_USER_BIN ASK_USER_SESSION ASK_USER_PENDING_FILE; ",
    );
    for (key, value) in stage
        .env()
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .chain(env.iter().copied())
    {
        script.push_str(&format!("export {key}='{value}'; "));
    }
    script.push_str(&format!(
        "cd '{}'; exec '{}'",
        stage.project().display(),
        pi_bin().display()
    ));
    for arg in stage.pi_args() {
        script.push_str(&format!(" '{arg}'"));
    }
    Session::start(&script, &[])
}

#[test]
#[ignore = "needs pi from npm; run by .ci/run"]
fn interactive_mode_shows_the_questions_and_the_answers_stay_in_the_transcript() {
    let _heavy = common::heavy::heavy("pi");
    interactive(&[], true);
}

#[test]
#[ignore = "needs pi from npm; run by .ci/run"]
fn interactive_full_screen_fallback_hands_the_terminal_over_and_back() {
    let _heavy = common::heavy::heavy("pi");
    interactive(&[("PI_ASK_USER_FULLSCREEN", "1")], false);
}

/// Asks in interactive pi; `inside` says whether pi's own footer stays on screen meanwhile.
fn interactive(env: &[(&str, &str)], inside: bool) {
    let stage = Stage::new();
    let mut session = pi_in_pty(&stage, env);
    session.wait_for("stand-in");
    session.send("please ask me");
    session.send(ENTER);
    // The questions UI: pick SQLite, type the name, submit.
    session.wait_for("? more keys");
    // Embedded, pi's footer (the model's name) stays on screen; taken over, only ask-user shows.
    assert_eq!(
        session.contents().contains("stand-in"),
        inside,
        "{}",
        session.contents()
    );
    session.key("2", "■ Database");
    session.send("orders");
    session.key(ENTER, "Review your answers");
    session.send(ENTER);
    // Back in pi: the model got the answers, and the transcript shows the call and the answers.
    session.wait_for("model saw:");
    assert_eq!(stage.last_tool_text(), ANSWER_MAP);
    session.wait_for("What should we name the service? → orders");
    // The next prompt typed into pi's editor reaches the model.
    session.send("next step");
    session.send(ENTER);
    session.wait_for("model saw: next step");
}

#[test]
#[ignore = "needs pi from npm; run by .ci/run"]
fn a_missing_binary_is_a_tool_error_that_names_the_fix() {
    let _heavy = common::heavy::heavy("pi");
    let stage = Stage::new();
    let output = stage
        .command(&pi_bin())
        .args(stage.pi_args())
        .args(["-p", "please ask me"])
        .env("ASK_USER_BIN", stage.dir.path().join("no-such-ask-user"))
        .output()
        .unwrap();
    assert!(output.status.success());
    let text = stage.last_tool_text();
    assert!(text.contains("not an executable file"), "{text}");
    assert!(
        text.contains("pi install npm:pi-ask-user") && text.contains("ASK_USER_BIN"),
        "{text}"
    );
}

#[test]
#[ignore = "needs pi from npm and the packages of cargo xtask dist; run by .ci/run"]
fn installed_from_npm_the_package_asks_with_the_binary_of_its_dependency() {
    let _heavy = common::heavy::heavy("pi");
    let stage = Stage::installed();
    let spec = format!("npm:pi-ask-user@{VERSION}");
    let install = stage
        .command(&pi_bin())
        .args(["install", &spec])
        .output()
        .unwrap();
    assert!(
        install.status.success(),
        "pi install failed: {}",
        String::from_utf8_lossy(&install.stderr)
    );
    let tarballs = stage.registry.as_ref().unwrap().tarballs();
    assert_eq!(tarballs.len(), 3, "{tarballs:?}");
    assert!(tarballs.contains(&format!("pi-ask-user-{VERSION}.tgz")));
    assert!(tarballs.contains(&format!("ask-user-{VERSION}.tgz")));
    // No ask-user on PATH and no ASK_USER_BIN: the binary that asks is the platform package's.
    stage.pass_one();
    stage.pi(&[
        "-c",
        "-p",
        "--answers",
        r#"["sqlite", "orders"]"#,
        "continue",
    ]);
    stage.assert_delivered(ANSWER_MAP);
}

#[test]
#[ignore = "needs pi from npm; run by .ci/run"]
fn interactive_ctrl_c_twice_ends_the_turn_without_an_answer() {
    let _heavy = common::heavy::heavy("pi");
    let stage = Stage::new();
    let mut session = pi_in_pty(&stage, &[]);
    session.wait_for("stand-in");
    session.send("please ask me");
    session.send(ENTER);
    session.wait_for("? more keys");
    session.key("2", "■ Database");
    session.key("\x03", "Discard 1 answer? [y/N]");
    session.send("\x03");
    session.wait_for("interrupted the questions with Ctrl+C twice");
    // The turn ended: the model was not called again with the error, and nothing was recorded.
    assert_eq!(
        stage.requests().len(),
        1,
        "only the request that made the call"
    );
    assert!(!stage.project().join(".pi/ask-user-session.jsonl").exists());
    // pi is still there for the next prompt.
    session.send("next step");
    session.send(ENTER);
    session.wait_for("model saw: next step");
}

/// The first question of the hostile-input corpus entry `name` (`tests/corpus/NAME.json`).
fn corpus_question(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/corpus/{name}.json"));
    let entry: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    entry["questions"][0].clone()
}

/// The strings of `value` that hold a control character, each from its first control character
/// on: what a terminal would obey if pi drew the text as it is.
fn escapes_in(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(text) => {
            if let Some(at) = text.find(|c: char| c.is_control() && c != '\n' && c != '\t') {
                out.push(text[at..].to_string());
            }
        }
        Value::Array(items) => items.iter().for_each(|v| escapes_in(v, out)),
        Value::Object(map) => map.values().for_each(|v| escapes_in(v, out)),
        _ => {}
    }
}

/// Asserts that the bytes pi wrote to the terminal hold none of `escapes`, no C1 control and no
/// bidi control (pi itself writes none of those).
#[track_caller]
fn assert_obeyed_nothing(raw: &[u8], escapes: &[String]) {
    let contains = |needle: &[u8]| raw.windows(needle.len()).any(|w| w == needle);
    for escape in escapes {
        assert!(
            !contains(escape.as_bytes()),
            "the terminal received the raw text {escape:?}"
        );
    }
    let text = String::from_utf8_lossy(raw);
    let forbidden = text.chars().find(
        |c| matches!(c, '\u{80}'..='\u{9f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'),
    );
    assert_eq!(
        forbidden, None,
        "the terminal received a C1 or bidi control"
    );
}

#[test]
#[ignore = "needs pi from npm; run by .ci/run"]
fn interactive_hostile_call_is_drawn_visibly_and_its_refusal_reaches_the_model() {
    let _heavy = common::heavy::heavy("pi");
    // Escape sequences in a question, a header, a description and a label; a bidi override;
    // and a secret question, as a prompt-injected model might send them.
    let mut questions: Vec<Value> = [
        "clear-screen",
        "window-title",
        "clipboard-osc52",
        "hyperlink-osc8",
    ]
    .iter()
    .map(|name| corpus_question(name))
    .collect();
    questions[3]["options"][1] = corpus_question("bidi-override")["options"][0].clone();
    questions[1]["secret"] = json!(true);
    let call = json!({"questions": questions});
    let mut escapes = Vec::new();
    escapes_in(&call, &mut escapes);
    assert_eq!(escapes.len(), 4, "{escapes:?}");
    let stage = Stage::with_call(&call.to_string());
    let mut session = pi_in_pty(&stage, &[]);
    session.wait_for("stand-in");
    session.send("please ask me");
    session.send(ENTER);
    // The call is drawn with every control character shown, not obeyed.
    session.wait_for("Ready?^[[2J^[[H");
    session.wait_for("[^[]0;pwned^G]");
    session.wait_for("invoice\\u{202e}fdp.exe");
    // The binary refused it, and the model read why.
    session.wait_for("model saw: tool");
    let refusal = stage.last_tool_text();
    assert!(
        refusal.starts_with("The ask_user call is invalid:\n/questions/0/question: the question contains the control character U+001B (ESC)"),
        "{refusal}"
    );
    assert!(
        refusal.contains("/questions/3/options/1/label"),
        "{refusal}"
    );
    assert_obeyed_nothing(&session.raw(), &escapes);
    // pi carries on.
    session.send("next step");
    session.send(ENTER);
    session.wait_for("model saw: next step");
    assert_obeyed_nothing(&session.raw(), &escapes);
}

#[test]
#[ignore = "needs pi from npm; run by .ci/run"]
fn interactive_secret_answer_reaches_the_model_and_never_the_terminal() {
    let _heavy = common::heavy::heavy("pi");
    const SECRET: &str = "tok-4711-never-shown";
    // Text that only looks like escapes, metadata that holds a real one (never shown), and a
    // secret question.
    let call = json!({
        "questions": [
            corpus_question("brackets-that-look-like-escapes"),
            {"question": "Paste the deploy token", "header": "Token", "secret": true},
        ],
        "metadata": corpus_question_file("escape-in-metadata")["metadata"].clone(),
    });
    let mut escapes = Vec::new();
    escapes_in(&call, &mut escapes);
    assert_eq!(escapes, ["\u{1b}[2J never shown"]);
    let stage = Stage::with_call(&call.to_string());
    let mut session = pi_in_pty(&stage, &[]);
    session.wait_for("stand-in");
    session.send("please ask me");
    session.send(ENTER);
    session.wait_for("? more keys");
    session.wait_for("^[[2J is not an escape");
    session.key("1", "Paste the deploy token");
    session.send(SECRET);
    session.key(ENTER, "Review your answers");
    session.send(ENTER);
    // The model got the secret; the transcript shows only the placeholder.
    session.wait_for("Paste the deploy token → [secret]");
    session.wait_for("model saw: tool");
    assert!(
        stage.last_tool_text().contains(SECRET),
        "{}",
        stage.last_tool_text()
    );
    let raw = session.raw();
    assert!(
        !String::from_utf8_lossy(&raw).contains(SECRET),
        "the secret reached the terminal"
    );
    assert!(
        !String::from_utf8_lossy(&raw).contains("never shown"),
        "the metadata reached the terminal"
    );
    assert_obeyed_nothing(&raw, &escapes);
}

#[test]
#[ignore = "needs pi from npm; run by .ci/run"]
fn interactive_multi_select_marks_only_the_typed_text_as_typed() {
    let _heavy = common::heavy::heavy("pi");
    let call = json!({"questions": [{"question": "Which features?", "header": "Features",
        "multiSelect": true,
        "options": [{"label": "Auth"}, {"label": "SSO, Google only"}, {"label": "API"}]}]});
    let stage = Stage::with_call(&call.to_string());
    let mut session = pi_in_pty(&stage, &[]);
    session.wait_for("stand-in");
    session.send("please ask me");
    session.send(ENTER);
    session.wait_for("Space toggle");
    session.key("1", "[x] 1. Auth");
    session.key("2", "[x] 2. SSO, Google only");
    session.key("0", "(added to the options you tick)");
    session.send("GraphQL");
    session.key(ENTER, "Other: GraphQL");
    session.send(ENTER);
    // The transcript marks only the typed text; the model reads the picks apart from it.
    session.wait_for("Which features? → Auth, SSO, Google only + GraphQL (typed)");
    session.wait_for("model saw: tool");
    assert_eq!(
        stage.last_tool_text(),
        "{\"answers\":{\"Which features?\":\"Auth, SSO, Google only, GraphQL\"}}\n\
         Multi-select answers: {\"Which features?\":\
         {\"picked\":[\"Auth\",\"SSO, Google only\"],\"typed\":\"GraphQL\"}}"
    );
}

/// The hostile-input corpus entry `name`, whole.
fn corpus_question_file(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/corpus/{name}.json"));
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

#[test]
#[ignore = "needs pi from npm; run by .ci/run"]
fn rpc_mode_hands_the_model_the_refusal_of_an_invalid_call() {
    let _heavy = common::heavy::heavy("pi");
    let call = corpus_question_file("clear-screen");
    let stage = Stage::with_call(&call.to_string());
    let report = rpc(&stage, json!([]));
    // Nothing was asked: the binary refused the call, and the model read why.
    assert_eq!(report["dialogs"], json!([]));
    assert_eq!(
        stage.last_tool_text(),
        "The ask_user call is invalid:\n/questions/0/question: the question contains the control character U+001B (ESC) at character 6; remove it (only newline and tab are allowed)"
    );
}

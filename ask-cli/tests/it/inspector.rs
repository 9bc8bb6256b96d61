//! `ask-user mcp` driven by the official MCP Inspector's command line (`mcp-inspector --cli`,
//! pinned in `tests/inspector/`), in both protocol eras it offers: `legacy` (the initialize
//! handshake, where the log level comes by `logging/setLevel`) and `modern` (2026-07-28, where
//! it comes on each request's `_meta`, and the Inspector stamps `debug` on every request). The
//! Inspector declares no elicitation, so a call ends in the pending file.
//!
//! The Inspector talks to the server over stdio only, with a home folder of its own; each run is
//! killed after [`LIMIT`]. The tests need node and `npm install` in `ask-cli/tests/inspector`, so a
//! plain `cargo test` ignores them; `.ci/run` installs the package and runs them.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// How long one run of the Inspector may take.
const LIMIT: Duration = Duration::from_secs(60);

fn inspector_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/inspector")
}

/// One run of `mcp-inspector --cli` in `era` with `args`, against `ask-user mcp` with its pending
/// file at `pending`: how it ended and the JSON it printed, its result on stdout or its error on
/// stderr.
fn inspector(era: &str, pending: &Path, args: &[&str]) -> (Output, Value) {
    let dir = inspector_dir();
    let bin = dir.join("node_modules/.bin/mcp-inspector");
    assert!(
        bin.is_file(),
        "the MCP Inspector is missing; run `npm install` in {} (it is the client these tests drive \
         the server with)",
        dir.display()
    );
    let home = tempfile::tempdir().unwrap();
    let pending_env = format!("ASK_USER_PENDING_FILE={}", pending.display());
    let mut child = Command::new(&bin)
        .args(["--cli", "--protocol-era", era, "--format", "json"])
        .args(["-e", "ASK_USER_NO_TTY=1", "-e", &pending_env])
        .args(args)
        .args([env!("CARGO_BIN_EXE_ask-user"), "mcp"])
        .current_dir(home.path())
        .env("HOME", home.path())
        .env_remove("ASK_USER_SUBAGENT")
        .env_remove("ASK_USER_PRESENT")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the Inspector starts");
    let deadline = Instant::now() + LIMIT;
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            child.kill().unwrap();
            let output = child.wait_with_output().unwrap();
            panic!(
                "the Inspector ({era}, {args:?}) did not end within {LIMIT:?}:\n{}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    // The server's stderr comes through the Inspector's: a run that only discovers the server
    // (the modern era's `initialize`) is a client that left, not one that failed to start.
    assert!(
        !stderr.contains("ask-user: the MCP"),
        "the server failed ({era}, {args:?}):\n{stderr}"
    );
    let envelope = stdout
        .lines()
        .chain(stderr.lines())
        .find(|line| line.starts_with('{'))
        .unwrap_or_default();
    let printed = serde_json::from_str(envelope).unwrap_or_else(|error| {
        panic!("the Inspector ({era}, {args:?}) printed no JSON ({error}):\n{stdout}\n{stderr}")
    });
    (output, printed)
}

/// The call of the test: one single-choice question.
fn call() -> String {
    json!({"questions": [{"question": "Which database should we use?", "header": "Database",
        "options": [{"label": "PostgreSQL", "description": "Battle-tested"},
                    {"label": "SQLite", "description": "One file"}]}]})
    .to_string()
}

#[test]
#[ignore = "needs node and the npm package of tests/inspector (npm install); run by .ci/run"]
fn the_inspector_cli_sets_the_log_level_lists_and_calls_in_both_protocol_eras() {
    let _heavy = crate::common::heavy::heavy("inspector");
    for (era, version) in [("legacy", "2025-11-25"), ("modern", "2026-07-28")] {
        let folder = tempfile::tempdir().unwrap();
        let pending = folder.path().join("pending-questions.json");
        let (_, initialized) = inspector(era, &pending, &["--method", "initialize"]);
        assert_eq!(initialized["result"]["protocolVersion"], version, "{era}");
        assert_eq!(
            initialized["result"]["capabilities"],
            json!({"logging": {}, "tools": {}}),
            "{era}"
        );

        // The legacy era sets the level for the session; the modern one has no
        // `logging/setLevel`, and the Inspector itself refuses to send it there.
        let (output, set) = inspector(
            era,
            &pending,
            &["--method", "logging/setLevel", "--log-level", "warning"],
        );
        if era == "legacy" {
            assert!(output.status.success(), "{era}: {set}");
            assert_eq!(set, json!({"result": {}}), "{era}");
        } else {
            assert!(!output.status.success(), "{era}: {set}");
            let error = set["error"]["message"].as_str().unwrap_or_default();
            assert!(
                error.contains("not supported by the negotiated protocol version"),
                "{era}: {set}"
            );
        }

        // Every request of the Inspector names a level: by `logging/setLevel` at connect in
        // the legacy era (which a server without it fails), on `_meta` in the modern one.
        let (output, listed) = inspector(
            era,
            &pending,
            &["--method", "tools/list", "--log-level", "debug"],
        );
        assert!(output.status.success(), "{era}: {listed}");
        let names: Vec<&Value> = listed["result"]["tools"]
            .as_array()
            .unwrap_or_else(|| panic!("{era}: {listed}"))
            .iter()
            .map(|tool| &tool["name"])
            .collect();
        assert_eq!(names, [&json!("ask_user")], "{era}");

        // No elicitation and no terminal: the questions wait in the pending file, and the
        // result says where.
        let (output, called) = inspector(
            era,
            &pending,
            &[
                "--method",
                "tools/call",
                "--tool-name",
                "ask_user",
                "--tool-args-json",
                &call(),
            ],
        );
        assert!(output.status.success(), "{era}: {called}");
        let result = &called["result"];
        assert_eq!(result["isError"], false, "{era}: {called}");
        assert_eq!(result["structuredContent"]["answered"], false, "{era}");
        assert_eq!(
            result["structuredContent"]["pendingFile"],
            pending.to_str().unwrap(),
            "{era}"
        );
        let text = result["content"][0]["text"].as_str().unwrap();
        assert!(text.starts_with("Questions pending"), "{era}: {text}");
        let file: Value =
            serde_json::from_str(&std::fs::read_to_string(&pending).unwrap()).unwrap();
        assert_eq!(
            file["questions"][0]["question"], "Which database should we use?",
            "{era}: {file}"
        );
    }
}

//! `ask-user mcp` driven by the official MCP TypeScript SDKs, pinned in `tests/mcp_node/`:
//! `@modelcontextprotocol/sdk` 1.x on protocol 2025-11-25 (the server sends each form as a
//! request) and the 2.x `@modelcontextprotocol/client` on 2026-07-28 (forms travel in
//! input-required results). Each test asserts what a model would receive from both the text
//! `content` and the `structuredContent`.
//!
//! The tests need node and the packages (`npm ci` in `ask-cli/tests/mcp_node`), so a plain
//! `cargo test` ignores them; `.ci/run` installs the packages and runs them with
//! `--include-ignored`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::common;
use serde_json::{Value, json};

const CANCELLED: &str = "The user cancelled the questions without answering. Proceed without \
                         these answers; do not ask the same questions again unless the user asks \
                         you to.";

fn client_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_node")
}

/// Runs `client.mjs SDK SCENARIO` against `ask-user mcp` with its own pending file, and returns
/// what it saw with the pending file's path as `pendingPath`.
fn node_client(sdk: &str, scenario: &str) -> Value {
    let dir = client_dir();
    assert!(
        dir.join("node_modules/@modelcontextprotocol/sdk").is_dir()
            && dir
                .join("node_modules/@modelcontextprotocol/client")
                .is_dir(),
        "the MCP TypeScript SDKs are missing; run `npm ci` in {} (they are the clients these \
         tests drive the server with)",
        dir.display()
    );
    let pending_dir = tempfile::tempdir().unwrap();
    let pending = pending_dir.path().join("pending-questions.json");
    let output = Command::new("node")
        .arg(dir.join("client.mjs"))
        .args([sdk, scenario, env!("CARGO_BIN_EXE_ask-user"), "mcp"])
        .current_dir(&dir)
        .env("ASK_USER_NO_TTY", "1")
        .env("ASK_USER_PENDING_FILE", &pending)
        .env_remove("ASK_USER_SUBAGENT")
        .env_remove("ASK_USER_PRESENT")
        .stdin(Stdio::null())
        .output()
        .expect("node runs");
    assert!(
        output.status.success(),
        "the node client failed ({}):\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    let mut seen: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "the node client printed no JSON ({e}): {}",
            String::from_utf8_lossy(&output.stdout)
        )
    });
    seen["pendingPath"] = json!(pending.to_str().unwrap());
    let file = std::fs::read_to_string(&pending).ok();
    seen["pendingContents"] = file.map_or(Value::Null, |text| serde_json::from_str(&text).unwrap());
    seen
}

fn forms<'a>(seen: &'a Value, call: &str) -> Vec<&'a Value> {
    seen["elicitations"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|form| form["call"] == call)
        .map(|form| &form["params"])
        .collect()
}

/// Both SDKs, each on the protocol it must have negotiated.
fn both(scenario: &str) -> Vec<(&'static str, Value)> {
    [("v1", "2025-11-25"), ("v2", "2026-07-28")]
        .into_iter()
        .map(|(sdk, version)| {
            let seen = node_client(sdk, scenario);
            assert_eq!(seen["protocolVersion"], version, "{sdk}");
            assert_eq!(seen["tools"], json!(["ask_user"]), "{sdk}");
            (sdk, seen)
        })
        .collect()
}

#[test]
#[ignore = "needs node and the npm packages of tests/mcp_node (npm ci); run by .ci/run"]
fn form_rounds_decline_and_the_bounded_fallback_in_both_sdks() {
    let _heavy = common::heavy::heavy("mcp_node");
    for (sdk, seen) in both("rounds") {
        // Round 1 answers the first question, round 2 only the second: the second form keeps
        // the first answer as its default and asks for what is open; the call is answered.
        let rounds = forms(&seen, "rounds");
        assert_eq!(rounds.len(), 2, "{sdk}");
        assert_eq!(
            rounds[1]["requestedSchema"]["properties"]["q1"]["default"], "SQLite",
            "{sdk}"
        );
        assert_eq!(
            rounds[1]["message"],
            "Please answer every question; choose an option or type an answer for: \"What \
             should the project be called?\"",
            "{sdk}"
        );
        let answered = &seen["calls"]["rounds"];
        assert_eq!(
            answered["text"],
            r#"{"answers":{"Which database should we use?":"SQLite","What should the project be called?":"Falcon"}}"#,
            "{sdk}"
        );
        assert_eq!(answered["structuredContent"]["answered"], true, "{sdk}");
        assert!(
            answered["structuredContent"].get("message").is_none(),
            "{sdk}"
        );

        // A declined form: a model reading either part learns to proceed without the answers.
        let declined = &seen["calls"]["declined"];
        assert_eq!(declined["isError"], false, "{sdk}");
        assert_eq!(declined["text"], CANCELLED, "{sdk}");
        assert_eq!(
            declined["structuredContent"],
            json!({"answered": false, "cancelled": true, "answers": [], "message": CANCELLED}),
            "{sdk}"
        );

        // Three incomplete forms, then the pending file, pre-filled with what was given.
        assert_eq!(forms(&seen, "bounded").len(), 3, "{sdk}");
        let pending = seen["pendingPath"].as_str().unwrap();
        let instructions = common::sdk_pending(pending, 2);
        let bounded = &seen["calls"]["bounded"];
        assert_eq!(bounded["text"], instructions, "{sdk}");
        assert_eq!(
            bounded["structuredContent"],
            json!({"answered": false, "answers": [], "pendingFile": pending,
                   "message": instructions}),
            "{sdk}"
        );
        let file = &seen["pendingContents"];
        assert_eq!(file["questions"][0]["answer"], "MariaDB", "{sdk}");
        assert_eq!(file["questions"][1]["answer"], Value::Null, "{sdk}");
    }
}

#[test]
#[ignore = "needs node and the npm packages of tests/mcp_node (npm ci); run by .ci/run"]
fn without_elicitation_the_model_gets_the_pending_instructions_in_both_parts() {
    let _heavy = common::heavy::heavy("mcp_node");
    for (sdk, seen) in both("pending") {
        let pending = seen["pendingPath"].as_str().unwrap();
        let instructions = common::sdk_pending(pending, 1);
        let result = &seen["calls"]["pending"];
        assert_eq!(result["text"], instructions, "{sdk}");
        assert_eq!(
            result["structuredContent"]["message"], instructions,
            "{sdk}"
        );
        assert_eq!(result["structuredContent"]["pendingFile"], pending, "{sdk}");
        assert_eq!(
            seen["pendingContents"]["questions"][0]["question"],
            "Which database should we use?"
        );
    }
}

#[test]
#[ignore = "needs node and the npm packages of tests/mcp_node (npm ci); run by .ci/run"]
fn progress_keeps_a_slow_answer_alive_when_the_client_resets_its_timeout() {
    let _heavy = common::heavy::heavy("mcp_node");
    // The person answers at the first progress notification after the client's request timeout
    // (5 s) has passed: the call outlived its timeout.
    let seen = node_client("v1", "slow");
    assert_eq!(
        seen["calls"]["slow"]["text"], r#"{"answers":{"Which database should we use?":"SQLite"}}"#,
        "{seen}"
    );
    assert!(seen["progress"].as_u64().unwrap() >= 2, "{seen}");
    assert!(
        seen["elapsedMs"].as_u64().unwrap() > seen["timeoutMs"].as_u64().unwrap(),
        "{seen}"
    );
    // Without the reset the same call is cut at the timeout (the person answers only once it
    // was): the progress is what kept it.
    let cut = node_client("v1", "slow-no-reset");
    assert!(
        cut["calls"]["slow"]["error"]
            .as_str()
            .unwrap()
            .contains("timed out"),
        "{cut}"
    );
}

//! Helpers shared by the end-to-end tests of the `ask-user` binary.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

pub mod mcp_raw;
pub mod pty;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

/// The path of a file in `examples/`.
pub fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples")
        .join(name)
}

/// The `ask-user` binary with none of its environment variables set.
pub fn ask_user() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_ask-user"));
    for var in [
        "ASK_USER_PENDING_FILE",
        "ASK_USER_SUBAGENT",
        "ASK_USER_SESSION",
        "ASK_USER_NO_TTY",
        "ASK_USER_HOST",
    ] {
        command.env_remove(var);
    }
    command
}

/// `ask-user` in a new session, so it has no controlling terminal, as in CI or a pipe.
pub fn ask_user_without_terminal() -> Command {
    let plain = ask_user();
    let mut command = Command::new("setsid");
    command.arg(plain.get_program());
    for var in [
        "ASK_USER_PENDING_FILE",
        "ASK_USER_SUBAGENT",
        "ASK_USER_SESSION",
        "ASK_USER_NO_TTY",
        "ASK_USER_HOST",
    ] {
        command.env_remove(var);
    }
    command
}

/// Runs `ask-user ARGS` in `dir` with no terminal and no stdin.
pub fn run_in(dir: &Path, args: &[&str]) -> Output {
    ask_user_without_terminal()
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .expect("ask-user runs")
}

/// Runs `ask-user ARGS` with `input` on stdin.
pub fn run_with_stdin(args: &[&str], input: &[u8]) -> Output {
    let mut child = ask_user()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    // A separate writer, so that a large input cannot deadlock against a full stdout pipe.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap();
    output
}

/// stdout as one JSON document; fails the test with both streams otherwise.
pub fn stdout_json(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not one JSON document ({e}): {:?}\nstderr: {}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

/// stderr as text.
pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

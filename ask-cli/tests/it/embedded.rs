//! `ask-user --mode embedded` end to end: a host's messages on stdin, frames and the result on
//! stdout.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::common::SpawnPiped;

use std::io::{BufRead, BufReader, Write};

use common::example;
use serde_json::{Value, json};

/// A running `ask-user --mode embedded` and its output lines.
struct Host {
    child: std::process::Child,
    lines: BufReader<std::process::ChildStdout>,
}

impl Host {
    fn start(args: &[&str]) -> Host {
        let mut child = common::ask_user()
            .args(["--mode", "embedded", "--no-notify"])
            .args(args)
            .spawn_piped();
        let lines = BufReader::new(child.stdout.take().unwrap());
        Host { child, lines }
    }

    fn send(&mut self, message: Value) {
        let stdin = self.child.stdin.as_mut().unwrap();
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    }

    fn next(&mut self) -> Value {
        let mut line = String::new();
        self.lines.read_line(&mut line).unwrap();
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"))
    }

    /// The next frame, as plain text without its SGR styling.
    fn frame(&mut self) -> Vec<String> {
        let message = self.next();
        assert_eq!(message["type"], "frame", "{message}");
        message["lines"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| plain(l.as_str().unwrap()))
            .collect()
    }
}

fn plain(line: &str) -> String {
    let mut out = String::new();
    let mut escape = false;
    for c in line.chars() {
        match (escape, c) {
            (false, '\x1b') => escape = true,
            (true, 'm') => escape = false,
            (true, _) => {}
            (false, c) => out.push(c),
        }
    }
    out
}

#[test]
fn a_host_draws_the_frames_and_gets_the_tool_output() {
    let call = example("project-setup.json");
    let dir = tempfile::tempdir().unwrap();
    let session = dir.path().join("s.jsonl");
    let mut host = Host::start(&[
        "--output",
        "tool",
        "--session",
        session.to_str().unwrap(),
        "--call-id",
        "e1",
        call.to_str().unwrap(),
    ]);
    let first = host.frame();
    assert!(
        first
            .iter()
            .any(|l| l.contains("Which database should we use?"))
    );
    host.send(json!({"type": "size", "width": 40, "maxHeight": 12}));
    let narrow = host.frame();
    assert!(narrow.len() <= 12, "{narrow:#?}");
    assert!(
        narrow.iter().all(|l| l.chars().count() <= 40),
        "{narrow:#?}"
    );
    // A line the host gets wrong is an error line; the ask carries on.
    host.send(json!({"type": "resize"}));
    assert_eq!(host.next()["type"], "error");
    host.send(json!({"type": "theme", "roles": {"accent": "31m\u{1b}[2J"}}));
    let refused = host.next();
    assert_eq!(refused["type"], "error");
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .contains("theme role `accent`"),
        "{refused}"
    );
    // The host's colours: the highlighted option in its accent.
    host.send(json!({"type": "theme", "roles": {"accent": "38;5;39"}}));
    let themed = host.next();
    assert!(
        themed["lines"].to_string().contains("\\u001b[1;38;5;39m"),
        "{themed}"
    );
    // Down, Enter; then the name, typed and sent; then submit.
    host.send(json!({"type": "input", "data": "\u{1b}[B\r"}));
    let second = host.frame();
    assert!(
        second.iter().any(|l| l.contains("■ Database")),
        "{second:#?}"
    );
    host.send(json!({"type": "input", "data": "orders\r"}));
    host.frame();
    host.send(json!({"type": "input", "data": "\r"}));
    let result = host.next();
    assert_eq!(result["type"], "ask_user_result", "{result}");
    assert_eq!(
        result["toolOutput"]["content"],
        r#"{"answers":{"Which database should we use?":"SQLite","What should we name this service?":"orders"}}"#
    );
    assert_eq!(result["toolOutput"]["details"]["mode"], "embedded");
    assert!(host.child.wait().unwrap().success());
    let log = std::fs::read_to_string(&session).unwrap();
    assert!(log.contains("\"mode\":\"embedded\""), "{log}");
}

#[test]
fn ctrl_c_twice_is_the_interrupted_output_and_a_gone_host_is_connection_lost() {
    let call = example("project-setup.json");
    let mut host = Host::start(&["--output", "tool", call.to_str().unwrap()]);
    host.frame();
    host.send(json!({"type": "input", "data": "1\u{3}"}));
    host.frame();
    host.send(json!({"type": "input", "data": "\u{3}"}));
    let output = host.next();
    assert_eq!(output["isError"], true, "{output}");
    assert!(output["content"].as_str().unwrap().contains("Ctrl+C twice"));
    assert_eq!(host.child.wait().unwrap().code(), Some(130));

    let mut host = Host::start(&[call.to_str().unwrap()]);
    host.frame();
    drop(host.child.stdin.take());
    let result = host.next();
    assert_eq!(result["result"]["connectionLost"], true, "{result}");
    assert_eq!(host.child.wait().unwrap().code(), Some(5));
}

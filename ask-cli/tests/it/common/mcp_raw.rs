//! A plain JSON-lines MCP client for `ask-user mcp`, for the tests that need no MCP SDK.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::Command;

use super::SpawnPiped;

use serde_json::{Value, json};

/// One line of the server's stdout as JSON; every line must be an MCP message.
pub(crate) fn read_message(lines: &mut impl Iterator<Item = std::io::Result<String>>) -> Value {
    let line = lines.next().expect("a message").expect("a line");
    let message: Value = serde_json::from_str(&line)
        .unwrap_or_else(|e| panic!("stdout carries a line that is not JSON ({e}): {line}"));
    assert_eq!(message["jsonrpc"], "2.0", "{line}");
    message
}

/// Sends one message as a JSON line.
pub(crate) fn send_line(stdin: &mut impl Write, message: &Value) {
    writeln!(stdin, "{message}").unwrap();
    stdin.flush().unwrap();
}

/// The name an `ask-user mcp ARGS` server serves the tool under: `--tool-name NAME` when the
/// arguments give one.
pub(crate) fn tool_name<'a>(args: &[&'a str]) -> &'a str {
    args.iter()
        .position(|a| *a == "--tool-name")
        .and_then(|i| args.get(i + 1).copied())
        .unwrap_or("ask_user")
}

/// `ask-user mcp ARGS` in `dir`, without a terminal, after the initialize handshake of a
/// plain JSON-lines client that declares `capabilities`: the server, its stdin and its stdout's
/// lines.
pub(crate) fn raw_session(
    args: &[&str],
    dir: &Path,
    capabilities: Value,
) -> (
    std::process::Child,
    std::process::ChildStdin,
    std::io::Lines<BufReader<std::process::ChildStdout>>,
) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_ask-user"));
    command
        .arg("mcp")
        .args(args)
        .current_dir(dir)
        .env("ASK_USER_NO_TTY", "1")
        // No display and no browser: the page is only for a person the test sets up.
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env("ASK_USER_NO_OPEN", "1")
        .env_remove("ASK_USER_SUBAGENT")
        .env_remove("ASK_USER_PENDING_FILE");
    raw_session_of(command, capabilities)
}

/// The MCP server `command` (set up but for its standard streams) after the initialize
/// handshake of a plain JSON-lines client that declares `capabilities`.
pub(crate) fn raw_session_of(
    command: Command,
    capabilities: Value,
) -> (
    std::process::Child,
    std::process::ChildStdin,
    std::io::Lines<BufReader<std::process::ChildStdout>>,
) {
    raw_session_as(command, capabilities, "raw")
}

/// [`raw_session_of`] for a client that gives `client` as its `clientInfo.name`.
pub(crate) fn raw_session_as(
    mut command: Command,
    capabilities: Value,
    client: &str,
) -> (
    std::process::Child,
    std::process::ChildStdin,
    std::io::Lines<BufReader<std::process::ChildStdout>>,
) {
    let mut server = command.spawn_piped();
    let mut stdin = server.stdin.take().unwrap();
    let mut lines = BufReader::new(server.stdout.take().unwrap()).lines();
    send_line(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": capabilities,
            "clientInfo": {"name": client, "version": "1"}
        }}),
    );
    let init = read_message(&mut lines);
    assert_eq!(init["id"], 1);
    assert_eq!(init["result"]["serverInfo"]["name"], "ask-user");
    send_line(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
    (server, stdin, lines)
}

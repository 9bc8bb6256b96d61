//! Each example of the README's "Wiring ask-user into an agent" table, read from the README
//! itself: the command or configuration is parsed, the `ask-user` command it names is run, and a
//! call is answered through it.
//!
//! Each example starts `ask-user` as installed from a clone, and the line after it, "From a
//! release: …", starts the same with `npx -y ask-user@VERSION …`: the version must be this
//! crate's, and the binary under test stands in for both (`tests/it/packages.rs` installs the
//! real package and runs it the same way). Both forms are run.
//!
//! pi's row installs the pi package of `integrations/pi`, from the clone's folder or as the npm
//! package `pi-ask-user`: its manifest is checked and the flags it gives every ask are read from
//! its source and run.
//!
//! The MCP configurations start `ask-user mcp` as the agent would and call the tool over stdio
//! (a client without form elicitation, so the questions wait in the pending file, which
//! `ask-user -p --answers` then answers). The TypeScript hosts are read for the arguments they
//! pass to `ask-user`, which is run with the call on stdin as they run it.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::Path;

use common::mcp_raw::{raw_session, read_message, send_line, tool_name};
use common::{run_in, stderr, stdout_json};
use serde_json::{Value, json};

fn readme() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md")).unwrap()
}

/// The code block that follows `<!-- wiring: NAME -->` in the README: the clone's form.
fn example(name: &str) -> String {
    let readme = readme();
    let marker = format!("<!-- wiring: {name} -->\n```");
    let start = readme
        .find(&marker)
        .unwrap_or_else(|| panic!("no {name} example"));
    let block = &readme[start + marker.len()..];
    let block = &block[block.find('\n').unwrap() + 1..];
    block[..block.find("\n```").unwrap()].to_string()
}

/// The code spans of the line "From a release: …" after the example `name`: the release's form.
fn release(name: &str) -> Vec<String> {
    let readme = readme();
    let marker = format!("<!-- wiring: {name} -->\n```");
    let start = readme.find(&marker).unwrap() + marker.len();
    let after = &readme[start..];
    let after = &after[after.find("\n```\n").unwrap() + 5..];
    let line = after
        .lines()
        .find(|line| !line.is_empty())
        .unwrap_or_default();
    let spans = line
        .strip_prefix("From a release: ")
        .unwrap_or_else(|| panic!("no release line after the {name} example: {line}"));
    spans
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// The command of the `spawnSync(PROGRAM, [ … ])` call in a TypeScript example.
fn spawn_command(code: &str) -> Vec<String> {
    let start = code.find("spawnSync(").unwrap() + "spawnSync(".len();
    let comma = start + code[start..].find(", [").unwrap();
    let end = comma + code[comma..].find(']').unwrap() + 1;
    let mut command = vec![serde_json::from_str::<String>(&code[start..comma]).unwrap()];
    command.extend(serde_json::from_str::<Vec<String>>(&code[comma + 2..end]).unwrap());
    command
}

/// The arguments of `ask-user` in a command of either form: `ask-user ARGS` from a clone, or
/// `npx -y ask-user@VERSION ARGS` from a release, whose version must be this crate's.
fn installed_args(command: &[String]) -> Vec<String> {
    if command[0] == "ask-user" {
        return command[1..].to_vec();
    }
    let package = format!("ask-user@{}", env!("CARGO_PKG_VERSION"));
    assert_eq!(command[..3], ["npx", "-y", package.as_str()], "{command:?}");
    command[3..].to_vec()
}

/// The words after `--` of a `claude mcp add ask-user -- COMMAND` line.
fn claude_server(line: &str) -> Vec<String> {
    let words: Vec<String> = line.split_whitespace().map(str::to_string).collect();
    assert_eq!(words[..4], ["claude", "mcp", "add", "ask-user"]);
    words[words.iter().position(|w| w == "--").unwrap() + 1..].to_vec()
}

/// Starts `ask-user ARGS` (an MCP server command from a configuration), calls `ask_user`, and
/// answers the pending questions: the answered result.
fn answer_through_mcp(command: &[String]) -> Value {
    let args = installed_args(command);
    assert_eq!(args[0], "mcp", "{command:?}");
    let rest: Vec<&str> = args[1..].iter().map(String::as_str).collect();
    let name = tool_name(&rest);
    let dir = tempfile::tempdir().unwrap();
    let (mut server, mut stdin, mut lines) = raw_session(&rest, dir.path(), json!({}));
    send_line(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": name,
            "arguments": {"questions": [{"question": "Which database?", "options": [{"label": "Postgres"}, {"label": "SQLite"}]}]}}}),
    );
    let reply = read_message(&mut lines);
    let message = reply["result"]["structuredContent"]["message"]
        .as_str()
        .unwrap();
    assert!(
        message.starts_with("Questions pending: the user has not answered yet."),
        "{reply}"
    );
    drop(stdin);
    server.wait().unwrap();
    let answered = run_in(dir.path(), &["-p", "--answers", r#"["sqlite"]"#]);
    assert_eq!(answered.status.code(), Some(0), "{}", stderr(&answered));
    stdout_json(&answered)
}

/// Runs `ask-user ARGS` with `call` in `dir` as a host does when no terminal is there (the
/// questions wait), then answers them: the pending and the answered stdout.
fn answer_through_host(args: &[String], call: &Value, answers: &str) -> (Value, Value) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("call.json"), call.to_string()).unwrap();
    let mut first: Vec<&str> = args.iter().map(String::as_str).collect();
    first.push("call.json");
    let pending = run_in(dir.path(), &first);
    assert_eq!(pending.status.code(), Some(4), "{}", stderr(&pending));
    let mut second: Vec<&str> = args.iter().map(String::as_str).collect();
    second.extend(["-p", "--answers", answers]);
    let answered = run_in(dir.path(), &second);
    assert_eq!(answered.status.code(), Some(0), "{}", stderr(&answered));
    (stdout_json(&pending), stdout_json(&answered))
}

#[test]
fn claude_code_mcp_command() {
    let release = release("claude-code");
    for line in [example("claude-code").as_str(), release[0].as_str()] {
        let result = answer_through_mcp(&claude_server(line));
        assert_eq!(result["answers"][0]["answer"], "SQLite", "{line}");
    }
    assert_eq!(claude_server(&release[0])[0], "npx");
}

/// `key = value` lines or spans of TOML whose values are JSON: the command and its arguments.
fn toml_command<'a>(lines: impl Iterator<Item = &'a str> + Clone) -> Vec<String> {
    let value = |key: &str| -> Value {
        let line = lines.clone().find(|l| l.starts_with(key)).unwrap();
        serde_json::from_str(line.split_once('=').unwrap().1.trim()).unwrap()
    };
    let mut command = vec![value("command").as_str().unwrap().to_string()];
    command.extend(serde_json::from_value::<Vec<String>>(value("args")).unwrap());
    command
}

#[test]
fn codex_mcp_config() {
    let toml = example("codex");
    assert!(toml.starts_with("[mcp_servers.ask-user]"), "{toml}");
    let clone = toml_command(toml.lines());
    let spans = release("codex");
    let released = toml_command(spans.iter().map(String::as_str));
    assert_eq!(released[0], "npx");
    for command in [clone, released] {
        let result = answer_through_mcp(&command);
        assert_eq!(result["answers"][0]["answer"], "SQLite", "{command:?}");
    }
}

/// The JSON members of a release line's spans, as one object.
fn members(spans: &[String]) -> Value {
    serde_json::from_str(&format!("{{{}}}", spans.join(", "))).unwrap()
}

#[test]
fn opencode_mcp_config() {
    let config: Value = serde_json::from_str(&example("opencode")).unwrap();
    let server = &config["mcp"]["ask-user"];
    assert_eq!(server["type"], "local");
    let released = members(&release("opencode"));
    assert_eq!(released["command"][0], "npx");
    for command in [&server["command"], &released["command"]] {
        let command: Vec<String> = serde_json::from_value(command.clone()).unwrap();
        let result = answer_through_mcp(&command);
        assert_eq!(result["answers"][0]["answer"], "SQLite", "{command:?}");
    }
}

#[test]
fn gemini_cli_mcp_config() {
    let config: Value = serde_json::from_str(&example("gemini")).unwrap();
    let server = &config["mcpServers"]["ask-user"];
    // Gemini CLI hides a tool named like its built-in `ask_user`, and offers tools to `gemini -p`
    // only from a trusted server.
    assert_eq!(server["trust"], true, "{config}");
    let released = members(&release("gemini"));
    assert_eq!(released["command"], "npx");
    for server in [server, &released] {
        let mut command = vec![server["command"].as_str().unwrap().to_string()];
        command.extend(serde_json::from_value::<Vec<String>>(server["args"].clone()).unwrap());
        assert!(command.ends_with(&["--tool-name".into(), "ask_person".into()]));
        let result = answer_through_mcp(&command);
        assert_eq!(result["answers"][0]["answer"], "SQLite", "{command:?}");
    }
}

#[test]
fn agent_sdk_can_use_tool_gets_updated_input() {
    let code = example("agent-sdk");
    assert!(code.contains("toolName !== \"AskUserQuestion\""), "{code}");
    let released = spawn_command(&release("agent-sdk")[0]);
    assert_eq!(released[0], "npx");
    for command in [spawn_command(&code), released] {
        let args = installed_args(&command);
        // Claude Code's AskUserQuestion input, as canUseTool receives it.
        let input = json!({"questions": [{"question": "Which database?", "header": "Database", "multiSelect": false,
            "options": [{"label": "Postgres", "description": "Server"}, {"label": "SQLite", "description": "File"}]}]});
        let (pending, answered) = answer_through_host(&args, &input, r#"["sqlite"]"#);
        assert_eq!(pending["answers"], json!({}));
        assert!(
            pending["message"]
                .as_str()
                .unwrap()
                .starts_with("Questions pending.")
        );
        // What the host returns as updatedInput: the questions and the answers.
        assert_eq!(answered["questions"], input["questions"]);
        assert_eq!(answered["answers"], json!({"Which database?": "SQLite"}));
    }
}

#[test]
fn pi_package_answers_with_its_flags() {
    // From the clone's folder, or as the npm package of that name and version.
    assert_eq!(example("pi"), "pi install ./integrations/pi");
    let spec = format!("npm:pi-ask-user@{}", env!("CARGO_PKG_VERSION"));
    assert_eq!(release("pi"), [format!("pi install {spec}")]);
    let package = Path::new(env!("CARGO_MANIFEST_DIR")).join("../integrations/pi");
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(package.join("package.json")).unwrap()).unwrap();
    assert_eq!(manifest["name"], "pi-ask-user");
    assert_eq!(manifest["version"], env!("CARGO_PKG_VERSION"));
    // The flags the package gives every ask (`sharedFlags` in ask-user.ts), with its paths.
    let source = std::fs::read_to_string(package.join("ask-user.ts")).unwrap();
    let start = source.find("const flags = [").unwrap() + "const flags = ".len();
    let end = start + source[start..].find(']').unwrap() + 1;
    let list = source[start..end]
        .replace(", session", ", \"session.jsonl\"")
        .replace(", pending", ", \"pending.json\"");
    let mut args: Vec<String> = serde_json::from_str(&list).unwrap();
    args.extend(["--call-id".to_string(), "toolu_7".to_string()]);
    let call = json!({"questions": [{"question": "Which database?", "options": [{"label": "Postgres"}, {"label": "SQLite"}]}]});
    let (pending, answered) = answer_through_host(&args, &call, r#"["postgres"]"#);
    let content = pending["content"].as_str().unwrap();
    assert!(content.contains("pi -c -p"), "{content}");
    assert_eq!(
        answered["content"],
        r#"{"answers":{"Which database?":"Postgres"}}"#
    );
}

//! `ask-user mcp` in the real terminal agents (the versions pinned in `tests/hosts/package.json`):
//! Codex CLI, Gemini CLI, OpenCode and Claude Code, each wired as the README's "Wiring ask-user
//! into an agent" says (in a home folder of its own), each driven in its headless mode against
//! the stand-in model of `tests/hosts/model.py`, which calls the tool with a single-choice and a
//! multi-select question and records the tool result the host gave it.
//!
//! Each host and the stand-in run inside a network namespace that has only loopback
//! (`unshare -rn`, then `tests/hosts/netns.sh`), with no controlling terminal, telemetry and
//! update checks off, and the built `ask-user` first on `PATH`. A test that needs to see the MCP
//! messages puts `tests/hosts/mcp_tap.py` in front of the binary.
//!
//! They need node, `unshare` and `ip` (util-linux, iproute2) and
//! `(cd ask-cli/tests/hosts && npm ci)`; `.ci/run` installs the hosts.

// Each test prints what the host did (its output, what it declared, how it answered the forms),
// which `--nocapture` shows: the record of how each pinned host treats the tool.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

use crate::common;

use common::slots::{Slot, Slots};

use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use common::pty::{DOWN, ENTER, Session};
use serde_json::{Value, json};

/// The port of the stand-in model: every stage has a network namespace of its own, so one fixed
/// port never clashes.
const PORT: u16 = 8765;

/// How long one run of a host may take (`timeout` in `netns.sh` ends it after that).
const HOST_LIMIT: Duration = Duration::from_secs(150);

/// How long the test waits for `netns.sh` itself, past [`HOST_LIMIT`], before it kills it.
const GRACE: Duration = Duration::from_secs(20);

fn hosts_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hosts")
}

/// The folder of the `ask-user` binary under test, put first on the host's PATH.
fn bin_dir() -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_ask-user"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The python that runs the stand-in model and the tap: the one on the test's PATH, named by
/// its full path because the hosts run with a home folder of their own.
fn python() -> String {
    let output = Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .expect("python3 runs");
    String::from_utf8(output.stdout).unwrap().trim().to_string()
}

/// The call the stand-in model makes: a single-choice and a multi-select question.
fn call() -> Value {
    json!({"questions": [
        {"question": "Which database should we use?", "header": "Database",
         "options": [{"label": "PostgreSQL", "description": "Battle-tested"},
                     {"label": "SQLite", "description": "One file"}]},
        {"question": "Which features should we enable?", "header": "Features", "multiSelect": true,
         "options": [{"label": "Auth"}, {"label": "Search"}, {"label": "Billing"}]}]})
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Host {
    Codex,
    Gemini,
    OpenCode,
    Claude,
}

impl Host {
    /// The pinned host's command, or a failure that says how to install it.
    fn bin(self) -> PathBuf {
        let name = match self {
            Host::Codex => "codex",
            Host::Gemini => "gemini",
            Host::OpenCode => "opencode",
            Host::Claude => "claude",
        };
        let bin = hosts_dir().join("node_modules/.bin").join(name);
        assert!(
            bin.exists(),
            "{name} is not installed: run `(cd ask-cli/tests/hosts && npm ci)` (needs node and npm)"
        );
        bin
    }

    /// The arguments of the headless run that sends `prompt`.
    fn headless(self, prompt: &str) -> Vec<String> {
        let args: &[&str] = match self {
            Host::Codex => &["exec", "--skip-git-repo-check", prompt],
            Host::Gemini => &["-p", prompt],
            Host::OpenCode => &["run", prompt],
            Host::Claude => &["-p", prompt],
        };
        args.iter().map(|arg| arg.to_string()).collect()
    }
}

/// How many stages run at once: each host is a large program, and more of them at once on a
/// small machine slow them past their own time limits.
static SLOTS: Slots = Slots::new(2);

/// What one run of a host left.
struct Run {
    status: ExitStatus,
    stdout: String,
    stderr: String,
    seconds: f64,
}

impl Run {
    /// The stand-in for a run whose output is on a screen, not in files.
    fn none() -> Run {
        use std::os::unix::process::ExitStatusExt;
        Run {
            status: ExitStatus::from_raw(0),
            stdout: String::new(),
            stderr: String::new(),
            seconds: 0.0,
        }
    }
}

impl std::fmt::Display for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} after {:.1} s\n--- stdout\n{}\n--- stderr\n{}",
            self.status, self.seconds, self.stdout, self.stderr
        )
    }
}

/// A host wired to `ask-user mcp ARGS`, in a temporary folder (outside any git repository, so no
/// host takes the repository around it for the project) that holds its home, its project, the
/// stand-in model's records and, when tapped, the MCP transcript.
struct Stage {
    host: Host,
    /// The name `ask-user mcp` serves the tool under, which the stand-in model calls.
    tool: String,
    dir: tempfile::TempDir,
    python: String,
    _slot: Slot,
}

impl Drop for Stage {
    /// Ends every process still running from the stage's folder. Interactive Codex starts a
    /// daemon (`codex app-server --managed-daemon`, copied into its home) that runs the MCP
    /// servers and outlives the terminal session; the stand-in model and the tap name the folder
    /// too.
    fn drop(&mut self) {
        let dir = self.dir.path().display().to_string();
        for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
            let Some(pid) = entry
                .file_name()
                .to_str()
                .and_then(|n| n.parse::<u32>().ok())
            else {
                continue;
            };
            let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
            if pid != std::process::id() && String::from_utf8_lossy(&cmdline).contains(&dir) {
                let _ = Command::new("kill")
                    .args(["-KILL", &pid.to_string()])
                    .status();
            }
        }
    }
}

impl Stage {
    /// `host` with `ask-user mcp SERVER_ARGS` as the README wires it (for Gemini CLI, with the
    /// README's `--tool-name ask_person` unless SERVER_ARGS name the tool); `tap` records the
    /// MCP messages (see [`Stage::mcp`]).
    fn new(host: Host, server_args: &[&str], tap: bool) -> Stage {
        let mut server_args = server_args.to_vec();
        if host == Host::Gemini && !server_args.contains(&"--tool-name") {
            // Gemini CLI hides MCP tools named like its built-in `ask_user`.
            server_args.splice(0..0, ["--tool-name", "ask_person"]);
        }
        let tool = match server_args.iter().position(|arg| *arg == "--tool-name") {
            Some(at) => server_args[at + 1].to_string(),
            None => "ask_user".to_string(),
        };
        let slot = SLOTS.take();
        let dir = tempfile::tempdir().unwrap();
        for sub in ["home", "project", "log", "bin"] {
            std::fs::create_dir(dir.path().join(sub)).unwrap();
        }
        std::fs::write(dir.path().join("call.json"), call().to_string()).unwrap();
        let stage = Stage {
            host,
            tool,
            dir,
            python: python(),
            _slot: slot,
        };
        if tap {
            stage.install_tap();
        }
        stage.wire(&server_args);
        stage
    }

    fn path(&self, sub: &str) -> PathBuf {
        self.dir.path().join(sub)
    }

    fn project(&self) -> PathBuf {
        self.path("project")
    }

    /// The pending file `ask-user mcp` writes by default, relative to the project the host runs in.
    fn pending(&self) -> PathBuf {
        self.project().join(".pi/pending-questions.json")
    }

    /// An `ask-user` in the stage's own bin folder that runs the built one behind the tap.
    fn install_tap(&self) {
        let script = format!(
            "#!/bin/sh\nexec '{}' '{}' '{}' -- '{}' \"$@\"\n",
            self.python,
            hosts_dir().join("mcp_tap.py").display(),
            self.path("log/mcp.jsonl").display(),
            env!("CARGO_BIN_EXE_ask-user"),
        );
        let wrapper = self.path("bin/ask-user");
        std::fs::write(&wrapper, script).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    /// Writes the host's configuration: the README's wiring of `ask-user mcp`, plus the stand-in
    /// model as the host's provider, and telemetry and update checks off.
    fn wire(&self, server_args: &[&str]) {
        let mut args = vec!["mcp"];
        args.extend_from_slice(server_args);
        let home = self.path("home");
        let base = format!("http://127.0.0.1:{PORT}");
        match self.host {
            Host::Codex => {
                let args: Vec<String> = args.iter().map(|a| format!("{a:?}")).collect();
                let config = format!(
                    "model = \"stand-in\"\n\
                     model_provider = \"standin\"\n\
                     check_for_update_on_startup = false\n\
                     \n\
                     [analytics]\n\
                     enabled = false\n\
                     \n\
                     [model_providers.standin]\n\
                     name = \"stand-in\"\n\
                     base_url = \"{base}/v1\"\n\
                     wire_api = \"responses\"\n\
                     \n\
                     [mcp_servers.ask-user]\n\
                     command = \"ask-user\"\n\
                     args = [{}]\n",
                    args.join(", ")
                );
                std::fs::create_dir_all(home.join(".codex")).unwrap();
                std::fs::write(home.join(".codex/config.toml"), config).unwrap();
            }
            Host::Gemini => {
                let settings = json!({
                    "mcpServers": {"ask-user": {"command": "ask-user", "args": args, "trust": true}},
                    "security": {"auth": {"selectedType": "gemini-api-key"}},
                    "privacy": {"usageStatisticsEnabled": false},
                    "telemetry": {"enabled": false},
                    "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false}
                });
                std::fs::create_dir_all(home.join(".gemini")).unwrap();
                std::fs::write(home.join(".gemini/settings.json"), settings.to_string()).unwrap();
            }
            Host::OpenCode => {
                let mut command = vec!["ask-user"];
                command.extend(args);
                let config = json!({
                    "$schema": "https://opencode.ai/config.json",
                    "mcp": {"ask-user": {"type": "local", "command": command, "enabled": true}},
                    "provider": {"standin": {
                        "npm": "@ai-sdk/openai-compatible", "name": "stand-in",
                        "options": {"baseURL": format!("{base}/v1"), "apiKey": "stand-in"},
                        "models": {"stand-in": {"name": "stand-in", "tool_call": true}}}},
                    "model": "standin/stand-in",
                    "autoupdate": false,
                    "share": "disabled"
                });
                std::fs::create_dir_all(home.join(".config/opencode")).unwrap();
                std::fs::write(
                    home.join(".config/opencode/opencode.json"),
                    config.to_string(),
                )
                .unwrap();
            }
            Host::Claude => {
                // The README's own command: `claude mcp add ask-user -- ask-user mcp`.
                let mut add = vec!["mcp", "add", "ask-user", "--", "ask-user"];
                add.extend(args);
                let run = self.run(&add);
                assert!(run.status.success(), "claude mcp add failed: {run}");
            }
        }
    }

    /// The environment of a run: nothing from the test's own but PATH (with the stage's bin
    /// folder, then the built `ask-user`'s, first), and what the host needs to reach the
    /// stand-in model.
    fn env(&self) -> Vec<(String, String)> {
        let path = format!(
            "{}:{}:{}",
            self.path("bin").display(),
            bin_dir().display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let base = format!("http://127.0.0.1:{PORT}");
        let mut env: Vec<(&str, String)> = vec![
            ("PATH", path),
            ("HOME", self.path("home").display().to_string()),
            ("LANG", "C.UTF-8".into()),
            ("TERM", "dumb".into()),
            ("HOSTS_PYTHON", self.python.clone()),
            ("MODEL_PORT", PORT.to_string()),
            ("MODEL_LOG", self.path("log").display().to_string()),
            ("MODEL_LIFETIME", (HOST_LIMIT + GRACE).as_secs().to_string()),
            ("ASK_CALL", self.path("call.json").display().to_string()),
            ("ASK_TOOL", self.tool.clone()),
            (
                "ASK_DELEGATE",
                self.path("delegate.json").display().to_string(),
            ),
            ("HOST_LIMIT", HOST_LIMIT.as_secs().to_string()),
            ("HOST_CWD", self.project().display().to_string()),
        ];
        match self.host {
            Host::Codex => {}
            Host::Gemini => env.extend([
                ("GEMINI_API_KEY", "stand-in".into()),
                ("GOOGLE_GEMINI_BASE_URL", base),
                // A person runs `gemini -p` in a folder they trust.
                ("GEMINI_CLI_TRUST_WORKSPACE", "true".into()),
            ]),
            Host::OpenCode => env.extend([
                ("OPENCODE_DISABLE_MODELS_FETCH", "1".into()),
                ("OPENCODE_DISABLE_AUTOUPDATE", "1".into()),
            ]),
            Host::Claude => env.extend([
                ("ANTHROPIC_BASE_URL", base),
                ("ANTHROPIC_API_KEY", "stand-in".into()),
                ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".into()),
                ("DISABLE_AUTOUPDATER", "1".into()),
                ("DISABLE_TELEMETRY", "1".into()),
                ("DISABLE_ERROR_REPORTING", "1".into()),
                // `claude -p` sends the model's first turn without waiting for its MCP servers
                // unless told to wait: that turn lacks the tool whenever ask-user connects a
                // little late (docs/mcp.md says so to people).
                ("MCP_CONNECTION_NONBLOCKING", "false".into()),
            ]),
        }
        env.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
    }

    /// Runs the host with `args` in the stage's namespace, with no terminal and no input.
    fn run(&self, args: &[&str]) -> Run {
        self.run_with(args, &[])
    }

    /// [`Stage::run`] with the variables `env` set too, as a person's shell would have them.
    fn run_with(&self, args: &[&str], env: &[(&str, &str)]) -> Run {
        let out = self.path("log/host.out");
        let err = self.path("log/host.err");
        // A new session: no controlling terminal, and a process group of its own to end.
        let mut command = Command::new("setsid");
        command
            .args(["unshare", "-rn", "sh"])
            .arg(hosts_dir().join("netns.sh"))
            .arg(self.host.bin())
            .args(args)
            .env_clear()
            .envs(self.env())
            .envs(env.iter().copied())
            .current_dir(self.project())
            .stdin(Stdio::null())
            // Files, not pipes: a process the host left behind cannot keep the test waiting.
            .stdout(std::fs::File::create(&out).unwrap())
            .stderr(std::fs::File::create(&err).unwrap());
        let start = Instant::now();
        let mut child = command.spawn().expect("setsid and unshare run");
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if start.elapsed() > HOST_LIMIT + GRACE {
                let _ = Command::new("kill")
                    .args(["-KILL", "--", &format!("-{}", child.id())])
                    .status();
                let _ = child.kill();
                break child.wait().unwrap();
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        Run {
            status,
            stdout: std::fs::read_to_string(&out).unwrap_or_default(),
            stderr: std::fs::read_to_string(&err).unwrap_or_default(),
            seconds: start.elapsed().as_secs_f64(),
        }
    }

    /// Starts the host interactively in an 80×24 pseudo-terminal (its controlling terminal, in
    /// the foreground), inside the stage's namespace, with `args`. A person has used the host
    /// before: its first-run screens (Claude Code's onboarding and API key question, Codex's
    /// trust question) are answered in its configuration.
    fn interactive(&self, args: &[&str]) -> Session {
        match self.host {
            Host::Claude => {
                let path = self.path("home/.claude.json");
                let mut config: Value =
                    serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
                config["hasCompletedOnboarding"] = json!(true);
                config["theme"] = json!("dark");
                config["customApiKeyResponses"] = json!({"approved": ["stand-in"], "rejected": []});
                config["projects"][self.project().to_str().unwrap()]["hasTrustDialogAccepted"] =
                    json!(true);
                std::fs::write(&path, config.to_string()).unwrap();
            }
            Host::Codex => {
                let path = self.path("home/.codex/config.toml");
                let mut config = std::fs::read_to_string(&path).unwrap();
                config.push_str(&format!(
                    "\n[projects.{:?}]\ntrust_level = \"trusted\"\n",
                    self.project().display().to_string()
                ));
                std::fs::write(&path, config).unwrap();
            }
            Host::Gemini | Host::OpenCode => {}
        }
        let mut script = String::from("exec env -i");
        for (key, value) in self.env() {
            if key != "TERM" {
                script.push_str(&format!(" {key}='{value}'"));
            }
        }
        script.push_str(&format!(
            " TERM=xterm-256color HOST_FOREGROUND=1 unshare -rn sh '{}' '{}'",
            hosts_dir().join("netns.sh").display(),
            self.host.bin().display()
        ));
        for arg in args {
            script.push_str(&format!(" '{arg}'"));
        }
        Session::start(&script, &[])
    }

    /// Runs the host headless with a prompt that makes the stand-in call the tool; the run ends
    /// by itself, well within [`HOST_LIMIT`].
    fn headless(&self, extra: &[&str]) -> Run {
        self.headless_with(extra, &[])
    }

    /// [`Stage::headless`] with the variables `env` set too.
    fn headless_with(&self, extra: &[&str], env: &[(&str, &str)]) -> Run {
        let mut args = self.host.headless("please ask me");
        args.extend(extra.iter().map(|arg| arg.to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let run = self.run_with(&args, env);
        eprintln!("{:?} {:?}: {run}", self.host, args);
        assert!(run.status.success(), "{:?} failed: {run}", self.host);
        run
    }

    /// The records of `name`, one JSON value a line. Reading what the stand-in model received
    /// (every record but the MCP transcript) checks that no page's link reached it.
    fn lines(&self, name: &str) -> Vec<Value> {
        if name != "mcp.jsonl" {
            self.assert_no_link_reached_the_model();
        }
        std::fs::read_to_string(self.path("log").join(name))
            .unwrap_or_default()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect()
    }

    /// Asserts that no link of a page (with its one-time token) reached the stand-in model: not
    /// in any request it received (the conversation, the tool results, whatever the host passes
    /// on of progress or log messages), nor in the results it recorded.
    fn assert_no_link_reached_the_model(&self) {
        for record in ["requests.jsonl", "results.jsonl", "delegations.jsonl"] {
            let text = std::fs::read_to_string(self.path("log").join(record)).unwrap_or_default();
            assert!(
                !text.contains("#token="),
                "{:?}: a page's link reached the model in {record}",
                self.host
            );
        }
    }

    /// The tool results the stand-in model received for its calls of the tool.
    fn results(&self) -> Vec<Value> {
        self.lines("results.jsonl")
    }

    /// The one tool result the model received, as text.
    fn result_text(&self, run: &Run) -> String {
        let results = self.results();
        assert_eq!(
            results.len(),
            1,
            "the model received one tool result: {results:#?}\n{run}"
        );
        results[0]["text"].as_str().unwrap().to_string()
    }

    /// The text of the one tool result the model received, taken out of the host's wrapping,
    /// which differs from host to host: Codex gives the model the result's `structuredContent`
    /// as JSON after a line with the call's wall time, Claude Code gives it `structuredContent`
    /// as JSON, Gemini CLI gives it the result's text inside `<untrusted_context>` tags, and
    /// OpenCode gives it the result's text as it is. From `structuredContent`, the text is its
    /// `message`, which repeats the result's text when the person did not answer.
    fn received_text(&self, run: &Run) -> String {
        self.unwrapped(self.result_text(run))
    }

    /// The text of a tool result the model received as `text`, taken out of the host's wrapping
    /// (see [`Stage::received_text`]).
    fn unwrapped(&self, text: String) -> String {
        let structured = |json: &str| -> String {
            let value: Value = serde_json::from_str(json)
                .unwrap_or_else(|e| panic!("{e}: the model received {text}"));
            value["message"].as_str().unwrap().to_string()
        };
        match self.host {
            Host::Codex => {
                let (head, json) = text.split_once("\nOutput:\n").expect(&text);
                assert!(head.starts_with("Wall time: "), "{text}");
                structured(json)
            }
            Host::Claude => structured(&text),
            Host::Gemini => text
                .strip_prefix("<untrusted_context>\n")
                .and_then(|t| t.strip_suffix("\n</untrusted_context>"))
                .expect(&text)
                .to_string(),
            Host::OpenCode => text,
        }
    }

    /// The MCP messages between the host and `ask-user mcp` (only when tapped), in order.
    fn mcp(&self) -> Vec<Value> {
        self.lines("mcp.jsonl")
    }

    /// The first message from `from` whose method is `method`.
    fn mcp_message(&self, from: &str, method: &str) -> Option<Value> {
        self.mcp()
            .into_iter()
            .find(|entry| entry["from"] == from && entry["message"]["method"] == method)
    }

    /// What the host told `ask-user mcp` about itself: (protocol version, client name,
    /// capabilities), from its initialize request or, on the stateless protocol (2026-07-28),
    /// from the `_meta` of its `server/discover` request.
    fn client(&self) -> (String, String, Value) {
        let client = if let Some(init) = self.mcp_message("host", "initialize") {
            let params = &init["message"]["params"];
            (
                params["protocolVersion"].clone(),
                params["clientInfo"]["name"].clone(),
                params["capabilities"].clone(),
            )
        } else {
            let discover = self
                .mcp_message("host", "server/discover")
                .expect("the host started ask-user mcp and opened a session");
            let meta = &discover["message"]["params"]["_meta"];
            (
                meta["io.modelcontextprotocol/protocolVersion"].clone(),
                meta["io.modelcontextprotocol/clientInfo"]["name"].clone(),
                meta["io.modelcontextprotocol/clientCapabilities"].clone(),
            )
        };
        eprintln!("{:?} declared: {client:?}", self.host);
        (
            client.0.as_str().unwrap().to_string(),
            client.1.as_str().unwrap().to_string(),
            client.2,
        )
    }

    /// Whether the host called the tool over MCP.
    fn called_over_mcp(&self) -> bool {
        self.mcp_message("host", "tools/call").is_some()
    }

    /// The host's answers to the forms ask-user sent, in order: (action, milliseconds from the
    /// form to the answer). A form is an `elicitation/create` request, or on the stateless
    /// protocol an input-required result that the host answers in its next `tools/call`.
    fn form_replies(&self) -> Vec<(String, f64)> {
        let mcp = self.mcp();
        let mut replies = Vec::new();
        for (at, entry) in mcp.iter().enumerate() {
            let message = &entry["message"];
            let later = &mcp[at + 1..];
            let reply = if entry["from"] != "server" {
                None
            } else if message["method"] == "elicitation/create" {
                later
                    .iter()
                    .find(|e| {
                        e["from"] == "host"
                            && e["message"]["id"] == message["id"]
                            && e["message"]["method"].is_null()
                    })
                    .map(|e| (e, e["message"]["result"]["action"].clone()))
            } else if message["result"]["resultType"] == "input_required" {
                later
                    .iter()
                    .find(|e| e["from"] == "host" && e["message"]["method"] == "tools/call")
                    .map(|e| {
                        let responses = &e["message"]["params"]["inputResponses"];
                        let first = responses.as_object().and_then(|r| r.values().next());
                        (e, first.map_or(Value::Null, |r| r["action"].clone()))
                    })
            } else {
                None
            };
            if let Some((reply, action)) = reply {
                let ms = reply["ms"].as_f64().unwrap() - entry["ms"].as_f64().unwrap();
                let action = action
                    .as_str()
                    .map_or_else(|| reply.to_string(), str::to_string);
                replies.push((action, ms));
            } else if entry["from"] == "server"
                && (message["method"] == "elicitation/create"
                    || message["result"]["resultType"] == "input_required")
            {
                replies.push(("no answer".to_string(), f64::INFINITY));
            }
        }
        eprintln!("{:?} answered the forms: {replies:?}", self.host);
        replies
    }

    /// The tools the host offered the model with its prompt (the first request that offered any).
    fn offered_tools(&self) -> Vec<String> {
        self.lines("requests.jsonl")
            .into_iter()
            .map(|request| request["tools"].clone())
            .find(|tools| tools.as_array().is_some_and(|t| !t.is_empty()))
            .and_then(|tools| serde_json::from_value(tools).ok())
            .unwrap_or_default()
    }

    /// The host's `clientInfo.name`.
    fn client_name(&self) -> &'static str {
        match self.host {
            Host::Codex => "codex-mcp-client",
            Host::Gemini => "gemini-cli-mcp-client",
            Host::OpenCode => "opencode",
            Host::Claude => "claude-code",
        }
    }

    /// The terminal ask-user found at the call: as the tap recorded it, else none (a headless
    /// run in a session of its own has no controlling terminal).
    fn terminal(&self) -> ask_print::Terminal {
        if !self.path("log/mcp.jsonl").exists() {
            return ask_print::Terminal::Absent;
        }
        let terminal = self.terminal_at_call();
        let canonical = terminal["canonical"] == true && terminal["echo"] == true;
        ask_print::Terminal::of(terminal["opens"] == true, canonical)
    }

    /// The pending result this host's model gets for the two questions waiting in `file`: in
    /// the words of the host, the way it runs and the tool's name as served, with ask-user named
    /// by the absolute path of the binary under test.
    fn expected_pending(&self, file: &Path) -> String {
        ask_print::pending_instructions(&ask_print::PendingCall {
            client: Some(self.client_name()),
            terminal: self.terminal(),
            file: &file.display().to_string(),
            questions: 2,
            names: &common::names(&self.tool),
        })
    }

    /// Asserts the file route: the model received the pending-file instructions as the tool
    /// result, naming who answers in this host, and the pending file holds both questions, the
    /// second a multi-select one.
    fn assert_pending_instructions(&self, run: &Run) {
        let text = self.received_text(run);
        let pending = self.pending();
        assert_eq!(text, self.expected_pending(&pending));
        // The text names the tool as served, and no `ask-user` that the host's shell might not
        // find.
        assert!(
            text.contains(&format!("call {} again", self.tool)),
            "{text}"
        );
        let own = format!("{} -p --answers", common::names(&self.tool).program());
        assert!(text.contains(&own), "{text}");
        assert!(!text.contains(" ask-user -p"), "{text}");
        let file: Value = serde_json::from_slice(&std::fs::read(&pending).unwrap()).unwrap();
        let questions: Vec<(&str, bool)> = file["questions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|q| {
                (
                    q["question"].as_str().unwrap(),
                    q["multiSelect"].as_bool().unwrap_or(false),
                )
            })
            .collect();
        assert_eq!(
            questions,
            [
                ("Which database should we use?", false),
                ("Which features should we enable?", true)
            ]
        );
    }
}

// The file route (`ask-user mcp --present file`): in every host's headless mode, the model gets
// the pending-file instructions as the tool result.

#[test]
#[ignore = "needs Codex CLI from npm, unshare and ip; run by .ci/run"]
fn codex_exec_file_route_gives_the_model_the_pending_instructions() {
    let _heavy = common::heavy::heavy("hosts");
    let stage = Stage::new(Host::Codex, &["--present", "file"], false);
    let run = stage.headless(&[]);
    stage.assert_pending_instructions(&run);
}

#[test]
#[ignore = "needs Gemini CLI from npm, unshare and ip; run by .ci/run"]
fn gemini_p_file_route_gives_the_model_the_pending_instructions() {
    let _heavy = common::heavy::heavy("hosts");
    let stage = Stage::new(Host::Gemini, &["--present", "file"], false);
    let run = stage.headless(&[]);
    stage.assert_pending_instructions(&run);
}

#[test]
#[ignore = "needs OpenCode from npm, unshare and ip; run by .ci/run"]
fn opencode_run_file_route_gives_the_model_the_pending_instructions() {
    let _heavy = common::heavy::heavy("hosts");
    let stage = Stage::new(Host::OpenCode, &["--present", "file"], false);
    let run = stage.headless(&[]);
    stage.assert_pending_instructions(&run);
}

#[test]
#[ignore = "needs Claude Code from npm, unshare and ip; run by .ci/run"]
fn claude_p_file_route_gives_the_model_the_pending_instructions() {
    let _heavy = common::heavy::heavy("hosts");
    let stage = Stage::new(Host::Claude, &["--present", "file"], false);
    // `claude -p` runs an MCP tool only when it is allowed beforehand.
    let run = stage.headless(&["--allowedTools", "mcp__ask-user__ask_user"]);
    stage.assert_pending_instructions(&run);
}

// The file route closes its loop in every host's headless mode, by the commands the model was
// told to give the person: the person answers from their own shell with the command the text
// names (run as written, in a login shell whose PATH has no ask-user), and runs the host again
// with the command the text names to continue the session, whose model calls the tool again and
// receives the answers; the pending file is then gone.

impl Stage {
    /// Runs the pass-2 command that `text` names (its last line that gives `--answers`, without
    /// a leading `!`), with the person's answers in place of the example, in a login shell with
    /// a bare PATH, as OpenCode's `!` runs it and as a person's own shell would; asserts that it
    /// took the answers.
    fn run_named_answer(&self, text: &str) {
        let line = text
            .lines()
            .rfind(|line| line.contains(" -p --answers "))
            .unwrap_or_else(|| panic!("no command with --answers in {text}"));
        let command = line.trim_start().trim_start_matches('!').replace(
            r#"'["answer 1", "answer 2"]'"#,
            r#"'["PostgreSQL", ["Auth", "Search"]]'"#,
        );
        let output = Command::new("bash")
            .args(["-lc", &command])
            .env_clear()
            .env("HOME", self.path("home"))
            .env("PATH", "/usr/bin:/bin")
            .current_dir(self.project())
            .stdin(Stdio::null())
            .output()
            .unwrap();
        eprintln!("{:?} ran {command}: {output:?}", self.host);
        assert!(output.status.success(), "{command}: {output:?}");
        assert!(
            self.pending().exists(),
            "the answers wait for the model's call"
        );
    }

    /// Runs the command that `text` names to continue the session, with `extra` (the options
    /// of the first run) after it, headless as before.
    fn run_named_resume(&self, text: &str, extra: &[&str]) -> Run {
        let (_, after) = text
            .split_once("with the options they ran the agent with:\n  ")
            .unwrap_or_else(|| panic!("no command that continues the session in {text}"));
        let line = after.lines().next().unwrap();
        let words: Vec<&str> = line.split(' ').map(|word| word.trim_matches('"')).collect();
        let name = self.host.bin();
        assert_eq!(
            Some(words[0]),
            name.file_name().and_then(|n| n.to_str()),
            "{line}"
        );
        let mut args = words[1..].to_vec();
        if self.host == Host::Codex {
            args.push("--skip-git-repo-check");
        }
        args.extend_from_slice(extra);
        let run = self.run(&args);
        eprintln!("{:?} {args:?}: {run}", self.host);
        assert!(run.status.success(), "{:?} failed: {run}", self.host);
        run
    }
}

/// Runs the host headless, answers as the text tells the person, continues the session by the
/// command the text names, and asserts that the model then received the answers.
fn file_route_closes_its_loop(host: Host, extra: &[&str]) {
    let stage = Stage::new(host, &["--present", "file"], false);
    let run = stage.headless(extra);
    stage.assert_pending_instructions(&run);
    let text = stage.received_text(&run);
    // Headless: the person is sent to their own shell, not to a chat there is none of; Codex
    // cannot be told from its interactive screen, so it gets both routes, the chat first.
    let to_shell = text.find("answer from their own shell");
    let to_chat = text
        .find("into the chat")
        .or_else(|| text.find("with your shell tool"));
    match host {
        Host::Codex => assert!(to_chat < to_shell && to_shell.is_some(), "{text}"),
        _ => assert!(to_chat.is_none() && to_shell.is_some(), "{text}"),
    }
    let pending = stage.pending();
    stage.run_named_answer(&text);
    let again = stage.run_named_resume(&text, extra);
    let results = stage.results();
    assert_eq!(results.len(), 2, "{results:#?}\n{again}");
    let received = results[1]["text"].as_str().unwrap().to_string();
    assert!(!pending.exists(), "the call took the answers");
    let answers = json!({"answered": true, "answers": [
        {"question": "Which database should we use?", "answer": "PostgreSQL",
         "selectedOption": "PostgreSQL", "wasCustom": false},
        {"question": "Which features should we enable?", "answer": ["Auth", "Search"],
         "wasCustom": false}]});
    match host {
        // These hand the model the structured result, whose `message` is absent when answered.
        Host::Codex | Host::Claude => {
            let json = received
                .split_once("\nOutput:\n")
                .map_or(received.as_str(), |(_, j)| j);
            assert_eq!(
                serde_json::from_str::<Value>(json).unwrap(),
                answers,
                "{received}"
            );
        }
        Host::Gemini | Host::OpenCode => assert_eq!(
            stage.unwrapped(received),
            r#"{"answers":{"Which database should we use?":"PostgreSQL","Which features should we enable?":"Auth, Search"}}
Multi-select answers: {"Which features should we enable?":{"picked":["Auth","Search"]}}"#
        ),
    }
}

#[test]
#[ignore = "needs Codex CLI from npm, unshare and ip; run by .ci/run"]
fn codex_exec_file_route_closes_its_loop_on_the_same_call() {
    let _heavy = common::heavy::heavy("hosts");
    file_route_closes_its_loop(Host::Codex, &[]);
}

#[test]
#[ignore = "needs Claude Code from npm, unshare and ip; run by .ci/run"]
fn claude_p_file_route_closes_its_loop_on_the_same_call() {
    let _heavy = common::heavy::heavy("hosts");
    file_route_closes_its_loop(Host::Claude, &["--allowedTools", "mcp__ask-user__ask_user"]);
}

#[test]
#[ignore = "needs Gemini CLI from npm, unshare and ip; run by .ci/run"]
fn gemini_p_file_route_closes_its_loop_on_the_same_call() {
    let _heavy = common::heavy::heavy("hosts");
    file_route_closes_its_loop(Host::Gemini, &[]);
}

#[test]
#[ignore = "needs OpenCode from npm, unshare and ip; run by .ci/run"]
fn opencode_run_file_route_closes_its_loop_on_the_same_call() {
    let _heavy = common::heavy::heavy("hosts");
    file_route_closes_its_loop(Host::OpenCode, &[]);
}

// What each host does with the default presenters (`ask-user mcp`, that is
// `elicitation,tui,web,file`), headless, with no terminal and no display: whether it declares
// form elicitation, how it answers a form, and what the model receives. A form declined at once
// is the host's, not the person's, so the chain goes on; with no terminal and no display here,
// to the pending file.

/// How soon an answer to a form counts as the host's own, not a person's.
const AT_ONCE_MS: f64 = 300.0;

#[test]
#[ignore = "needs Codex CLI from npm, unshare and ip; run by .ci/run"]
fn codex_exec_declines_every_form_at_once_so_the_default_chain_goes_on_to_the_pending_file() {
    let _heavy = common::heavy::heavy("hosts");
    let stage = Stage::new(Host::Codex, &[], true);
    let run = stage.headless(&[]);
    let (protocol, name, capabilities) = stage.client();
    assert_eq!(
        (protocol.as_str(), name.as_str()),
        ("2025-06-18", "codex-mcp-client")
    );
    assert_eq!(capabilities["elicitation"], json!({"form": {}, "url": {}}));
    // The tool declares itself read-only, so exec runs it without asking for approval.
    assert!(stage.called_over_mcp());
    let replies = stage.form_replies();
    assert_eq!(replies.len(), 1, "{replies:?}");
    assert_eq!(replies[0].0, "decline");
    assert!(replies[0].1 < AT_ONCE_MS, "{replies:?}");
    stage.assert_pending_instructions(&run);
}

#[test]
#[ignore = "needs Claude Code from npm, unshare and ip; run by .ci/run"]
fn claude_p_cancels_every_form_at_once_so_the_default_chain_goes_on_to_the_pending_file() {
    let _heavy = common::heavy::heavy("hosts");
    let stage = Stage::new(Host::Claude, &[], true);
    let run = stage.headless(&["--allowedTools", "mcp__ask-user__ask_user"]);
    let (protocol, name, capabilities) = stage.client();
    // Claude Code speaks the stateless protocol: the form travels in an input-required result.
    assert_eq!(
        (protocol.as_str(), name.as_str()),
        ("2026-07-28", "claude-code")
    );
    assert_eq!(capabilities["elicitation"], json!({"form": {}, "url": {}}));
    let replies = stage.form_replies();
    assert_eq!(replies.len(), 1, "{replies:?}");
    assert_eq!(replies[0].0, "cancel");
    assert!(replies[0].1 < AT_ONCE_MS, "{replies:?}");
    stage.assert_pending_instructions(&run);
}

#[test]
#[ignore = "needs Gemini CLI from npm, unshare and ip; run by .ci/run"]
fn gemini_p_declares_no_elicitation_so_the_default_chain_writes_the_pending_file() {
    let _heavy = common::heavy::heavy("hosts");
    let stage = Stage::new(Host::Gemini, &[], true);
    let run = stage.headless(&[]);
    let (protocol, name, capabilities) = stage.client();
    assert_eq!(
        (protocol.as_str(), name.as_str()),
        ("2025-06-18", "gemini-cli-mcp-client")
    );
    assert!(capabilities.get("elicitation").is_none(), "{capabilities}");
    assert!(stage.form_replies().is_empty());
    stage.assert_pending_instructions(&run);
}

#[test]
#[ignore = "needs OpenCode from npm, unshare and ip; run by .ci/run"]
fn opencode_run_declares_no_elicitation_so_the_default_chain_writes_the_pending_file() {
    let _heavy = common::heavy::heavy("hosts");
    let stage = Stage::new(Host::OpenCode, &[], true);
    let run = stage.headless(&[]);
    let (protocol, name, capabilities) = stage.client();
    assert_eq!(
        (protocol.as_str(), name.as_str()),
        ("2025-11-25", "opencode")
    );
    assert!(capabilities.get("elicitation").is_none(), "{capabilities}");
    assert!(stage.form_replies().is_empty());
    stage.assert_pending_instructions(&run);
}

// What keeps the tool from the model, as the hosts ship.

#[test]
#[ignore = "needs Claude Code from npm, unshare and ip; run by .ci/run"]
fn claude_p_refuses_the_tool_until_it_is_allowed() {
    let _heavy = common::heavy::heavy("hosts");
    let stage = Stage::new(Host::Claude, &["--present", "file"], true);
    let run = stage.headless(&[]);
    // Claude Code lists the tool (deferred behind its ToolSearch) but refuses the call without
    // asking ask-user: `claude -p` has nobody to approve it, read-only or not.
    assert!(!stage.called_over_mcp());
    assert_eq!(
        stage.result_text(&run),
        "Claude requested permissions to use mcp__ask-user__ask_user, but you haven't granted it yet."
    );
    assert!(!stage.pending().exists());
}

#[test]
#[ignore = "needs Gemini CLI from npm, unshare and ip; run by .ci/run"]
fn gemini_p_hides_a_tool_named_like_its_own_ask_user() {
    let _heavy = common::heavy::heavy("hosts");
    let stage = Stage::new(Host::Gemini, &["--tool-name", "ask_user"], true);
    let run = stage.headless(&[]);
    // ask-user served the tool, and Gemini CLI kept it from the model.
    let listed = stage
        .mcp()
        .into_iter()
        .find(|e| e["from"] == "server" && e["message"]["result"]["tools"].is_array())
        .expect("the host listed the tools");
    assert_eq!(
        listed["message"]["result"]["tools"][0]["name"], "ask_user",
        "{run}"
    );
    let offered = stage.offered_tools();
    assert!(!offered.is_empty(), "{run}");
    assert!(
        !offered.iter().any(|name| name.ends_with("ask_user")),
        "{offered:?}"
    );
    assert!(!stage.called_over_mcp());
    assert!(stage.results().is_empty());
}

// Interactive hosts in a pseudo-terminal, a person at the keyboard.

const RIGHT: &str = "\x1b[C";
const SPACE: &str = " ";

/// How long an interactive host may take to show what a test waits for.
const SCREEN_PATIENCE: Duration = Duration::from_secs(60);

/// Waits until `ready` holds, or fails with the screen.
#[track_caller]
fn wait_until(session: &Session, what: &str, ready: impl Fn() -> bool) {
    let start = Instant::now();
    while start.elapsed() < SCREEN_PATIENCE {
        if ready() {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!(
        "never saw {what}; the screen shows:\n{}",
        session.contents()
    );
}

/// Waits until the screen shows `text`.
#[track_caller]
fn wait_for_screen(session: &Session, text: &str) {
    wait_until(session, &format!("{text:?} on the screen"), || {
        session.contents().contains(text)
    });
}

/// Waits until the screen shows `text`, then, once the host has had a moment to take keys
/// there, types `keys`.
#[track_caller]
fn answer(session: &mut Session, text: &str, keys: &[&str]) {
    wait_for_screen(session, text);
    std::thread::sleep(Duration::from_millis(500));
    type_keys(session, keys);
}

/// Types `keys` one key at a time, as a person would, and waits a little after each.
fn type_keys(session: &mut Session, keys: &[&str]) {
    for key in keys {
        session.send(key);
        std::thread::sleep(Duration::from_millis(300));
    }
}

/// Presses Enter to send the prompt, and again (as a person would) while the model has not
/// received it after a few seconds: a busy host may take the first Enter as part of the typing.
#[track_caller]
fn submit(session: &mut Session, stage: &Stage) {
    for _ in 0..3 {
        session.send(ENTER);
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(5) {
            if stage.prompt_sent() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    panic!(
        "the prompt never reached the model; the screen shows:\n{}",
        session.contents()
    );
}

impl Stage {
    /// Whether ask-user has answered the host's request for its tools (only when tapped).
    fn tools_listed(&self) -> bool {
        self.mcp()
            .iter()
            .any(|e| e["from"] == "server" && e["message"]["result"]["tools"].is_array())
    }

    /// Whether the model has received a request that offers tools (the prompt's, not a side
    /// request such as a title).
    fn prompt_sent(&self) -> bool {
        !self.offered_tools().is_empty()
    }

    /// What ask-user found on its controlling terminal when the host called the tool (only
    /// when tapped; see `mcp_tap.py`).
    fn terminal_at_call(&self) -> Value {
        let terminal = self
            .mcp()
            .into_iter()
            .find(|e| e["from"] == "tap")
            .expect("the host called the tool")["terminal"]
            .clone();
        eprintln!("{:?} terminal at the call: {terminal}", self.host);
        terminal
    }

    /// How many forms ask-user has sent so far (only when tapped).
    fn forms_sent(&self) -> usize {
        self.mcp()
            .iter()
            .filter(|e| {
                e["from"] == "server"
                    && (e["message"]["method"] == "elicitation/create"
                        || e["message"]["result"]["resultType"] == "input_required")
            })
            .count()
    }
}

#[test]
#[ignore = "needs Claude Code from npm, unshare and ip; run by .ci/run"]
fn claude_interactive_draws_the_form_and_the_model_gets_both_answers() {
    let _heavy = common::heavy::heavy("hosts");
    let stage = Stage::new(Host::Claude, &[], true);
    let mut session = stage.interactive(&["--permission-mode", "default"]);
    prompt(&mut session, &stage, "manual mode on", "please ask me");
    // Claude Code asks before it runs an MCP tool, read-only or not.
    answer(&mut session, "Do you want to proceed?", &[ENTER]);
    // Database: expand, choose PostgreSQL; Features (a check box per option): expand, tick Auth
    // and Search, close; then Accept.
    answer(
        &mut session,
        "requests your input",
        &[
            RIGHT, SPACE, DOWN, DOWN, RIGHT, SPACE, DOWN, SPACE, ENTER, DOWN,
        ],
    );
    // Enter leaves "None of these" unticked and moves on to Accept, which a second Enter takes.
    answer(&mut session, "Features: Auth, Search", &[ENTER, ENTER]);
    wait_for_screen(&session, "The stand-in model got the tool result.");
    // ask-user runs in the terminal's foreground process group, while the host holds the
    // terminal in raw mode to draw its own screen.
    assert_eq!(stage.terminal_at_call(), held());
    let replies = stage.form_replies();
    assert_eq!(replies.len(), 1, "{replies:?}");
    assert_eq!(replies[0].0, "accept");
    let received: Value = serde_json::from_str(&stage.result_text(&Run::none())).unwrap();
    assert_eq!(received, both_answered());
}

#[test]
#[ignore = "needs Codex CLI from npm, unshare and ip; run by .ci/run"]
fn codex_interactive_draws_the_form_and_the_model_gets_both_answers() {
    let _heavy = common::heavy::heavy("hosts");
    let stage = Stage::new(Host::Codex, &[], true);
    let mut session = stage.interactive(&[]);
    prompt(
        &mut session,
        &stage,
        "Ask Codex to do anything",
        "please ask me",
    );
    // Codex draws one field at a time, in the order of the fields' names: Database (a choice),
    // its "Other", then the last question's "Other" before its check boxes, so that the form
    // ends on a choice (Codex submits only from the last field, and takes Enter in an empty
    // text field as nothing; Ctrl+N moves past it). Choose PostgreSQL, skip both "Other"
    // fields, tick Auth and Search, leave Billing and "None of these", and submit.
    const NEXT_FIELD: &str = "\x0e";
    const UP: &str = "\x1b[A";
    wait_until(&session, "the form", || stage.forms_sent() == 1);
    answer(
        &mut session,
        "Field 1/7",
        &[
            ENTER, NEXT_FIELD, NEXT_FIELD, UP, ENTER, UP, ENTER, ENTER, ENTER,
        ],
    );
    wait_for_screen(&session, "The stand-in model got the tool result.");
    // Codex starts MCP servers without a controlling terminal: ask-user cannot open /dev/tty.
    assert_eq!(stage.terminal_at_call()["opens"], false);
    let replies = stage.form_replies();
    assert_eq!(replies.len(), 1, "{replies:?}");
    assert_eq!(replies[0].0, "accept");
    // Codex hands the model the result's structured content after a line with the wall time.
    let text = stage.result_text(&Run::none());
    let (_, json) = text.split_once("\nOutput:\n").expect(&text);
    let received: Value = serde_json::from_str(json).unwrap();
    assert_eq!(received, both_answered());
}

/// What ask-user finds on the terminal of an interactive host that starts it in the host's own
/// process group and draws its own screen: /dev/tty opens and ask-user's process group is the
/// foreground one, but the terminal is in raw mode.
fn held() -> Value {
    json!({"opens": true, "foreground": true, "canonical": false, "echo": false})
}

/// Types `prompt` into an interactive host once the screen shows `ready` and the host has
/// listed ask-user's tools, and sends it. The keys go one at a time, as a person types, and
/// Enter a moment later: a host takes keys that arrive together as a paste, and Codex takes an
/// Enter right after a paste as a new line.
fn prompt(session: &mut Session, stage: &Stage, ready: &str, prompt: &str) {
    wait_for_screen(session, ready);
    wait_until(session, "ask-user's tools listed", || stage.tools_listed());
    std::thread::sleep(Duration::from_secs(1));
    for key in prompt.chars() {
        session.send(&key.to_string());
        std::thread::sleep(Duration::from_millis(40));
    }
    std::thread::sleep(Duration::from_secs(1));
    submit(session, stage);
}

#[test]
#[ignore = "needs Gemini CLI from npm, unshare and ip; run by .ci/run"]
fn gemini_interactive_declares_no_elicitation_so_the_default_chain_writes_the_pending_file() {
    let _heavy = common::heavy::heavy("hosts");
    let stage = Stage::new(Host::Gemini, &[], true);
    let mut session = stage.interactive(&[]);
    // A server marked "trust": true runs its tools without asking.
    prompt(&mut session, &stage, "Type your message", "please ask me");
    wait_for_screen(&session, "The stand-in model got the tool result.");
    let (_, _, capabilities) = stage.client();
    assert!(capabilities.get("elicitation").is_none(), "{capabilities}");
    // ask-user runs in the terminal's foreground process group, while the host holds the
    // terminal in raw mode to draw its own screen.
    assert_eq!(stage.terminal_at_call(), held());
    stage.assert_pending_instructions(&Run::none());
    // The person types the command into the chat after `!`, which runs it in a shell.
    stage.run_named_answer(&stage.received_text(&Run::none()));
}

#[test]
#[ignore = "needs OpenCode from npm, unshare and ip; run by .ci/run"]
fn opencode_interactive_declares_no_elicitation_so_the_default_chain_writes_the_pending_file() {
    let _heavy = common::heavy::heavy("hosts");
    let stage = Stage::new(Host::OpenCode, &[], true);
    let mut session = stage.interactive(&[]);
    // OpenCode runs MCP tools without asking.
    prompt(&mut session, &stage, "Ask anything", "please ask me");
    wait_for_screen(&session, "The stand-in model got the tool result.");
    let (_, _, capabilities) = stage.client();
    assert!(capabilities.get("elicitation").is_none(), "{capabilities}");
    // ask-user runs in the terminal's foreground process group, while the host holds the
    // terminal in raw mode to draw its own screen.
    assert_eq!(stage.terminal_at_call(), held());
    stage.assert_pending_instructions(&Run::none());
    // The person types the command into the chat after `!`, which runs it in a shell.
    stage.run_named_answer(&stage.received_text(&Run::none()));
}

// Headless hosts started from a person's terminal (a shell's foreground job): what ask-user finds
// on that terminal when the host calls the tool.

/// Runs the host headless in a pseudo-terminal, as a person types the command into a shell, and
/// returns what ask-user found on the terminal at the call; the model got the pending file.
fn headless_in_a_terminal(host: Host, extra: &[&str]) -> Value {
    let stage = Stage::new(host, &["--present", "file"], true);
    let mut args = host.headless("please ask me");
    args.extend(extra.iter().map(|arg| arg.to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let session = stage.interactive(&args);
    wait_until(&session, "the tool result reach the model", || {
        !stage.results().is_empty()
    });
    stage.assert_pending_instructions(&Run::none());
    stage.run_named_answer(&stage.received_text(&Run::none()));
    stage.terminal_at_call()
}

/// A terminal nobody holds, with ask-user in its foreground process group: the state in which
/// ask-user may draw on it.
fn free() -> Value {
    json!({"opens": true, "foreground": true, "canonical": true, "echo": true})
}

#[test]
#[ignore = "needs Codex CLI from npm, unshare and ip; run by .ci/run"]
fn codex_exec_from_a_terminal_starts_ask_user_outside_the_foreground_group() {
    let _heavy = common::heavy::heavy("hosts");
    // Codex gives each MCP server a process group of its own: ask-user would be stopped the
    // moment it wrote to the terminal.
    let terminal = headless_in_a_terminal(Host::Codex, &[]);
    assert_eq!(
        terminal,
        json!({"opens": true, "foreground": false, "canonical": true, "echo": true})
    );
}

#[test]
#[ignore = "needs Claude Code from npm, unshare and ip; run by .ci/run"]
fn claude_p_from_a_terminal_leaves_it_free_to_ask_user() {
    let _heavy = common::heavy::heavy("hosts");
    let terminal =
        headless_in_a_terminal(Host::Claude, &["--allowedTools", "mcp__ask-user__ask_user"]);
    assert_eq!(terminal, free());
}

#[test]
#[ignore = "needs Gemini CLI from npm, unshare and ip; run by .ci/run"]
fn gemini_p_from_a_terminal_holds_it_in_raw_mode() {
    let _heavy = common::heavy::heavy("hosts");
    // Even headless, Gemini CLI holds the terminal in raw mode while it works.
    let terminal = headless_in_a_terminal(Host::Gemini, &[]);
    assert_eq!(terminal, held());
}

#[test]
#[ignore = "needs OpenCode from npm, unshare and ip; run by .ci/run"]
fn opencode_run_from_a_terminal_leaves_it_free_to_ask_user() {
    let _heavy = common::heavy::heavy("hosts");
    let terminal = headless_in_a_terminal(Host::OpenCode, &[]);
    assert_eq!(terminal, free());
}

// What reaches `ask-user mcp` from the environment the host was started in: an `ASK_USER_*`
// variable set in the person's shell (here the pending file's path) takes effect only where the
// host passes it on.

/// Runs `host` headless on the file route with `ASK_USER_PENDING_FILE` set in its environment;
/// returns whether ask-user wrote the pending file there (else it wrote the default one).
fn pending_file_from_the_environment(host: Host, extra: &[&str]) -> bool {
    let stage = Stage::new(host, &["--present", "file"], false);
    let chosen = stage.path("chosen-pending.json");
    let run = stage.headless_with(
        extra,
        &[("ASK_USER_PENDING_FILE", chosen.to_str().unwrap())],
    );
    let text = stage.received_text(&run);
    let (used, other) = if chosen.exists() {
        (chosen, stage.pending())
    } else {
        (stage.pending(), chosen)
    };
    assert!(used.exists() && !other.exists());
    assert_eq!(text, stage.expected_pending(&used));
    used != stage.pending()
}

#[test]
#[ignore = "needs Codex CLI from npm, unshare and ip; run by .ci/run"]
fn codex_keeps_the_shell_environment_from_ask_user() {
    let _heavy = common::heavy::heavy("hosts");
    // Codex starts MCP servers with a few variables only (HOME, LANG, PATH, SHELL, TERM, …), so
    // ASK_USER_*, DISPLAY and every other variable reach ask-user only when the server's table
    // in config.toml lists them in `env_vars` (or sets them in `env`).
    assert!(!pending_file_from_the_environment(Host::Codex, &[]));
}

#[test]
#[ignore = "needs Claude Code from npm, unshare and ip; run by .ci/run"]
fn claude_passes_the_shell_environment_to_ask_user() {
    let _heavy = common::heavy::heavy("hosts");
    assert!(pending_file_from_the_environment(
        Host::Claude,
        &["--allowedTools", "mcp__ask-user__ask_user"]
    ));
}

#[test]
#[ignore = "needs Gemini CLI from npm, unshare and ip; run by .ci/run"]
fn gemini_passes_the_shell_environment_to_ask_user() {
    let _heavy = common::heavy::heavy("hosts");
    assert!(pending_file_from_the_environment(Host::Gemini, &[]));
}

#[test]
#[ignore = "needs OpenCode from npm, unshare and ip; run by .ci/run"]
fn opencode_passes_the_shell_environment_to_ask_user() {
    let _heavy = common::heavy::heavy("hosts");
    assert!(pending_file_from_the_environment(Host::OpenCode, &[]));
}

// The default chain from a person's terminal: a host that leaves the terminal free, with
// ask-user in its foreground process group, gets the terminal UI there (after a form the host
// cancels at once, for Claude Code).

/// Runs the host headless in a pseudo-terminal with the default presenters, answers the terminal
/// UI as a person would (PostgreSQL; Auth and Search), and gives the tool result the model got.
fn terminal_ui_from_a_terminal(host: Host, extra: &[&str]) -> String {
    let stage = Stage::new(host, &[], true);
    let mut args = host.headless("please ask me");
    args.extend(extra.iter().map(|arg| arg.to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut session = stage.interactive(&args);
    answer(
        &mut session,
        "Which database should we use?",
        &[ENTER, SPACE, DOWN, SPACE, ENTER],
    );
    answer(
        &mut session,
        "All answered. Press Enter to submit.",
        &[ENTER],
    );
    wait_until(&session, "the tool result reach the model", || {
        !stage.results().is_empty()
    });
    assert_eq!(stage.terminal_at_call(), free());
    assert!(!stage.pending().exists());
    stage.result_text(&Run::none())
}

#[test]
#[ignore = "needs Claude Code from npm, unshare and ip; run by .ci/run"]
fn claude_p_from_a_terminal_cancels_the_form_and_the_terminal_ui_asks() {
    let _heavy = common::heavy::heavy("hosts");
    let text =
        terminal_ui_from_a_terminal(Host::Claude, &["--allowedTools", "mcp__ask-user__ask_user"]);
    assert_eq!(
        serde_json::from_str::<Value>(&text).unwrap(),
        both_answered()
    );
}

#[test]
#[ignore = "needs OpenCode from npm, unshare and ip; run by .ci/run"]
fn opencode_run_from_a_terminal_the_terminal_ui_asks() {
    let _heavy = common::heavy::heavy("hosts");
    let text = terminal_ui_from_a_terminal(Host::OpenCode, &[]);
    assert_eq!(
        text,
        r#"{"answers":{"Which database should we use?":"PostgreSQL","Which features should we enable?":"Auth, Search"}}
Multi-select answers: {"Which features should we enable?":{"picked":["Auth","Search"]}}"#
    );
}

// `codex exec` from a person's terminal: the form is declined at once, and ask-user, outside the
// terminal's foreground group, cannot draw there; the terminal is canonical, so the page is
// reachable, and its link is printed there, sent as an MCP log message and in the progress
// notifications. A person opens it (here Chromium, run inside the agent's network namespace,
// where the page listens) and answers.

/// The pid of a process of this stage (ask-user's tap, whose arguments name the stage's log),
/// to enter its network namespace.
fn stage_process(stage: &Stage) -> u32 {
    let log = stage.path("log/mcp.jsonl").display().to_string();
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .find(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|cmdline| String::from_utf8_lossy(&cmdline).contains(&log))
        })
        .expect("ask-user's tap runs")
}

#[test]
#[ignore = "needs Codex CLI from npm, unshare, nsenter, ip, Playwright and chromium; run by .ci/run"]
fn codex_exec_from_a_terminal_prints_the_page_link_and_the_person_answers_there() {
    let _heavy = common::heavy::heavy("hosts");
    let stage = Stage::new(Host::Codex, &[], true);
    let args = Host::Codex.headless("please ask me");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let session = stage.interactive(&args);
    wait_for_screen(&session, "answer them at http://127.0.0.1:");
    let screen = session.contents();
    let link = screen
        .split_whitespace()
        .find(|word| word.starts_with("http://127.0.0.1:"))
        .unwrap()
        .to_string();
    // The client got the same link, in a log message and in the progress notifications.
    let mcp = stage.mcp();
    let log = mcp
        .iter()
        .find(|e| e["message"]["method"] == "notifications/message")
        .expect("a log message");
    assert!(
        log["message"]["params"]["data"]
            .as_str()
            .unwrap()
            .contains(&link),
        "{log}"
    );
    assert!(
        mcp.iter()
            .any(|e| e["message"]["method"] == "notifications/progress"
                && e["message"]["params"]["message"]
                    .as_str()
                    .is_some_and(|m| m.ends_with(&link))),
        "{mcp:?}"
    );
    let replies = stage.form_replies();
    assert_eq!(replies.len(), 1, "{replies:?}");
    assert_eq!(replies[0].0, "decline");
    assert_eq!(
        stage.terminal_at_call(),
        json!({"opens": true, "foreground": false, "canonical": true, "echo": true})
    );
    // The person answers on the page, from inside the agent's network namespace.
    let answered = Command::new("nsenter")
        .args(["-t", &stage_process(&stage).to_string()])
        .args(["-U", "-n", "--preserve-credentials", "--"])
        .arg(&stage.python)
        .arg(hosts_dir().join("answer_page.py"))
        .arg(&link)
        .arg(r#"[{"answer": "PostgreSQL"}, {"answer": ["Auth", "Search"]}]"#)
        .output()
        .unwrap();
    assert!(answered.status.success(), "{answered:?}");
    wait_until(&session, "the tool result reach the model", || {
        !stage.results().is_empty()
    });
    let text = stage.result_text(&Run::none());
    // Neither the link nor its token reached the model, though the host had both in its log
    // message and progress notifications.
    let token = link.rsplit("#token=").next().unwrap();
    let requests = std::fs::read_to_string(stage.path("log/requests.jsonl")).unwrap();
    assert!(
        !requests.contains(token),
        "the link's token reached the model"
    );
    let (_, json) = text.split_once("\nOutput:\n").expect(&text);
    assert_eq!(
        serde_json::from_str::<Value>(json).unwrap(),
        both_answered()
    );
    assert!(!stage.pending().exists());
}

// The `web` route in each host that passes ask-user the shell's environment (Codex keeps it, and
// its page is answered above): with a display, ask-user opens the page in the person's browser
// (`$BROWSER`, here a script that opens it in Chromium inside the agent's namespace). The person
// opens it, which spends the link; once a progress notification carries a fresh link, they
// answer. Neither link reaches the stand-in model, whatever the host does with progress.

/// The messages of the progress notifications ask-user sent the host, in order.
fn progress_messages(stage: &Stage) -> Vec<String> {
    stage
        .mcp()
        .iter()
        .filter(|e| e["message"]["method"] == "notifications/progress")
        .filter_map(|e| {
            e["message"]["params"]["message"]
                .as_str()
                .map(str::to_string)
        })
        .collect()
}

/// The link at the end of a progress message, if it carries one.
fn carried_link(message: &str) -> Option<&str> {
    message
        .rsplit(' ')
        .next()
        .filter(|word| word.starts_with("http://127.0.0.1:"))
}

fn web_route_answered_in_the_browser(host: Host, extra: &[&str]) {
    let stage = Stage::new(host, &["--present", "web"], true);
    let answered = stage.path("log/answer-now");
    let browser = stage.path("bin/browser");
    std::fs::write(
        &browser,
        format!(
            // The link is the one the redirect file it is given forwards to.
            "#!/bin/sh\nlink=$(sed -n 's/.*href=\"\\([^\"]*\\)\".*/\\1/p' \"${{1#file://}}\")\n\
             exec \"$HOSTS_PYTHON\" '{}' \"$link\" '{}' > '{}' 2>&1\n",
            hosts_dir().join("answer_page.py").display(),
            r#"[{"answer": "PostgreSQL"}, {"answer": ["Auth", "Search"]}]"#,
            stage.path("log/browser.out").display(),
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&browser, std::fs::Permissions::from_mode(0o755)).unwrap();
    let env = [
        ("DISPLAY", ":99"),
        ("BROWSER", browser.to_str().unwrap()),
        ("ANSWER_WHEN", answered.to_str().unwrap()),
    ];
    let run = std::thread::scope(|scope| {
        let running = scope.spawn(|| stage.headless_with(extra, &env));
        // The person answers once the host was given a fresh link (or at once, when the host
        // asked for no progress).
        let start = Instant::now();
        loop {
            let call = stage.mcp_message("host", "tools/call");
            let progress = progress_messages(&stage);
            let first = progress.first().and_then(|m| carried_link(m));
            let fresh = progress
                .iter()
                .filter_map(|m| carried_link(m))
                .any(|link| Some(link) != first);
            let no_token = call
                .as_ref()
                .is_some_and(|call| call["message"]["params"]["_meta"]["progressToken"].is_null());
            if fresh || no_token {
                eprintln!("{host:?}: progress {progress:?}");
                break;
            }
            assert!(
                start.elapsed() < HOST_LIMIT && !running.is_finished(),
                "{host:?}: no fresh link in the progress notifications: {progress:?}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        std::fs::write(&answered, "").unwrap();
        running.join().unwrap()
    });
    // What the browser said (a host may end it with the MCP server, before it says anything).
    let browser_out = std::fs::read_to_string(stage.path("log/browser.out")).unwrap_or_default();
    let text = stage.result_text(&run);
    assert!(text.contains("PostgreSQL"), "{text}\n{browser_out}");
    // No link, and no token of any link ask-user gave the host, reached the model.
    let requests = std::fs::read_to_string(stage.path("log/requests.jsonl")).unwrap();
    for message in progress_messages(&stage) {
        if let Some(link) = carried_link(&message) {
            let token = link.rsplit("#token=").next().unwrap();
            assert!(
                !requests.contains(token),
                "{host:?}: {link} reached the model"
            );
        }
    }
}

#[test]
#[ignore = "needs Claude Code from npm, unshare, ip, Playwright and chromium; run by .ci/run"]
fn claude_p_web_route_keeps_the_page_links_from_the_model() {
    let _heavy = common::heavy::heavy("hosts");
    web_route_answered_in_the_browser(Host::Claude, &["--allowedTools", "mcp__ask-user__ask_user"]);
}

#[test]
#[ignore = "needs Gemini CLI from npm, unshare, ip, Playwright and chromium; run by .ci/run"]
fn gemini_p_web_route_keeps_the_page_links_from_the_model() {
    let _heavy = common::heavy::heavy("hosts");
    web_route_answered_in_the_browser(Host::Gemini, &[]);
}

#[test]
#[ignore = "needs OpenCode from npm, unshare, ip, Playwright and chromium; run by .ci/run"]
fn opencode_run_web_route_keeps_the_page_links_from_the_model() {
    let _heavy = common::heavy::heavy("hosts");
    web_route_answered_in_the_browser(Host::OpenCode, &[]);
}

// Sub-agents: over MCP, ask-user cannot tell a sub-agent's call from its parent's, so each host's
// own configuration keeps the tool from its sub-agents, as docs/hosts.md says. The stand-in
// model, as the parent, starts a sub-agent through the host's own tool and tells it "please ask
// me"; as the sub-agent, it calls the tool when the host offers it. Two sub-agents are defined:
// `helper`, configured as docs/hosts.md says, and `open`, which names no tools and so has the
// parent's, the host's default.

/// What the parent is told: the stand-in starts a sub-agent (see `tests/hosts/model.py`).
const PARENT_PROMPT: &str = "please start the helper";

/// What the parent tells the sub-agent: the stand-in calls the tool when it is offered.
const SUB_AGENT_PROMPT: &str = "You are the sub-agent: please ask me";

/// What the stand-in says once it has the tool's result.
const DONE: &str = "The stand-in model got the tool result.";

/// What the stand-in says when told "ask me" with no tool to ask with.
const NO_TOOL: &str = "The stand-in model has no tool to ask with.";

/// What one run of a parent that started a sub-agent left.
struct Delegation {
    /// The parent's requests that offer tools (its prompt's, not side requests such as a title).
    parent: Vec<Value>,
    /// The sub-agent's requests that offer tools.
    sub_agent: Vec<Value>,
    /// The result of the sub-agent, as the parent received it.
    result: String,
    /// How many results of the tool the stand-in received, parent and sub-agent together.
    asked: usize,
}

impl Host {
    /// The host's own tool that starts a sub-agent, and its arguments that start the sub-agent
    /// `name` with [`SUB_AGENT_PROMPT`], as the host offers them to the model.
    fn sub_agent_call(self, name: &str) -> (&'static str, Value) {
        match self {
            Host::Claude => (
                "Agent",
                json!({"description": "Look things up", "prompt": SUB_AGENT_PROMPT,
                       "subagent_type": name, "run_in_background": false}),
            ),
            Host::OpenCode => (
                "task",
                json!({"description": "Look things up", "prompt": SUB_AGENT_PROMPT,
                       "subagent_type": name}),
            ),
            Host::Gemini => (
                "invoke_agent",
                json!({"agent_name": name, "prompt": SUB_AGENT_PROMPT}),
            ),
            Host::Codex => unreachable!("no Codex test starts a sub-agent"),
        }
    }
}

impl Stage {
    /// Defines the sub-agents `helper`, whose configuration keeps ask-user's tool out as
    /// docs/hosts.md says, and `open`, which names no tools.
    fn define_sub_agents(&self) {
        let description = "Looks things up in the project.";
        // An agent file of Claude Code or Gemini CLI: a front matter, then the agent's prompt.
        let write = |folder: PathBuf, name: &str, tools: &str| {
            std::fs::create_dir_all(&folder).unwrap();
            std::fs::write(
                folder.join(format!("{name}.md")),
                format!(
                    "---\nname: {name}\ndescription: {description}\n{tools}---\n\
                     You look things up in the project.\n"
                ),
            )
            .unwrap();
        };
        match self.host {
            Host::Claude => {
                // The project's agents, `.claude/agents/NAME.md`, their tools listed in `tools:`.
                let folder = self.project().join(".claude/agents");
                write(folder.clone(), "helper", "tools: Read, Grep, Glob\n");
                write(folder, "open", "");
            }
            Host::Gemini => {
                // The person's own agents, `~/.gemini/agents/NAME.md`, which Gemini CLI loads
                // without asking; their tools listed in `tools:`.
                let folder = self.path("home/.gemini/agents");
                write(folder.clone(), "helper", "tools:\n  - read_file\n");
                write(folder, "open", "");
            }
            Host::OpenCode => {
                // Agents in opencode.json, the server's tools turned off in `tools`.
                let path = self.path("home/.config/opencode/opencode.json");
                let mut config: Value =
                    serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
                let agent = |tools: Value| {
                    json!({"description": description, "mode": "subagent",
                           "prompt": "You look things up in the project.", "tools": tools})
                };
                config["agent"] = json!({
                    "helper": agent(json!({"ask-user_*": false})),
                    "open": agent(json!({}))
                });
                std::fs::write(&path, config.to_string()).unwrap();
            }
            Host::Codex => unreachable!("no Codex test starts a sub-agent"),
        }
    }

    /// Whether `request` offers the model ask-user's tool: by name, under the host's prefix, or
    /// listed as one of Claude Code's deferred tools, which the model loads with ToolSearch.
    fn offers_the_tool(&self, request: &Value) -> bool {
        let named = request["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|name| {
                let bare = name.as_str().unwrap().rsplit('/').next().unwrap();
                bare == self.tool || bare.ends_with(&format!("_{}", self.tool))
            });
        let deferred = format!("mcp__ask-user__{}", self.tool);
        named || request["body"].to_string().contains(&deferred)
    }

    /// Runs the host headless with [`PARENT_PROMPT`]: the stand-in model, as the parent, starts
    /// the sub-agent `name` through the host's own tool, and the run ends by itself.
    fn start_sub_agent(&self, name: &str, extra: &[&str]) -> Delegation {
        for record in ["requests.jsonl", "results.jsonl", "delegations.jsonl"] {
            let _ = std::fs::remove_file(self.path("log").join(record));
        }
        let (tool, arguments) = self.host.sub_agent_call(name);
        std::fs::write(
            self.path("delegate.json"),
            json!({"tool": tool, "arguments": arguments}).to_string(),
        )
        .unwrap();
        let mut args = self.host.headless(PARENT_PROMPT);
        args.extend(extra.iter().map(|arg| arg.to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let run = self.run(&args);
        eprintln!("{:?} {args:?}: {run}", self.host);
        assert!(run.status.success(), "{:?} failed: {run}", self.host);
        let mut parent = Vec::new();
        let mut sub_agent = Vec::new();
        for request in self.lines("requests.jsonl") {
            let body = request["body"].to_string();
            let whose = if body.contains(PARENT_PROMPT) {
                "the parent"
            } else if body.contains(SUB_AGENT_PROMPT) {
                "the sub-agent"
            } else {
                "neither"
            };
            eprintln!(
                "{:?} {name}: a request of {whose} offers {}",
                self.host, request["tools"]
            );
            if request["tools"].as_array().is_none_or(Vec::is_empty) {
                continue;
            }
            // The sub-agent's conversation starts from its prompt; the parent's holds its own.
            if body.contains(PARENT_PROMPT) {
                parent.push(request);
            } else if body.contains(SUB_AGENT_PROMPT) {
                sub_agent.push(request);
            }
        }
        let delegations = self.lines("delegations.jsonl");
        assert_eq!(
            delegations.len(),
            1,
            "the parent got the sub-agent's result: {delegations:#?}\n{run}"
        );
        let result = delegations[0]["text"].as_str().unwrap().to_string();
        eprintln!("{:?} {name}: the parent got {result:?}", self.host);
        Delegation {
            parent,
            sub_agent,
            result,
            asked: self.results().len(),
        }
    }
}

/// Starts the sub-agent `open`, then `helper`, in `host` headless, and asserts that the parent
/// is offered the tool each time, that `open` is offered it too and calls it, and that `helper`,
/// configured as docs/hosts.md says, is never offered it and tells the parent it cannot ask.
fn sub_agent_configuration_keeps_the_tool_out(host: Host, extra: &[&str]) {
    let stage = Stage::new(host, &["--present", "file"], false);
    stage.define_sub_agents();
    // The host's default: a sub-agent with the parent's tools, ask-user's among them.
    let open = stage.start_sub_agent("open", extra);
    assert!(!open.parent.is_empty() && !open.sub_agent.is_empty());
    assert!(open.parent.iter().all(|r| stage.offers_the_tool(r)));
    assert!(open.sub_agent.iter().any(|r| stage.offers_the_tool(r)));
    assert_eq!(open.asked, 1, "the open sub-agent called the tool");
    assert!(open.result.contains(DONE), "{}", open.result);
    // The sub-agent configured as docs/hosts.md says.
    let kept = stage.start_sub_agent("helper", extra);
    assert!(!kept.parent.is_empty() && !kept.sub_agent.is_empty());
    assert!(kept.parent.iter().all(|r| stage.offers_the_tool(r)));
    let offered: Vec<&Value> = kept
        .sub_agent
        .iter()
        .filter(|r| stage.offers_the_tool(r))
        .collect();
    assert!(
        offered.is_empty(),
        "the helper was offered the tool: {offered:#?}"
    );
    assert_eq!(kept.asked, 0, "the helper never called the tool");
    assert!(kept.result.contains(NO_TOOL), "{}", kept.result);
}

#[test]
#[ignore = "needs Claude Code from npm, unshare and ip; run by .ci/run"]
fn claude_p_keeps_the_tool_from_a_sub_agent_whose_tools_leave_it_out() {
    let _heavy = common::heavy::heavy("hosts");
    sub_agent_configuration_keeps_the_tool_out(
        Host::Claude,
        &["--allowedTools", "mcp__ask-user__ask_user"],
    );
}

#[test]
#[ignore = "needs OpenCode from npm, unshare and ip; run by .ci/run"]
fn opencode_run_keeps_the_tool_from_a_sub_agent_that_turns_it_off() {
    let _heavy = common::heavy::heavy("hosts");
    sub_agent_configuration_keeps_the_tool_out(Host::OpenCode, &[]);
}

#[test]
#[ignore = "needs Gemini CLI from npm, unshare and ip; run by .ci/run"]
fn gemini_p_keeps_the_tool_from_a_sub_agent_whose_tools_leave_it_out() {
    let _heavy = common::heavy::heavy("hosts");
    sub_agent_configuration_keeps_the_tool_out(Host::Gemini, &[]);
}

/// The result the model gets when the person answered both questions of the stand-in's call:
/// PostgreSQL, and Auth and Search.
fn both_answered() -> Value {
    json!({"answered": true, "answers": [
        {"question": "Which database should we use?", "answer": "PostgreSQL",
         "selectedOption": "PostgreSQL", "wasCustom": false},
        {"question": "Which features should we enable?", "answer": ["Auth", "Search"],
         "wasCustom": false}]})
}

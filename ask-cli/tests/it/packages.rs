//! The packages of `cargo xtask dist` (under `target/packages/`), installed as a person without
//! Rust installs them: the npm launcher and its platform package from a static registry on
//! 127.0.0.1 into an empty prefix and an empty cache, then `npx -y ask-user@VERSION mcp` driven
//! by the official MCP TypeScript SDKs; the wheel in a fresh virtual environment; the Claude
//! Desktop bundle checked against the bundle schema and its server started as the manifest
//! says; the Claude Code plugin validated, installed and started by the pinned Claude Code; and
//! the launcher's own unit tests. The pi package's install is tested in `tests/it/pi.rs`.
//!
//! They need the packages (`cargo xtask dist`), node and npm, `python3`, the pinned tools of
//! `tests/packages_host` and `tests/mcp_node` (`npm ci`), and root or user namespaces (the
//! Claude Code test runs in a network namespace of its own); `.ci/run` provides them all.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use common::mcp_raw::{raw_session_of, read_message, send_line};
use common::packages::{Registry, VERSION, artifact, host_dir, packages_dir, path_without_rust};
use serde_json::{Value, json};

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

#[track_caller]
fn succeeded(output: &Output, what: &str) -> String {
    assert!(
        output.status.success(),
        "{what} failed ({}):\n{}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).to_string()
}

/// The folder of a pinned npm tool, which must be installed.
fn npm_tools(dir: &str, probe: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(dir);
    assert!(
        dir.join("node_modules").join(probe).exists(),
        "{probe} is missing; run `npm ci` in {}",
        dir.display()
    );
    dir
}

/// The name of this machine's platform package, as the launcher's table has it.
fn platform_name() -> &'static str {
    match (std::env::consts::OS, std::env::consts::ARCH) {
        ("linux", "x86_64") => "linux-x64",
        ("linux", "aarch64") => "linux-arm64",
        ("macos", "x86_64") => "darwin-x64",
        ("macos", "aarch64") => "darwin-arm64",
        (os, arch) => panic!("no platform package is built for {os} {arch}"),
    }
}

/// Runs `client.mjs SDK SCENARIO` of `tests/mcp_node` against `npx -y ask-user@VERSION mcp`,
/// with only the registry's environment: what the client saw, and the pending file it left.
fn sdk_through_npx(registry: &Registry, sdk: &str, scenario: &str) -> (Value, Value) {
    let client = npm_tools("mcp_node", "@modelcontextprotocol/sdk");
    let dir = tempfile::tempdir().unwrap();
    let pending = dir.path().join("pending-questions.json");
    let package = format!("ask-user@{VERSION}");
    let output = registry
        .command("node")
        .arg(client.join("client.mjs"))
        .args([sdk, scenario, "npx", "-y", &package, "mcp"])
        .current_dir(&client)
        .env("ASK_USER_NO_TTY", "1")
        .env("ASK_USER_PENDING_FILE", &pending)
        .output()
        .unwrap();
    let stdout = succeeded(&output, &format!("the {sdk} client through npx"));
    let file = serde_json::from_slice(&std::fs::read(&pending).unwrap()).unwrap();
    (serde_json::from_str(&stdout).unwrap(), file)
}

#[test]
#[ignore = "needs node, npm, the MCP SDKs of tests/mcp_node and the packages of cargo xtask dist; run by .ci/run"]
fn npm_installs_the_launcher_and_npx_serves_mcp_from_an_empty_cache() {
    let _heavy = common::heavy::heavy("packages");
    let registry = Registry::start();
    let project = tempfile::tempdir().unwrap();
    let package = format!("ask-user@{VERSION}");
    let install = registry
        .command("npm")
        .args(["install", "--prefix"])
        .arg(project.path())
        .arg(&package)
        .output()
        .unwrap();
    succeeded(&install, "npm install ask-user");
    // npm took the launcher and this machine's platform package, and no other tarball.
    assert_eq!(
        registry.tarballs(),
        [
            format!("ask-user-{VERSION}.tgz"),
            format!("ask-user-cli-{}-{VERSION}.tgz", platform_name())
        ]
    );
    let version = registry
        .command("npx")
        .args(["ask-user", "--version"])
        .current_dir(project.path())
        .output()
        .unwrap();
    assert_eq!(
        succeeded(&version, "npx ask-user --version"),
        format!("ask-user {VERSION}\n")
    );

    // The MCP SDKs start the server as a client configuration says, `npx -y ask-user@VERSION
    // mcp`, which installs it again into npx's own folder of the same cache.
    for (sdk, protocol) in [("v1", "2025-11-25"), ("v2", "2026-07-28")] {
        let (seen, file) = sdk_through_npx(&registry, sdk, "rounds");
        assert_eq!(seen["protocolVersion"], protocol, "{sdk}");
        assert_eq!(seen["tools"], json!(["ask_user"]), "{sdk}");
        assert_eq!(
            seen["calls"]["rounds"]["text"],
            r#"{"answers":{"Which database should we use?":"SQLite","What should the project be called?":"Falcon"}}"#,
            "{sdk}"
        );
        assert_eq!(
            seen["calls"]["declined"]["structuredContent"]["cancelled"],
            true
        );
        // Three incomplete forms, then the pending file, with what was given so far.
        assert_eq!(file["questions"][0]["answer"], "MariaDB", "{sdk}");
    }
}

/// `ask-user ARGS` found on `path`, in `dir`, with no terminal and nothing else in its
/// environment.
fn installed(path: &str, dir: &Path, args: &[&str]) -> Output {
    Command::new("setsid")
        .arg("ask-user")
        .args(args)
        .current_dir(dir)
        .env_clear()
        .env("PATH", path)
        .env("HOME", dir)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

#[test]
#[ignore = "needs python3 with venv and the packages of cargo xtask dist; run by .ci/run"]
fn the_wheel_installs_into_a_fresh_virtual_environment_and_asks_in_print_mode() {
    let _heavy = common::heavy::heavy("packages");
    let dir = tempfile::tempdir().unwrap();
    let venv = dir.path().join("venv");
    let created = Command::new("python3")
        .args(["-m", "venv"])
        .arg(&venv)
        .output()
        .unwrap();
    succeeded(&created, "python3 -m venv");
    let install = Command::new(venv.join("bin/pip"))
        .args([
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--no-index",
            "--find-links",
        ])
        .arg(packages_dir())
        .arg(format!("ask-user=={VERSION}"))
        .output()
        .unwrap();
    succeeded(&install, "pip install ask-user");

    // The environment's bin first, as after `activate`; no Rust anywhere on PATH.
    let path = format!("{}:{}", venv.join("bin").display(), path_without_rust());
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let version = installed(&path, &work, &["--version"]);
    assert_eq!(
        succeeded(&version, "ask-user --version"),
        format!("ask-user {VERSION}\n")
    );
    let call = json!({"questions": [{"question": "Which database should we use?",
        "options": [{"label": "PostgreSQL"}, {"label": "SQLite"}]}]});
    std::fs::write(work.join("call.json"), call.to_string()).unwrap();
    let pending = installed(&path, &work, &["-p", "call.json"]);
    assert_eq!(pending.status.code(), Some(4), "{pending:?}");
    let pending: Value = serde_json::from_slice(&pending.stdout).unwrap();
    assert_eq!(
        pending["pendingFile"],
        work.join(".pi/pending-questions.json")
            .display()
            .to_string()
    );
    let answered = installed(&path, &work, &["-p", "--answers", r#"["sqlite"]"#]);
    let answered: Value = serde_json::from_str(&succeeded(&answered, "print pass 2")).unwrap();
    assert_eq!(answered["answers"][0]["answer"], "SQLite");

    // One build in every package: the wheel's binary is the npm package's and the bundle's.
    let binary = std::fs::read(venv.join("bin/ask-user")).unwrap();
    for copy in [
        format!("npm/cli-{}/bin/ask-user", platform_name()),
        format!("mcpb-{}/server/ask-user", platform_name()),
    ] {
        assert!(
            binary == std::fs::read(artifact(&copy)).unwrap(),
            "{copy} differs from the wheel's binary"
        );
    }
}

#[test]
#[ignore = "needs node, the pinned @anthropic-ai/mcpb of tests/packages_host and the packages of cargo xtask dist; run by .ci/run"]
fn the_mcpb_bundle_has_a_valid_manifest_and_its_server_answers() {
    let _heavy = common::heavy::heavy("packages");
    let tools = npm_tools("packages_host", "@anthropic-ai/mcpb");
    let mcpb = tools.join("node_modules/.bin/mcpb");
    let dir = tempfile::tempdir().unwrap();
    let bundle = artifact(&format!("ask-user-{VERSION}-{}.mcpb", platform_name()));
    let unpacked = dir.path().join("bundle");
    succeeded(
        &Command::new(&mcpb)
            .arg("unpack")
            .arg(&bundle)
            .arg(&unpacked)
            .output()
            .unwrap(),
        "mcpb unpack",
    );
    let valid = Command::new(&mcpb)
        .arg("validate")
        .arg(unpacked.join("manifest.json"))
        .output()
        .unwrap();
    assert!(
        succeeded(&valid, "mcpb validate").contains("Manifest schema validation passes!"),
        "{valid:?}"
    );

    let manifest: Value =
        serde_json::from_slice(&std::fs::read(unpacked.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["version"], VERSION);
    let os = platform_name().split('-').next().unwrap();
    assert_eq!(manifest["compatibility"]["platforms"], json!([os]));
    assert_eq!(manifest["server"]["type"], "binary");
    assert!(
        unpacked
            .join(manifest["server"]["entry_point"].as_str().unwrap())
            .is_file()
    );

    // Start the server as Claude Desktop does: the manifest's command and arguments, with its
    // variables filled in (the presenters at their default), and call the tool; a client
    // without forms, on a machine with no display and no terminal, gets the pending file,
    // under the home folder the arguments name.
    let home = dir.path().join("home");
    let presenters = manifest["user_config"]["presenters"]["default"]
        .as_str()
        .unwrap();
    assert_eq!(presenters, "elicitation,web,file");
    let fill = |text: &str| {
        text.replace("${__dirname}", &unpacked.display().to_string())
            .replace("${user_config.presenters}", presenters)
            .replace("${HOME}", &home.display().to_string())
    };
    let config = &manifest["server"]["mcp_config"];
    let mut command = Command::new(fill(config["command"].as_str().unwrap()));
    for arg in config["args"].as_array().unwrap() {
        command.arg(fill(arg.as_str().unwrap()));
    }
    command
        .current_dir("/")
        .env_clear()
        .env("PATH", path_without_rust())
        .env("ASK_USER_NO_TTY", "1");
    let (mut server, mut stdin, mut lines) = raw_session_of(command, json!({}));
    send_line(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    );
    let tools = read_message(&mut lines);
    assert_eq!(tools["result"]["tools"][0]["name"], "ask_user", "{tools}");
    send_line(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "ask_user",
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
    assert!(home.join(".ask-user/pending-questions.json").is_file());
    drop(stdin);
    server.wait().unwrap();
}

#[test]
#[ignore = "needs node, root or user namespaces, the pinned Claude Code of tests/packages_host and the packages of cargo xtask dist; run by .ci/run"]
fn claude_code_validates_installs_and_starts_the_plugin() {
    let _heavy = common::heavy::heavy("packages");
    npm_tools("packages_host", "@anthropic-ai/claude-code");
    let work = tempfile::tempdir().unwrap();
    let output = Command::new("unshare")
        .args(["-rn", "sh"])
        .arg(host_dir().join("claude_plugin.sh"))
        .arg(repository())
        .arg(packages_dir())
        .arg(work.path())
        .env_clear()
        .env(
            "PATH",
            path_without_rust().replace("/usr/bin", "/usr/sbin:/usr/bin"),
        )
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let said = succeeded(&output, "claude_plugin.sh");
    assert_eq!(said.matches("Validation passed").count(), 2, "{said}");
    assert!(
        said.contains("Successfully installed plugin: ask-user@ask-user"),
        "{said}"
    );
    let server = format!("plugin:ask-user:ask-user: npx -y ask-user@{VERSION} mcp - ✔ Connected");
    assert!(said.contains(&server), "{said}");
}

#[test]
#[ignore = "needs node; run by .ci/run"]
fn the_launchers_unit_tests_pass() {
    let _heavy = common::heavy::heavy("packages");
    let output = Command::new("node")
        .args(["--test", "integrations/npm/test/"])
        .current_dir(repository())
        .output()
        .unwrap();
    let said = succeeded(&output, "node --test integrations/npm/test/");
    assert!(said.contains("# fail 0"), "{said}");
}

#[cfg(target_os = "linux")]
#[test]
#[ignore = "needs objdump (binutils) and the packages of cargo xtask dist; run by .ci/run"]
fn the_linux_binary_runs_on_glibc_2_17() {
    let _heavy = common::heavy::heavy("packages");
    let binary = artifact(&format!("npm/cli-{}/bin/ask-user", platform_name()));
    let output = Command::new("objdump")
        .arg("-T")
        .arg(&binary)
        .output()
        .expect("objdump runs (Debian's binutils)");
    let symbols = succeeded(&output, "objdump -T");
    // Each `GLIBC_2.14`-style version the dynamic symbols need (not `GLIBC_PRIVATE`).
    let mut needed: Vec<Vec<u32>> = symbols
        .split("GLIBC_")
        .skip(1)
        .filter_map(|rest| {
            let version = rest
                .split(|c: char| !(c.is_ascii_digit() || c == '.'))
                .next()?;
            version.split('.').map(|n| n.parse().ok()).collect()
        })
        .collect();
    needed.sort();
    let newest = needed.last().expect("the binary links glibc");
    assert!(
        *newest <= vec![2, 17],
        "the binary needs GLIBC_{newest:?}, past the manylinux2014 floor of 2.17"
    );
}

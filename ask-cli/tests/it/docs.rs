//! The README and the pages of `docs/`, read as a newcomer runs them: every command and every
//! JSON document they show is checked, and a page that shows one this test cannot check fails.
//!
//! - Lines are at most 120 characters, and a line of prose holds one sentence.
//! - A fenced block says its kind: `json` is parsed; `sh` is run; `text` is a screen or an
//!   output, where a line that starts with `ask-user` is parsed; `toml` and `ts` appear only as
//!   wiring examples, which `tests/it/readme_wiring.rs` runs; `rust` is a library sketch.
//! - Each line of an `sh` block runs through `sh` in a fresh folder holding a copy of
//!   `examples/`, with no terminal, after the `<!-- setup: COMMAND -->` lines just above the
//!   block. `ask-user` is the binary under test and must answer 0 or 4; a command that says it
//!   needs a terminal runs again in a pseudo-terminal, where Esc must cancel its questions. Every other program is
//!   a shim on `PATH` that records its arguments: `npx -y ask-user@VERSION ARGS` and
//!   `cargo run -p ask-user -- ARGS` then run the binary under test with ARGS, and each recorded
//!   command is checked against what it names (an MCP server is started and lists its tool, a
//!   package name and version are the workspace's, a pi flag is one the pi package adds).
//! - A short, listed set is checked for syntax only: `SYNTAX_ONLY`.
//! - Every `--flag` of an `ask-user` command, in a block or in an inline code span, is one the
//!   binary's help names.
//! - The install commands also run against the packages of `cargo xtask dist`: from their files,
//!   and from the static registry on 127.0.0.1 of `tests/it/packages.rs` (an ignored test, run by
//!   `.ci/run`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::mcp_raw::{raw_session, read_message, send_line, tool_name};
use common::pty::{ESC, Session};
use serde_json::{Value, json};

const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The commands checked for syntax only, and why they are not run here.
const SYNTAX_ONLY: &[(&str, &str)] = &[
    (
        "cargo install",
        "an optimised build of the published crate takes minutes; `.ci/run` builds the same \
         package from its files with `cargo publish --dry-run`",
    ),
    (
        "claude plugin",
        "Claude Code installs the plugin in `tests/it/packages.rs`, with the pinned Claude Code",
    ),
    ("ssh", "a tunnel to another machine"),
];

/// The folder where a command of a page would run: the repository.
fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The README and every page of `docs/`, as (path from the repository, text).
fn pages() -> Vec<(String, String)> {
    let mut names: Vec<String> = std::fs::read_dir(repository().join("docs"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|n| n.ends_with(".md"))
        .map(|n| format!("docs/{n}"))
        .collect();
    names.sort();
    names.insert(0, "README.md".to_string());
    let pages: Vec<(String, String)> = names
        .into_iter()
        .map(|n| {
            let text = std::fs::read_to_string(repository().join(&n)).unwrap();
            (n, text)
        })
        .collect();
    assert!(pages.len() >= 10, "only {} pages were read", pages.len());
    pages
}

/// A fenced block of a page.
#[derive(Debug)]
struct Block {
    page: String,
    /// The line of its opening fence, from 1.
    line: usize,
    lang: String,
    text: String,
    /// The commands of the `<!-- setup: … -->` lines just above it.
    setup: Vec<String>,
    /// The name of a `<!-- wiring: … -->` line just above it.
    wiring: Option<String>,
}

/// The fenced blocks of a page, and its lines outside them (with their numbers).
fn scan(page: &str, text: &str) -> (Vec<Block>, Vec<(usize, String)>) {
    let mut blocks = Vec::new();
    let mut prose = Vec::new();
    let mut lines = text.lines().enumerate();
    let mut comments: Vec<String> = Vec::new();
    while let Some((n, line)) = lines.next() {
        if let Some(lang) = line.strip_prefix("```") {
            let mut body = String::new();
            for (_, inner) in lines.by_ref() {
                if inner == "```" {
                    break;
                }
                body.push_str(inner);
                body.push('\n');
            }
            let setup = comments
                .iter()
                .filter_map(|c| c.strip_prefix("setup: "))
                .map(str::to_string)
                .collect();
            let wiring = comments
                .iter()
                .find_map(|c| c.strip_prefix("wiring: "))
                .map(str::to_string);
            blocks.push(Block {
                page: page.to_string(),
                line: n + 1,
                lang: lang.to_string(),
                text: body,
                setup,
                wiring,
            });
            comments.clear();
        } else if let Some(comment) = line
            .strip_prefix("<!-- ")
            .and_then(|l| l.strip_suffix(" -->"))
        {
            comments.push(comment.to_string());
        } else {
            comments.clear();
            prose.push((n + 1, line.to_string()));
        }
    }
    (blocks, prose)
}

fn all_blocks() -> Vec<Block> {
    pages()
        .iter()
        .flat_map(|(page, text)| scan(page, text).0)
        .collect()
}

/// The inline code spans of a line of prose.
fn code_spans(line: &str) -> Vec<&str> {
    line.split('`').skip(1).step_by(2).collect()
}

// ---------------------------------------------------------------------------------------------
// Form.

/// The benchmark page's tables are the output of `bench/run.py`, row by row.
fn printed_table_row(page: &str, line: &str) -> bool {
    page == "docs/benchmarks.md" && line.starts_with('|')
}

#[test]
fn lines_fit_in_120_characters() {
    let mut long = Vec::new();
    for (page, text) in pages() {
        for (n, line) in text.lines().enumerate() {
            if line.chars().count() > 120 && !printed_table_row(&page, line) {
                long.push(format!(
                    "{page}:{}: {} characters",
                    n + 1,
                    line.chars().count()
                ));
            }
        }
    }
    assert!(
        long.is_empty(),
        "lines over 120 characters:\n{}",
        long.join("\n")
    );
}

/// Where a line of prose holds the end of one sentence and the start of another: a full stop,
/// question or exclamation mark, then a space and a capital letter, outside code spans and
/// quotations.
fn second_sentence(line: &str) -> Option<String> {
    let mut plain = String::new();
    let mut in_code = false;
    let mut in_quote = false;
    for c in line.chars() {
        match c {
            '`' => in_code = !in_code,
            '"' if !in_code => in_quote = !in_quote,
            _ if in_code || in_quote => {}
            _ => plain.push(c),
        }
    }
    let chars: Vec<char> = plain.chars().collect();
    chars.windows(3).enumerate().find_map(|(i, w)| {
        (matches!(w[0], '.' | '?' | '!') && w[1] == ' ' && w[2].is_uppercase()).then(|| {
            chars[i.saturating_sub(20)..(i + 3).min(chars.len())]
                .iter()
                .collect()
        })
    })
}

#[test]
fn a_line_of_prose_holds_one_sentence() {
    let mut found = Vec::new();
    for (page, text) in pages() {
        for (n, line) in scan(&page, &text).1 {
            if line.starts_with('|') || line.starts_with('#') || line.starts_with('!') {
                continue;
            }
            if let Some(at) = second_sentence(&line) {
                found.push(format!("{page}:{n}: …{at}…"));
            }
        }
    }
    assert!(
        found.is_empty(),
        "two sentences on one line:\n{}",
        found.join("\n")
    );
}

#[test]
fn every_block_is_of_a_kind_this_test_checks() {
    let mut found = Vec::new();
    for block in all_blocks() {
        let at = format!("{}:{}", block.page, block.line);
        match block.lang.as_str() {
            "json" | "sh" | "text" | "rust" => {}
            // The wiring examples that tests/it/readme_wiring.rs reads and runs.
            "toml" | "ts" if block.page == "README.md" && block.wiring.is_some() => {}
            other => found.push(format!("{at}: a block of kind `{other}`")),
        }
        if block.lang != "sh" && block.text.lines().any(|l| l.starts_with("$ ")) {
            found.push(format!(
                "{at}: a command with a prompt outside an `sh` block"
            ));
        }
        if !block.setup.is_empty() && block.lang != "sh" {
            found.push(format!("{at}: setup for a block that is not run"));
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn every_json_block_parses() {
    let mut checked = 0;
    for block in all_blocks().iter().filter(|b| b.lang == "json") {
        if let Err(e) = serde_json::from_str::<Value>(&block.text) {
            panic!(
                "{}:{}: not JSON ({e}):\n{}",
                block.page, block.line, block.text
            );
        }
        checked += 1;
    }
    assert!(checked >= 14, "only {checked} JSON blocks");
}

/// True when `text` shows an `ask-user` command: a line of a block, or a code span, that starts
/// with it.
fn runs_ask_user(page: &str, text: &str) -> bool {
    let (blocks, prose) = scan(page, text);
    blocks
        .iter()
        .flat_map(|b| b.text.lines())
        .any(|line| line.trim_start().starts_with("ask-user "))
        || prose
            .iter()
            .flat_map(|(_, line)| code_spans(line))
            .any(|span| span.starts_with("ask-user "))
}

#[test]
fn every_page_that_runs_ask_user_says_where_it_comes_from() {
    let mut missing = Vec::new();
    let mut checked = 0;
    for (page, text) in pages().iter().filter(|(page, _)| page.starts_with("docs/")) {
        if runs_ask_user(page, text) {
            checked += 1;
            if !text.contains("](../README.md#install)") {
                missing.push(page.clone());
            }
        }
    }
    assert!(
        missing.is_empty(),
        "these pages run `ask-user` without a link to the README's Install: {missing:?}"
    );
    assert!(checked >= 10, "only {checked} pages run ask-user");
    // The README's Install section is where they point.
    let readme = std::fs::read_to_string(repository().join("README.md")).unwrap();
    assert!(readme.contains("\n## Install\n"));
}

// ---------------------------------------------------------------------------------------------
// The flags of `ask-user` commands.

/// Every long flag that `ask-user --help` or one of its commands' help names.
fn known_flags() -> BTreeSet<String> {
    let mut flags = BTreeSet::new();
    for args in [
        &["--help"][..],
        &["demo", "--help"],
        &["schema", "--help"],
        &["validate", "--help"],
        &["mcp", "--help"],
        &["serve", "--help"],
        &["questions", "--help"],
        &["session", "get", "--help"],
    ] {
        let output = common::ask_user().args(args).output().unwrap();
        assert!(output.status.success(), "ask-user {args:?}");
        flags.extend(long_flags(&String::from_utf8_lossy(&output.stdout)));
    }
    assert!(
        flags.contains("--answers") && flags.contains("--present"),
        "{flags:?}"
    );
    flags
}

/// The `--flag` words of a text.
fn long_flags(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .filter(|w| w.starts_with("--") && w.len() > 2)
        .map(|w| w.trim_end_matches('-').to_string())
        .collect()
}

#[test]
fn every_ask_user_command_uses_flags_the_binary_has() {
    let known = known_flags();
    let mut commands = Vec::new();
    for (page, text) in pages() {
        let (blocks, prose) = scan(&page, &text);
        for (n, line) in prose {
            for span in code_spans(&line) {
                if span.starts_with("ask-user ") {
                    commands.push((format!("{page}:{n}"), span.to_string()));
                }
            }
        }
        for block in blocks.iter().filter(|b| b.lang == "sh" || b.lang == "text") {
            for (i, line) in block.text.lines().enumerate() {
                if line.contains("ask-user ") && !line.starts_with("ask-user:") {
                    commands.push((format!("{page}:{}", block.line + 1 + i), line.to_string()));
                }
            }
        }
    }
    assert!(commands.len() >= 40, "only {} commands", commands.len());
    let unknown: Vec<String> = commands
        .iter()
        .flat_map(|(at, command)| {
            long_flags(command)
                .into_iter()
                .filter(|f| !known.contains(f))
                .map(move |f| format!("{at}: {f} in `{command}`"))
        })
        .collect();
    assert!(
        unknown.is_empty(),
        "flags the binary does not have:\n{}",
        unknown.join("\n")
    );
}

// ---------------------------------------------------------------------------------------------
// Running the `sh` blocks.

/// The programs a page's command may start besides `ask-user`: a shim records each, and
/// `check_recorded` checks what it was given.
const SHIMMED: &[&str] = &[
    "npx", "npm", "pip", "cargo", "claude", "pi", "ssh", "python3",
];

/// Programs of the system that a command may use as they are (`.` is the shell's own, which
/// reads a script such as the `activate` of a virtual environment).
const PLAIN: &[&str] = &["echo", "cat", "."];

/// The shim of `program`: it records its arguments (separated by US, ended by RS) and, for the
/// forms that start `ask-user`, runs the binary under test in its place.
fn shim(program: &str) -> String {
    let record = r#"for a in "$(basename "$0")" "$@"; do printf '%s\037' "$a"; done >> "$DOCS_LOG"; printf '\036' >> "$DOCS_LOG""#;
    let then = match program {
        "npx" => format!(
            "if [ \"$1\" = -y ] && [ \"$2\" = ask-user@{VERSION} ]; then shift 2; exec ask-user \"$@\"; fi"
        ),
        "cargo" => "if [ \"$1\" = run ]; then while [ \"$1\" != -- ]; do shift; done; shift; exec ask-user \"$@\"; fi"
            .to_string(),
        // A virtual environment with an `activate` that changes nothing, so that the shims stay
        // first on PATH.
        "python3" => "if [ \"$1\" = -m ] && [ \"$2\" = venv ]; then mkdir -p \"$3/bin\" && : > \"$3/bin/activate\"; fi"
            .to_string(),
        _ => String::new(),
    };
    format!("#!/bin/sh\n{record}\n{then}\nexit 0\n")
}

/// A folder for one block: `examples/`, and `bin/` with `ask-user` and the shims.
struct Sandbox {
    dir: tempfile::TempDir,
}

impl Sandbox {
    fn new() -> Sandbox {
        let dir = tempfile::tempdir().unwrap();
        let work = dir.path().join("work");
        std::fs::create_dir_all(work.join("examples/invalid")).unwrap();
        for sub in ["", "invalid"] {
            for entry in std::fs::read_dir(repository().join("examples").join(sub))
                .unwrap()
                .flatten()
            {
                if entry.path().is_file() {
                    std::fs::copy(
                        entry.path(),
                        work.join("examples").join(sub).join(entry.file_name()),
                    )
                    .unwrap();
                }
            }
        }
        let bin = dir.path().join("bin");
        std::fs::create_dir(&bin).unwrap();
        std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_ask-user"), bin.join("ask-user")).unwrap();
        for program in SHIMMED {
            let path = bin.join(program);
            std::fs::write(&path, shim(program)).unwrap();
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        Sandbox { dir }
    }

    fn work(&self) -> PathBuf {
        self.dir.path().join("work")
    }

    fn log(&self) -> PathBuf {
        self.dir.path().join("commands.log")
    }

    /// Runs one command line through `sh` with no terminal, bounded in time: its exit code and
    /// stderr.
    fn run(&self, line: &str) -> (Option<i32>, String) {
        let path = format!("{}:/usr/bin:/bin", self.dir.path().join("bin").display());
        let stderr = self.dir.path().join("stderr");
        let mut command = Command::new("setsid");
        command
            .args(["sh", "-c", line])
            .current_dir(self.work())
            .env_clear()
            .env("PATH", path)
            .env("HOME", self.dir.path())
            .env("ASK_USER_NO_TTY", "1")
            .env("DOCS_LOG", self.log())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&stderr).unwrap());
        let mut child = command.spawn().unwrap();
        let start = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if start.elapsed() > Duration::from_secs(20) {
                let _ = child.kill();
                let _ = child.wait();
                panic!("`{line}` ran for more than 20 s");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        (status.code(), std::fs::read_to_string(&stderr).unwrap())
    }

    /// Runs one command line that needs a terminal in a pseudo-terminal: the questions must
    /// appear, and Esc must cancel them (exit code 130).
    fn run_in_terminal(&self, line: &str) -> Result<(), String> {
        let script = format!(
            "cd '{}' && PATH='{}':/usr/bin:/bin DOCS_LOG='{}' HOME='{}' && export PATH DOCS_LOG HOME && {line} > stdout.txt",
            self.work().display(),
            self.dir.path().join("bin").display(),
            self.log().display(),
            self.dir.path().display(),
        );
        let mut session = Session::start(&script, &[]);
        session.wait_for("Esc cancel");
        session.send(ESC);
        match session.exit_code() {
            130 => Ok(()),
            code => Err(format!("Esc in the terminal UI ended it with {code}")),
        }
    }

    /// The commands the shims recorded so far, and forgets them.
    fn take_recorded(&self) -> Vec<Vec<String>> {
        let text = std::fs::read_to_string(self.log()).unwrap_or_default();
        let _ = std::fs::remove_file(self.log());
        text.split('\u{1e}')
            .filter(|r| !r.is_empty())
            .map(|r| {
                r.trim_end_matches('\u{1f}')
                    .split('\u{1f}')
                    .map(str::to_string)
                    .collect()
            })
            .collect()
    }
}

/// The command lines of an `sh` block: comments and blank lines left out, a line that ends in
/// `\` joined with the next.
fn command_lines(text: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut current = String::new();
    for line in text.lines() {
        let line = line.trim();
        if current.is_empty() && (line.is_empty() || line.starts_with('#')) {
            continue;
        }
        if let Some(head) = line.strip_suffix('\\') {
            current.push_str(head);
            continue;
        }
        current.push_str(line);
        lines.push(std::mem::take(&mut current));
    }
    lines
}

/// The program of each command of a line (split at `|`, `&&` and `;` outside quotes), after
/// any `NAME=value` assignments.
fn programs(line: &str) -> Vec<String> {
    let mut segments = vec![String::new()];
    let mut quote: Option<char> = None;
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match (quote, c) {
            (Some(q), _) if c == q => quote = None,
            (None, '\'' | '"') => quote = Some(c),
            (None, '|' | ';') => {
                segments.push(String::new());
                if chars.get(i + 1) == Some(&'|') {
                    i += 1;
                }
            }
            (None, '&') if chars.get(i + 1) == Some(&'&') => {
                segments.push(String::new());
                i += 1;
            }
            _ => segments.last_mut().unwrap().push(c),
        }
        i += 1;
    }
    segments
        .iter()
        .filter_map(|s| {
            s.split_whitespace()
                .find(|w| !w.contains('='))
                .map(str::to_string)
        })
        .collect()
}

fn read_json(path: &str) -> Value {
    serde_json::from_slice(&std::fs::read(repository().join(path)).unwrap()).unwrap()
}

/// The package name of a crate folder's manifest, and whether it may be published.
fn crate_package(folder: &str) -> Option<(String, bool)> {
    let manifest = std::fs::read_to_string(repository().join(folder).join("Cargo.toml")).ok()?;
    let name = manifest
        .lines()
        .find_map(|l| l.strip_prefix("name = "))?
        .trim_matches('"')
        .to_string();
    Some((name, !manifest.contains("publish = false")))
}

/// The workspace's crates that are published, by package name.
fn published_crates() -> BTreeSet<String> {
    std::fs::read_dir(repository())
        .unwrap()
        .flatten()
        .filter_map(|e| crate_package(&e.file_name().to_string_lossy()))
        .filter(|(_, publish)| *publish)
        .map(|(name, _)| name)
        .collect()
}

/// `ask-user mcp ARGS` as an agent's configuration starts it: it lists the tool under its name.
fn mcp_server_lists_its_tool(args: &[String]) -> Result<(), String> {
    if args.first().map(String::as_str) != Some("mcp") {
        return Err(format!("not an MCP server command: {args:?}"));
    }
    let rest: Vec<&str> = args[1..].iter().map(String::as_str).collect();
    let name = tool_name(&rest);
    let dir = tempfile::tempdir().unwrap();
    let (mut server, mut stdin, mut lines) = raw_session(&rest, dir.path(), json!({}));
    send_line(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    );
    let tools = read_message(&mut lines);
    drop(stdin);
    server.wait().unwrap();
    if tools["result"]["tools"][0]["name"] == name {
        Ok(())
    } else {
        Err(format!("the server of {args:?} listed {tools}"))
    }
}

/// The files of `cargo xtask dist` a page installs, as a page names them from the repository's
/// root (the platform's part of a name a `*`): the npm platform packages and the launcher (named
/// as `npm pack` names them) and the wheel. `xtask/src/dist.rs` writes them under
/// `target/packages/`, the packages of `integrations/npm/ask-user/lib/platforms.json` and the
/// project of `integrations/python`.
fn dist_files() -> Vec<String> {
    let dist = std::fs::read_to_string(repository().join("xtask/src/dist.rs")).unwrap();
    assert!(dist.contains("const OUT: &str = \"target/packages\";"));
    let platforms = read_json("integrations/npm/ask-user/lib/platforms.json");
    let platform_scope = platforms
        .as_array()
        .unwrap()
        .iter()
        .all(|p| p["package"].as_str().unwrap().starts_with("@ask-user/cli-"));
    assert!(platform_scope, "{platforms}");
    let launcher = read_json("integrations/npm/ask-user/package.json");
    assert_eq!(launcher["name"], "ask-user");
    let python =
        std::fs::read_to_string(repository().join("integrations/python/pyproject.toml")).unwrap();
    assert!(python.contains("\nname = \"ask-user\"\n"), "{python}");
    vec![
        format!("./target/packages/ask-user-cli-*-{VERSION}.tgz"),
        format!("./target/packages/ask-user-{VERSION}.tgz"),
        format!("./target/packages/ask_user-{VERSION}-*.whl"),
    ]
}

/// Checks one command a shim recorded: what it names exists, as the page says.
fn check_recorded(argv: &[String]) -> Result<(), String> {
    let words: Vec<&str> = argv.iter().map(String::as_str).collect();
    let npm_package = format!("ask-user@{VERSION}");
    let pip_package = format!("ask-user=={VERSION}");
    let pi_package = format!("npm:pi-ask-user@{VERSION}");
    match words.as_slice() {
        // The installed command, which the shim ran as the binary under test.
        ["npx", "-y", package, ..] if *package == npm_package => Ok(()),
        // Installed for real in `install_commands_against_the_local_registry`.
        ["npm", "install", "-g", package] if *package == npm_package => Ok(()),
        ["pip", "install", package] if *package == pip_package => Ok(()),
        ["cargo", "run", "-p", package, "--", ..] => {
            (crate_package("ask-cli").map(|(n, _)| n).as_deref() == Some(*package))
                .then_some(())
                .ok_or_else(|| format!("no package {package} runs the binary"))
        }
        // The README's test command is the one `.ci/run` runs.
        ["cargo", "test", "--workspace"] => std::fs::read_to_string(repository().join(".ci/run"))
            .unwrap()
            .contains("\ncargo test --workspace")
            .then_some(())
            .ok_or_else(|| ".ci/run does not run `cargo test --workspace`".to_string()),
        // From a clone: the folder of the binary's package.
        ["cargo", "install", "--locked", "--path", folder] => {
            (crate_package(folder).map(|(n, _)| n) == crate_package("ask-cli").map(|(n, _)| n))
                .then_some(())
                .ok_or_else(|| format!("{folder} is not the folder of the ask-user binary"))
        }
        ["python3", "-m", "venv", folder] if !folder.is_empty() => Ok(()),
        // The tools of `cargo xtask dist`, pinned.
        ["pip", "install", "-r", file] => {
            let pins = std::fs::read_to_string(repository().join(file))
                .map_err(|e| format!("{file}: {e}"))?;
            (pins.contains("\nmaturin==") && pins.contains("\nziglang=="))
                .then_some(())
                .ok_or_else(|| format!("{file} does not pin maturin and ziglang"))
        }
        // The packages `cargo xtask dist` writes, installed from their files.
        ["npm", "install", "-g", files @ ..] if !files.is_empty() => {
            let written = dist_files();
            match files.iter().find(|f| !written.contains(&f.to_string())) {
                None => Ok(()),
                Some(f) => Err(format!(
                    "{f} is not a file `cargo xtask dist` writes: {written:?}"
                )),
            }
        }
        ["pip", "install", wheel] if dist_files().contains(&wheel.to_string()) => Ok(()),
        ["pi", "install", "./integrations/pi"] => {
            let manifest = read_json("integrations/pi/package.json");
            (manifest["name"] == "pi-ask-user")
                .then_some(())
                .ok_or_else(|| "integrations/pi is not the package pi-ask-user".to_string())
        }
        ["cargo", "install", "--locked", package] => published_crates()
            .contains(*package)
            .then_some(())
            .ok_or_else(|| format!("{package} is not a published crate of the workspace")),
        ["cargo", "add", crates @ ..] if !crates.is_empty() => {
            let published = published_crates();
            match crates.iter().find(|c| !published.contains(**c)) {
                None => Ok(()),
                Some(c) => Err(format!("{c} is not a published crate of the workspace")),
            }
        }
        ["cargo", "xtask", task, ..] => {
            let main = std::fs::read_to_string(repository().join("xtask/src/main.rs")).unwrap();
            main.contains(&format!("[\"{task}\""))
                .then_some(())
                .ok_or_else(|| format!("xtask has no task {task}"))
        }
        ["claude", "mcp", "add", "ask-user", rest @ ..] => {
            let at = rest
                .iter()
                .position(|w| *w == "--")
                .ok_or("no `--` before the server")?;
            match &rest[at + 1..] {
                ["ask-user", args @ ..] => {
                    let args: Vec<String> = args.iter().map(|a| (*a).to_string()).collect();
                    mcp_server_lists_its_tool(&args)
                }
                ["npx", "-y", package, args @ ..] if *package == npm_package => {
                    let args: Vec<String> = args.iter().map(|a| (*a).to_string()).collect();
                    mcp_server_lists_its_tool(&args)
                }
                other => Err(format!(
                    "a server command that is not the package's: {other:?}"
                )),
            }
        }
        // Syntax only: the repository's marketplace lists the plugin.
        ["claude", "plugin", "marketplace", "add", source] if !source.is_empty() => {
            let marketplace = read_json(".claude-plugin/marketplace.json");
            let folder = marketplace["plugins"][0]["source"]
                .as_str()
                .unwrap_or_default();
            (marketplace["name"] == "ask-user" && repository().join(folder).is_dir())
                .then_some(())
                .ok_or_else(|| "the repository's marketplace does not list the plugin".to_string())
        }
        ["claude", "plugin", "install", "ask-user@ask-user"] => {
            let marketplace = read_json(".claude-plugin/marketplace.json");
            (marketplace["plugins"][0]["name"] == "ask-user")
                .then_some(())
                .ok_or_else(|| "the marketplace has no plugin ask-user".to_string())
        }
        // Claude Code started as it is, its environment set by the line.
        ["claude"] => Ok(()),
        ["pi", "install", spec] if *spec == pi_package => {
            let manifest = read_json("integrations/pi/package.json");
            (manifest["name"] == "pi-ask-user" && manifest["version"] == VERSION)
                .then_some(())
                .ok_or_else(|| format!("integrations/pi is not {spec}"))
        }
        ["pi", "-p", prompt] if !prompt.is_empty() => Ok(()),
        ["pi", "-c", "-p", rest @ ..] => {
            if let ["--answers", answers, _] = rest {
                serde_json::from_str::<Vec<String>>(answers)
                    .map_err(|e| format!("--answers {answers}: {e}"))?;
                let source =
                    std::fs::read_to_string(repository().join("integrations/pi/index.ts")).unwrap();
                return source
                    .contains("registerFlag(\"answers\"")
                    .then_some(())
                    .ok_or_else(|| "the pi package adds no --answers flag".to_string());
            }
            match rest {
                [_] | [_, _] => Ok(()),
                _ => Err(format!("pi -c -p with {rest:?}")),
            }
        }
        // Syntax only: a local forward to this machine's loopback.
        ["ssh", "-L", forward, host] if !host.is_empty() => {
            let parts: Vec<&str> = forward.split(':').collect();
            match parts.as_slice() {
                [local, "127.0.0.1", remote]
                    if local.parse::<u16>().is_ok() && remote.parse::<u16>().is_ok() =>
                {
                    Ok(())
                }
                _ => Err(format!("ssh -L {forward}")),
            }
        }
        _ => Err(format!("a command this test does not check: {argv:?}")),
    }
}

#[test]
fn every_shell_command_runs_or_is_checked() {
    for (program, _) in SYNTAX_ONLY {
        assert!(SHIMMED.contains(&program.split(' ').next().unwrap()));
    }
    let mut ran = 0;
    let mut failures = Vec::new();
    for block in all_blocks().iter().filter(|b| b.lang == "sh") {
        let sandbox = Sandbox::new();
        let lines: Vec<(bool, String)> = block
            .setup
            .iter()
            .map(|s| (true, s.clone()))
            .chain(command_lines(&block.text).into_iter().map(|l| (false, l)))
            .collect();
        for (setup, line) in lines {
            let at = format!(
                "{}:{}{}",
                block.page,
                block.line,
                if setup { " (setup)" } else { "" }
            );
            for program in programs(&line) {
                if program != "ask-user"
                    && !SHIMMED.contains(&program.as_str())
                    && !PLAIN.contains(&program.as_str())
                {
                    failures.push(format!(
                        "{at}: `{line}` starts {program}, which this test does not check"
                    ));
                }
            }
            let (code, stderr) = sandbox.run(&line);
            if code == Some(1) && stderr.contains("needs a terminal") {
                // The terminal UI: the questions on a terminal, cancelled with Esc.
                if let Err(why) = sandbox.run_in_terminal(&line) {
                    failures.push(format!("{at}: `{line}`: {why}"));
                }
            } else if !matches!(code, Some(0 | 4)) {
                failures.push(format!("{at}: `{line}` exited with {code:?}:\n{stderr}"));
            }
            for argv in sandbox.take_recorded() {
                if let Err(why) = check_recorded(&argv) {
                    failures.push(format!("{at}: `{line}`: {why}"));
                }
            }
            ran += 1;
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(ran >= 20, "only {ran} commands ran");
}

// ---------------------------------------------------------------------------------------------
// The install commands against the packages.

#[test]
#[ignore = "needs node, npm, python3 with venv and the packages of cargo xtask dist; run by .ci/run"]
fn install_commands_against_the_local_registry() {
    let _heavy = common::heavy::heavy("docs");
    use common::packages::{Registry, packages_dir, path_without_rust};
    let installs: Vec<String> = all_blocks()
        .iter()
        .filter(|b| b.lang == "sh")
        .flat_map(|b| command_lines(&b.text))
        .filter(|l| l.starts_with("npm install") || l.starts_with("pip install"))
        .collect();
    // From the files of `cargo xtask dist` (named from the repository's root) and from a
    // release, by npm and by pip.
    assert_eq!(installs.len(), 4, "{installs:?}");
    for line in installs {
        let registry = Registry::start();
        let dir = tempfile::tempdir().unwrap();
        let venv = dir.path().join("venv");
        let mut command = registry.command("sh");
        let from_files = line.contains("./target/packages/");
        command.args(["-c", &line]).current_dir(if from_files {
            repository()
        } else {
            dir.path().to_path_buf()
        });
        if line.starts_with("pip") {
            let created = Command::new("python3")
                .args(["-m", "venv"])
                .arg(&venv)
                .output()
                .unwrap();
            assert!(created.status.success(), "{created:?}");
            command
                .env(
                    "PATH",
                    format!("{}:{}", venv.join("bin").display(), path_without_rust()),
                )
                .env("PIP_NO_INDEX", "1")
                .env("PIP_FIND_LINKS", packages_dir())
                .env("PIP_DISABLE_PIP_VERSION_CHECK", "1");
        }
        let output = command.output().unwrap();
        assert!(output.status.success(), "`{line}`: {output:?}");
        // The command it installed, found where the installer put it.
        let bin = if line.starts_with("pip") {
            venv.join("bin")
        } else {
            let prefix = registry
                .env()
                .into_iter()
                .find(|(k, _)| k == "npm_config_prefix")
                .unwrap()
                .1;
            Path::new(&prefix).join("bin")
        };
        let version = registry
            .command(bin.join("ask-user"))
            .arg("--version")
            .env("PATH", format!("{}:{}", bin.display(), path_without_rust()))
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&version.stdout),
            format!("ask-user {VERSION}\n"),
            "`{line}`: {version:?}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// The checks themselves, on inline examples.

mod checks {
    use super::*;

    #[test]
    fn a_second_sentence_is_found_outside_code_and_quotes() {
        assert!(second_sentence("One sentence. Another one.").is_some());
        assert!(second_sentence("It says \"Done. Next\" and stops.").is_none());
        assert!(second_sentence("Run `a. B` now.").is_none());
        assert!(second_sentence("Version 1.2 is out.").is_none());
    }

    #[test]
    fn commands_name_their_programs() {
        assert_eq!(
            programs("echo '{\"a\": \"|\"}' | ask-user validate"),
            ["echo", "ask-user"]
        );
        assert_eq!(programs("MCP_TOOL_TIMEOUT=1 claude"), ["claude"]);
        assert_eq!(programs("a && b; c"), ["a", "b", "c"]);
        assert_eq!(command_lines("# note\nx \\\n  y\n\nz\n"), ["x y", "z"]);
    }

    #[test]
    fn recorded_commands_outside_the_checked_forms_are_refused() {
        let argv = |s: &str| s.split(' ').map(str::to_string).collect::<Vec<_>>();
        assert!(check_recorded(&argv("pi install npm:pi-ask-user@0.0.1")).is_err());
        assert!(check_recorded(&argv("cargo install --locked left-pad")).is_err());
        assert!(check_recorded(&argv("ssh -L 8080:example.com:80 host")).is_err());
        assert!(check_recorded(&argv("git clone x")).is_err());
        assert!(check_recorded(&argv("cargo test --workspace")).is_ok());
        // From a clone: only the binary's folder, and only the files dist writes.
        assert!(check_recorded(&argv("cargo install --locked --path ask-cli")).is_ok());
        assert!(check_recorded(&argv("cargo install --locked --path ask-core")).is_err());
        let npm = "npm install -g ./target/packages/ask-user-cli-*-0.1.0.tgz";
        assert!(check_recorded(&argv(&npm.replace("0.1.0", VERSION))).is_ok());
        assert!(check_recorded(&argv("npm install -g ./target/packages/ask-user.tgz")).is_err());
        assert!(check_recorded(&argv("pip install ./target/ask_user.whl")).is_err());
        assert!(check_recorded(&argv("pip install -r Cargo.toml")).is_err());
        assert!(check_recorded(&argv("pi install ./integrations/npm")).is_err());
    }

    #[test]
    fn flags_are_read_from_a_command() {
        assert_eq!(
            long_flags("ask-user -p --answers '[]' --pending-file=x"),
            ["--answers", "--pending-file"]
        );
    }
}

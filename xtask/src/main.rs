//! `cargo xtask`: the project's maintenance tasks, dispatched with a plain `match`.

// xtask is a tool of the repository, not ask-user: it reads and writes files with std::fs freely.
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    clippy::disallowed_methods,
    clippy::disallowed_types
)]

mod dist;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

mod typescript;

const USAGE: &str = "\
usage: cargo xtask <task>

tasks:
  schema [--check]      write schema/*.json and the pi package's and the page's generated
                        TypeScript and JavaScript from the code (or check that they are fresh)
  snapshots [--accept]  run the snapshot tests and list the pending snapshots (or accept them)
  bench [--runs N]      build with the dist profile and print the benchmark table (bench/run.py)
  screenshots           save the main screens of the web page under docs/screenshots/ (needs
                        chromium and Playwright for Python, as the browser tests do)
  dist [--target TRIPLE]
                        build the binary once (maturin, with its zig linker on Linux) and write
                        every package under target/packages/: the wheel, the npm tarballs, the
                        Claude Code plugin, the .mcpb bundle and SHA256SUMS (needs npm and the
                        pinned tools of integrations/python/requirements-dist.txt)";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let result = match args.as_slice() {
        ["schema"] => schema(false),
        ["schema", "--check"] => schema(true),
        ["snapshots"] => snapshots(false),
        ["snapshots", "--accept"] => snapshots(true),
        ["bench", rest @ ..] => bench(rest),
        ["screenshots"] => screenshots(),
        ["dist", rest @ ..] => dist::dist(&project_root(), rest),
        ["help" | "--help" | "-h"] | [] => {
            println!("{USAGE}");
            Ok(())
        }
        _ => Err(format!("unknown task `{}`\n\n{USAGE}", args.join(" "))),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The repository root, found from this crate's manifest folder.
fn project_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap_or(Path::new("."))
        .to_path_buf()
}

fn schema(check: bool) -> Result<(), String> {
    let root = project_root();
    let mut stale = Vec::new();
    let typescript = typescript::generated_files(&root)?;
    for (path, contents) in ask_schema::generated_files().into_iter().chain(typescript) {
        if !ensure_file_contents(&root.join(&path), &contents, check)? {
            stale.push(path);
        }
    }
    if stale.is_empty() {
        println!("schema files are up to date");
        Ok(())
    } else if check {
        Err(format!(
            "{} out of date; run `cargo xtask schema` and commit the result",
            stale.join(", ")
        ))
    } else {
        println!("updated {}", stale.join(", "));
        Ok(())
    }
}

/// Builds the binary and the peer program with the fully optimised `dist` profile, as releases
/// are built, then prints the benchmark table.
fn bench(extra: &[&str]) -> Result<(), String> {
    let root = project_root();
    let release = ["build", "--profile", "dist", "--quiet", "-p"];
    run(&root, "cargo", &[&release[..], &["ask-user"]].concat())?;
    let peer = ["ask-tui", "--example", "minimal_inline"];
    run(&root, "cargo", &[&release[..], &peer[..]].concat())?;
    let mut args = vec!["bench/run.py"];
    args.extend_from_slice(extra);
    run(&root, "python3", &args)
}

/// Builds ask-user and saves the main screens of its web page under `docs/screenshots/`
/// (`xtask/screenshots.py`: Debian's chromium and Playwright for Python).
fn screenshots() -> Result<(), String> {
    let root = project_root();
    run(&root, "cargo", &["build", "--quiet", "-p", "ask-user"])?;
    run(
        &root,
        "python3",
        &[
            "xtask/screenshots.py",
            "target/debug/ask-user",
            "docs/screenshots",
        ],
    )
}

fn run(dir: &Path, program: &str, args: &[&str]) -> Result<(), String> {
    let status = std::process::Command::new(program)
        .args(args)
        .current_dir(dir)
        .status()
        .map_err(|e| format!("cannot run {program}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`{program} {}` failed ({status})", args.join(" ")))
    }
}

/// Makes `path` hold `contents`. In check mode nothing is written. Returns whether the file was
/// already fresh.
fn ensure_file_contents(path: &Path, contents: &str, check: bool) -> Result<bool, String> {
    let current = std::fs::read_to_string(path).unwrap_or_default();
    if current.replace("\r\n", "\n") == contents {
        return Ok(true);
    }
    if !check {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        }
        std::fs::write(path, contents).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(false)
}

/// The workspace crates that use insta, by package name.
fn snapshot_crates(root: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .flatten()
        .filter(|entry| {
            std::fs::read_to_string(entry.path().join("Cargo.toml"))
                .is_ok_and(|manifest| manifest.lines().any(|l| l.starts_with("insta")))
        })
        .map(|entry| entry.file_name().to_string_lossy().to_string())
        .collect();
    names.sort();
    names
}

/// The snapshots waiting for review (`*.snap.new`) under `dir`, outside `target`.
fn pending_snapshots(dir: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().to_string();
        if name == "target" || name.starts_with('.') {
            continue;
        }
        if path.is_dir() {
            pending_snapshots(&path, found);
        } else if name.ends_with(".snap.new") {
            found.push(path);
        }
    }
}

/// Runs the tests of the crates that use insta, writing a `.snap.new` beside every snapshot
/// that changed; lists them, or with `accept` moves them over the old snapshots.
fn snapshots(accept: bool) -> Result<(), String> {
    let root = project_root();
    let crates = snapshot_crates(&root);
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let mut command = std::process::Command::new(cargo);
    command.current_dir(&root).arg("test").arg("--quiet");
    for name in &crates {
        command.args(["--package", name]);
    }
    // Record every changed snapshot as `.snap.new` and let the run finish, so that all of
    // them are listed at once.
    command
        .env("INSTA_UPDATE", "new")
        .env("INSTA_FORCE_PASS", "1");
    let status = command
        .status()
        .map_err(|e| format!("cannot run cargo test: {e}"))?;
    if !status.success() {
        return Err("the snapshot crates' tests failed".to_string());
    }
    let mut pending = Vec::new();
    pending_snapshots(&root, &mut pending);
    pending.sort();
    if pending.is_empty() {
        println!("all snapshots match ({})", crates.join(", "));
        return Ok(());
    }
    for path in &pending {
        let shown = path.strip_prefix(&root).unwrap_or(path).display();
        if accept {
            let target = path.with_extension("");
            std::fs::rename(path, &target).map_err(|e| format!("{shown}: {e}"))?;
            println!(
                "accepted {}",
                target.strip_prefix(&root).unwrap_or(&target).display()
            );
        } else {
            println!("pending  {shown}");
        }
    }
    if accept {
        Ok(())
    } else {
        Err(format!(
            "{} snapshot(s) changed; review them with `cargo insta review`, or accept them all \
             with `cargo xtask snapshots --accept`",
            pending.len()
        ))
    }
}

//! `cargo xtask`: the project's maintenance tasks, dispatched with a plain `match`.

#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::path::{Path, PathBuf};
use std::process::ExitCode;

const USAGE: &str = "\
usage: cargo xtask <task>

tasks:
  schema [--check]      write schema/*.json from the code (or check that they are fresh)";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let result = match args.as_slice() {
        ["schema"] => schema(false),
        ["schema", "--check"] => schema(true),
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
    for (path, contents) in ask_schema::generated_files() {
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

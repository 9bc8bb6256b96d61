//! Repository rules that code review would otherwise have to remember.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The internal crates each crate may depend on: the domain at the bottom, one crate per
/// frontend over it, and frontends never depending on each other (the binary hands one the
/// others as `Frontend` values). ARCHITECTURE.md shows the same table.
const ALLOWED: &[(&str, &[&str])] = &[
    ("ask-core", &[]),
    ("ask-schema", &["ask-core"]),
    ("ask-session", &["ask-core", "ask-schema"]),
    ("ask-tui", &["ask-core"]),
    ("ask-print", &["ask-core"]),
    ("ask-rpc", &["ask-core", "ask-schema"]),
    ("ask-mcp", &["ask-core", "ask-schema", "ask-session"]),
    ("ask-web", &["ask-core", "ask-schema", "ask-session"]),
    (
        "ask-cli",
        &[
            "ask-core",
            "ask-schema",
            "ask-session",
            "ask-tui",
            "ask-print",
            "ask-rpc",
            "ask-mcp",
            "ask-web",
        ],
    ),
    ("xtask", &["ask-schema"]),
];

/// The internal crates named in the `[dependencies]` table of a manifest (dev-dependencies may
/// use anything for tests).
fn internal_dependencies(manifest: &str) -> Vec<String> {
    let mut in_dependencies = false;
    let mut found = Vec::new();
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_dependencies = line == "[dependencies]";
            continue;
        }
        if in_dependencies && line.starts_with("ask-") {
            let name: String = line
                .chars()
                .take_while(|c| *c == '-' || c.is_ascii_alphanumeric())
                .collect();
            found.push(name);
        }
    }
    found
}

#[test]
fn dependency_edges_follow_the_layering() {
    for entry in std::fs::read_dir(root()).unwrap() {
        let dir = entry.unwrap().path();
        let manifest = dir.join("Cargo.toml");
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        if !manifest.exists() || !(name.starts_with("ask-") || name == "xtask") {
            continue;
        }
        let allowed = ALLOWED
            .iter()
            .find(|(crate_name, _)| *crate_name == name)
            .unwrap_or_else(|| panic!("{name} is not in the layering table"))
            .1;
        let text = std::fs::read_to_string(&manifest).unwrap();
        for dependency in internal_dependencies(&text) {
            assert!(
                allowed.contains(&dependency.as_str()),
                "{name} must not depend on {dependency} (the layering allows {allowed:?})"
            );
        }
    }
}

#[test]
fn ask_core_has_no_io_dependencies() {
    let text = std::fs::read_to_string(root().join("ask-core/Cargo.toml")).unwrap();
    for forbidden in ["tokio", "crossterm", "ratatui", "libc", "nix"] {
        assert!(
            !text.contains(&format!("\n{forbidden}")),
            "ask-core must not depend on {forbidden}"
        );
    }
}

fn walk(dir: &Path, found: &mut Vec<PathBuf>) {
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
            walk(&path, found);
        } else if name.ends_with(".snap.new") || name.ends_with(".pending-snap") {
            found.push(path);
        }
    }
}

#[test]
fn no_unreviewed_snapshots() {
    let mut found = Vec::new();
    walk(&root(), &mut found);
    assert!(
        found.is_empty(),
        "review these snapshots with `cargo insta review`: {found:?}"
    );
}

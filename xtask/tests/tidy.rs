//! Repository rules that code review would otherwise have to remember: the layering of the
//! crates, no IO dependency in ask-core, no downcast in the binary, no pointer to a document
//! outside the repository, no unreviewed snapshot, the pi package's pins, files and docs within
//! their sizes, one integration-test binary per crate, and no `Result<_, String>` in a library's
//! public functions.
//!
//! Each rule is a small pure function tested on inline examples (`mod rules`), so that a rule
//! that could never fail is caught as well as a rule that is broken.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// `path` from the repository root, with `/`.
fn relative(path: &Path) -> String {
    let path = path.strip_prefix(root()).unwrap_or(path);
    path.to_string_lossy().replace('\\', "/")
}

/// Fails with `what` and every place in `found`, one a line, unless `found` is empty.
#[track_caller]
fn assert_none(what: &str, found: &[String]) {
    assert!(found.is_empty(), "{what}:\n  {}", found.join("\n  "));
}

// ---------------------------------------------------------------------------------------------
// The workspace, as cargo reads it.

/// A workspace package, from `cargo metadata`.
#[derive(Debug)]
struct Package {
    name: String,
    /// The folder of its manifest.
    dir: PathBuf,
    /// Its declared dependencies: the package's name (not a rename) and the kind, `None` for
    /// `[dependencies]` (on any target), `dev` or `build`.
    dependencies: Vec<(String, Option<String>)>,
    /// True when it has a library target.
    library: bool,
    /// The entry files of its integration-test binaries.
    tests: Vec<PathBuf>,
}

impl Package {
    /// The names of its normal dependencies, those its own code links.
    fn normal_dependencies(&self) -> impl Iterator<Item = &str> {
        self.dependencies
            .iter()
            .filter(|(_, kind)| kind.is_none())
            .map(|(name, _)| name.as_str())
    }
}

/// The packages of `cargo metadata --format-version 1` output.
fn packages_of(metadata: &Value) -> Vec<Package> {
    let text = |value: &Value| value.as_str().unwrap_or_default().to_string();
    let list = |value: &Value| value.as_array().cloned().unwrap_or_default();
    list(&metadata["packages"])
        .iter()
        .map(|package| {
            let targets = list(&package["targets"]);
            let kinds = |target: &Value| list(&target["kind"]).iter().map(text).collect::<Vec<_>>();
            Package {
                name: text(&package["name"]),
                dir: Path::new(&text(&package["manifest_path"]))
                    .parent()
                    .unwrap_or(Path::new(""))
                    .to_path_buf(),
                dependencies: list(&package["dependencies"])
                    .iter()
                    .map(|d| (text(&d["name"]), d["kind"].as_str().map(str::to_string)))
                    .collect(),
                library: targets.iter().any(|t| kinds(t).iter().any(|k| k == "lib")),
                tests: targets
                    .iter()
                    .filter(|t| kinds(t).iter().any(|k| k == "test"))
                    .map(|t| PathBuf::from(text(&t["src_path"])))
                    .collect(),
            }
        })
        .collect()
}

/// The workspace's packages, read with `--no-deps` (without it cargo resolves the whole graph,
/// and offline it stops on other platforms' crates that a build never downloads).
fn workspace() -> Vec<Package> {
    let cargo = option_env!("CARGO").unwrap_or("cargo");
    let output = std::process::Command::new(cargo)
        .args([
            "metadata",
            "--no-deps",
            "--offline",
            "--format-version",
            "1",
        ])
        .current_dir(root())
        .output()
        .expect("cargo metadata runs");
    assert!(
        output.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let packages = packages_of(&serde_json::from_slice(&output.stdout).unwrap());
    assert!(
        packages.len() >= ALLOWED.len(),
        "the packages were not read"
    );
    packages
}

/// The `.rs` files under `dir`, keyed by their path from the repository root.
fn rust_files(dir: &Path) -> BTreeMap<String, String> {
    fn walk(dir: &Path, files: &mut BTreeMap<String, String>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, files);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.insert(relative(&path), read(&path));
            }
        }
    }
    let mut files = BTreeMap::new();
    walk(dir, &mut files);
    files
}

// ---------------------------------------------------------------------------------------------
// The layering of the crates.

/// The internal crates each package may depend on (normal dependencies; dev-dependencies may
/// use anything for tests): the domain at the bottom, one crate per frontend over it, and
/// frontends never depending on each other (the binary, ask-user in `ask-cli/`, hands one the
/// others as `Frontend` values). ARCHITECTURE.md shows the same table.
const ALLOWED: &[(&str, &[&str])] = &[
    ("ask-core", &[]),
    ("ask-fs", &[]),
    ("ask-schema", &["ask-core"]),
    ("ask-session", &["ask-core", "ask-fs", "ask-schema"]),
    ("ask-tui", &["ask-core"]),
    ("ask-print", &["ask-core", "ask-fs"]),
    ("ask-rpc", &["ask-core", "ask-schema"]),
    ("ask-mcp", &["ask-core", "ask-schema", "ask-session"]),
    (
        "ask-web",
        &["ask-core", "ask-fs", "ask-schema", "ask-session"],
    ),
    (
        "ask-user",
        &[
            "ask-core",
            "ask-fs",
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

/// The folders beside the root manifest that hold a crate built on its own, outside the
/// workspace (the fuzz targets).
const OUTSIDE_THE_WORKSPACE: &[&str] = &["fuzz"];

/// Every break of the layering: a package the table does not name, a table entry without a
/// package, and a normal dependency edge the table does not allow.
fn layering_violations(packages: &[Package]) -> Vec<String> {
    let names: Vec<&str> = packages.iter().map(|p| p.name.as_str()).collect();
    let mut violations: Vec<String> = ALLOWED
        .iter()
        .filter(|(name, _)| !names.contains(name))
        .map(|(name, _)| format!("the layering table names {name}, which is not a package"))
        .collect();
    for package in packages {
        let name = &package.name;
        let Some((_, allowed)) = ALLOWED.iter().find(|(n, _)| n == name) else {
            violations.push(format!(
                "{name} is not in the layering table of xtask/tests/tidy.rs"
            ));
            continue;
        };
        for dependency in package.normal_dependencies() {
            if names.contains(&dependency) && !allowed.contains(&dependency) {
                violations.push(format!(
                    "{name} depends on {dependency}, an edge outside the layering (it may use \
                     {allowed:?})"
                ));
            }
        }
    }
    violations
}

#[test]
fn dependency_edges_follow_the_layering() {
    let packages = workspace();
    let mut violations = layering_violations(&packages);
    for entry in std::fs::read_dir(root()).unwrap().flatten() {
        let dir = entry.path();
        let name = entry.file_name().to_string_lossy().to_string();
        let member = packages.iter().any(|p| p.dir == dir);
        if dir.join("Cargo.toml").is_file()
            && !member
            && !OUTSIDE_THE_WORKSPACE.contains(&name.as_str())
        {
            violations.push(format!(
                "{name}/ holds a crate that is not a workspace member"
            ));
        }
    }
    assert_none("crate edges outside the layering", &violations);
}

/// The dependencies that would give ask-core IO.
const IO_CRATES: &[&str] = &["tokio", "crossterm", "ratatui", "libc", "nix", "rustix"];

fn io_dependencies(package: &Package) -> Vec<String> {
    package
        .normal_dependencies()
        .filter(|d| IO_CRATES.contains(d))
        .map(|d| format!("{} depends on {d}", package.name))
        .collect()
}

#[test]
fn ask_core_has_no_io_dependencies() {
    let packages = workspace();
    let core = packages.iter().find(|p| p.name == "ask-core").unwrap();
    assert!(
        core.normal_dependencies().count() > 0,
        "ask-core's dependencies were not read"
    );
    assert_none("ask-core does no IO", &io_dependencies(core));
}

// ---------------------------------------------------------------------------------------------
// No downcast in the binary.

/// The lines (from 1) of `text` that hold the word `downcast`, in any case.
fn downcast_lines(text: &str) -> Vec<usize> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| line.to_lowercase().contains("downcast"))
        .map(|(n, _)| n + 1)
        .collect()
}

/// The binary is glue: a frontend's error reaches it typed (`PresentError`), never as a boxed
/// error recovered by its type.
#[test]
fn ask_cli_never_downcasts() {
    let files = rust_files(&root().join("ask-cli/src"));
    assert!(
        files.contains_key("ask-cli/src/main.rs"),
        "ask-cli/src was not read"
    );
    let found: Vec<String> = files
        .iter()
        .flat_map(|(file, text)| {
            downcast_lines(text)
                .into_iter()
                .map(move |n| format!("{file}:{n}"))
        })
        .collect();
    assert_none("`downcast` in the binary", &found);
}

// ---------------------------------------------------------------------------------------------
// No pointer to a document outside the repository.

/// Text that points at a document which is not in the repository, and what it points at. The
/// repository states its rules where they apply; matched in any case.
const POINTERS: &[(&str, &str)] = &[
    ("SPEC.md", "a product specification"),
    ("SPEC §", "a section of a product specification"),
    ("§", "a numbered section of another document"),
    ("STYLE.md", "a style guide"),
    ("seed 00", "a numbered seed document"),
    ("seeds/", "a folder of seed documents"),
    ("the seed's", "a seed document"),
    ("seed document", "a seed document"),
    ("design card", "a design card"),
    ("REQ-AUQ", "a numbered requirement"),
    ("/work/shared", "a folder outside the repository"),
    ("/work/notes", "a folder outside the repository"),
];

/// This file names the pointers it looks for, so it is the one file not searched for them.
const POINTER_LIST: &str = "xtask/tests/tidy.rs";

/// Each line (from 1) of `text` that points outside the repository, with the text found.
fn pointers_in(text: &str) -> Vec<(usize, &'static str)> {
    let mut found = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.to_lowercase();
        for (needle, _) in POINTERS {
            if line.contains(&needle.to_lowercase()) {
                found.push((n + 1, *needle));
            }
        }
    }
    found
}

/// The paths `.gitignore` leaves out of the repository, in the three forms it uses: `/path`
/// from the root, `*.suffix`, and a name anywhere (`name/` or `name`).
#[derive(Debug, Default)]
struct Ignored {
    anchored: Vec<String>,
    suffixes: Vec<String>,
    names: Vec<String>,
}

impl Ignored {
    fn parse(gitignore: &str) -> Ignored {
        let mut ignored = Ignored::default();
        for line in gitignore.lines().map(str::trim) {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let pattern = line.trim_end_matches('/');
            let plain = |p: &str| !p.contains(['*', '?', '[', '/', '!']);
            if let Some(path) = pattern
                .strip_prefix('/')
                .filter(|p| !p.contains(['*', '?', '[']))
            {
                ignored.anchored.push(path.to_string());
            } else if let Some(suffix) = pattern.strip_prefix('*').filter(|s| plain(s)) {
                ignored.suffixes.push(suffix.to_string());
            } else if plain(pattern) {
                ignored.names.push(pattern.to_string());
            } else {
                panic!("the tidy tests read .gitignore's simple forms only, not `{line}`");
            }
        }
        ignored
    }

    /// True when `path` (from the root, with `/`) is left out of the repository.
    fn contains(&self, path: &str) -> bool {
        let name = path.rsplit('/').next().unwrap_or(path);
        path.split('/').next() == Some(".git")
            || self
                .anchored
                .iter()
                .any(|a| path == a || path.starts_with(&format!("{a}/")))
            || self.suffixes.iter().any(|s| name.ends_with(s.as_str()))
            || path
                .split('/')
                .any(|part| self.names.iter().any(|n| n == part))
    }
}

/// The text files of the repository (a file that is not UTF-8 or holds a NUL byte is not text),
/// keyed by their path from the root.
fn repository_text_files() -> BTreeMap<String, String> {
    fn walk(dir: &Path, ignored: &Ignored, files: &mut BTreeMap<String, String>) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            let rel = relative(&path);
            if ignored.contains(&rel) {
                continue;
            }
            if path.is_dir() {
                walk(&path, ignored, files);
            } else if let Ok(text) = String::from_utf8(std::fs::read(&path).unwrap())
                && !text.contains('\0')
            {
                files.insert(rel, text);
            }
        }
    }
    let ignored = Ignored::parse(&read(&root().join(".gitignore")));
    let mut files = BTreeMap::new();
    walk(&root(), &ignored, &mut files);
    files
}

#[test]
fn no_pointer_to_a_document_outside_the_repository() {
    let files = repository_text_files();
    for expected in ["README.md", "ask-cli/src/main.rs", ".ci/run", POINTER_LIST] {
        assert!(files.contains_key(expected), "{expected} was not read");
    }
    let found: Vec<String> = files
        .iter()
        .filter(|(file, _)| file.as_str() != POINTER_LIST)
        .flat_map(|(file, text)| {
            pointers_in(text).into_iter().map(move |(line, needle)| {
                let what = POINTERS.iter().find(|(n, _)| *n == needle).unwrap().1;
                format!("{file}:{line}: `{needle}` points at {what}")
            })
        })
        .collect();
    assert_none(
        "write the rule where it applies instead of pointing elsewhere",
        &found,
    );
}

// ---------------------------------------------------------------------------------------------
// No unreviewed snapshot.

fn unreviewed_snapshot(name: &str) -> bool {
    name.ends_with(".snap.new") || name.ends_with(".pending-snap")
}

#[test]
fn no_unreviewed_snapshots() {
    fn walk(dir: &Path, found: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().to_string();
            if name == "target" || name.starts_with('.') {
                continue;
            }
            if path.is_dir() {
                walk(&path, found);
            } else if unreviewed_snapshot(&name) {
                found.push(relative(&path));
            }
        }
    }
    let mut found = Vec::new();
    walk(&root(), &mut found);
    assert_none("review these snapshots with `cargo insta review`", &found);
}

// ---------------------------------------------------------------------------------------------
// The pi package.

fn json_file(path: &str) -> Value {
    serde_json::from_str(&read(&root().join(path))).unwrap()
}

/// The pi package accepts only the minor version of pi its tests run (pi's API is 0.x, so a new
/// minor may break it).
#[test]
fn the_pi_package_pins_the_tested_pi_minor() {
    let tested = json_file("ask-cli/tests/pi_host/package.json");
    let tested = tested["dependencies"]["@mariozechner/pi-coding-agent"]
        .as_str()
        .unwrap();
    let package = json_file("integrations/pi/package.json");
    for peer in ["@mariozechner/pi-coding-agent", "@mariozechner/pi-tui"] {
        assert_eq!(
            package["peerDependencies"][peer],
            format!("~{tested}"),
            "integrations/pi/package.json: the peer dependency on {peer}"
        );
    }
}

/// Every module of the pi package, the generated ones too, is in the files it publishes.
#[test]
fn the_pi_package_publishes_every_module() {
    let package = json_file("integrations/pi/package.json");
    let files: Vec<&str> = package["files"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for entry in std::fs::read_dir(root().join("integrations/pi")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().to_string();
        if name.ends_with(".ts") || name == "tool.json" {
            assert!(
                files.contains(&name.as_str()),
                "integrations/pi/{name} is missing from the package's files"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Files within their size.

/// The lines a source file may have before its test module without saying why.
const LONG_FILE: usize = 800;

/// The non-test part of a source file: the lines before its `#[cfg(test)]` module (which stays
/// at the end of the file); nothing for a file that is all tests (`#![cfg(test)]`).
fn non_test_lines(text: &str) -> Vec<&str> {
    let lines: Vec<&str> = text.lines().collect();
    if lines.iter().any(|line| line.trim() == "#![cfg(test)]") {
        return Vec::new();
    }
    let test_module = (0..lines.len()).find(|&at| {
        lines[at] == "#[cfg(test)]"
            && lines[at + 1..]
                .iter()
                .find(|line| !line.starts_with("#["))
                .is_some_and(|line| line.starts_with("mod ") || line.starts_with("pub mod "))
    });
    lines[..test_module.unwrap_or(lines.len())].to_vec()
}

/// True when the leading `//!` block of `text` has a line starting `Long because:`.
fn says_why_long(text: &str) -> bool {
    text.lines()
        .map_while(|line| line.strip_prefix("//!"))
        .any(|doc| doc.trim_start().starts_with("Long because:"))
}

/// The length of `text` before its test module when it is over [`LONG_FILE`] lines and its
/// leading `//!` block does not say why.
fn unexplained_length(text: &str) -> Option<usize> {
    let length = non_test_lines(text).len();
    (length > LONG_FILE && !says_why_long(text)).then_some(length)
}

/// The source files of every workspace package: its `src/`, without the files of its unit
/// tests (`tests.rs`, or a `tests/` folder).
fn source_files(packages: &[Package]) -> BTreeMap<String, String> {
    let mut files = BTreeMap::new();
    for package in packages {
        files.extend(
            rust_files(&package.dir.join("src"))
                .into_iter()
                .filter(|(path, _)| !path.ends_with("/tests.rs") && !path.contains("/tests/")),
        );
    }
    files
}

#[test]
fn long_files_say_why() {
    let files = source_files(&workspace());
    assert!(
        files.contains_key("ask-core/src/lib.rs"),
        "the sources were not read"
    );
    let found: Vec<String> = files
        .iter()
        .filter_map(|(file, text)| {
            let length = unexplained_length(text)?;
            Some(format!("{file}: {length} lines before its tests"))
        })
        .collect();
    assert_none(
        &format!(
            "split these files by concern, or say in their leading `//!` block, on a line \
             starting `Long because:`, why they are over {LONG_FILE} lines"
        ),
        &found,
    );
}

/// The words `ARCHITECTURE.md` may have, and the lines of `docs/benchmarks.md`.
const ARCHITECTURE_WORDS: usize = 2_000;
const BENCHMARKS_LINES: usize = 150;

/// What is wrong with the sizes of `ARCHITECTURE.md` and `docs/benchmarks.md`.
fn oversized_docs(architecture: &str, benchmarks: &str) -> Vec<String> {
    let words = architecture.split_whitespace().count();
    let lines = benchmarks.lines().count();
    let mut found = Vec::new();
    if words > ARCHITECTURE_WORDS {
        found.push(format!(
            "ARCHITECTURE.md: {words} words, over {ARCHITECTURE_WORDS}"
        ));
    }
    if lines > BENCHMARKS_LINES {
        found.push(format!(
            "docs/benchmarks.md: {lines} lines, over {BENCHMARKS_LINES}"
        ));
    }
    found
}

#[test]
fn the_docs_keep_their_size() {
    let found = oversized_docs(
        &read(&root().join("ARCHITECTURE.md")),
        &read(&root().join("docs/benchmarks.md")),
    );
    assert_none(
        "keep the structure in ARCHITECTURE.md and today's figures in docs/benchmarks.md; the \
         history is in git",
        &found,
    );
}

// ---------------------------------------------------------------------------------------------
// One integration-test binary per crate.

/// The words the first line of a crate's second test binary holds to say why it needs a
/// process of its own (it re-executes itself, or changes signal dispositions, resource limits,
/// the environment or the working folder).
const OWN_PROCESS: &str = "process of its own";

/// The test binaries among `tests` (entry files, with their first line) that a crate keeps
/// beside `tests/it/main.rs` without saying why on their first line.
fn unexplained_test_binaries(tests: &[(String, String)]) -> Vec<String> {
    if tests.len() < 2 {
        return Vec::new();
    }
    tests
        .iter()
        .filter(|(file, first)| {
            let says_why = first.starts_with("//!") && first.to_lowercase().contains(OWN_PROCESS);
            !file.ends_with("tests/it/main.rs") && !says_why
        })
        .map(|(file, first)| format!("{file}: {first}"))
        .collect()
}

#[test]
fn a_second_test_binary_says_why() {
    let packages = workspace();
    let found: Vec<String> = packages
        .iter()
        .flat_map(|package| {
            let tests: Vec<(String, String)> = package
                .tests
                .iter()
                .map(|file| {
                    let text = read(file);
                    (
                        relative(file),
                        text.lines().next().unwrap_or_default().to_string(),
                    )
                })
                .collect();
            unexplained_test_binaries(&tests)
        })
        .collect();
    assert_none(
        &format!(
            "move these tests into the crate's tests/it/main.rs, or say on the file's first \
             line (`//! … {OWN_PROCESS} …`) why each needs a {OWN_PROCESS}"
        ),
        &found,
    );
}

// ---------------------------------------------------------------------------------------------
// Typed errors in the libraries' public functions.

/// True when `signature` (whitespace removed) returns a `Result` whose error is `String`.
fn returns_string_error(signature: &str) -> bool {
    let compact: String = signature.split_whitespace().collect();
    let mut rest = compact.as_str();
    while let Some(at) = rest.find("Result<") {
        rest = &rest[at + "Result<".len()..];
        // The top-level arguments of this `Result<…>`.
        let mut depth = 0;
        let mut arguments = vec![String::new()];
        for c in rest.chars() {
            match c {
                '<' | '(' | '[' => depth += 1,
                '>' | ')' | ']' if depth == 0 => break,
                '>' | ')' | ']' => depth -= 1,
                ',' if depth == 0 => {
                    arguments.push(String::new());
                    continue;
                }
                _ => {}
            }
            arguments.last_mut().unwrap().push(c);
        }
        if arguments.last().is_some_and(String::is_empty) {
            arguments.pop(); // a trailing comma
        }
        if arguments.len() == 2 && matches!(arguments[1].as_str(), "String" | "std::string::String")
        {
            return true;
        }
    }
    false
}

/// Each public function of `text` (`pub fn`, `pub async fn`, …, not `pub(crate)`) before its test
/// module whose signature, possibly over several lines, returns `Result<_, String>`: its line
/// (from 1) and its first line.
fn string_errors(text: &str) -> Vec<(usize, String)> {
    let lines = non_test_lines(text);
    let mut found = Vec::new();
    for (at, line) in lines.iter().enumerate() {
        let item = line.trim_start();
        let Some(rest) = item.strip_prefix("pub ") else {
            continue;
        };
        let is_fn = rest
            .split_whitespace()
            .take_while(|word| matches!(*word, "const" | "async" | "unsafe" | "extern" | "fn"))
            .any(|word| word == "fn");
        if !is_fn {
            continue;
        }
        let mut signature = String::new();
        for next in &lines[at..] {
            signature.push_str(next);
            signature.push(' ');
            if next.contains('{') || next.trim_end().ends_with(';') {
                break;
            }
        }
        let signature = signature.split('{').next().unwrap_or_default();
        if returns_string_error(signature) {
            found.push((at + 1, item.to_string()));
        }
    }
    found
}

#[test]
fn libraries_return_typed_errors() {
    let libraries: Vec<Package> = workspace()
        .into_iter()
        .filter(|p| p.library && p.name.starts_with("ask-"))
        .collect();
    let files = source_files(&libraries);
    assert!(
        files.contains_key("ask-core/src/lib.rs"),
        "the libraries were not read"
    );
    let found: Vec<String> = files
        .iter()
        .flat_map(|(file, text)| {
            string_errors(text)
                .into_iter()
                .map(move |(line, item)| format!("{file}:{line}: {item}"))
        })
        .collect();
    assert_none(
        "a library's public function fails with its crate's error enum (thiserror), not a String",
        &found,
    );
}

// ---------------------------------------------------------------------------------------------
// The rules, on inline examples.

mod rules {
    use super::*;

    #[test]
    fn edges_are_read_from_cargo_metadata_and_dev_dependencies_are_not_edges() {
        let metadata = serde_json::json!({"packages": [
            {"name": "ask-tui", "manifest_path": "/r/ask-tui/Cargo.toml",
             "targets": [{"kind": ["lib"], "src_path": "/r/ask-tui/src/lib.rs"},
                         {"kind": ["test"], "src_path": "/r/ask-tui/tests/it/main.rs"}],
             "dependencies": [
                {"name": "ask-core", "kind": null},
                {"name": "ask-web", "kind": null, "rename": "web"},
                {"name": "ask-rpc", "kind": null, "target": "cfg(unix)"},
                {"name": "ask-user", "kind": "dev"},
                {"name": "ask-print", "kind": "build"},
                {"name": "tokio", "kind": null}]},
            {"name": "ask-extra", "manifest_path": "/r/ask-extra/Cargo.toml",
             "targets": [], "dependencies": []}]});
        let mut packages = packages_of(&metadata);
        assert_eq!(packages[0].dir, Path::new("/r/ask-tui"));
        assert!(packages[0].library);
        assert_eq!(
            packages[0].tests,
            [Path::new("/r/ask-tui/tests/it/main.rs")]
        );
        for (name, _) in ALLOWED
            .iter()
            .filter(|(n, _)| !["ask-tui", "xtask"].contains(n))
        {
            packages.push(Package {
                name: (*name).to_string(),
                dir: PathBuf::new(),
                dependencies: Vec::new(),
                library: true,
                tests: Vec::new(),
            });
        }
        assert_eq!(
            layering_violations(&packages),
            [
                "the layering table names xtask, which is not a package",
                "ask-tui depends on ask-web, an edge outside the layering (it may use [\"ask-core\"])",
                "ask-tui depends on ask-rpc, an edge outside the layering (it may use [\"ask-core\"])",
                "ask-extra is not in the layering table of xtask/tests/tidy.rs",
            ]
        );
        assert_eq!(io_dependencies(&packages[0]), ["ask-tui depends on tokio"]);
    }

    #[test]
    fn downcast_is_found_in_code_and_comments() {
        let text = "fn f(e: BoxError) {\n    // Downcast it.\n    e.downcast_ref::<TuiError>();\n    cast(down);\n}\n";
        assert_eq!(downcast_lines(text), [2, 3]);
        assert!(downcast_lines("match error { PresentError::Unasked(why) => why }").is_empty());
    }

    #[test]
    fn every_listed_pointer_is_found_and_ordinary_words_are_not() {
        let pointers = "\
//! The exit codes (SPEC §8).
/// The answer map of REQ-AUQ-003.
//! The screens of seed 001 \"UI Design\".
/// The seed's example call.
See spec.md and STYLE.md, or /work/shared/notes and seeds/001.md, §4.
";
        assert_eq!(
            pointers_in(pointers),
            [
                (1, "SPEC §"),
                (1, "§"),
                (2, "REQ-AUQ"),
                (3, "seed 00"),
                (4, "the seed's"),
                (5, "SPEC.md"),
                (5, "§"),
                (5, "STYLE.md"),
                (5, "seeds/"),
                (5, "/work/shared"),
            ]
        );
        let ordinary = "\
let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
parser.add_argument(\"--seed\", type=int, default=15)
while let Some(item) = seq.next_element_seed(Build)? {}
{\"label\": \"REST API\", \"description\": \"OpenAPI spec included\"}
Seed the corpora from `examples/` (seeds 21, 22 and 23).
";
        assert_eq!(pointers_in(ordinary), []);
    }

    #[test]
    fn the_walk_leaves_out_what_gitignore_names() {
        let ignored = Ignored::parse("/target\n*.snap.new\n/fuzz/corpus\n__pycache__/\n# note\n");
        for path in [
            ".git/config",
            "target/debug/x",
            "ask-tui/tests/snapshots/a.snap.new",
            "fuzz/corpus/parse_call/1",
            "bench/__pycache__/x.pyc",
        ] {
            assert!(ignored.contains(path), "{path}");
        }
        for path in [
            ".ci/run",
            "ask-cli/src/target.rs",
            "fuzz/Cargo.toml",
            "xtask/tests/tidy.rs",
        ] {
            assert!(!ignored.contains(path), "{path}");
        }
    }

    #[test]
    #[should_panic(expected = "simple forms only")]
    fn a_gitignore_form_the_walk_cannot_read_stops_it() {
        let _ = Ignored::parse("!keep.txt\n");
    }

    #[test]
    fn snapshots_waiting_for_review_are_named() {
        assert!(unreviewed_snapshot("snapshots__list_80.snap.new"));
        assert!(unreviewed_snapshot("lib__x.pending-snap"));
        assert!(!unreviewed_snapshot("snapshots__list_80.snap"));
    }

    /// A file of `length` lines before a test module of 50, after `doc`.
    fn file(doc: &str, length: usize) -> String {
        let mut text = doc.to_string();
        let code = length - doc.lines().count();
        text.push_str(&"fn f() {}\n".repeat(code));
        text.push_str("#[cfg(test)]\n#[allow(clippy::unwrap_used)]\nmod tests {\n");
        text.push_str(&"    #[test]\n".repeat(50));
        text.push_str("}\n");
        text
    }

    #[test]
    fn a_long_file_says_why_in_its_leading_doc() {
        let doc = "//! The rules.\n//!\n";
        assert_eq!(unexplained_length(&file(doc, 801)), Some(801));
        assert_eq!(unexplained_length(&file(doc, 800)), None);
        let why = "//! The rules.\n//!\n//! Long because: one table of every rule.\n";
        assert_eq!(unexplained_length(&file(why, 900)), None);
        // Only the leading block counts, and a file that is all tests is not long.
        let late = format!("{}\n//! Long because: too late.\n", file(doc, 900));
        assert_eq!(unexplained_length(&late), Some(900));
        let tests = format!("#![cfg(test)]\n{}", "fn f() {}\n".repeat(900));
        assert_eq!(unexplained_length(&tests), None);
        // An indented `#[cfg(test)]` item is not the test module.
        let inner = format!(
            "{}    #[cfg(test)]\n    mod inner {{}}\n",
            "fn f() {}\n".repeat(801)
        );
        assert_eq!(unexplained_length(&inner), Some(803));
    }

    #[test]
    fn the_docs_are_held_to_their_size() {
        let words = "word ".repeat(2_000);
        let lines = "line\n".repeat(150);
        assert_eq!(oversized_docs(&words, &lines), Vec::<String>::new());
        assert_eq!(
            oversized_docs(&format!("{words}\tone\nmore"), &format!("{lines}x\n")),
            [
                "ARCHITECTURE.md: 2002 words, over 2000",
                "docs/benchmarks.md: 151 lines, over 150"
            ]
        );
    }

    #[test]
    fn a_second_test_binary_says_why_on_its_first_line() {
        let it = (
            "ask-web/tests/it/main.rs".to_string(),
            "mod page;".to_string(),
        );
        let why = (
            "ask-web/tests/limits.rs".to_string(),
            "//! A process of its own: this binary lowers its descriptor limit.".to_string(),
        );
        let bare = (
            "ask-web/tests/bounds.rs".to_string(),
            "//! The bounds.".to_string(),
        );
        assert_eq!(
            unexplained_test_binaries(std::slice::from_ref(&bare)),
            Vec::<String>::new()
        );
        assert_eq!(
            unexplained_test_binaries(&[it.clone(), why.clone()]),
            Vec::<String>::new()
        );
        assert_eq!(
            unexplained_test_binaries(&[it, why, bare]),
            ["ask-web/tests/bounds.rs: //! The bounds."]
        );
    }

    #[test]
    fn a_string_error_in_a_public_signature_is_found() {
        let text = "\
pub fn parse(text: &str) -> Result<Call, String> {
pub(crate) fn inner() -> Result<(), String> {}
fn private() -> Result<(), String> {}
    pub async fn serve(
        options: Options,
    ) -> Result<
        BTreeMap<String, Vec<u8>>,
        String,
    > {
pub fn typed() -> Result<Vec<String>, Problems> {}
pub fn nested() -> Option<Result<(), std::string::String>>;
pub fn fine() -> Result<String, Error> where Error: From<String> {}
pub struct Result<T, String>;
#[cfg(test)]
mod tests {
    pub fn helper() -> Result<(), String> {}
}
";
        assert_eq!(
            string_errors(text),
            [
                (
                    1,
                    "pub fn parse(text: &str) -> Result<Call, String> {".to_string()
                ),
                (4, "pub async fn serve(".to_string()),
                (
                    11,
                    "pub fn nested() -> Option<Result<(), std::string::String>>;".to_string()
                ),
            ]
        );
    }
}

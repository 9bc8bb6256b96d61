//! Repository rules that code review would otherwise have to remember: the layering of the
//! crates, no module circle inside a crate, no downcast in the binary, no pointer to a document
//! outside the repository, and no unreviewed snapshot.
//!
//! Each rule is a small scanner tested on inline examples (`mod scanners`), so that a rule that
//! could never fail is caught as well as a rule that is broken.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

// ---------------------------------------------------------------------------------------------
// The layering of the crates.

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

/// The strings of a TOML array value `key = [ … ]` at the top level of `manifest`'s `section`.
fn toml_array(manifest: &str, section: &str, key: &str) -> Vec<String> {
    let mut in_section = false;
    let mut collecting = false;
    let mut found = Vec::new();
    for line in manifest.lines() {
        let line = line.split('#').next().unwrap_or_default().trim();
        if !collecting && line.starts_with('[') {
            in_section = line == format!("[{section}]");
            continue;
        }
        if in_section && !collecting {
            let Some(rest) = line.strip_prefix(key) else {
                continue;
            };
            let Some(rest) = rest.trim_start().strip_prefix('=') else {
                continue;
            };
            found.extend(quoted_strings(rest));
            collecting = !rest.contains(']');
        } else if collecting {
            found.extend(quoted_strings(line));
            collecting = !line.contains(']');
        }
    }
    found
}

fn quoted_strings(text: &str) -> Vec<String> {
    text.split('"')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// The names of the crates in the normal dependency tables of a manifest: `[dependencies]`,
/// `[target.….dependencies]` and their `[dependencies.NAME]` forms, by package name when a
/// dependency is renamed. Dev-dependencies may use anything for tests.
fn dependencies(manifest: &str) -> Vec<String> {
    let mut in_dependencies = false;
    let mut depth = 0i32;
    let mut found = Vec::new();
    for line in manifest.lines() {
        let line = line.split('#').next().unwrap_or_default().trim();
        if depth == 0 && line.starts_with('[') {
            let header = line.trim_matches(|c| c == '[' || c == ']');
            let parts: Vec<&str> = header.split('.').collect();
            let table = |name: &str| {
                parts.first() == Some(&name)
                    || (parts.first() == Some(&"target") && parts.contains(&name))
            };
            in_dependencies = false;
            if table("dependencies") {
                match parts.iter().position(|p| *p == "dependencies") {
                    Some(at) if at + 1 < parts.len() => {
                        found.push(parts[at + 1].trim_matches('"').to_string());
                    }
                    _ => in_dependencies = true,
                }
            }
            continue;
        }
        if in_dependencies && depth == 0 && !line.is_empty() {
            let key: String = line
                .trim_start_matches('"')
                .chars()
                .take_while(|c| *c == '-' || *c == '_' || c.is_ascii_alphanumeric())
                .collect();
            // `name = { package = "real-name", … }` renames a dependency.
            let package = line
                .split(['{', ','])
                .skip(1)
                .filter_map(|field| field.trim().strip_prefix("package"))
                .find_map(|rest| rest.trim_start().strip_prefix('='))
                .and_then(|rest| quoted_strings(rest).into_iter().next());
            found.push(package.unwrap_or(key));
        }
        for c in line.chars() {
            match c {
                '[' | '{' => depth += 1,
                ']' | '}' => depth -= 1,
                _ => {}
            }
        }
    }
    found
}

/// Every break of the layering: a crate folder the table does not name, a table entry without a
/// crate, and a dependency edge the table does not allow. `crates` holds each crate folder's
/// name and manifest.
fn layering_violations(crates: &[(String, String)]) -> Vec<String> {
    let mut violations = Vec::new();
    let names: BTreeSet<&str> = crates.iter().map(|(name, _)| name.as_str()).collect();
    for (name, _) in ALLOWED {
        if !names.contains(name) {
            violations.push(format!(
                "the layering table names {name}, which is not a crate"
            ));
        }
    }
    for (name, manifest) in crates {
        let Some((_, allowed)) = ALLOWED.iter().find(|(n, _)| n == name) else {
            violations.push(format!(
                "{name} is not in the layering table of xtask/tests/tidy.rs"
            ));
            continue;
        };
        for dependency in dependencies(manifest) {
            if names.contains(dependency.as_str()) && !allowed.contains(&dependency.as_str()) {
                violations.push(format!(
                    "{name} depends on {dependency}, an edge outside the layering (it may use \
                     {allowed:?})"
                ));
            }
        }
    }
    violations
}

/// The crate folders of the workspace: every folder beside the root manifest that holds a
/// `Cargo.toml`, but those the workspace excludes (the fuzz targets build on their own).
fn crate_folders() -> Vec<(String, PathBuf)> {
    let excluded = toml_array(&read(&root().join("Cargo.toml")), "workspace", "exclude");
    let mut folders = Vec::new();
    for entry in std::fs::read_dir(root()).unwrap() {
        let dir = entry.unwrap().path();
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        if dir.join("Cargo.toml").is_file() && !excluded.contains(&name) {
            folders.push((name, dir));
        }
    }
    folders.sort();
    folders
}

#[test]
fn dependency_edges_follow_the_layering() {
    let crates: Vec<(String, String)> = crate_folders()
        .into_iter()
        .map(|(name, dir)| (name, read(&dir.join("Cargo.toml"))))
        .collect();
    let members = toml_array(&read(&root().join("Cargo.toml")), "workspace", "members");
    assert!(!members.is_empty(), "the workspace members were not read");
    let mut violations = layering_violations(&crates);
    for (name, _) in &crates {
        if !members.contains(name) {
            violations.push(format!(
                "{name} is a crate folder but not a workspace member"
            ));
        }
    }
    assert!(violations.is_empty(), "{}", violations.join("\n"));
}

#[test]
fn ask_core_has_no_io_dependencies() {
    let found = dependencies(&read(&root().join("ask-core/Cargo.toml")));
    assert!(!found.is_empty(), "ask-core's dependencies were not read");
    for forbidden in ["tokio", "crossterm", "ratatui", "libc", "nix"] {
        assert!(
            !found.iter().any(|d| d == forbidden),
            "ask-core must not depend on {forbidden}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Module circles inside a crate.

/// A token of Rust source: an identifier or keyword, `::`, or one other character; comments and
/// literals are left out, so that text inside them is never read as a path.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Token {
    text: String,
    line: usize,
}

fn is_ident(text: &str) -> bool {
    text.starts_with(|c: char| c.is_alphabetic() || c == '_')
}

fn tokenize(source: &str) -> Vec<Token> {
    let chars: Vec<char> = source.chars().collect();
    let at = |i: usize| chars.get(i).copied().unwrap_or('\0');
    let mut tokens = Vec::new();
    let mut line = 1;
    let mut i = 0;
    // Skips a quoted literal that opens at `i` (escapes allowed), counting its line feeds.
    let skip_quoted = |mut i: usize, quote: char, line: &mut usize| {
        i += 1;
        while i < chars.len() && chars[i] != quote {
            if chars[i] == '\\' {
                i += 1;
            }
            if at(i) == '\n' {
                *line += 1;
            }
            i += 1;
        }
        i + 1
    };
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c == '/' && at(i + 1) == '/' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            loop {
                if i >= chars.len() {
                    break;
                } else if chars[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    if chars[i] == '\n' {
                        line += 1;
                    }
                    i += 1;
                }
            }
        } else if let Some(hashes) = raw_string_at(&chars, i) {
            // r"…", r#"…"#, br"…" and cr"…": up to the quote followed by as many hashes.
            let mut j = chars[i..].iter().position(|c| *c == '"').unwrap() + i + 1;
            while j < chars.len() && !(chars[j] == '"' && (1..=hashes).all(|k| at(j + k) == '#')) {
                if chars[j] == '\n' {
                    line += 1;
                }
                j += 1;
            }
            i = j + 1 + hashes;
        } else if c == '"' {
            i = skip_quoted(i, '"', &mut line);
        } else if (c == 'b' || c == 'c') && at(i + 1) == '"' {
            i = skip_quoted(i + 1, '"', &mut line);
        } else if c == '\'' || (c == 'b' && at(i + 1) == '\'') {
            let q = if c == 'b' { i + 1 } else { i };
            if at(q + 1) == '\\' || at(q + 2) == '\'' {
                i = skip_quoted(q, '\'', &mut line);
            } else {
                // A lifetime or a label: the quote and its name.
                i = q + 1;
                while at(i).is_alphanumeric() || at(i) == '_' {
                    i += 1;
                }
            }
        } else if c.is_alphanumeric() || c == '_' {
            let start = i;
            while at(i).is_alphanumeric() || at(i) == '_' {
                i += 1;
            }
            let mut text: String = chars[start..i].iter().collect();
            if text == "r" && at(i) == '#' && (at(i + 1).is_alphabetic() || at(i + 1) == '_') {
                // A raw identifier, r#name, is the name.
                i += 1;
                let name_start = i;
                while at(i).is_alphanumeric() || at(i) == '_' {
                    i += 1;
                }
                text = chars[name_start..i].iter().collect();
            }
            tokens.push(Token { text, line });
        } else if c == ':' && at(i + 1) == ':' {
            tokens.push(Token {
                text: "::".into(),
                line,
            });
            i += 2;
        } else {
            tokens.push(Token {
                text: c.to_string(),
                line,
            });
            i += 1;
        }
    }
    tokens
}

/// The number of hashes of a raw string literal that opens at `i`, if one does.
fn raw_string_at(chars: &[char], i: usize) -> Option<usize> {
    let mut j = i;
    if matches!(chars.get(j), Some('b' | 'c')) {
        j += 1;
    }
    if chars.get(j) != Some(&'r') {
        return None;
    }
    if i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_') {
        return None;
    }
    j += 1;
    let hashes = chars[j..].iter().take_while(|c| **c == '#').count();
    (chars.get(j + hashes) == Some(&'"')).then_some(hashes)
}

fn text_at(tokens: &[Token], i: usize) -> &str {
    tokens.get(i).map_or("", |t| t.text.as_str())
}

/// True when the tokens from `i` are the attribute `#[cfg(test)]` (or `#![cfg(test)]`).
fn cfg_test_at(tokens: &[Token], i: usize) -> Option<usize> {
    let mut j = i;
    if text_at(tokens, j) != "#" {
        return None;
    }
    j += 1;
    if text_at(tokens, j) == "!" {
        j += 1;
    }
    let rest = ["[", "cfg", "(", "test", ")", "]"];
    rest.iter()
        .enumerate()
        .all(|(k, t)| text_at(tokens, j + k) == *t)
        .then_some(j + rest.len())
}

/// The tokens without the items that exist only in tests (`#[cfg(test)] mod tests { … }`, a
/// `#[cfg(test)] use …;`); a file whose inner attribute is `#![cfg(test)]` has none left.
fn without_test_items(tokens: Vec<Token>) -> Vec<Token> {
    let mut kept = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let Some(after) = cfg_test_at(&tokens, i) else {
            kept.push(tokens[i].clone());
            i += 1;
            continue;
        };
        if text_at(&tokens, i + 1) == "!" {
            return Vec::new();
        }
        // The item's other attributes, then the item up to its `;` or its closing brace.
        i = after;
        let mut depth = 0;
        while i < tokens.len() {
            let text = text_at(&tokens, i);
            i += 1;
            match text {
                "{" | "(" | "[" => depth += 1,
                ")" | "]" => depth -= 1,
                "}" => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                ";" if depth == 0 => break,
                _ => {}
            }
        }
    }
    kept
}

/// A path in a file: where it is written and what it names.
#[derive(Debug, Clone, PartialEq, Eq)]
struct PathUse {
    /// The inline modules around it (`mod typed { … }`), outermost first.
    scope: Vec<String>,
    /// Its segments, `crate`, `super` and `self` included; a glob ends in `*`.
    segments: Vec<String>,
    /// The name a `use … as NAME` gives it.
    alias: Option<String>,
    /// True in a `use` declaration, and `public` when that is `pub` or `pub(…)`.
    in_use: bool,
    public: bool,
    line: usize,
}

/// What a file declares and names: its `mod NAME;` declarations (with their scope) and its paths.
#[derive(Debug, Default)]
struct Scan {
    modules: Vec<(Vec<String>, String)>,
    paths: Vec<PathUse>,
}

fn scan(source: &str) -> Scan {
    let tokens = without_test_items(tokenize(source));
    let t = |i: usize| text_at(&tokens, i);
    let mut found = Scan::default();
    let mut scope: Vec<(String, usize)> = Vec::new();
    let mut depth = 0;
    let mut i = 0;
    while i < tokens.len() {
        let before = |k: usize| i.checked_sub(k).map_or("", |at| text_at(&tokens, at));
        match t(i) {
            "{" => depth += 1,
            "}" => {
                depth -= 1;
                if scope.last().is_some_and(|(_, d)| *d == depth) {
                    scope.pop();
                }
            }
            "mod" if is_ident(t(i + 1)) && t(i + 2) == "{" => {
                scope.push((t(i + 1).to_string(), depth));
                i += 2;
                continue;
            }
            "mod" if is_ident(t(i + 1)) && t(i + 2) == ";" => {
                let names = scope.iter().map(|(n, _)| n.clone()).collect();
                found.modules.push((names, t(i + 1).to_string()));
            }
            "use" if t(i + 1) != "<" => {
                // `pub use`, or `pub(crate) use` and the like.
                let public = before(1) == "pub"
                    || (before(1) == ")"
                        && (2..=6).any(|k| before(k) == "(" && before(k + 1) == "pub"));
                let mut trees = Vec::new();
                let mut j = i + 1;
                use_tree(&tokens, &mut j, Vec::new(), &mut trees);
                for (segments, alias) in trees {
                    found.paths.push(PathUse {
                        scope: scope.iter().map(|(n, _)| n.clone()).collect(),
                        segments,
                        alias,
                        in_use: true,
                        public,
                        line: tokens[i].line,
                    });
                }
                i = j;
                continue;
            }
            text if is_ident(text)
                && t(i + 1) == "::"
                && !matches!(before(1), "::" | "$")
                && is_ident(t(i + 2)) =>
            {
                let mut segments = vec![text.to_string()];
                let mut j = i + 1;
                while t(j) == "::" && is_ident(t(j + 1)) {
                    segments.push(t(j + 1).to_string());
                    j += 2;
                }
                found.paths.push(PathUse {
                    scope: scope.iter().map(|(n, _)| n.clone()).collect(),
                    segments,
                    alias: None,
                    in_use: false,
                    public: false,
                    line: tokens[i].line,
                });
                i = j;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    found
}

/// Reads a use tree from `j` (`a::b`, `a::{b, c::d as e}`, `a::*`) into the paths it names.
fn use_tree(
    tokens: &[Token],
    j: &mut usize,
    mut prefix: Vec<String>,
    out: &mut Vec<(Vec<String>, Option<String>)>,
) {
    let t = |i: usize| text_at(tokens, i);
    if t(*j) == "::" {
        *j += 1;
    }
    loop {
        match t(*j) {
            "{" => {
                *j += 1;
                while !matches!(t(*j), "}" | "") {
                    use_tree(tokens, j, prefix.clone(), out);
                    if t(*j) == "," {
                        *j += 1;
                    }
                }
                *j += 1;
                return;
            }
            "*" => {
                prefix.push("*".into());
                out.push((prefix, None));
                *j += 1;
                return;
            }
            text if is_ident(text) => {
                prefix.push(text.to_string());
                *j += 1;
                if t(*j) == "::" {
                    *j += 1;
                    continue;
                }
                let alias = (t(*j) == "as").then(|| t(*j + 1).to_string());
                if alias.is_some() {
                    *j += 2;
                }
                out.push((prefix, alias));
                return;
            }
            // A malformed tree ends here; skip one token so the reader always moves on.
            _ => {
                *j += 1;
                return;
            }
        }
    }
}

/// Where one module names another: the file, its line and the path as written.
type Evidence = (String, usize, String);

/// The graph of a crate's top-level modules (and its root, named after its file): an edge for
/// every `crate::X`, `super::X` or root-level path from one to another.
type ModuleGraph = BTreeMap<String, BTreeMap<String, Evidence>>;

/// The module graph of the crate whose root is `root_file` among `files` (paths under `src/`
/// with `/`, and their text). Modules are found from the root's `mod` declarations, so a test
/// module declared `#[cfg(test)] mod tests;` is never read.
fn module_graph(files: &BTreeMap<String, String>, root_file: &str) -> ModuleGraph {
    let root_name = root_file.trim_end_matches(".rs").to_string();
    // (file, module path, folder of its children)
    let mut modules: Vec<(String, Vec<String>, String, Scan)> = Vec::new();
    let mut queue = vec![(root_file.to_string(), Vec::new(), String::new())];
    while let Some((file, path, child_dir)) = queue.pop() {
        let scanned = scan(&files[&file]);
        for (scope, name) in &scanned.modules {
            let mut dir = child_dir.clone();
            for inline in scope {
                dir.push_str(inline);
                dir.push('/');
            }
            let flat = format!("{dir}{name}.rs");
            let nested = format!("{dir}{name}/mod.rs");
            let child = [flat, nested]
                .into_iter()
                .find(|f| files.contains_key(f))
                .unwrap_or_else(|| panic!("the module {name} declared in {file} has no file"));
            let mut child_path = path.clone();
            child_path.extend(scope.iter().cloned());
            child_path.push(name.clone());
            queue.push((child, child_path, format!("{dir}{name}/")));
        }
        modules.push((file, path, child_dir, scanned));
    }
    let top: BTreeSet<String> = modules
        .iter()
        .filter(|(_, path, _, _)| path.len() == 1)
        .map(|(_, path, _, _)| path[0].clone())
        .collect();
    // The root's re-exports (`pub use ask::Ask;`): `crate::Ask` names the module `ask`.
    let mut reexports: BTreeMap<String, String> = BTreeMap::new();
    for (_, path, _, scanned) in &modules {
        if !path.is_empty() {
            continue;
        }
        for used in scanned
            .paths
            .iter()
            .filter(|p| p.in_use && p.public && p.scope.is_empty())
        {
            let segments: Vec<&str> = used
                .segments
                .iter()
                .map(String::as_str)
                .skip_while(|s| matches!(*s, "crate" | "self"))
                .collect();
            let (Some(first), Some(last)) = (segments.first(), segments.last()) else {
                continue;
            };
            if !top.contains(*first) || *last == "*" {
                continue;
            }
            let name = match (&used.alias, *last) {
                (Some(alias), _) => alias.clone(),
                (None, "self") => segments[segments.len().saturating_sub(2)].to_string(),
                (None, last) => last.to_string(),
            };
            reexports.insert(name, (*first).to_string());
        }
    }
    let resolve = |name: &str| -> String {
        if top.contains(name) {
            name.to_string()
        } else if let Some(module) = reexports.get(name) {
            module.clone()
        } else {
            root_name.clone()
        }
    };
    let mut graph = ModuleGraph::new();
    for (file, file_path, _, scanned) in &modules {
        for used in &scanned.paths {
            let mut here = file_path.clone();
            here.extend(used.scope.iter().cloned());
            let from = here.first().cloned().unwrap_or_else(|| root_name.clone());
            let s = &used.segments;
            let to = match s[0].as_str() {
                "crate" if s.len() > 1 => resolve(&s[1]),
                "super" => {
                    let ups = s.iter().take_while(|x| *x == "super").count();
                    match here.len().checked_sub(ups) {
                        Some(0) if s.len() > ups => resolve(&s[ups]),
                        Some(0) => root_name.clone(),
                        Some(_) => here[0].clone(),
                        None => continue,
                    }
                }
                "self" if here.is_empty() && s.len() > 1 => resolve(&s[1]),
                first if here.is_empty() && top.contains(first) => {
                    // The root's `pub use` of a module is the crate's table of contents, not
                    // a use of it.
                    if used.in_use && used.public {
                        continue;
                    }
                    first.to_string()
                }
                _ => continue,
            };
            if to != from {
                graph
                    .entry(from)
                    .or_default()
                    .entry(to)
                    .or_insert_with(|| (file.clone(), used.line, used.segments.join("::")));
            }
        }
    }
    graph
}

/// Every elementary cycle of `graph`, each starting at its smallest module and closed by it
/// (`["ask", "print", "ask"]`).
fn cycles(graph: &ModuleGraph) -> Vec<Vec<String>> {
    fn walk(
        graph: &ModuleGraph,
        start: &str,
        path: &mut Vec<String>,
        found: &mut Vec<Vec<String>>,
    ) {
        let here = path.last().unwrap().clone();
        for next in graph.get(&here).into_iter().flat_map(BTreeMap::keys) {
            if next == start {
                let mut cycle = path.clone();
                cycle.push(start.to_string());
                found.push(cycle);
            } else if next.as_str() > start && !path.contains(next) && found.len() < 100 {
                path.push(next.clone());
                walk(graph, start, path, found);
                path.pop();
            }
        }
    }
    let mut found = Vec::new();
    for start in graph.keys() {
        walk(graph, start, &mut vec![start.clone()], &mut found);
    }
    found
}

/// The module circles of one crate, one line each, then once each use that closes one: empty
/// when there is none.
fn circles(crate_name: &str, graph: &ModuleGraph) -> Vec<String> {
    let found = cycles(graph);
    let mut lines: Vec<String> = found
        .iter()
        .map(|cycle| format!("{crate_name}: {}", cycle.join(" -> ")))
        .collect();
    let edges: BTreeSet<(&String, &String)> = found
        .iter()
        .flat_map(|cycle| cycle.windows(2).map(|pair| (&pair[0], &pair[1])))
        .collect();
    for (from, to) in edges {
        let (file, line, path) = &graph[from][to];
        lines.push(format!(
            "    {from} -> {to}: {crate_name}/src/{file}:{line} `{path}`"
        ));
    }
    lines
}

/// The `.rs` files under `dir`, keyed by their path from it with `/`.
fn rust_files(dir: &Path) -> BTreeMap<String, String> {
    fn walk(dir: &Path, prefix: &str, files: &mut BTreeMap<String, String>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().to_string();
            if path.is_dir() {
                walk(&path, &format!("{prefix}{name}/"), files);
            } else if name.ends_with(".rs") {
                files.insert(format!("{prefix}{name}"), read(&path));
            }
        }
    }
    let mut files = BTreeMap::new();
    walk(dir, "", &mut files);
    files
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
    assert!(files.contains_key("main.rs"), "ask-cli/src was not read");
    let found: Vec<String> = files
        .iter()
        .flat_map(|(file, text)| {
            downcast_lines(text)
                .into_iter()
                .map(move |line| format!("ask-cli/src/{file}:{line}"))
        })
        .collect();
    assert!(found.is_empty(), "`downcast` in the binary: {found:?}");
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
#[derive(Debug)]
struct Ignored {
    anchored: Vec<String>,
    suffixes: Vec<String>,
    names: Vec<String>,
}

impl Ignored {
    fn parse(gitignore: &str) -> Ignored {
        let mut ignored = Ignored {
            anchored: Vec::new(),
            suffixes: Vec::new(),
            names: Vec::new(),
        };
        for line in gitignore.lines().map(str::trim) {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let pattern = line.trim_end_matches('/');
            if let Some(path) = pattern
                .strip_prefix('/')
                .filter(|p| !p.contains(['*', '?', '[']))
            {
                ignored.anchored.push(path.to_string());
            } else if let Some(suffix) = pattern
                .strip_prefix('*')
                .filter(|s| !s.contains(['*', '?', '[', '/']))
            {
                ignored.suffixes.push(suffix.to_string());
            } else if !pattern.contains(['*', '?', '[', '/', '!']) {
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
    fn walk(dir: &Path, prefix: &str, ignored: &Ignored, files: &mut BTreeMap<String, String>) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            let rel = format!("{prefix}{}", entry.file_name().to_string_lossy());
            if ignored.contains(&rel) {
                continue;
            }
            if path.is_dir() {
                walk(&path, &format!("{rel}/"), ignored, files);
            } else if let Ok(text) = String::from_utf8(std::fs::read(&path).unwrap())
                && !text.contains('\0')
            {
                files.insert(rel, text);
            }
        }
    }
    let ignored = Ignored::parse(&read(&root().join(".gitignore")));
    let mut files = BTreeMap::new();
    walk(&root(), "", &ignored, &mut files);
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
    assert!(
        found.is_empty(),
        "write the rule where it applies instead of pointing elsewhere:\n{}",
        found.join("\n")
    );
}

// ---------------------------------------------------------------------------------------------
// No unreviewed snapshot.

fn unreviewed_snapshot(name: &str) -> bool {
    name.ends_with(".snap.new") || name.ends_with(".pending-snap")
}

fn walk_snapshots(dir: &Path, found: &mut Vec<PathBuf>) {
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
            walk_snapshots(&path, found);
        } else if unreviewed_snapshot(&name) {
            found.push(path);
        }
    }
}

#[test]
fn no_unreviewed_snapshots() {
    let mut found = Vec::new();
    walk_snapshots(&root(), &mut found);
    assert!(
        found.is_empty(),
        "review these snapshots with `cargo insta review`: {found:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// The scanners, on inline examples.

mod scanners {
    use super::*;

    fn files(list: &[(&str, &str)]) -> BTreeMap<String, String> {
        list.iter()
            .map(|(path, text)| ((*path).to_string(), (*text).to_string()))
            .collect()
    }

    #[track_caller]
    fn check_cycles(list: &[(&str, &str)], root_file: &str, expected: &[&str]) {
        let graph = module_graph(&files(list), root_file);
        let found: Vec<String> = cycles(&graph).iter().map(|c| c.join(" -> ")).collect();
        assert_eq!(found, expected, "{graph:#?}");
    }

    #[test]
    fn the_dependency_tables_are_read_and_dev_dependencies_are_not() {
        let manifest = r#"
[package]
name = "ask-tui"

[dependencies]
ask-core.workspace = true
"ask-print" = { workspace = true }
tokio = { workspace = true, features = [
    "rt",
] }
renamed = { package = "ask-web", path = "../ask-web" }

[target.'cfg(unix)'.dependencies]
libc = "0.2"

[dependencies.ask-rpc]
workspace = true

[dev-dependencies]
ask-cli.workspace = true
"#;
        assert_eq!(
            dependencies(manifest),
            [
                "ask-core",
                "ask-print",
                "tokio",
                "ask-web",
                "libc",
                "ask-rpc"
            ]
        );
        let crates = |manifest: &str| {
            ALLOWED
                .iter()
                .map(|(name, _)| {
                    let text = if *name == "ask-tui" { manifest } else { "" };
                    ((*name).to_string(), text.to_string())
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(
            layering_violations(&crates(manifest)),
            [
                "ask-tui depends on ask-print, an edge outside the layering (it may use [\"ask-core\"])",
                "ask-tui depends on ask-web, an edge outside the layering (it may use [\"ask-core\"])",
                "ask-tui depends on ask-rpc, an edge outside the layering (it may use [\"ask-core\"])",
            ]
        );
        assert!(
            layering_violations(&crates("[dependencies]\nask-core.workspace = true\n")).is_empty()
        );
        let mut extra = crates("");
        extra.push(("ask-extra".into(), String::new()));
        extra.retain(|(name, _)| name != "xtask");
        assert_eq!(
            layering_violations(&extra),
            [
                "the layering table names xtask, which is not a crate",
                "ask-extra is not in the layering table of xtask/tests/tidy.rs",
            ]
        );
        assert_eq!(
            toml_array(
                "[workspace]\nmembers = [\n  \"a\",\n  \"b\", # two\n]\nexclude = [\"fuzz\"]\n",
                "workspace",
                "members"
            ),
            ["a", "b"]
        );
    }

    #[test]
    fn a_circle_of_two_modules_is_found_with_its_evidence() {
        let list = [
            (
                "main.rs",
                "mod ask;\nmod print;\nfn main() { ask::run(); }\n",
            ),
            (
                "ask.rs",
                "use crate::print::pass_two;\npub fn run() { pass_two(); }\n",
            ),
            (
                "print.rs",
                "pub fn pass_two() {\n    crate::ask::run();\n}\n",
            ),
        ];
        check_cycles(&list, "main.rs", &["ask -> print -> ask"]);
        let graph = module_graph(&files(&list), "main.rs");
        assert_eq!(
            circles("ask-cli", &graph),
            [
                "ask-cli: ask -> print -> ask",
                "    ask -> print: ask-cli/src/ask.rs:1 `crate::print::pass_two`",
                "    print -> ask: ask-cli/src/print.rs:2 `crate::ask::run`",
            ]
        );
        assert!(circles("ask-cli", &ModuleGraph::new()).is_empty());
    }

    #[test]
    fn the_roots_own_functions_used_by_a_module_it_calls_are_a_circle() {
        check_cycles(
            &[
                (
                    "main.rs",
                    "mod ask;\nfn main() { ask::run(); }\npub fn read_input() {}\n",
                ),
                (
                    "ask.rs",
                    "use crate::read_input;\npub fn run() { read_input(); }\n",
                ),
            ],
            "main.rs",
            &["ask -> main -> ask"],
        );
        check_cycles(
            &[
                (
                    "main.rs",
                    "mod ask;\nuse ask::run;\nfn main() { run() }\nfn read() {}\n",
                ),
                ("ask.rs", "pub fn run() { super::read() }\n"),
            ],
            "main.rs",
            &["ask -> main -> ask"],
        );
    }

    #[test]
    fn a_re_export_of_the_root_names_its_module_and_is_no_use_of_it() {
        let lib = "mod ask;\nmod log;\npub use ask::{Ask, Finished as Done};\npub use log::Kept;\npub type Warn = u8;\n";
        // The root's table of contents and its own items used by its modules: no circle.
        check_cycles(
            &[
                ("lib.rs", lib),
                (
                    "ask.rs",
                    "use crate::Warn;\nuse crate::log::Kept;\npub struct Ask;\n",
                ),
                ("log.rs", "pub struct Kept;\n"),
            ],
            "lib.rs",
            &[],
        );
        // `crate::Done` is the module `ask` under a re-exported name.
        check_cycles(
            &[
                ("lib.rs", lib),
                (
                    "ask.rs",
                    "use crate::Kept;\npub struct Ask;\npub struct Finished;\n",
                ),
                ("log.rs", "use crate::Done;\npub struct Kept;\n"),
            ],
            "lib.rs",
            &["ask -> log -> ask"],
        );
    }

    #[test]
    fn tests_comments_strings_and_nested_modules_are_read_as_rust_reads_them() {
        let not_a_use = r##"
//! Uses [`crate::b::f`] in a doc comment only.
/* crate::b::f() in a block comment /* nested */ crate::b::f() */
pub fn f() {
    let _ = "crate::b::f()";
    let _ = r#"crate::b::f() "quoted" "#;
    let _ = b'"';
    let _: &'static str = "x";
    let _ = '"';
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::b::f;
}
#[cfg(test)]
use crate::b::f as g;
"##;
        check_cycles(
            &[
                ("lib.rs", "mod a;\nmod b;\n#[cfg(test)]\nmod tests;\n"),
                ("a.rs", not_a_use),
                ("b.rs", "pub fn f() { crate::a::f() }\n"),
                ("tests.rs", "use crate::a::f;\nuse crate::b::f;\n"),
            ],
            "lib.rs",
            &[],
        );
        // `super` in a folder module and in an inline module.
        check_cycles(
            &[
                ("lib.rs", "mod a;\nmod b;\n"),
                (
                    "a/mod.rs",
                    "mod inner;\nmod typed { use super::inner::X; }\n",
                ),
                (
                    "a/inner.rs",
                    "use super::super::b::{self, Y};\npub struct X;\n",
                ),
                (
                    "b.rs",
                    "pub struct Y;\nfn g() { let _ = crate::a::inner::X; }\n",
                ),
            ],
            "lib.rs",
            &["a -> b -> a"],
        );
        // A file that exists only for tests names nothing.
        check_cycles(
            &[
                ("lib.rs", "mod a;\nmod b;\n"),
                ("a.rs", "#![cfg(test)]\nuse crate::b::Y;\n"),
                ("b.rs", "use crate::a::X;\n"),
            ],
            "lib.rs",
            &[],
        );
    }

    #[test]
    fn every_circle_is_listed_from_its_smallest_module() {
        let mut graph = ModuleGraph::new();
        for (from, to) in [("a", "b"), ("b", "c"), ("c", "a"), ("b", "a"), ("d", "d")] {
            graph
                .entry(from.to_string())
                .or_default()
                .insert(to.to_string(), (String::new(), 0, String::new()));
        }
        let found: Vec<String> = cycles(&graph).iter().map(|c| c.join(" -> ")).collect();
        assert_eq!(found, ["a -> b -> a", "a -> b -> c -> a", "d -> d"]);
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
        assert!(
            pointers_in(ordinary).is_empty(),
            "{:?}",
            pointers_in(ordinary)
        );
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
}

// ---------------------------------------------------------------------------------------------
// The pi package.

fn json_file(path: &str) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(root().join(path)).unwrap()).unwrap()
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
        .filter_map(serde_json::Value::as_str)
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

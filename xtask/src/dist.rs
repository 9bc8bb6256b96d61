//! `cargo xtask dist`: builds the `ask-user` binary of one target once, with maturin (its zig
//! linker on Linux, for a glibc 2.17 floor), and packs that same binary into every artifact under
//! `target/packages/`: the PyPI wheel, the npm platform package, the npm launcher and the pi
//! package, the Claude Code plugin, the Claude Desktop bundle (`.mcpb`) and `SHA256SUMS`.
//!
//! The package sources live under `integrations/`; the version of every one of them is the
//! workspace's, which [`check_versions`] holds them to.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// The folder every artifact is written to (not `target/dist/`, the `dist` profile's folder).
const OUT: &str = "target/packages";

/// The cargo profile of every package: the workspace's fully optimised one.
const PROFILE: &str = "dist";

/// `cargo xtask dist [--target TRIPLE]`.
pub(crate) fn dist(root: &Path, args: &[&str]) -> Result<(), String> {
    let target = match args {
        [] => host_target()?,
        ["--target", target] => (*target).to_string(),
        _ => return Err("dist takes only --target TRIPLE".to_string()),
    };
    let version = workspace_version(root)?;
    let problems = check_versions(root, &version)?;
    if !problems.is_empty() {
        return Err(format!(
            "the packages do not all have version {version}:\n  {}",
            problems.join("\n  ")
        ));
    }
    let platform = platform(root, &target)?;

    let out = root.join(OUT);
    if out.exists() {
        std::fs::remove_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    }
    std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;

    let dist = Dist {
        root,
        tools: Tools::find(root)?,
        platform,
        version,
        out,
    };
    let binary = dist.build()?;
    dist.npm_platform_package(&binary)?;
    npm_pack(root, &root.join("integrations/npm/ask-user"), &dist.out)?;
    npm_pack(root, &root.join("integrations/pi"), &dist.out)?;
    dist.claude_plugin()?;
    dist.mcpb(&binary)?;
    let sums = checksums(&dist.out)?;
    println!("\n{} (under {OUT}/):", dist.platform.target);
    for (name, size) in sums {
        println!("  {size:>10}  {name}");
    }
    Ok(())
}

/// One platform package of `integrations/npm/ask-user/lib/platforms.json`.
#[derive(Debug)]
struct Platform {
    package: String,
    os: String,
    cpu: String,
    libc: Option<String>,
    target: String,
    binary: String,
}

impl Platform {
    /// The short name used in file names: `linux-x64`.
    fn name(&self) -> String {
        format!("{}-{}", self.os, self.cpu)
    }

    /// Whether maturin links with zig (Linux: the glibc floor of manylinux2014).
    fn linux(&self) -> bool {
        self.os == "linux"
    }
}

/// The platform package built for `target`, or the list of targets there are.
fn platform(root: &Path, target: &str) -> Result<Platform, String> {
    let table = read_json(&root.join("integrations/npm/ask-user/lib/platforms.json"))?;
    let entries = table.as_array().cloned().unwrap_or_default();
    let text = |entry: &Value, key: &str| entry[key].as_str().map(str::to_string);
    let mut known = Vec::new();
    for entry in &entries {
        let triple = text(entry, "target").unwrap_or_default();
        if triple == target {
            return Ok(Platform {
                package: text(entry, "package").unwrap_or_default(),
                os: text(entry, "os").unwrap_or_default(),
                cpu: text(entry, "cpu").unwrap_or_default(),
                libc: text(entry, "libc"),
                target: triple,
                binary: text(entry, "binary").unwrap_or_default(),
            });
        }
        known.push(triple);
    }
    Err(format!(
        "no platform package is built for {target}; the targets are {}",
        known.join(", ")
    ))
}

/// The target of the Rust toolchain in use (`rustc -vV`).
fn host_target() -> Result<String, String> {
    let output = Command::new("rustc")
        .arg("-vV")
        .output()
        .map_err(|e| format!("cannot run rustc: {e}"))?;
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .find_map(|line| line.strip_prefix("host: "))
        .map(str::to_string)
        .ok_or_else(|| "rustc -vV names no host".to_string())
}

/// The `version` of `[workspace.package]` in the root `Cargo.toml`.
pub(crate) fn workspace_version(root: &Path) -> Result<String, String> {
    let manifest = read(&root.join("Cargo.toml"))?;
    let mut in_package = false;
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_package = line == "[workspace.package]";
        } else if in_package && let Some(value) = line.strip_prefix("version = ") {
            return Ok(value.trim_matches('"').to_string());
        }
    }
    Err("Cargo.toml has no version in [workspace.package]".to_string())
}

/// Every place that names the release's version, each with the version it holds: the package
/// manifests under `integrations/`, the dependencies between them, and the pinned commands in
/// the READMEs and the pages of `docs/` (`ask-user@X.Y.Z`, `pi-ask-user@X.Y.Z`, `ask-user==X.Y.Z`).
fn versions(root: &Path) -> Result<Vec<(String, String)>, String> {
    let mut found = Vec::new();
    let mut field = |file: &str, pointer: &str| -> Result<(), String> {
        let value = read_json(&root.join(file))?;
        let text = value
            .pointer(pointer)
            .and_then(Value::as_str)
            .ok_or_else(|| format!("{file} has no {pointer}"))?;
        found.push((format!("{file} {pointer}"), text.to_string()));
        Ok(())
    };
    field("integrations/npm/ask-user/package.json", "/version")?;
    field("integrations/pi/package.json", "/version")?;
    field("integrations/pi/package.json", "/dependencies/ask-user")?;
    field(
        "integrations/claude-code/.claude-plugin/plugin.json",
        "/version",
    )?;
    field("integrations/mcpb/manifest.json", "/version")?;
    let launcher = read_json(&root.join("integrations/npm/ask-user/package.json"))?;
    for (name, version) in launcher["optionalDependencies"]
        .as_object()
        .into_iter()
        .flatten()
    {
        let version = version.as_str().unwrap_or_default().to_string();
        found.push((
            format!("integrations/npm/ask-user/package.json optionalDependencies {name}"),
            version,
        ));
    }
    let mut files: Vec<String> = [
        "README.md",
        "integrations/claude-code/.mcp.json",
        "integrations/claude-code/README.md",
        "integrations/npm/ask-user/README.md",
        "integrations/pi/README.md",
        "integrations/python/README.md",
    ]
    .map(String::from)
    .to_vec();
    // The pages of `docs/`, which show the same pinned commands.
    let docs = std::fs::read_dir(root.join("docs")).map_err(|e| format!("docs/: {e}"))?;
    let mut pages: Vec<String> = docs
        .flatten()
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|name| name.ends_with(".md"))
        .map(|name| format!("docs/{name}"))
        .collect();
    pages.sort();
    files.extend(pages);
    for file in &files {
        for version in pinned_versions(&read(&root.join(file))?) {
            found.push((format!("{file} pins {version}"), version));
        }
    }
    Ok(found)
}

/// The versions pinned in a text: what follows `ask-user@` or `ask-user==` (this covers
/// `pi-ask-user@`), up to the first character that is not part of a version.
pub(crate) fn pinned_versions(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for marker in ["ask-user@", "ask-user=="] {
        for (at, _) in text.match_indices(marker) {
            let version: String = text[at + marker.len()..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+'))
                .collect();
            let version = version.trim_end_matches('.').to_string();
            if version.starts_with(|c: char| c.is_ascii_digit()) {
                found.push(version);
            }
        }
    }
    found
}

/// Each place whose version is not `version`, as `place: found`.
pub(crate) fn check_versions(root: &Path, version: &str) -> Result<Vec<String>, String> {
    Ok(versions(root)?
        .into_iter()
        .filter(|(_, found)| found != version)
        .map(|(place, found)| format!("{place}: {found}"))
        .collect())
}

/// The programs `dist` runs beside cargo and npm: maturin, and the Python beside it (which has
/// the `ziglang` package, and zips the bundles).
struct Tools {
    maturin: PathBuf,
    python: PathBuf,
}

impl Tools {
    /// maturin from `PATH`, else from `target/ci-venv` (where `.ci/run` installs it).
    fn find(root: &Path) -> Result<Tools, String> {
        let venv = root.join("target/ci-venv/bin");
        let maturin = which("maturin")
            .or_else(|| Some(venv.join("maturin")).filter(|p| p.is_file()))
            .ok_or_else(|| {
                "maturin is missing; install the pinned tools with `python3 -m venv \
                 target/ci-venv && target/ci-venv/bin/pip install -r \
                 integrations/python/requirements-dist.txt`"
                    .to_string()
            })?;
        let bin = maturin.parent().unwrap_or(Path::new(".")).to_path_buf();
        let python = ["python3", "python"]
            .iter()
            .map(|name| bin.join(name))
            .find(|p| p.is_file())
            .ok_or_else(|| format!("no python beside {}", maturin.display()))?;
        Ok(Tools { maturin, python })
    }

    /// `PATH` with maturin's folder first, so that maturin finds the `ziglang` package.
    fn path(&self) -> std::ffi::OsString {
        let mut dirs = vec![
            self.maturin
                .parent()
                .unwrap_or(Path::new("."))
                .to_path_buf(),
        ];
        dirs.extend(std::env::split_paths(
            &std::env::var_os("PATH").unwrap_or_default(),
        ));
        std::env::join_paths(dirs).unwrap_or_default()
    }
}

/// The first `name` on `PATH`.
fn which(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(name))
        .find(|path| path.is_file())
}

/// What every artifact of one `dist` run shares: the repository, the tools, the platform, the
/// workspace's version and the folder the artifacts go to.
struct Dist<'a> {
    root: &'a Path,
    tools: Tools,
    platform: Platform,
    version: String,
    out: PathBuf,
}

impl Dist<'_> {
    /// Builds the binary and the wheel in one maturin run; returns the binary cargo left in
    /// `target/<triple>/<profile>/`, which every other artifact reuses.
    fn build(&self) -> Result<PathBuf, String> {
        let Dist {
            root,
            tools,
            platform,
            out,
            ..
        } = self;
        let out_arg = out.display().to_string();
        let mut args = vec![
            "build",
            "--target",
            &platform.target,
            "--profile",
            PROFILE,
            "--out",
            &out_arg,
        ];
        if platform.linux() {
            args.extend(["--zig", "--compatibility", "manylinux2014"]);
        }
        let status = Command::new(&tools.maturin)
            .args(&args)
            .current_dir(root.join("integrations/python"))
            .env("PATH", tools.path())
            .status()
            .map_err(|e| format!("cannot run {}: {e}", tools.maturin.display()))?;
        if !status.success() {
            return Err(format!("`maturin {}` failed ({status})", args.join(" ")));
        }
        let binary = root
            .join("target")
            .join(&platform.target)
            .join(PROFILE)
            .join(&platform.binary);
        if binary.is_file() {
            Ok(binary)
        } else {
            Err(format!("maturin left no binary at {}", binary.display()))
        }
    }

    /// The npm package `@ask-user/cli-<os>-<cpu>`: the binary in `bin/`, and `os`, `cpu` and `libc`
    /// fields so that npm installs it only where it runs.
    fn npm_platform_package(&self, binary: &Path) -> Result<(), String> {
        let Dist {
            root,
            platform,
            version,
            out,
            ..
        } = self;
        let launcher = read_json(&root.join("integrations/npm/ask-user/package.json"))?;
        let dir = out.join("npm").join(format!("cli-{}", platform.name()));
        std::fs::create_dir_all(dir.join("bin")).map_err(|e| format!("{}: {e}", dir.display()))?;
        let floor = if platform.linux() {
            ", glibc 2.17 or newer"
        } else {
            ""
        };
        let mut manifest = json!({
            "name": platform.package,
            "version": version,
            "description": format!(
                "The ask-user binary for {} {}{floor}; install ask-user, whose launcher runs it.",
                platform.os, platform.cpu
            ),
            "license": launcher["license"],
            "os": [platform.os],
            "cpu": [platform.cpu],
            "files": [format!("bin/{}", platform.binary), "README.md"],
            "preferUnplugged": true,
            "publishConfig": {"access": "public"},
        });
        if let Some(libc) = &platform.libc {
            manifest["libc"] = json!([libc]);
        }
        write(&dir.join("package.json"), &pretty(&manifest))?;
        copy(
            &root.join("integrations/npm/platform/README.md"),
            &dir.join("README.md"),
        )?;
        copy(binary, &dir.join("bin").join(&platform.binary))?;
        npm_pack(root, &dir, out)
    }

    /// The Claude Code plugin: its folder under `target/packages/claude-plugin/`, and the same as
    /// a zip (`claude --plugin-dir ask-user-claude-plugin-X.Y.Z.zip`).
    fn claude_plugin(&self) -> Result<(), String> {
        let Dist {
            root,
            tools,
            version,
            out,
            ..
        } = self;
        let dir = out.join("claude-plugin");
        copy_dir(&root.join("integrations/claude-code"), &dir)?;
        zip(
            tools,
            &dir,
            &out.join(format!("ask-user-claude-plugin-{version}.zip")),
        )
    }

    /// The Claude Desktop bundle: the manifest (with this platform as its only one) and the binary
    /// under `server/`, zipped as `ask-user-X.Y.Z-<os>-<cpu>.mcpb`.
    fn mcpb(&self, binary: &Path) -> Result<(), String> {
        let Dist {
            root,
            tools,
            platform,
            version,
            out,
        } = self;
        let dir = out.join(format!("mcpb-{}", platform.name()));
        let mut manifest = read_json(&root.join("integrations/mcpb/manifest.json"))?;
        manifest["compatibility"] = json!({"platforms": [platform.os]});
        std::fs::create_dir_all(dir.join("server"))
            .map_err(|e| format!("{}: {e}", dir.display()))?;
        write(&dir.join("manifest.json"), &pretty(&manifest))?;
        copy(binary, &dir.join("server").join(&platform.binary))?;
        zip(
            tools,
            &dir,
            &out.join(format!("ask-user-{version}-{}.mcpb", platform.name())),
        )
    }
}

/// `npm pack` of the package in `dir`, into `out`.
fn npm_pack(root: &Path, dir: &Path, out: &Path) -> Result<(), String> {
    let npm = if cfg!(windows) { "npm.cmd" } else { "npm" };
    let output = Command::new(npm)
        .args(["pack", "--ignore-scripts", "--json", "--pack-destination"])
        .arg(out)
        .arg(dir)
        .current_dir(root)
        .output()
        .map_err(|e| format!("cannot run npm (it packs the npm packages): {e}"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "npm pack {} failed: {}",
            dir.display(),
            String::from_utf8_lossy(&output.stderr)
        ))
    }
}

/// Zips the files under `dir` (deflated, each with its mode, at a fixed date so that the same
/// files give the same bytes) with Python's zipfile.
fn zip(tools: &Tools, dir: &Path, file: &Path) -> Result<(), String> {
    const SCRIPT: &str = r#"
import os, sys, zipfile
src, dst = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
    for base, dirs, files in os.walk(src):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(base, name)
            info = zipfile.ZipInfo(os.path.relpath(path, src).replace(os.sep, "/"), (1980, 1, 1, 0, 0, 0))
            info.external_attr = (os.stat(path).st_mode & 0xFFFF) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            with open(path, "rb") as f:
                z.writestr(info, f.read())
"#;
    let status = Command::new(&tools.python)
        .args(["-c", SCRIPT])
        .arg(dir)
        .arg(file)
        .status()
        .map_err(|e| format!("cannot run {}: {e}", tools.python.display()))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("zipping {} failed ({status})", dir.display()))
    }
}

/// Writes `SHA256SUMS` (the `sha256sum` format) for every file directly under `out`; returns
/// each file's name and size.
fn checksums(out: &Path) -> Result<BTreeMap<String, u64>, String> {
    let mut files = BTreeMap::new();
    let mut sums = String::new();
    let mut entries: Vec<PathBuf> = std::fs::read_dir(out)
        .map_err(|e| format!("{}: {e}", out.display()))?
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.is_file())
        .collect();
    entries.sort();
    for path in entries {
        let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let name = path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        let digest = Sha256::digest(&bytes);
        let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
        sums.push_str(&format!("{hex}  {name}\n"));
        files.insert(name, bytes.len() as u64);
    }
    write(&out.join("SHA256SUMS"), &sums)?;
    files.insert("SHA256SUMS".to_string(), sums.len() as u64);
    Ok(files)
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))
}

fn read_json(path: &Path) -> Result<Value, String> {
    serde_json::from_str(&read(path)?).map_err(|e| format!("{}: {e}", path.display()))
}

fn write(path: &Path, contents: &str) -> Result<(), String> {
    std::fs::write(path, contents).map_err(|e| format!("{}: {e}", path.display()))
}

fn pretty(value: &Value) -> String {
    let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
    text.push('\n');
    text
}

/// Copies a file with its permissions (a binary stays executable).
fn copy(from: &Path, to: &Path) -> Result<(), String> {
    std::fs::copy(from, to)
        .map(|_| ())
        .map_err(|e| format!("cannot copy {} to {}: {e}", from.display(), to.display()))
}

fn copy_dir(from: &Path, to: &Path) -> Result<(), String> {
    std::fs::create_dir_all(to).map_err(|e| format!("{}: {e}", to.display()))?;
    for entry in std::fs::read_dir(from).map_err(|e| format!("{}: {e}", from.display()))? {
        let entry = entry.map_err(|e| format!("{}: {e}", from.display()))?;
        let path = entry.path();
        let target = to.join(entry.file_name());
        if path.is_dir() {
            copy_dir(&path, &target)?;
        } else {
            copy(&path, &target)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root() -> PathBuf {
        crate::project_root()
    }

    #[test]
    fn every_package_and_pinned_command_has_the_workspace_version() {
        let version = workspace_version(&root()).unwrap();
        assert_eq!(
            check_versions(&root(), &version).unwrap(),
            Vec::<String>::new()
        );
        // The places are really read: the launcher's README pins the npm recipe, and the MCP
        // page of `docs/` the Claude Code recipe.
        let places = versions(&root()).unwrap();
        assert!(
            places
                .iter()
                .any(|(place, _)| place.starts_with("docs/mcp.md pins")),
            "{places:?}"
        );
        assert!(
            places
                .iter()
                .any(|(place, _)| place.starts_with("integrations/npm/ask-user/README.md pins")),
            "{places:?}"
        );
    }

    #[track_caller]
    fn check_pins(text: &str, expected: &[&str]) {
        assert_eq!(pinned_versions(text), expected);
    }

    #[test]
    fn pinned_versions_are_read_from_commands_and_configs() {
        check_pins("npx -y ask-user@0.1.0 mcp", &["0.1.0"]);
        check_pins(r#"["-y", "ask-user@1.2.3", "mcp"]"#, &["1.2.3"]);
        check_pins("pi install npm:pi-ask-user@0.2.0-rc.1.", &["0.2.0-rc.1"]);
        check_pins("uvx ask-user==0.1.0 mcp", &["0.1.0"]);
        check_pins("npx -y ask-user mcp, ask-user@latest", &[]);
    }

    #[test]
    fn every_target_of_the_table_is_a_platform_package() {
        for target in [
            "x86_64-unknown-linux-gnu",
            "aarch64-unknown-linux-gnu",
            "x86_64-apple-darwin",
            "aarch64-apple-darwin",
        ] {
            let platform = platform(&root(), target).unwrap();
            assert_eq!(
                platform.package,
                format!("@ask-user/cli-{}", platform.name())
            );
        }
        let error = platform(&root(), "x86_64-pc-windows-msvc").unwrap_err();
        assert!(error.contains("x86_64-unknown-linux-gnu"), "{error}");
    }
}

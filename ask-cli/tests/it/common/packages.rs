//! The packages `cargo xtask dist` wrote under `target/packages/`, served by a static npm
//! registry on 127.0.0.1 (`tests/packages_host/registry.py`), and the environment of a machine
//! that has Node and Python but no Rust: a `PATH` without cargo, `target/` or `ask-user`, an
//! empty npm cache and npm configuration, and an empty install prefix.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// The workspace's version: every package is published at it.
pub(crate) const VERSION: &str = env!("CARGO_PKG_VERSION");

/// `target/packages/`, which must hold the artifacts of `cargo xtask dist`.
pub(crate) fn packages_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/packages");
    let launcher = dir.join(format!("ask-user-{VERSION}.tgz"));
    assert!(
        launcher.is_file(),
        "{} is missing: build the packages first with `cargo xtask dist` (which needs npm and \
         the pinned maturin and ziglang of integrations/python/requirements-dist.txt; .ci/run \
         installs them and runs it)",
        launcher.display()
    );
    dir
}

/// One artifact of `target/packages/`.
pub(crate) fn artifact(name: &str) -> PathBuf {
    let path = packages_dir().join(name);
    assert!(path.exists(), "{} is missing", path.display());
    path
}

/// The folder of the test helpers of the package tests.
pub(crate) fn host_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/packages_host")
}

/// A `PATH` with Node, npm and the system's tools, and nothing of Rust: no cargo, no rustc, no
/// `target/` and no `ask-user`.
pub(crate) fn path_without_rust() -> String {
    let mut dirs = vec![PathBuf::from("/usr/bin"), PathBuf::from("/bin")];
    if let Some(node) = find_on_path("node")
        && let Some(dir) = node.parent()
        && !dirs.iter().any(|d| d == dir)
    {
        dirs.push(dir.to_path_buf());
    }
    for dir in &dirs {
        for program in ["cargo", "rustc", "ask-user"] {
            assert!(
                !dir.join(program).exists(),
                "{} holds {program}; the package tests need a PATH without it",
                dir.display()
            );
        }
    }
    std::env::join_paths(dirs)
        .unwrap()
        .to_string_lossy()
        .to_string()
}

fn find_on_path(program: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(program))
        .find(|path| path.is_file())
}

/// The static registry of the tarballs of `target/packages/`, on 127.0.0.1.
pub(crate) struct Registry {
    child: Child,
    port: u16,
    log: PathBuf,
    /// An npm home of its own: empty user and global configuration, an empty cache, an empty
    /// global prefix.
    home: tempfile::TempDir,
}

impl Registry {
    pub(crate) fn start() -> Registry {
        let home = tempfile::tempdir().unwrap();
        for dir in ["cache", "prefix", "home"] {
            std::fs::create_dir(home.path().join(dir)).unwrap();
        }
        for file in ["npmrc", "global-npmrc"] {
            std::fs::write(home.path().join(file), "").unwrap();
        }
        let log = home.path().join("requests.log");
        let mut child = Command::new("python3")
            .arg(host_dir().join("registry.py"))
            .arg(packages_dir())
            .arg(&log)
            .env("REGISTRY_LIFETIME", "300")
            .stdout(Stdio::piped())
            .spawn()
            .expect("python3 runs");
        let mut port = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut port)
            .unwrap();
        let port = port.trim().parse().expect("the registry prints its port");
        Registry {
            child,
            port,
            log,
            home,
        }
    }

    /// The environment of npm, npx and pi with this registry and nothing else: Node and npm
    /// on `PATH` but no Rust, a `HOME` of its own.
    pub(crate) fn env(&self) -> Vec<(String, String)> {
        let home = self.home.path();
        let path = |name: &str| home.join(name).display().to_string();
        vec![
            ("PATH".into(), path_without_rust()),
            ("HOME".into(), path("home")),
            (
                "npm_config_registry".into(),
                format!("http://127.0.0.1:{}/", self.port),
            ),
            ("npm_config_cache".into(), path("cache")),
            ("npm_config_prefix".into(), path("prefix")),
            ("npm_config_userconfig".into(), path("npmrc")),
            ("npm_config_globalconfig".into(), path("global-npmrc")),
            ("npm_config_update_notifier".into(), "false".into()),
            ("npm_config_audit".into(), "false".into()),
            ("npm_config_fund".into(), "false".into()),
        ]
    }

    /// `program` with only [`Registry::env`] for an environment.
    pub(crate) fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut command = Command::new(program);
        command.env_clear().envs(self.env()).stdin(Stdio::null());
        command
    }

    /// The requests the registry answered, as `GET /path STATUS` lines.
    pub(crate) fn requests(&self) -> Vec<String> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect()
    }

    /// The tarballs the registry sent.
    pub(crate) fn tarballs(&self) -> Vec<String> {
        let mut found: Vec<String> = self
            .requests()
            .iter()
            .filter_map(|line| line.strip_prefix("GET /-/"))
            .filter_map(|rest| rest.strip_suffix(" 200"))
            .map(str::to_string)
            .collect();
        found.sort();
        found
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

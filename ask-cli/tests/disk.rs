//! A full disk while writing the pending file or the session log: the exit code says what
//! happened, the old file is intact and nothing half-written is left.
//!
//! The disk is a small tmpfs mounted for the test, which needs root (as in CI).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// A small tmpfs, unmounted when dropped.
struct SmallDisk {
    dir: tempfile::TempDir,
}

impl SmallDisk {
    fn mount() -> SmallDisk {
        let dir = tempfile::tempdir().unwrap();
        let status = Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=64k", "tmpfs"])
            .arg(dir.path())
            .status()
            .expect("mount runs");
        assert!(
            status.success(),
            "mounting a tmpfs failed: these tests need root (CI runs as root)"
        );
        SmallDisk { dir }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Fills the disk until a write fails.
    fn fill(&self) {
        let mut filler = std::fs::File::create(self.path().join("filler")).unwrap();
        let block = vec![b'x'; 4096];
        while filler.write_all(&block).is_ok() {}
        let _ = filler.sync_all();
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.dir.path()).status();
    }
}

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples")
        .join(name)
}

fn run(dir: &Path, args: &[&str]) -> Output {
    Command::new("setsid")
        .arg(env!("CARGO_BIN_EXE_ask-user"))
        .args(args)
        .current_dir(dir)
        .env_remove("ASK_USER_PENDING_FILE")
        .env_remove("ASK_USER_SUBAGENT")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_full_disk_keeps_the_old_pending_file() {
    let disk = SmallDisk::mount();
    let setup = example("project-setup.json");
    let first = run(
        disk.path(),
        &["-p", "--pending-file", "p.json", setup.to_str().unwrap()],
    );
    assert_eq!(first.status.code(), Some(4));
    let before = std::fs::read(disk.path().join("p.json")).unwrap();
    disk.fill();
    let long = "x".repeat(60_000);
    let output = run(
        disk.path(),
        &[
            "--pending-file",
            "p.json",
            "--answers",
            &format!(r#"["{long}", null]"#),
        ],
    );
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("cannot write `p.json`: No space left on device"),
        "{stderr}"
    );
    assert_eq!(std::fs::read(disk.path().join("p.json")).unwrap(), before);
    assert_eq!(
        entries(disk.path()),
        ["filler", "p.json", "p.json.lock"],
        "no temporary file is left"
    );
}

#[test]
fn a_full_disk_leaves_no_half_record_in_the_session_log() {
    let disk = SmallDisk::mount();
    let setup = example("project-setup.json");
    let first = run(
        disk.path(),
        &[
            "-p",
            "--session",
            "s.jsonl",
            "--call-id",
            "c1",
            "--pending-file",
            "p.json",
            setup.to_str().unwrap(),
        ],
    );
    assert_eq!(first.status.code(), Some(4));
    disk.fill();
    let long = "y".repeat(60_000);
    let output = run(
        disk.path(),
        &[
            "--session",
            "s.jsonl",
            "--pending-file",
            "p.json",
            "--answers",
            &format!(r#"["SQLite", "{long}"]"#),
        ],
    );
    // The answers still reach the agent on stdout; the exit code says they were not saved.
    assert_eq!(output.status.code(), Some(1));
    let result: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(result["answers"][1]["answer"], long.as_str());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("the answer was not saved to the session log `s.jsonl`"),
        "{stderr}"
    );
    let log = std::fs::read(disk.path().join("s.jsonl")).unwrap_or_default();
    assert!(
        log.is_empty(),
        "the log holds {} bytes of a half-written record",
        log.len()
    );
}

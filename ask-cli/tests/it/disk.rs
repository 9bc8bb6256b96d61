//! A full disk while writing the pending file or the session log: the exit code says what
//! happened, the old file is intact and nothing half-written is left.
//!
//! The disk is a small tmpfs mounted for the test, which needs root (as in CI).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use std::io::Write;

use std::path::Path;
use std::process::Command;

use common::{example, run_in as run};

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

fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
#[ignore = "needs root to mount a tmpfs; run by .ci/run"]
fn a_full_disk_leaves_no_half_written_pending_file() {
    let _heavy = common::heavy::heavy("disk");
    let disk = SmallDisk::mount();
    let setup = example("project-setup.json");
    disk.fill();
    let output = run(
        disk.path(),
        &["-p", "--pending-file", "p.json", setup.to_str().unwrap()],
    );
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("cannot write `p.json`: No space left on device"),
        "{stderr}"
    );
    assert_eq!(
        entries(disk.path()),
        ["filler", "p.json.lock"],
        "no pending file and no temporary file is left"
    );
    // With room again, the same call goes through.
    std::fs::remove_file(disk.path().join("filler")).unwrap();
    let output = run(
        disk.path(),
        &["-p", "--pending-file", "p.json", setup.to_str().unwrap()],
    );
    assert_eq!(output.status.code(), Some(4));
    assert!(ask_print_parses(&disk.path().join("p.json")));
}

/// True when the file at `path` is a whole pending file.
fn ask_print_parses(path: &Path) -> bool {
    let text = std::fs::read_to_string(path).unwrap();
    serde_json::from_str::<serde_json::Value>(&text).is_ok_and(|v| v["questions"].is_array())
}

#[test]
#[ignore = "needs root to mount a tmpfs; run by .ci/run"]
fn a_full_disk_leaves_no_half_record_in_the_session_log() {
    let _heavy = common::heavy::heavy("disk");
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

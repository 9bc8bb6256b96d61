//! Terminal faults with the real binary in a pseudo-terminal: every catchable signal that ends
//! the UI restores the terminal first, a terminal that reads end of file is a hang-up, and
//! Ctrl+Z (or SIGTSTP) suspends with the terminal restored and resumes in raw mode.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::process::Command;
use std::time::{Duration, Instant};

use common::pty::{ESC, PATIENCE, Session};

/// The script of the signal tests: saves the terminal settings, runs the demo in the
/// background (so the test can signal it by pid), and saves the settings again after it ends.
const SCRIPT: &str = "stty -g > before.txt; \
    \"$ASK\" demo > stdout.json 2> stderr.txt & echo $! > pid.txt; wait $!; echo $? > code.txt; \
    stty -g > after.txt; stty -a > after-a.txt; echo finished";

#[track_caller]
fn ends_the_ui_with_the_terminal_restored(signal: &str, name: &str, number: u32) {
    let session = Session::start(SCRIPT, &[]);
    session.wait_for("Which database should we use?");
    session.kill(signal);
    session.assert_terminal_restored("4. Other");
    let stderr = std::fs::read_to_string(session.path("stderr.txt")).unwrap();
    assert!(stderr.contains(name), "stderr names the signal: {stderr}");
    let code = std::fs::read_to_string(session.path("code.txt")).unwrap();
    assert_eq!(code.trim(), (128 + number).to_string());
    assert_eq!(
        std::fs::read_to_string(session.path("stdout.json")).unwrap(),
        ""
    );
}

#[test]
fn sigquit_restores_the_terminal() {
    ends_the_ui_with_the_terminal_restored("-QUIT", "SIGQUIT", 3);
}

#[test]
fn sigusr1_restores_the_terminal() {
    ends_the_ui_with_the_terminal_restored("-USR1", "SIGUSR1", 10);
}

#[test]
fn sigusr2_restores_the_terminal() {
    ends_the_ui_with_the_terminal_restored("-USR2", "SIGUSR2", 12);
}

#[test]
fn sigalrm_restores_the_terminal() {
    ends_the_ui_with_the_terminal_restored("-ALRM", "SIGALRM", 14);
}

/// The controlling terminal of process `pid`, as a device path (from `/proc/PID/stat`).
fn terminal_of(pid: &str) -> String {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let fields: Vec<&str> = stat
        .rsplit(')')
        .next()
        .unwrap()
        .split_whitespace()
        .collect();
    // After the command name: state, ppid, pgrp, session, tty_nr.
    let device: u64 = fields[4].parse().unwrap();
    let major = (device >> 8) & 0xfff;
    let minor = (device & 0xff) | ((device >> 12) & 0xfff00);
    assert!(
        (136..144).contains(&major),
        "process {pid} has no pseudo-terminal: {stat}"
    );
    format!("/dev/pts/{}", (major - 136) * 256 + minor)
}

fn stty(device: &str, flag: &str) -> String {
    let out = Command::new("stty")
        .args(["-F", device, flag])
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap()
}

/// Waits until process `pid` is in state `state` (`T` stopped, anything else running).
#[track_caller]
fn wait_for_state(pid: &str, stopped: bool) {
    let start = Instant::now();
    while start.elapsed() < PATIENCE {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let state = stat
            .rsplit(')')
            .next()
            .unwrap_or("")
            .split_whitespace()
            .next();
        if (state == Some("T")) == stopped {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!(
        "process {pid} did not become {}",
        if stopped { "stopped" } else { "running" }
    );
}

#[track_caller]
fn suspends_and_resumes(suspend: impl FnOnce(&mut Session)) {
    let mut session = Session::start(SCRIPT, &[]);
    session.wait_for("← ▸□ Database  □ Service Name  □ Features  ✓ Submit →");
    let pid = session.wait_for_file("pid.txt").trim().to_string();
    let device = terminal_of(&pid);
    let before = std::fs::read_to_string(session.path("before.txt")).unwrap();
    suspend(&mut session);
    wait_for_state(&pid, true);
    // Stopped: the terminal is as the shell left it, and the UI's screen is gone.
    assert_eq!(
        stty(&device, "-g"),
        before,
        "the terminal is restored while stopped"
    );
    session.wait_for_gone(
        "Which database should we use?",
        "the alternate screen is left while stopped",
    );
    // `fg`: the shell continues the process.
    let resumed = Command::new("kill").args(["-CONT", &pid]).status().unwrap();
    assert!(resumed.success());
    wait_for_state(&pid, false);
    session.wait_for("← ▸□ Database  □ Service Name  □ Features  ✓ Submit →");
    let modes = stty(&device, "-a");
    for flag in ["-icanon", "-echo"] {
        assert!(
            modes.split_whitespace().any(|word| word == flag),
            "raw mode again after resuming ({flag}): {modes}"
        );
    }
    // Keys act at once, without Enter and without being echoed.
    session.key("2", "What should we name this service?");
    session.key(ESC, "Discard 1 answer? [y/N]");
    session.send("\x03");
    session.assert_terminal_restored("4. Other");
    let code = std::fs::read_to_string(session.path("code.txt")).unwrap();
    assert_eq!(code.trim(), "130");
}

#[test]
fn ctrl_z_suspends_with_the_terminal_restored_and_fg_resumes_in_raw_mode() {
    suspends_and_resumes(|session| session.send("\x1a"));
}

#[test]
fn sigtstp_suspends_with_the_terminal_restored_and_fg_resumes_in_raw_mode() {
    suspends_and_resumes(|session| session.kill("-TSTP"));
}

/// The terminal's other end closes while SIGHUP is blocked, so no signal comes: reading the
/// terminal gives end of file for ever. The UI takes it as a hang-up (exit code 129) instead of
/// spinning.
#[test]
fn a_terminal_at_end_of_file_is_a_hang_up() {
    let script = r#"
import os, pty, select, signal, sys, time
pid, master = pty.fork()
if pid == 0:
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGHUP})
    os.execv(sys.argv[1], [sys.argv[1], "demo"])
seen = b""
deadline = time.time() + 20
while b"Which database" not in seen and time.time() < deadline:
    if select.select([master], [], [], 0.5)[0]:
        try:
            seen += os.read(master, 65536)
        except OSError:
            break
if b"Which database" not in seen:
    print("no-ui")
    sys.exit(0)
os.close(master)
"#;
    let output = Command::new("python3")
        .args(["-c", &format!("{script}{}", common::EXIT_OF_PID)])
        .arg(env!("CARGO_BIN_EXE_ask-user"))
        .env_remove("ASK_USER_NO_TTY")
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&output.stdout).trim(),
        "exit 129",
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

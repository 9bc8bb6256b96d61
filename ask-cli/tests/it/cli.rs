//! The command line as a newcomer meets it: INPUT left out, `demo` with its flags on either
//! side, the help text, and the answer map of a cancelled call.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::common::SpawnPiped;

use std::process::Stdio;

use common::pty::{ESC, Session};
use common::{example, stdout_json};

#[test]
fn a_call_piped_in_is_read_without_naming_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let call = std::fs::read(example("project-setup.json")).unwrap();
    let mut child = common::ask_user_without_terminal()
        .args(["-p", "--pending-file", "p.json"])
        .current_dir(dir.path())
        .spawn_piped();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), &call).unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(
        output.status.code(),
        Some(4),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(dir.path().join("p.json").exists());
    let validated = common::run_with_stdin(&["validate"], &call);
    assert_eq!(stdout_json(&validated)["valid"], true);
}

#[test]
fn a_call_redirected_from_a_file_is_read_without_naming_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let output = common::ask_user_without_terminal()
        .args(["-p", "--pending-file", "p.json"])
        .current_dir(dir.path())
        .stdin(std::fs::File::open(example("features.json")).unwrap())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(4));
    assert!(dir.path().join("p.json").exists());
}

#[test]
fn no_input_and_nothing_piped_in_says_so() {
    let dir = tempfile::tempdir().unwrap();
    for args in [&["-p"][..], &["validate"]] {
        let output = common::run_in(dir.path(), args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains("no INPUT given, and stdin is not a pipe or a file"),
            "{args:?}: {stderr}"
        );
        assert!(output.stdout.is_empty());
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn no_input_on_a_terminal_says_so_instead_of_waiting() {
    let mut session = Session::ask("-p", &[]);
    assert_eq!(session.exit_code(), 2);
    let stderr = std::fs::read_to_string(session.path("stderr.txt")).unwrap();
    assert!(stderr.contains("no INPUT given"), "{stderr}");
}

/// The demo runs, quietly, with `--no-notify` and `--output` before or after the word `demo`;
/// cancelling it prints the cancelled answer map.
#[test]
fn demo_takes_its_flags_before_or_after_the_word_demo() {
    for args in [
        "--no-notify --output answers demo",
        "demo --no-notify --output answers",
        "--no-notify demo --output answers",
    ] {
        let mut session = Session::ask(args, &[]);
        session.wait_for("Which database should we use?");
        session.send(ESC);
        let raw = session.raw();
        let (code, stdout) = session.finish();
        assert_eq!(code, 130, "{args}");
        assert_eq!(stdout, "{\"answers\":{},\"cancelled\":true}\n", "{args}");
        assert!(
            !raw.windows(4).any(|w| w == b"\x1b]9;") && !raw.contains(&7u8),
            "{args}: no bell or notification with --no-notify"
        );
    }
}

#[test]
fn ask_flags_given_to_another_command_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    for (args, named) in [
        (
            &["-p", "schema"][..],
            "`ask-user schema` does not take --print",
        ),
        (
            &["--pending-file", "p.json", "demo"],
            "`ask-user demo` does not take --pending-file",
        ),
        (
            &["call.json", "demo"],
            "`ask-user demo` does not take an INPUT",
        ),
    ] {
        let output = common::run_in(dir.path(), args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(named), "{args:?}: {stderr}");
    }
}

#[test]
fn short_and_long_help_are_the_same_and_list_exit_codes_and_environment() {
    let dir = tempfile::tempdir().unwrap();
    let short = common::run_in(dir.path(), &["-h"]);
    let long = common::run_in(dir.path(), &["--help"]);
    assert_eq!(short.status.code(), Some(0));
    assert_eq!(short.stdout, long.stdout);
    let help = String::from_utf8(long.stdout).unwrap();
    for needed in [
        "Exit codes:",
        "4    pending: the questions wait in the pending file",
        "130  cancelled",
        "ASK_USER_NO_TTY",
        "ASK_USER_SESSION",
        "ASK_USER_SUBAGENT",
        "LC_ALL, LC_MESSAGES, LANG",
        "ask-user [--no-notify] [--output FORMAT] demo",
    ] {
        assert!(help.contains(needed), "--help lacks {needed:?}:\n{help}");
    }
    let demo_short = common::run_in(dir.path(), &["demo", "-h"]);
    let demo_long = common::run_in(dir.path(), &["demo", "--help"]);
    assert_eq!(demo_short.stdout, demo_long.stdout);
}

/// A standard stream that is closed is /dev/null to the command, never the next file or socket
/// it opens (the standard library's start-up sees to it): `serve`, started with stdin, stdout and
/// stderr closed, reads and says its messages to nothing rather than into its store or a
/// connection.
#[test]
fn closed_standard_streams_are_dev_null_never_a_file_the_command_opens() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("asks.db");
    let mut wrapper = std::process::Command::new("sh");
    let closing = r#"exec 0<&- 1>&- 2>&-; exec "$0" "$@""#;
    wrapper.args(["-c", closing, env!("CARGO_BIN_EXE_ask-user")]);
    let mut child = common::serve_in(wrapper, "127.0.0.1:0", dir.path())
        .arg("--store")
        .arg(&store)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while !store.exists() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let streams: Vec<_> = (0..3)
        .map(|fd| std::fs::read_link(format!("/proc/{}/fd/{fd}", child.id())))
        .collect();
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(store.exists(), "serve never opened its store");
    for (fd, target) in streams.into_iter().enumerate() {
        assert_eq!(
            target.unwrap(),
            std::path::Path::new("/dev/null"),
            "fd {fd}"
        );
    }
}

/// A reader that goes away before the result is written ends the command with its own exit
/// code, never by SIGPIPE, which the standard library's start-up set to be ignored.
#[test]
fn a_reader_that_went_away_ends_no_command_by_sigpipe() {
    use std::os::unix::process::ExitStatusExt;
    let mut child = common::ask_user()
        .arg("schema")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let status = child.wait().unwrap();
    assert_eq!(status.signal(), None, "{status:?}");
    assert_eq!(status.code(), Some(0), "{status:?}");
}

//! End-to-end tests of the terminal UI: the real `ask-user` binary runs in a pseudo-terminal,
//! the test types keys and reads the screen through a terminal emulator, and stdout (sent to a
//! file, apart from the terminal) must hold exactly the result JSON.
//!
//! The emulated terminal never answers any query, so every test also shows that the UI draws
//! its first frame without waiting for one. Waits poll the screen with generous time limits and
//! nothing asserts a duration.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{Read, Write};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use portable_pty::{Child, CommandBuilder, MasterPty, PtySize, SlavePty, native_pty_system};

const PATIENCE: Duration = Duration::from_secs(20);

const DOWN: &str = "\x1b[B";
const ENTER: &str = "\r";
const ESC: &str = "\x1b";
const TAB: &str = "\t";

/// One run of a shell command line in a fresh pseudo-terminal.
struct Session {
    dir: tempfile::TempDir,
    screen: Arc<Mutex<vt100::Parser>>,
    writer: Box<dyn Write + Send>,
    child: Box<dyn Child + Send + Sync>,
    _master: Box<dyn MasterPty + Send>,
    _slave: Box<dyn SlavePty + Send>,
}

impl Drop for Session {
    fn drop(&mut self) {
        // A test that failed half way leaves no process behind.
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
        }
    }
}

impl Session {
    /// Runs `script` under `sh -c` in an 80×24 pseudo-terminal, in a temporary folder that
    /// holds `files`. `$ASK` in the script is the `ask-user` binary.
    fn start(script: &str, files: &[(&str, &str)]) -> Session {
        let dir = tempfile::tempdir().unwrap();
        for (name, contents) in files {
            std::fs::write(dir.path().join(name), contents).unwrap();
        }
        let pair = native_pty_system()
            .openpty(PtySize {
                rows: 24,
                cols: 80,
                pixel_width: 0,
                pixel_height: 0,
            })
            .unwrap();
        let mut command = CommandBuilder::new("sh");
        command.arg("-c");
        command.arg(script);
        command.cwd(dir.path());
        command.env("TERM", "xterm-256color");
        command.env("ASK", env!("CARGO_BIN_EXE_ask-user"));
        command.env_remove("ASK_USER_NO_TTY");
        command.env_remove("ASK_USER_SUBAGENT");
        let child = pair.slave.spawn_command(command).unwrap();
        let screen = Arc::new(Mutex::new(vt100::Parser::new(24, 80, 0)));
        let mut reader = pair.master.try_clone_reader().unwrap();
        let sink = Arc::clone(&screen);
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock().unwrap().process(&buf[..n]);
            }
        });
        let writer = pair.master.take_writer().unwrap();
        Session {
            dir,
            screen,
            writer,
            child,
            _master: pair.master,
            // The test keeps the terminal side open too: when the shell redirects its standard
            // streams to files, no other process holds it until ask-user opens /dev/tty, and
            // the last close would hang up the terminal.
            _slave: pair.slave,
        }
    }

    /// Runs `ask-user ARGS` with stdout and stderr sent to files.
    fn ask(args: &str, files: &[(&str, &str)]) -> Session {
        Session::start(
            &format!("exec \"$ASK\" {args} > stdout.json 2> stderr.txt"),
            files,
        )
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn contents(&self) -> String {
        self.screen.lock().unwrap().screen().contents()
    }

    /// Waits until the screen shows `text`.
    #[track_caller]
    fn wait_for(&self, text: &str) {
        let start = Instant::now();
        while start.elapsed() < PATIENCE {
            if self.contents().contains(text) {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let stderr = std::fs::read_to_string(self.path("stderr.txt")).unwrap_or_default();
        panic!(
            "the screen never showed {text:?}; it shows:\n{}\nstderr: {stderr}",
            self.contents()
        );
    }

    fn send(&mut self, keys: &str) {
        self.writer.write_all(keys.as_bytes()).unwrap();
        self.writer.flush().unwrap();
    }

    /// Sends `keys` and waits until the screen shows `then`.
    #[track_caller]
    fn key(&mut self, keys: &str, then: &str) {
        self.send(keys);
        self.wait_for(then);
    }

    /// Waits for the process to end and returns its exit code.
    #[track_caller]
    fn exit_code(&mut self) -> u32 {
        let start = Instant::now();
        while start.elapsed() < PATIENCE {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.exit_code();
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        panic!(
            "ask-user did not exit; the screen shows:\n{}",
            self.contents()
        );
    }

    /// Waits for the exit and returns the exit code and stdout.
    #[track_caller]
    fn finish(mut self) -> (u32, String) {
        let code = self.exit_code();
        let stdout = std::fs::read_to_string(self.path("stdout.json")).unwrap();
        (code, stdout)
    }
}

fn call(value: serde_json::Value) -> String {
    value.to_string()
}

fn database_call() -> String {
    call(serde_json::json!({"questions": [{
        "question": "Which database should we use?",
        "header": "Database",
        "options": [
            {"label": "PostgreSQL (Recommended)", "description": "Battle-tested relational DB"},
            {"label": "SQLite", "description": "Lightweight, file-based"},
            {"label": "MongoDB", "description": "Document store"}
        ]
    }]}))
}

fn name_call() -> String {
    call(serde_json::json!({"questions": [{
        "question": "What should we name this service?",
        "header": "Service Name"
    }]}))
}

fn features_call() -> String {
    call(serde_json::json!({"questions": [{
        "question": "Which features should we include?",
        "header": "Features",
        "multiSelect": true,
        "options": [
            {"label": "Authentication", "description": "OAuth2 + JWT"},
            {"label": "REST API", "description": "OpenAPI spec included"},
            {"label": "Admin Dashboard"}
        ]
    }]}))
}

#[test]
fn arrow_and_enter_answer_a_single_question() {
    let db = database_call();
    let mut session = Session::ask("--mode tui call.json", &[("call.json", &db)]);
    session.wait_for("↑↓ navigate • 1-9 quick select • Enter to select • Esc to cancel");
    session.wait_for("> 1. PostgreSQL (Recommended)");
    session.key(DOWN, "> 2. SQLite");
    session.send(ENTER);
    let (code, stdout) = session.finish();
    assert_eq!(code, 0);
    assert_eq!(
        stdout,
        r#"{"answered":true,"answers":[{"question":"Which database should we use?","answer":"SQLite","selectedOption":"SQLite","wasCustom":false}]}"#
            .to_string()
            + "\n"
    );
}

#[test]
fn a_digit_answers_at_once_with_the_call_on_stdin() {
    let db = database_call();
    let mut session = Session::start(
        "exec \"$ASK\" - < call.json > stdout.json 2> stderr.txt",
        &[("call.json", &db)],
    );
    session.wait_for("4. Other (type your answer)");
    session.send("3");
    let (code, stdout) = session.finish();
    assert_eq!(code, 0);
    assert_eq!(
        stdout,
        r#"{"answered":true,"answers":[{"question":"Which database should we use?","answer":"MongoDB","selectedOption":"MongoDB","wasCustom":false}]}"#
            .to_string()
            + "\n"
    );
}

#[test]
fn other_takes_a_typed_answer() {
    let db = database_call();
    let mut session = Session::ask("call.json", &[("call.json", &db)]);
    session.wait_for("4. Other (type your answer)");
    session.key("0", "Enter to submit • Esc to go back");
    session.key(
        "I want to use DynamoDB",
        "> 4. Other: I want to use DynamoDB",
    );
    session.send(ENTER);
    let (code, stdout) = session.finish();
    assert_eq!(code, 0);
    assert_eq!(
        stdout,
        r#"{"answered":true,"answers":[{"question":"Which database should we use?","answer":"I want to use DynamoDB","wasCustom":true}]}"#
            .to_string()
            + "\n"
    );
}

#[test]
fn multi_select_ticks_with_space() {
    let features = features_call();
    let mut session = Session::ask("call.json", &[("call.json", &features)]);
    session.wait_for("Space to toggle • Enter to submit • Esc to cancel");
    session.key(" ", "> [x] Authentication");
    session.key(DOWN, "> [ ] REST API");
    session.key(DOWN, "> [ ] Admin Dashboard");
    session.key(" ", "> [x] Admin Dashboard");
    session.send(ENTER);
    let (code, stdout) = session.finish();
    assert_eq!(code, 0);
    assert_eq!(
        stdout,
        r#"{"answered":true,"answers":[{"question":"Which features should we include?","answer":["Authentication","Admin Dashboard"],"wasCustom":false}]}"#
            .to_string()
            + "\n"
    );
}

#[test]
fn demo_walks_the_tabs_and_submits() {
    let mut session = Session::ask("demo --output answers", &[]);
    session.wait_for("← □ Database  □ Service Name  □ Features  ✓ Submit →");
    session.wait_for("Tab/←→ switch • ↑↓ select • Enter confirm • Esc cancel");
    session.key(ENTER, "← ■ Database  □ Service Name");
    session.wait_for("What should we name this service?");
    session.key("order-processor", "> order-processor");
    session.key(ENTER, "Which features should we include?");
    session.key(" ", "> [x] Authentication");
    session.key(ENTER, "All answered. Press Enter to submit.");
    // Walk back to the first tab and forth again before submitting.
    session.key(TAB, "Which database should we use?");
    session.key("\x1b[Z", "All answered. Press Enter to submit.");
    session.send(ENTER);
    let (code, stdout) = session.finish();
    assert_eq!(code, 0);
    assert_eq!(
        stdout,
        r#"{"answers":{"Which database should we use?":"PostgreSQL (Recommended)","What should we name this service?":"order-processor","Which features should we include?":"Authentication"}}"#
            .to_string()
            + "\n"
    );
}

#[test]
fn cancelling_after_an_answer_asks_first() {
    let mut session = Session::ask("demo", &[]);
    session.wait_for("Which database should we use?");
    session.key(ENTER, "What should we name this service?");
    session.key(ESC, "Discard 1 answer? [y/N]");
    session.key("n", "Tab switch • Enter confirm • Esc cancel");
    session.key(ESC, "Discard 1 answer? [y/N]");
    session.send("y");
    let (code, stdout) = session.finish();
    assert_eq!(code, 130);
    assert_eq!(
        stdout,
        "{\"answered\":false,\"answers\":[],\"cancelled\":true}\n"
    );
}

#[test]
fn a_long_answer_is_accepted_after_the_warning() {
    let name = name_call();
    let long = "x".repeat(2847);
    let mut session = Session::ask("call.json", &[("call.json", &name)]);
    session.wait_for("Enter to submit • Esc to cancel");
    // A bracketed paste, as a terminal sends it.
    session.key(&format!("\x1b[200~{long}\x1b[201~"), "xxxxxxxx█");
    session.key(
        ENTER,
        "Answer is long (2,847 chars). Continue anyway? [Y/n]",
    );
    session.send("y");
    let (code, stdout) = session.finish();
    assert_eq!(code, 0);
    assert_eq!(
        stdout,
        format!(
            r#"{{"answered":true,"answers":[{{"question":"What should we name this service?","answer":"{long}","wasCustom":true}}]}}"#
        ) + "\n"
    );
}

#[test]
fn first_frame_comes_from_a_terminal_that_answers_no_query() {
    // The emulator behind this pty never replies to anything the program asks, such as a
    // cursor position report; the frame must come anyway.
    let mut session = Session::ask("demo", &[]);
    session.wait_for("Which database should we use?");
    session.wait_for("4. Other (type your answer)");
    session.send(ESC);
    let (code, stdout) = session.finish();
    assert_eq!(code, 130, "nothing was answered, so Esc cancels at once");
    assert_eq!(
        stdout,
        "{\"answered\":false,\"answers\":[],\"cancelled\":true}\n"
    );
}

#[test]
fn sigterm_leaves_the_terminal_in_cooked_mode() {
    signal_leaves_the_terminal_in_cooked_mode("-TERM", "SIGTERM");
}

#[test]
fn sighup_leaves_the_terminal_in_cooked_mode() {
    signal_leaves_the_terminal_in_cooked_mode("-HUP", "SIGHUP");
}

#[track_caller]
fn signal_leaves_the_terminal_in_cooked_mode(signal: &str, name: &str) {
    let script = "stty -g > before.txt; \
        \"$ASK\" demo > stdout.json 2> stderr.txt & echo $! > pid.txt; wait $!; \
        stty -g > after.txt; stty -a > after-a.txt; echo finished";
    let session = Session::start(script, &[]);
    session.wait_for("Which database should we use?");
    let start = Instant::now();
    let pid = loop {
        let text = std::fs::read_to_string(session.path("pid.txt")).unwrap_or_default();
        if text.ends_with('\n') || start.elapsed() > PATIENCE {
            break text;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let killed = std::process::Command::new("kill")
        .args([signal, pid.trim()])
        .status()
        .unwrap();
    assert!(killed.success());
    session.wait_for("finished");
    let before = std::fs::read_to_string(session.path("before.txt")).unwrap();
    let after = std::fs::read_to_string(session.path("after.txt")).unwrap();
    assert_eq!(before, after, "the terminal settings are back as they were");
    let modes = std::fs::read_to_string(session.path("after-a.txt")).unwrap();
    for flag in ["icanon", "echo", "isig"] {
        assert!(
            modes.split_whitespace().any(|word| word == flag),
            "{flag} is on again: {modes}"
        );
    }
    assert!(
        !session.contents().contains("4. Other"),
        "the alternate screen is gone:\n{}",
        session.contents()
    );
    let stdout = std::fs::read_to_string(session.path("stdout.json")).unwrap();
    assert_eq!(stdout, "", "an interrupted ask prints no result");
    let stderr = std::fs::read_to_string(session.path("stderr.txt")).unwrap();
    assert!(stderr.contains(name), "stderr names the signal: {stderr}");
}

#[test]
fn a_resize_redraws_at_the_new_width() {
    let mut session = Session::ask("demo", &[]);
    session.wait_for("← □ Database  □ Service Name  □ Features  ✓ Submit →");
    session
        ._master
        .resize(PtySize {
            rows: 12,
            cols: 40,
            pixel_width: 0,
            pixel_height: 0,
        })
        .unwrap();
    session.screen.lock().unwrap().screen_mut().set_size(12, 40);
    session.wait_for("← □ Data…  □ Serv…  □ Feat…  ✓ Submit →");
    session.wait_for("Tab/←→ switch • ↑↓ select");
    session.key("2", "What should we name this service?");
    session.key(ESC, "Discard 1 answer? [y/N]");
    session.send("\x03");
    let (code, stdout) = session.finish();
    assert_eq!(code, 130, "Ctrl+C at the confirmation aborts");
    assert_eq!(
        stdout,
        "{\"answered\":false,\"answers\":[],\"cancelled\":true}\n"
    );
}

//! A pseudo-terminal harness: the real `ask-user` binary runs in it, a test types keys and reads
//! the screen through a terminal emulator that never answers any query.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::io::{Read, Write};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use portable_pty::{Child, CommandBuilder, MasterPty, PtySize, SlavePty, native_pty_system};

pub(crate) const PATIENCE: Duration = Duration::from_secs(20);

pub(crate) const DOWN: &str = "\x1b[B";
pub(crate) const ENTER: &str = "\r";
pub(crate) const ESC: &str = "\x1b";
pub(crate) const TAB: &str = "\t";

/// One run of a shell command line in a fresh pseudo-terminal.
pub(crate) struct Session {
    raw: Arc<Mutex<Vec<u8>>>,
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
    pub(crate) fn start(script: &str, files: &[(&str, &str)]) -> Session {
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
        // The UI speaks English unless a test names a language.
        for var in ["LC_ALL", "LC_MESSAGES", "LANG"] {
            command.env_remove(var);
        }
        let child = pair.slave.spawn_command(command).unwrap();
        let screen = Arc::new(Mutex::new(vt100::Parser::new(24, 80, 0)));
        let mut reader = pair.master.try_clone_reader().unwrap();
        let sink = Arc::clone(&screen);
        let raw = Arc::new(Mutex::new(Vec::new()));
        let raw_sink = Arc::clone(&raw);
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                raw_sink.lock().unwrap().extend_from_slice(&buf[..n]);
                sink.lock().unwrap().process(&buf[..n]);
            }
        });
        let writer = pair.master.take_writer().unwrap();
        Session {
            raw,
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
    pub(crate) fn ask(args: &str, files: &[(&str, &str)]) -> Session {
        Session::start(
            &format!("exec \"$ASK\" {args} > stdout.json 2> stderr.txt"),
            files,
        )
    }

    pub(crate) fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Every byte the terminal received so far.
    pub(crate) fn raw(&self) -> Vec<u8> {
        self.raw.lock().unwrap().clone()
    }

    /// Resizes the terminal, as a person dragging the window would.
    pub(crate) fn resize(&mut self, rows: u16, cols: u16) {
        self._master
            .resize(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .unwrap();
        self.screen
            .lock()
            .unwrap()
            .screen_mut()
            .set_size(rows, cols);
    }

    pub(crate) fn contents(&self) -> String {
        self.screen.lock().unwrap().screen().contents()
    }

    /// Waits until the screen shows `text`.
    #[track_caller]
    pub(crate) fn wait_for(&self, text: &str) {
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

    /// Waits until the screen no longer shows `text`: the bytes that took it away may still be
    /// on their way from the terminal to the emulator when the process has already moved on.
    #[track_caller]
    pub(crate) fn wait_for_gone(&self, text: &str, what: &str) {
        let start = Instant::now();
        while start.elapsed() < PATIENCE {
            if !self.contents().contains(text) {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("{what}:\n{}", self.contents());
    }

    pub(crate) fn send(&mut self, keys: &str) {
        self.writer.write_all(keys.as_bytes()).unwrap();
        self.writer.flush().unwrap();
    }

    /// Sends `keys` and waits until the screen shows `then`.
    #[track_caller]
    pub(crate) fn key(&mut self, keys: &str, then: &str) {
        self.send(keys);
        self.wait_for(then);
    }

    /// Waits for the process to end and returns its exit code.
    #[track_caller]
    pub(crate) fn exit_code(&mut self) -> u32 {
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

    /// Waits until the shell has written the file `name` whole (ending with a line feed) and
    /// returns its text.
    #[track_caller]
    pub(crate) fn wait_for_file(&self, name: &str) -> String {
        let start = Instant::now();
        loop {
            let text = std::fs::read_to_string(self.path(name)).unwrap_or_default();
            if text.ends_with('\n') || start.elapsed() > PATIENCE {
                return text;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Sends `signal` (such as `-TERM`) to the process whose pid the script wrote to `pid.txt`.
    #[track_caller]
    pub(crate) fn kill(&self, signal: &str) {
        let pid = self.wait_for_file("pid.txt");
        let killed = std::process::Command::new("kill")
            .args([signal, pid.trim()])
            .status()
            .unwrap();
        assert!(killed.success(), "kill {signal} {pid}");
    }

    /// For a script that saves `stty -g` in `before.txt`, and after the command `stty -g` in
    /// `after.txt`, `stty -a` in `after-a.txt`, then prints `finished`: checks that the
    /// terminal's settings are back as they were, in cooked mode, and that the UI's screen,
    /// recognised by `shown`, is gone.
    #[track_caller]
    pub(crate) fn assert_terminal_restored(&self, shown: &str) {
        self.wait_for("finished");
        let before = std::fs::read_to_string(self.path("before.txt")).unwrap();
        let after = std::fs::read_to_string(self.path("after.txt")).unwrap();
        assert_eq!(before, after, "the terminal settings are back as they were");
        let modes = std::fs::read_to_string(self.path("after-a.txt")).unwrap();
        for flag in ["icanon", "echo", "isig"] {
            assert!(
                modes.split_whitespace().any(|word| word == flag),
                "{flag} is on again: {modes}"
            );
        }
        assert!(
            !self.contents().contains(shown),
            "the alternate screen is gone:\n{}",
            self.contents()
        );
    }

    /// Waits for the exit and returns the exit code and stdout.
    #[track_caller]
    pub(crate) fn finish(mut self) -> (u32, String) {
        let code = self.exit_code();
        let stdout = std::fs::read_to_string(self.path("stdout.json")).unwrap();
        (code, stdout)
    }
}

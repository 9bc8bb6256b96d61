//! The browser `ask-user mcp` starts for a page gets a file that forwards to the page's link,
//! never the link itself: every user of the machine can read any process's command line in
//! `/proc`, and one who read a one-time link could spend it and answer in the person's name.
//!
//! The browser here is a stand-in (`$BROWSER`, or `xdg-open` first on `PATH`) that records what
//! it was started with and stays alive until the test releases it, so that the test can read
//! every `/proc/*/cmdline` and `/proc/*/environ` while the browser lives.

use crate::common;
use crate::common::mcp_raw::{raw_session_of, read_message, send_line};
use crate::mcp::{answer_on_page, read_reply};

use std::collections::HashSet;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command};
use std::time::{Duration, Instant};

use serde_json::json;

/// How long anything the test waits for may take.
const LIMIT: Duration = Duration::from_secs(20);

/// A folder with the stand-in browsers in `bin/`, the records they leave in `log/`, and the
/// runtime folder (`$XDG_RUNTIME_DIR`) of the server in `run/`.
struct Stage {
    dir: tempfile::TempDir,
}

/// What a stand-in browser was started with.
struct Opened {
    pid: u32,
    argv: Vec<String>,
    environ: String,
    /// The file the stand-in removes to end, once the test has looked.
    release: PathBuf,
}

impl Stage {
    fn new() -> Stage {
        let stage = Stage {
            dir: tempfile::tempdir().unwrap(),
        };
        for folder in ["bin", "log", "run"] {
            std::fs::create_dir(stage.path(folder)).unwrap();
        }
        std::fs::set_permissions(stage.path("run"), std::fs::Permissions::from_mode(0o700))
            .unwrap();
        for name in ["browser", "xdg-open"] {
            stage.stand_in(name);
        }
        stage
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// A stand-in browser `bin/NAME`: it writes its pid, argv and environment to
    /// `log/NAME.PID`, marks it done with `log/NAME.PID.ready`, then waits until the test
    /// creates `log/NAME.PID.release` (it gives up after a minute, should the test fail first).
    fn stand_in(&self, name: &str) {
        let log = self.path("log");
        let script = format!(
            "#!/bin/sh\n\
             record='{log}/{name}'.$$\n\
             {{ echo $$; printf '%s\\n' \"$@\"; echo '--environ--'; env; }} > \"$record\"\n\
             : > \"$record.ready\"\n\
             n=0\n\
             while [ ! -e \"$record.release\" ] && [ $n -lt 1200 ]; do sleep 0.05; n=$((n+1)); done\n",
            log = log.display(),
        );
        let path = self.path("bin").join(name);
        std::fs::write(&path, script).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    /// `ask-user mcp --present web` with a display, the stand-ins first on `PATH`, `run/` as
    /// its runtime folder and `$BROWSER` the stand-in when `browser`, after the handshake.
    fn server(&self, browser: bool) -> (Child, ChildStdin, Lines) {
        self.server_with(browser.then(|| self.path("bin/browser")))
    }

    /// [`Stage::server`] with `browser` as `$BROWSER`, or none.
    fn server_with(&self, browser: Option<PathBuf>) -> (Child, ChildStdin, Lines) {
        let path = format!(
            "{}:{}",
            self.path("bin").display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let mut command = Command::new(env!("CARGO_BIN_EXE_ask-user"));
        command
            .args(["mcp", "--present", "web"])
            .current_dir(self.dir.path())
            .env("ASK_USER_NO_TTY", "1")
            .env("DISPLAY", ":99")
            .env("PATH", path)
            .env("XDG_RUNTIME_DIR", self.path("run"))
            .env_remove("WAYLAND_DISPLAY")
            .env_remove("ASK_USER_NO_OPEN")
            .env_remove("ASK_USER_PRESENT")
            .env_remove("ASK_USER_SUBAGENT");
        if let Some(browser) = browser {
            command.env("BROWSER", browser);
        } else {
            command.env_remove("BROWSER");
        }
        raw_session_of(command, json!({}))
    }

    /// Waits until the stand-in `name` started once more than `seen` times, and gives what the
    /// newest one was started with.
    fn opened(&self, name: &str, seen: &mut HashSet<PathBuf>) -> Opened {
        let start = Instant::now();
        loop {
            let ready = std::fs::read_dir(self.path("log"))
                .unwrap()
                .map(|entry| entry.unwrap().path())
                .find(|path| {
                    let file = path.file_name().unwrap().to_str().unwrap();
                    file.starts_with(&format!("{name}."))
                        && file.ends_with(".ready")
                        && !seen.contains(path)
                });
            if let Some(ready) = ready {
                seen.insert(ready.clone());
                let record = ready.with_extension("");
                let text = std::fs::read_to_string(&record).unwrap();
                let (head, environ) = text.split_once("--environ--\n").unwrap();
                let mut lines = head.lines().map(str::to_string);
                let pid = lines.next().unwrap().parse().unwrap();
                return Opened {
                    pid,
                    argv: lines.collect(),
                    environ: environ.to_string(),
                    release: record.with_extension(format!(
                        "{}.release",
                        record.extension().unwrap().to_str().unwrap()
                    )),
                };
            }
            assert!(start.elapsed() < LIMIT, "{name} was never started");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

type Lines = std::io::Lines<std::io::BufReader<ChildStdout>>;

impl Drop for Opened {
    fn drop(&mut self) {
        let _ = std::fs::write(&self.release, "");
    }
}

/// Asks one question; gives the page's link, from the log message that tells the client.
fn ask(stdin: &mut ChildStdin, lines: &mut Lines, id: i64) -> String {
    send_line(
        stdin,
        &json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "_meta": {"progressToken": format!("call-{id}")},
            "name": "ask_user",
            "arguments": {"questions": [{"question": "Ship it?", "options": [{"label": "Yes"}, {"label": "No"}]}]}
        }}),
    );
    // What an earlier call still sent comes first.
    let log = loop {
        let message = read_message(lines);
        if message["method"] == "notifications/message" {
            break message;
        }
    };
    let text = log["params"]["data"].as_str().unwrap();
    let link = text
        .split_once("open ")
        .and_then(|(_, rest)| rest.split_once(" to answer"))
        .map(|(link, _)| link.to_string())
        .unwrap_or_else(|| panic!("no link in {text:?}"));
    assert!(link.starts_with("http://127.0.0.1:"), "{link}");
    link
}

fn token_of(link: &str) -> &str {
    let token = link.split_once("#token=").unwrap().1;
    assert!(token.len() >= 16, "{link}");
    token
}

/// Reads every `/proc/PID/cmdline` and `/proc/PID/environ` this process can; gives the ones
/// that hold `token`, and the pids whose command line and environment were both read.
fn proc_holding(token: &str) -> (Vec<String>, HashSet<u32>) {
    let mut holders = Vec::new();
    let mut read = HashSet::new();
    for entry in std::fs::read_dir("/proc").unwrap() {
        let entry = entry.unwrap();
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let mut both = true;
        for file in ["cmdline", "environ"] {
            match std::fs::read(entry.path().join(file)) {
                Ok(bytes) => {
                    if bytes
                        .windows(token.len())
                        .any(|window| window == token.as_bytes())
                    {
                        let command = std::fs::read(entry.path().join("cmdline"))
                            .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
                            .unwrap_or_default();
                        holders.push(format!("/proc/{pid}/{file} ({command})"));
                    }
                }
                Err(_) => both = false,
            }
        }
        if both {
            read.insert(pid);
        }
    }
    (holders, read)
}

/// Checks, while the stand-in that `opened` records lives, that the link's token is on no
/// command line and in no environment, that the browser was given a `file://` URL and nothing
/// else, and that the file is the user's, 0600, in a fresh 0700 folder under `run`, and
/// forwards to `link`; gives the file.
fn check_opened(opened: &Opened, link: &str, run: &Path) -> PathBuf {
    let token = token_of(link);
    let (holders, read) = proc_holding(token);
    assert!(
        holders.is_empty(),
        "the link's token is readable in {holders:?}"
    );
    assert!(
        read.contains(&opened.pid),
        "the browser's /proc entries ({}) were read",
        opened.pid
    );
    assert!(!opened.environ.contains(token), "{}", opened.environ);
    assert_eq!(opened.argv.len(), 1, "{:?}", opened.argv);
    let url = &opened.argv[0];
    assert!(!url.contains(token), "{url}");
    let file = PathBuf::from(
        url.strip_prefix("file://")
            .unwrap_or_else(|| panic!("not a file URL: {url}")),
    );
    assert_eq!(file.file_name().unwrap(), "open.html", "{url}");
    let folder = file.parent().unwrap();
    assert_eq!(folder.parent().unwrap(), run, "{url}");
    let me = std::fs::metadata(run).unwrap().uid();
    let meta = std::fs::symlink_metadata(&file).unwrap();
    assert!(meta.file_type().is_file(), "{url}");
    assert_eq!(meta.mode() & 0o7777, 0o600, "{url}");
    assert_eq!(meta.uid(), me);
    let folder_meta = std::fs::symlink_metadata(folder).unwrap();
    assert!(folder_meta.file_type().is_dir());
    assert_eq!(folder_meta.mode() & 0o7777, 0o700, "{}", folder.display());
    assert_eq!(folder_meta.uid(), me);
    let html = std::fs::read_to_string(&file).unwrap();
    assert!(
        html.contains(&format!(
            "<meta http-equiv=\"refresh\" content=\"0;url={link}\">"
        )),
        "{html}"
    );
    assert!(html.contains(&format!("href=\"{link}\"")), "{html}");
    assert!(html.contains("location.replace("), "{html}");
    file
}

/// Waits until neither `file` nor its folder exists.
fn gone(file: &Path) {
    let start = Instant::now();
    while file.exists() || file.parent().unwrap().exists() {
        assert!(
            start.elapsed() < LIMIT,
            "{} was not removed",
            file.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn the_browser_gets_a_private_file_that_forwards_and_is_gone_once_the_link_is_claimed() {
    let stage = Stage::new();
    let (mut server, mut stdin, mut lines) = stage.server(true);
    let mut seen = HashSet::new();
    let link = ask(&mut stdin, &mut lines, 2);
    let opened = stage.opened("browser", &mut seen);
    let file = check_opened(&opened, &link, &stage.path("run"));
    // `$BROWSER` started: the system's opener was not.
    assert!(
        !std::fs::read_dir(stage.path("log")).unwrap().any(|e| e
            .unwrap()
            .file_name()
            .to_str()
            .unwrap()
            .starts_with("xdg-open")),
        "xdg-open ran too"
    );
    // The page spends the link: the file goes while the call still waits.
    let mut credential = Some(common::spend_link(&link).unwrap());
    gone(&file);
    assert!(
        server.try_wait().unwrap().is_none(),
        "the server still runs"
    );
    drop(opened);
    // The model's result names no link.
    assert_eq!(answer_on_page(&link, &mut credential, "Yes"), 200);
    let result = read_reply(&mut lines, 2).to_string();
    assert!(result.contains("\"selectedOption\":\"Yes\""), "{result}");
    assert!(
        !result.contains(token_of(&link)) && !result.contains("#token="),
        "{result}"
    );
    drop(stdin);
    assert!(server.wait().unwrap().success());
    assert_eq!(
        std::fs::read_dir(stage.path("run")).unwrap().count(),
        0,
        "nothing is left in the runtime folder"
    );
}

#[test]
fn the_file_for_xdg_open_is_gone_when_the_call_ends_unclaimed_or_the_client_goes() {
    let stage = Stage::new();
    let (mut server, mut stdin, mut lines) = stage.server(false);
    let mut seen = HashSet::new();
    let link = ask(&mut stdin, &mut lines, 2);
    let opened = stage.opened("xdg-open", &mut seen);
    let file = check_opened(&opened, &link, &stage.path("run"));
    // The client withdraws the call before anyone opened the page.
    send_line(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": {"requestId": 2, "reason": "the user pressed Esc"}}),
    );
    gone(&file);
    assert!(
        server.try_wait().unwrap().is_none(),
        "the server still runs"
    );
    drop(opened);
    // The next call's file goes when the client goes away while it waits.
    let link = ask(&mut stdin, &mut lines, 3);
    let opened = stage.opened("xdg-open", &mut seen);
    let file = check_opened(&opened, &link, &stage.path("run"));
    drop(stdin);
    let status = server.wait().unwrap();
    assert!(status.success(), "{status:?}");
    assert!(!file.exists(), "{} outlived the server", file.display());
    drop(opened);
    assert_eq!(std::fs::read_dir(stage.path("run")).unwrap().count(), 0);
}

#[test]
#[ignore = "needs chromium; run by .ci/run"]
fn chromium_follows_the_file_to_the_page_which_spends_the_link() {
    assert!(
        Path::new("/usr/bin/chromium").exists(),
        "Debian's chromium is missing: apt-get install chromium, or run `bash .ci/run`"
    );
    let stage = Stage::new();
    // The browser: headless Chromium, which opens the file it is given, follows it to the page
    // and runs the page's script, which spends the link.
    let browser = stage.path("bin/chromium");
    std::fs::write(
        &browser,
        format!(
            "#!/bin/sh\necho \"$1\" > '{log}/chromium.url.tmp' && mv '{log}/chromium.url.tmp' '{log}/chromium.url'\n\
             exec /usr/bin/chromium --headless --no-sandbox --disable-gpu --user-data-dir='{profile}' \
             --virtual-time-budget=10000 --dump-dom \"$1\" > /dev/null 2>&1\n",
            log = stage.path("log").display(),
            profile = stage.path("profile").display(),
        ),
    )
    .unwrap();
    std::fs::set_permissions(&browser, std::fs::Permissions::from_mode(0o755)).unwrap();
    let (mut server, mut stdin, mut lines) = stage.server_with(Some(browser));
    let link = ask(&mut stdin, &mut lines, 2);
    let url = stage.path("log/chromium.url");
    let start = Instant::now();
    while !url.exists() {
        assert!(start.elapsed() < LIMIT, "chromium was never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    let url = std::fs::read_to_string(&url).unwrap();
    let file = PathBuf::from(url.trim().strip_prefix("file://").unwrap());
    // The file goes once the page spent the link, while the call still waits.
    gone(&file);
    assert!(
        server.try_wait().unwrap().is_none(),
        "the server still runs"
    );
    let refused = common::spend_link(&link).unwrap_err();
    assert_eq!(refused.status, 403, "the link was spent by Chromium");
    drop(stdin);
    assert!(server.wait().unwrap().success());
}

#[test]
fn a_file_left_by_a_killed_server_goes_when_the_next_one_opens_a_browser() {
    let stage = Stage::new();
    let mut seen = HashSet::new();
    let (mut killed, mut stdin, mut lines) = stage.server(true);
    let link = ask(&mut stdin, &mut lines, 2);
    let opened = stage.opened("browser", &mut seen);
    let left = check_opened(&opened, &link, &stage.path("run"));
    drop(opened);
    // kill -9 removes nothing: the file stays, with a link whose page died with the server.
    killed.kill().unwrap();
    killed.wait().unwrap();
    assert!(left.exists());
    let (mut server, mut stdin, mut lines) = stage.server(true);
    let link = ask(&mut stdin, &mut lines, 2);
    let opened = stage.opened("browser", &mut seen);
    let file = check_opened(&opened, &link, &stage.path("run"));
    assert!(
        !left.parent().unwrap().exists(),
        "the killed server's file was swept"
    );
    drop(opened);
    drop(stdin);
    assert!(server.wait().unwrap().success());
    assert!(!file.exists());
}

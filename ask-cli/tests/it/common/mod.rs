//! Helpers shared by the end-to-end tests of the `ask-user` binary.

#![allow(clippy::unwrap_used, clippy::expect_used)]

pub(crate) mod heavy;
pub(crate) mod mcp_raw;
pub(crate) mod packages;
pub(crate) mod pty;
pub(crate) mod slots;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

use serde_json::Value;

/// The path of a file in `examples/`.
pub(crate) fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples")
        .join(name)
}

/// How the tests start a program they talk to: its stdin, stdout and stderr each on a pipe.
pub(crate) trait SpawnPiped {
    /// Starts the program with all three of its standard streams piped; fails the test when it
    /// cannot start.
    fn spawn_piped(&mut self) -> Child;
}

impl SpawnPiped for Command {
    #[track_caller]
    fn spawn_piped(&mut self) -> Child {
        let program = self.get_program().to_string_lossy().into_owned();
        self.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{program} does not start: {e}"))
    }
}

/// The `ask-user` binary with none of its environment variables set.
pub(crate) fn ask_user() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_ask-user"));
    for var in [
        "ASK_USER_PENDING_FILE",
        "ASK_USER_SUBAGENT",
        "ASK_USER_SESSION",
        "ASK_USER_NO_TTY",
        "ASK_USER_HOST",
    ] {
        command.env_remove(var);
    }
    command
}

/// `command` (`ask-user`, or a wrapper that runs it) as `ask-user serve --listen LISTEN`, its
/// token files under `runtime_dir`, started with only stderr piped: the lines that say where
/// the inbox is.
pub(crate) fn serve_in(mut command: Command, listen: &str, runtime_dir: &Path) -> Command {
    command
        .args(["serve", "--listen", listen])
        .env("XDG_RUNTIME_DIR", runtime_dir)
        .env_remove("ASK_USER_VIA_TOKEN")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
    command
}

/// `ask-user` in a new session, so it has no controlling terminal, as in CI or a pipe.
pub(crate) fn ask_user_without_terminal() -> Command {
    let plain = ask_user();
    let mut command = Command::new("setsid");
    command.arg(plain.get_program());
    for var in [
        "ASK_USER_PENDING_FILE",
        "ASK_USER_SUBAGENT",
        "ASK_USER_SESSION",
        "ASK_USER_NO_TTY",
        "ASK_USER_HOST",
    ] {
        command.env_remove(var);
    }
    command
}

/// Runs `ask-user ARGS` in `dir` with no terminal and no stdin.
pub(crate) fn run_in(dir: &Path, args: &[&str]) -> Output {
    ask_user_without_terminal()
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .expect("ask-user runs")
}

/// Runs `ask-user ARGS` with `input` on stdin.
pub(crate) fn run_with_stdin(args: &[&str], input: &[u8]) -> Output {
    let mut child = ask_user().args(args).spawn_piped();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    // A separate writer, so that a large input cannot deadlock against a full stdout pipe.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap();
    output
}

/// stdout as one JSON document; fails the test with both streams otherwise.
pub(crate) fn stdout_json(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not one JSON document ({e}): {:?}\nstderr: {}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

/// stderr as text.
pub(crate) fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// An HTTP reply, for the tests of the web page.
#[derive(Debug)]
pub(crate) struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Reply {
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// One HTTP/1.1 request with exactly `headers` (no Host unless given), read to the end.
pub(crate) fn http(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Reply {
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    let mut request = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\n");
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    stream.write_all(request.as_bytes()).unwrap();
    let mut raw = String::new();
    std::io::Read::read_to_string(&mut stream, &mut raw).unwrap();
    let (head, body) = raw.split_once("\r\n\r\n").unwrap();
    let mut lines = head.lines();
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers = lines
        .filter_map(|line| line.split_once(": "))
        .map(|(n, v)| (n.to_string(), v.to_string()))
        .collect();
    Reply {
        status,
        headers,
        body: body.to_string(),
    }
}

/// Spends the one-time token of `link` (`http://HOST/#token=…`) as the page does
/// (`POST /api/session`), and gives the reply: with status 200, `Ok` holds the value of the
/// `Authorization` header of the credential it was exchanged for.
pub(crate) fn spend_link(link: &str) -> Result<String, Reply> {
    let rest = link.strip_prefix("http://").unwrap();
    let (host, path) = rest.split_at(rest.find('/').unwrap());
    let token = path.strip_prefix("/#token=").unwrap();
    let origin = format!("http://{host}");
    let reply = http(
        host,
        "POST",
        "/api/session",
        &[
            ("Host", host),
            ("Origin", &origin),
            ("Content-Type", "application/json"),
        ],
        &serde_json::json!({ "token": token }).to_string(),
    );
    if reply.status != 200 {
        return Err(reply);
    }
    assert!(reply.header("set-cookie").is_none(), "no cookie");
    let session: Value = serde_json::from_str(&reply.body).unwrap();
    Ok(format!("Bearer {}", session["session"].as_str().unwrap()))
}

/// The event stream of a web page (`GET /api/events`): the page's list of asks now and after
/// every change, read as the page reads it, so that a test waits for a change rather than
/// polling for it.
pub(crate) struct Events {
    lines: std::io::Lines<std::io::BufReader<std::net::TcpStream>>,
    /// The list as the events told it so far: the whole of it, then each change.
    list: Value,
}

impl Events {
    /// Opens the stream of the page at `addr` with the person's `credential` (the value of
    /// its `Authorization` header, from [`spend_link`]).
    pub(crate) fn open(addr: &str, credential: &str) -> Events {
        use std::io::BufRead;
        let mut stream = std::net::TcpStream::connect(addr).unwrap();
        // A bound on a test that would otherwise hang, never a pace: every read returns as
        // soon as an event arrives.
        stream.set_read_timeout(Some(pty::PATIENCE)).unwrap();
        // HTTP/1.0: the body is the stream itself, not cut into chunks.
        let request = format!(
            "GET /api/events HTTP/1.0\r\nHost: {addr}\r\nAuthorization: {credential}\r\n\r\n"
        );
        stream.write_all(request.as_bytes()).unwrap();
        let mut lines = std::io::BufReader::new(stream).lines();
        let status = lines.next().unwrap().unwrap();
        assert!(status.contains(" 200 "), "{status}");
        for line in lines.by_ref() {
            if line.unwrap().trim().is_empty() {
                break;
            }
        }
        Events {
            lines,
            list: serde_json::json!({"asks": [], "closing": false}),
        }
    }

    /// Reads events until the list is one for which `until` holds, and returns it.
    pub(crate) fn until(&mut self, until: impl Fn(&Value) -> bool) -> Value {
        let mut event = String::new();
        loop {
            let line = self
                .lines
                .next()
                .expect("the stream ended before the awaited change")
                .expect("an event within the patience of the tests");
            if let Some(name) = line.strip_prefix("event: ") {
                event = name.to_string();
            } else if let Some(data) = line.strip_prefix("data: ") {
                let data: Value = serde_json::from_str(data).unwrap();
                match event.as_str() {
                    "asks" => self.list = data,
                    "ask" => {
                        let asks = self.list["asks"].as_array_mut().unwrap();
                        match asks
                            .iter_mut()
                            .find(|a| a["requestId"] == data["requestId"])
                        {
                            Some(ask) => *ask = data,
                            None => asks.push(data),
                        }
                    }
                    "closing" => self.list["closing"] = Value::Bool(true),
                    other => panic!("an unknown event {other}"),
                }
                if until(&self.list) {
                    return self.list.clone();
                }
            }
        }
    }
}

/// The end of a Python script that started the process `pid` (imports `os`, `signal`, `sys`
/// and `time`): waits for it to end, at most 20 s, and prints `exit CODE`, or kills it and
/// prints `still-running`.
pub(crate) const EXIT_OF_PID: &str = r#"
deadline = time.time() + 20
while time.time() < deadline:
    done, status = os.waitpid(pid, os.WNOHANG)
    if done:
        print("exit", os.waitstatus_to_exitcode(status))
        sys.exit(0)
    time.sleep(0.05)
os.kill(pid, signal.SIGKILL)
print("still-running")
"#;

/// How ask-user names itself and its tool `tool` in the commands it gives: by the absolute path
/// of the binary under test, as the running binary finds it.
pub(crate) fn names(tool: &str) -> ask_print::Names {
    let program = std::fs::canonicalize(env!("CARGO_BIN_EXE_ask-user")).unwrap();
    ask_print::Names::new(&program.to_string_lossy(), tool)
}

/// The pending result `ask-user mcp` gives a client that is none of the known hosts (an SDK's
/// client), for `questions` questions waiting in `file`: it cannot tell whether a chat waits,
/// so both routes are given, whatever the terminal.
pub(crate) fn sdk_pending(file: &str, questions: usize) -> String {
    ask_print::pending_instructions(&ask_print::PendingCall {
        client: None,
        terminal: ask_print::Terminal::Absent,
        file,
        questions,
        names: &names("ask_user"),
    })
}

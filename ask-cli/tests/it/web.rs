//! `ask-user --mode web`: the real binary serves the questions on a local page.
//!
//! The HTTP tests speak raw HTTP/1.1 to it, as a browser or an attacker would, and need nothing
//! beyond the Rust toolchain. The browser tests drive Debian's Chromium with Playwright for
//! Python (`tests/web_browser.py`); they are ignored by a plain `cargo test`, and `.ci/run`
//! installs both at pinned versions and runs them with `--include-ignored`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::common::SpawnPiped;

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use common::{Reply, http};
use serde_json::{Value, json};

mod finish;
mod relay;

/// The page's list `listed` with each ask opened as the page opens it (`GET /api/asks/{id}`):
/// the list holds who asks and how many questions, and each ask's questions come alone.
fn opened(host: &str, credential: &str, mut listed: Value) -> Value {
    for ask in listed["asks"].as_array_mut().unwrap() {
        let path = format!("/api/asks/{}", ask["requestId"].as_str().unwrap());
        let reply = http(
            host,
            "GET",
            &path,
            &[("Host", host), ("Authorization", credential)],
            "",
        );
        assert_eq!(reply.status, 200, "{reply:?}");
        *ask = serde_json::from_str(&reply.body).unwrap();
    }
    listed
}

/// Three questions: a single choice with a recommended option, a multi-select and free text.
fn call() -> Value {
    json!({"questions": [
        {"question": "Which database should we use?", "header": "Database", "options": [
            {"label": "PostgreSQL (Recommended)", "description": "Battle-tested relational DB"},
            {"label": "SQLite", "description": "Lightweight, file-based"}]},
        {"question": "Which features should we include?", "header": "Features", "multiSelect": true,
         "options": [{"label": "Authentication", "description": "OAuth2 + JWT"},
                     {"label": "REST API"}, {"label": "Admin Dashboard"}]},
        {"question": "What should we name this service?", "header": "Name"}]})
}

/// A Claude Code call that carries the person's answers: an option, two options of a
/// multi-select, and typed text.
fn claude_call_with_answers() -> Value {
    json!({"questions": [
        {"question": "Which database should we use?", "header": "Database", "multiSelect": false,
         "options": [{"label": "PostgreSQL (Recommended)", "description": "Battle-tested relational DB"},
                     {"label": "SQLite", "description": "Lightweight, file-based"}]},
        {"question": "Which features should we include?", "header": "Features", "multiSelect": true,
         "options": [{"label": "Authentication", "description": "OAuth2 + JWT"},
                     {"label": "REST API", "description": "JSON over HTTP"},
                     {"label": "Admin Dashboard", "description": "For operators"}]},
        {"question": "What should we name this service?", "header": "Name", "multiSelect": false,
         "options": [{"label": "api", "description": "Short"},
                     {"label": "backend", "description": "Plain"}]}],
        "answers": {"Which database should we use?": "SQLite",
                    "Which features should we include?": "Authentication, REST API",
                    "What should we name this service?": "order-processor"}})
}

/// The canonical result of [`claude_call_with_answers`] answered exactly as it came.
fn the_given_answers() -> Value {
    json!({"answered": true, "answers": [
        {"question": "Which database should we use?", "answer": "SQLite",
         "selectedOption": "SQLite", "wasCustom": false},
        {"question": "Which features should we include?",
         "answer": ["Authentication", "REST API"], "wasCustom": false},
        {"question": "What should we name this service?", "answer": "order-processor",
         "wasCustom": true}]})
}

/// A running `ask-user --mode web` and its link.
struct Web {
    child: Child,
    link: String,
    /// `127.0.0.1:PORT`.
    host: String,
    _dir: tempfile::TempDir,
}

impl Web {
    fn start(extra: &[&str]) -> Web {
        Web::start_with(&call(), extra)
    }

    fn start_with(call: &Value, extra: &[&str]) -> Web {
        let dir = tempfile::tempdir().unwrap();
        let path: PathBuf = dir.path().join("call.json");
        std::fs::write(&path, call.to_string()).unwrap();
        let mut args = vec!["--mode", "web"];
        args.extend_from_slice(extra);
        args.push(path.to_str().unwrap());
        Web::spawn(&args, dir)
    }

    /// `ask-user ARGS`, which must print the page's link first on stderr.
    fn spawn(args: &[&str], dir: tempfile::TempDir) -> Web {
        let mut child = common::ask_user()
            .args(args)
            .current_dir(dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        stderr.read_line(&mut line).unwrap();
        // A call in another agent's dialect is said first.
        while line.starts_with("ask-user: warning: ") {
            line.clear();
            stderr.read_line(&mut line).unwrap();
        }
        assert!(
            line.starts_with("ask-user: answer the questions in a browser (the link works in one browser): http://127.0.0.1:"),
            "{line}"
        );
        // Not a terminal: a plain link, no OSC 8 sequence.
        assert!(!line.contains('\x1b'), "{line:?}");
        let link = line.trim().rsplit(' ').next().unwrap().to_string();
        let host = link
            .strip_prefix("http://")
            .unwrap()
            .split('/')
            .next()
            .unwrap()
            .to_string();
        // Keep reading stderr so the child never blocks on a full pipe.
        std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
        Web {
            child,
            link,
            host,
            _dir: dir,
        }
    }

    /// Spends the link as the page does and returns the `Authorization` value of the
    /// credential.
    fn session(&self) -> String {
        common::spend_link(&self.link).unwrap()
    }

    /// Posts `body` to `/api/asks/ask-1/ACTION` as the page does.
    fn post(&self, credential: &str, action: &str, body: &Value) -> Reply {
        let origin = format!("http://{}", self.host);
        http(
            &self.host,
            "POST",
            &format!("/api/asks/ask-1/{action}"),
            &[
                ("Host", &self.host),
                ("Authorization", credential),
                ("Origin", &origin),
                ("Content-Type", "application/json"),
            ],
            &body.to_string(),
        )
    }

    /// Waits for the process and returns its exit code and stdout.
    fn finish(mut self) -> (i32, Value) {
        let mut out = String::new();
        self.child
            .stdout
            .take()
            .unwrap()
            .read_to_string(&mut out)
            .unwrap();
        let status = self.child.wait().unwrap();
        (
            status.code().unwrap(),
            serde_json::from_str(&out).unwrap_or(Value::Null),
        )
    }
}

impl Drop for Web {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn answers_posted_by_the_page_reach_stdout_recorded_as_web() {
    let web = Web::start(&["--output", "tool"]);
    let credential = web.session();
    let page = http(
        &web.host,
        "GET",
        "/",
        &[("Host", &web.host), ("Authorization", &credential)],
        "",
    );
    assert_eq!(page.status, 200);
    assert!(
        page.body
            .contains(r#"<script src="/app.js" defer></script>"#)
    );
    let csp = page.header("content-security-policy").unwrap();
    assert!(
        csp.contains("script-src 'self'") && !csp.contains("unsafe-inline"),
        "{csp}"
    );
    let asks: Value = serde_json::from_str(
        &http(
            &web.host,
            "GET",
            "/api/asks",
            &[("Host", &web.host), ("Authorization", &credential)],
            "",
        )
        .body,
    )
    .unwrap();
    let asks = opened(&web.host, &credential, asks);
    assert_eq!(asks["asks"][0]["state"], "waiting_for_user");
    assert_eq!(
        asks["asks"][0]["questions"][2]["question"],
        "What should we name this service?"
    );
    let reply = web.post(
        &credential,
        "answer",
        &json!({"answers": [
            {"question": "Which database should we use?", "answer": "SQLite", "wasCustom": false,
             "notes": "only for the tests"},
            {"question": "Which features should we include?", "answer": ["REST API", "Audit log"], "wasCustom": true},
            {"question": "What should we name this service?", "answer": "order-processor", "wasCustom": true}]}),
    );
    assert_eq!(reply.status, 200, "{reply:?}");
    let (code, out) = web.finish();
    assert_eq!(code, 0);
    assert_eq!(out["details"]["mode"], "web");
    assert_eq!(out["details"]["answers"][0]["selectedOption"], "SQLite");
    // The page's note comes back beside its answer.
    assert_eq!(out["details"]["answers"][0]["notes"], "only for the tests");
    assert_eq!(out["details"]["answers"][1].get("notes"), None);
    assert_eq!(
        out["details"]["answers"][1]["answer"],
        json!(["REST API", "Audit log"])
    );
    assert_eq!(out["isError"], false);
}

#[test]
fn a_cancel_from_the_page_exits_130_with_the_cancelled_result() {
    let web = Web::start(&[]);
    let credential = web.session();
    assert_eq!(web.post(&credential, "cancel", &json!({})).status, 200);
    let (code, out) = web.finish();
    assert_eq!(code, 130);
    assert_eq!(out["cancelled"], true);
    assert_eq!(out["answered"], false);
}

#[test]
fn the_demo_and_its_showcase_are_asked_on_the_page_with_mode_web() {
    for (args, questions) in [
        (&["--mode", "web", "demo"][..], 3),
        (&["--mode", "web", "demo", "--showcase"][..], 4),
    ] {
        let web = Web::spawn(args, tempfile::tempdir().unwrap());
        let credential = web.session();
        let asks = http(
            &web.host,
            "GET",
            "/api/asks",
            &[("Host", &web.host), ("Authorization", &credential)],
            "",
        );
        assert_eq!(asks.status, 200, "{asks:?}");
        let listed: Value = serde_json::from_str(&asks.body).unwrap();
        let listed = opened(&web.host, &credential, listed);
        let shown = &listed["asks"][0]["questions"];
        assert_eq!(
            shown.as_array().unwrap().len(),
            questions,
            "{args:?}: {listed}"
        );
        if questions == 4 {
            assert_eq!(shown[1]["kind"], "yesno");
            assert_eq!(shown[2]["kind"], "path");
            assert_eq!(shown[3]["secret"], true);
        }
        assert_eq!(web.post(&credential, "cancel", &json!({})).status, 200);
        let (code, out) = web.finish();
        assert_eq!(code, 130);
        assert_eq!(out["cancelled"], true);
    }
}

#[test]
fn a_wrong_answer_is_refused_and_the_questions_keep_waiting() {
    let web = Web::start(&[]);
    let credential = web.session();
    let short = web.post(
        &credential,
        "answer",
        &json!({"answers": [{"answer": "SQLite"}]}),
    );
    assert_eq!(short.status, 422, "{short:?}");
    assert!(
        short.body.contains("1 answer given for 3 questions"),
        "{}",
        short.body
    );
    let not_json = web.post(&credential, "answer", &json!({"answer": "SQLite"}));
    assert_eq!(not_json.status, 400, "{not_json:?}");
    // `[""]` and `null` leave the multi-select unanswered (`[]` would be "None of these").
    for blank in [json!([""]), Value::Null] {
        let empty = web.post(
            &credential,
            "answer",
            &json!({"answers": [{"answer": "SQLite"}, {"answer": blank}, {"answer": "x"}]}),
        );
        assert_eq!(empty.status, 422, "{blank}: {empty:?}");
        assert!(empty.body.contains("has an empty answer"), "{}", empty.body);
    }
    let ok = web.post(
        &credential,
        "answer",
        &json!({"answers": [{"answer": "SQLite"}, {"answer": ["REST API"]}, {"answer": "svc"}]}),
    );
    assert_eq!(ok.status, 200, "{ok:?}");
    // The ask is over: a second answer is refused.
    let (code, out) = web.finish();
    assert_eq!(code, 0);
    assert_eq!(out["answers"][2]["answer"], "svc");
}

#[test]
fn requests_without_a_session_from_elsewhere_or_with_a_spent_link_are_refused() {
    let web = Web::start(&[]);
    let host = web.host.clone();
    let origin = format!("http://{host}");
    // The page holds no data and is served to anyone; without a credential the API refuses.
    for path in ["/", "/app.js"] {
        let reply = http(&host, "GET", path, &[("Host", &host)], "");
        assert_eq!(reply.status, 200, "{path}: {reply:?}");
        assert!(reply.header("set-credential").is_none());
    }
    for path in ["/api/asks", "/api/events"] {
        let reply = http(&host, "GET", path, &[("Host", &host)], "");
        assert_eq!(reply.status, 401, "{path}: {reply:?}");
    }
    let token = web.link.rsplit("#token=").next().unwrap().to_string();
    let exchange = |headers: &[(&str, &str)], token: &str| {
        http(
            &host,
            "POST",
            "/api/session",
            headers,
            &json!({ "token": token }).to_string(),
        )
        .status
    };
    let json_type = ("Content-Type", "application/json");
    // A wrong token is refused and does not spend the link.
    assert_eq!(
        exchange(&[("Host", &host), ("Origin", &origin), json_type], "00"),
        403
    );
    // A name that DNS could point here (rebinding) is refused, even with the right token; so
    // is another origin.
    let rebound = exchange(
        &[("Host", "attacker.example"), ("Origin", &origin), json_type],
        &token,
    );
    assert_eq!(rebound, 421);
    assert_eq!(exchange(&[("Origin", &origin), json_type], &token), 421);
    let elsewhere = exchange(
        &[("Host", &host), ("Origin", "http://127.0.0.1:1"), json_type],
        &token,
    );
    assert_eq!(elsewhere, 403);
    let credential = web.session();
    // Spent: the link no longer works.
    let spent = common::spend_link(&web.link).unwrap_err();
    assert_eq!(spent.status, 403);
    assert!(spent.body.contains("already used"), "{}", spent.body);
    // A forged credential is refused, and so is the right one sent as a credential.
    let forged = http(
        &host,
        "GET",
        "/api/asks",
        &[("Host", &host), ("Authorization", "Bearer 00")],
        "",
    );
    assert_eq!(forged.status, 401);
    let session = credential.strip_prefix("Bearer ").unwrap();
    let as_cookie = http(
        &host,
        "GET",
        "/api/asks",
        &[
            ("Host", &host),
            ("Cookie", &format!("ask_user_session={session}")),
        ],
        "",
    );
    assert_eq!(as_cookie.status, 401);
    // Cross-site: a foreign Origin, a POST without Origin, a cross-site fetch.
    let body = json!({}).to_string();
    let path = "/api/asks/ask-1/cancel";
    let foreign = http(
        &host,
        "POST",
        path,
        &[
            ("Host", &host),
            ("Authorization", &credential),
            ("Origin", "http://attacker.example"),
            json_type,
        ],
        &body,
    );
    assert_eq!(foreign.status, 403, "{foreign:?}");
    let no_origin = http(
        &host,
        "POST",
        path,
        &[("Host", &host), ("Authorization", &credential), json_type],
        &body,
    );
    assert_eq!(no_origin.status, 403);
    let cross = http(
        &host,
        "GET",
        "/api/asks",
        &[
            ("Host", &host),
            ("Authorization", &credential),
            ("Sec-Fetch-Site", "cross-site"),
        ],
        "",
    );
    assert_eq!(cross.status, 403);
    // A form post (not JSON) is refused, even from the page's origin.
    let form = http(
        &host,
        "POST",
        path,
        &[
            ("Host", &host),
            ("Authorization", &credential),
            ("Origin", &origin),
            ("Content-Type", "text/plain"),
        ],
        &body,
    );
    assert_eq!(form.status, 415);
    // Nothing of that ended the ask.
    let asks = http(
        &host,
        "GET",
        "/api/asks",
        &[("Host", &host), ("Authorization", &credential)],
        "",
    );
    assert!(asks.body.contains("waiting_for_user"), "{}", asks.body);
    assert_eq!(web.post(&credential, "cancel", &json!({})).status, 200);
    assert_eq!(web.finish().0, 130);
}

#[test]
fn listening_beyond_this_machine_warns_on_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("call.json");
    std::fs::write(&path, call().to_string()).unwrap();
    let mut child = common::ask_user()
        .args(["--mode", "web", "--listen", "0.0.0.0:0"])
        .arg(&path)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut warning = String::new();
    stderr.read_line(&mut warning).unwrap();
    let mut link = String::new();
    stderr.read_line(&mut link).unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(
        warning.starts_with("ask-user: warning: the page listens on 0.0.0.0:"),
        "{warning}"
    );
    assert!(warning.contains("SECURITY.md"), "{warning}");
    assert!(link.contains("http://127.0.0.1:"), "{link}");
    // stderr is a pipe, not a terminal: the link alone, no QR code.
    let mut rest = String::new();
    stderr.read_to_string(&mut rest).unwrap();
    assert!(!rest.contains(QR_LINE) && !rest.contains('▀'), "{rest:?}");
}

/// The escape sequence that starts each line of the link's QR code (black on white).
const QR_LINE: &str = "\x1b[30;107m";

/// How many lines of a QR code the terminal received, each checked to be half blocks.
fn qr_lines(raw: &[u8]) -> usize {
    let text = String::from_utf8_lossy(raw);
    let lines: Vec<&str> = text
        .split(QR_LINE)
        .skip(1)
        .map(|rest| rest.split("\x1b[0m").next().unwrap())
        .collect();
    for line in &lines {
        assert!(line.chars().all(|c| " ▀▄█".contains(c)), "{line:?}");
        assert_eq!(line.chars().count(), lines[0].chars().count(), "{line:?}");
    }
    lines.len()
}

#[test]
fn an_exposed_page_draws_its_link_as_a_qr_code_on_the_terminal() {
    let session = common::pty::Session::start(
        "exec \"$ASK\" --mode web --listen 0.0.0.0:0 call.json > stdout.json",
        &[("call.json", &call().to_string())],
    );
    // Read from every byte received: the code scrolls the link off the 24-row screen.
    let start = std::time::Instant::now();
    while qr_lines(&session.raw()) < 15 && start.elapsed() < common::pty::PATIENCE {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let raw = session.raw();
    let lines = qr_lines(&raw);
    // A square: two rows of modules to a line, as many lines as half its width.
    let text = String::from_utf8_lossy(&raw);
    let first = text
        .split(QR_LINE)
        .nth(1)
        .unwrap()
        .split("\x1b[0m")
        .next()
        .unwrap();
    let width = first.chars().count();
    assert_eq!(lines, width.div_ceil(2), "{width} wide, {lines} lines");
    assert!(width > 25, "{width}");
    // After the link, never before it.
    let text = String::from_utf8_lossy(&raw);
    assert!(text.find("the link works in one browser").unwrap() < text.find(QR_LINE).unwrap());
}

#[test]
fn serve_draws_a_qr_code_only_when_exposed_and_again_for_a_fresh_link() {
    let script = |listen: &str| {
        format!("XDG_RUNTIME_DIR=. exec \"$ASK\" serve --listen {listen} > stdout.txt")
    };
    // On this machine only: no QR code before the last line of the start.
    let local = common::pty::Session::start(&script("127.0.0.1:0"), &[]);
    local.wait_for("for a fresh link");
    assert_eq!(qr_lines(&local.raw()), 0);
    drop(local);
    // Exposed: the code is drawn before that line, and again with a fresh link (Enter).
    let mut exposed = common::pty::Session::start(&script("0.0.0.0:0"), &[]);
    exposed.wait_for("for a fresh link");
    let first = qr_lines(&exposed.raw());
    assert!(first >= 15, "{first} lines");
    exposed.send(common::pty::ENTER);
    // Read from every byte received: the code scrolls the line off the 24-row screen.
    let start = std::time::Instant::now();
    while qr_lines(&exposed.raw()) < 2 * first && start.elapsed() < common::pty::PATIENCE {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(qr_lines(&exposed.raw()), 2 * first);
    let text = String::from_utf8_lossy(&exposed.raw()).into_owned();
    let fresh = text.find("the earlier one no longer works").unwrap();
    assert_eq!(
        text[fresh..].matches(QR_LINE).count(),
        first,
        "the new code follows"
    );
}

/// The links of the page in what a terminal received, each once, in order.
fn links_in(raw: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(raw);
    let mut links: Vec<String> = Vec::new();
    for (at, _) in text.match_indices("http://127.0.0.1:") {
        let link: String = text[at..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || ":/.#=".contains(*c))
            .collect();
        if link.contains("#token=") && !links.contains(&link) {
            links.push(link);
        }
    }
    links
}

#[test]
fn mode_web_prints_a_fresh_link_on_enter_and_the_earlier_one_no_longer_works() {
    let call = call().to_string();
    let mut web = common::pty::Session::start(
        "ASK_USER_NO_OPEN=1 exec \"$ASK\" --mode web call.json > stdout.txt",
        &[("call.json", &call)],
    );
    web.wait_for("for a fresh link");
    let first = links_in(&web.raw());
    assert_eq!(first.len(), 1, "{first:?}");
    web.send(common::pty::ENTER);
    web.wait_for("the earlier one no longer works");
    let start = std::time::Instant::now();
    while links_in(&web.raw()).len() < 2 && start.elapsed() < common::pty::PATIENCE {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let links = links_in(&web.raw());
    assert_eq!(links.len(), 2, "{links:?}");
    assert!(common::spend_link(&links[0]).is_err(), "the earlier link");
    let credential = common::spend_link(&links[1]).unwrap();
    let host = links[1]["http://".len()..].split('/').next().unwrap();
    let mut events = common::Events::open(host, &credential);
    events.until(|snapshot| snapshot["asks"][0]["state"] == "waiting_for_user");
}

#[test]
fn mode_web_takes_no_open_as_mcp_does() {
    // The flag, as `ask-user mcp --no-open` takes it: the page waits on its printed link.
    let web = Web::start(&["--no-open"]);
    let credential = web.session();
    assert_eq!(web.post(&credential, "cancel", &json!({})).status, 200);
    let (code, out) = web.finish();
    assert_eq!(code, 130);
    assert_eq!(out["cancelled"], true);
    // Its variable too, and a falsey value is taken as unset.
    for value in ["1", "0"] {
        let output = common::ask_user()
            .env("ASK_USER_NO_OPEN", value)
            .args(["--mode", "web", "--no-open", "--listen", "256.0.0.1:0"])
            .arg(common::example("project-setup.json"))
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        // Refused for the address alone, never for the flag.
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains("256.0.0.1:0"), "{stderr}");
        assert!(!stderr.contains("no-open"), "{stderr}");
    }
}

#[test]
fn a_busy_address_is_a_clear_error() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let output = common::ask_user()
        .args(["--mode", "web", "--listen", &addr])
        .arg(common::example("project-setup.json"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!("cannot listen on {addr}")),
        "{stderr}"
    );
    assert!(output.stdout.is_empty());
}

/// Runs `tests/web_browser.py SCENARIO VIEWPORT LINK` against a fresh `ask-user --mode web`
/// and returns what the page showed, the exit code and stdout.
fn browser(scenario: &str, viewport: &str) -> (Value, i32, Value) {
    browser_with(&call(), scenario, viewport)
}

/// Fails unless the browser and Playwright are there.
fn needs_browser() {
    assert!(
        Path::new("/usr/bin/chromium").exists(),
        "Debian's chromium is missing: apt-get install chromium, or run `bash .ci/run`"
    );
    let probe = Command::new("python3")
        .args(["-c", "import playwright"])
        .output()
        .unwrap();
    assert!(
        probe.status.success(),
        "Playwright for Python is missing; pip install -r ask-cli/tests/requirements.txt in a \
         virtual environment, or run `bash .ci/run`"
    );
}

/// [`browser`] for any call.
fn browser_with(call: &Value, scenario: &str, viewport: &str) -> (Value, i32, Value) {
    let (seen, code, out) = run_browser(Web::start_with(call, &[]), &[scenario, viewport]);
    // Every visit: the link became a credential, and was then spent for anyone else.
    assert_eq!(seen["firstStatus"], 200);
    assert!(!seen["url"].as_str().unwrap().contains("token"), "{seen}");
    assert_eq!(seen["spentStatus"], 403);
    assert_eq!(seen["strangerApi"], 401);
    assert_eq!(
        seen["horizontalScroll"], false,
        "the page is wider than the {viewport}"
    );
    (seen, code, out)
}

#[test]
#[ignore = "needs chromium and playwright; run by .ci/run"]
fn browser_answers_two_mode_web_pages_in_two_tabs_and_no_other_local_server_gets_a_credential() {
    let _heavy = common::heavy::heavy("web");
    let first = Web::start(&[]);
    let second = Web::start(&[]);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/web_browser.py");
    let output = Command::new("python3")
        .arg(script)
        .args(["two", "desktop", &first.link, &second.link])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "the browser script failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let seen: Value = serde_json::from_slice(&output.stdout).unwrap();
    // Each agent got the answer of its own tab.
    for (web, name) in [(first, "from-tab-1"), (second, "from-tab-2")] {
        let (code, out) = web.finish();
        assert_eq!(code, 0, "{seen}");
        assert_eq!(out["answers"][2]["answer"], name, "{out}");
    }
    // No cookie anywhere, and the other server of this machine heard no credential.
    assert_eq!(seen["cookies"], json!(["", ""]), "{seen}");
    assert_eq!(seen["browserCookies"], json!([]), "{seen}");
    let heard = seen["elsewhere"].as_array().unwrap();
    assert!(!heard.is_empty(), "{seen}");
    for headers in heard {
        assert!(headers.get("cookie").is_none(), "{headers}");
        assert!(headers.get("authorization").is_none(), "{headers}");
    }
}

#[test]
#[ignore = "needs chromium and playwright; run by .ci/run"]
fn browser_opens_a_spent_link_again_in_the_same_browser_and_refuses_another() {
    let _heavy = common::heavy::heavy("web");
    needs_browser();
    // A fixed port, as `--listen` gives, so that a later call has the same origin.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let listen = format!("127.0.0.1:{port}");
    let first = Web::start(&["--listen", &listen]);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/web_browser.py");
    let mut script = Command::new("python3")
        .arg(script)
        .args(["reopen", "desktop", &first.link])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(script.stdout.take().unwrap()).lines();
    let seen: Value = serde_json::from_str(&said_by(&mut script, &mut lines)).unwrap();
    // The first spend gave the browser a key; the tab closed, the same link opened again in
    // that browser got a credential of its own, and the token left the address bar.
    assert_eq!(seen["firstStatus"], 200, "{seen}");
    let key = seen["key"].as_str().unwrap().to_string();
    assert_eq!(key.len(), 64, "{seen}");
    assert_eq!(seen["reopenStatus"], 200, "{seen}");
    assert!(!seen["url"].as_str().unwrap().contains("token"), "{seen}");
    // Another browser was told the link was used, and got no key.
    assert_eq!(seen["strangerStatus"], 403, "{seen}");
    assert_eq!(seen["strangerKey"], Value::Null, "{seen}");
    // The model got the answer given in the reopened tab.
    let (code, out) = first.finish();
    assert_eq!(code, 0, "{out}");
    assert_eq!(out["answers"][2]["answer"], "after-reopening", "{out}");
    // A later call on the same port: its own key in place of the earlier one, which opens none
    // of its links; the earlier call's link is refused.
    let later = Web::start(&["--listen", &listen]);
    writeln!(script.stdin.as_mut().unwrap(), "{}", later.link).unwrap();
    let seen: Value = serde_json::from_str(&said_by(&mut script, &mut lines)).unwrap();
    assert!(wait_bounded(&mut script, std::time::Duration::from_secs(30)).success());
    assert_eq!(seen["laterStatus"], 200, "{seen}");
    let later_key = seen["laterKey"].as_str().unwrap();
    assert_eq!(later_key.len(), 64, "{seen}");
    assert_ne!(later_key, key, "{seen}");
    assert_eq!(seen["earlierStatus"], 403, "{seen}");
    assert_eq!(seen["laterReopenStatus"], 200, "{seen}");
    let (code, out) = later.finish();
    assert_eq!(code, 0, "{out}");
    assert_eq!(out["answers"][2]["answer"], "the-later-call", "{out}");
}

#[test]
#[ignore = "needs chromium and playwright; run by .ci/run"]
fn browser_answers_a_multi_select_with_none_of_these() {
    let _heavy = common::heavy::heavy("web");
    needs_browser();
    let (seen, code, out) = browser("none", "desktop");
    assert_eq!(code, 0, "{seen}");
    assert_eq!(
        seen["hint"],
        ask_core::lang::Lang::En.page().choose_any,
        "{seen}"
    );
    assert_eq!(seen["pickAfterNone"], false, "{seen}");
    assert_eq!(seen["noneAfterPick"], false, "{seen}");
    // Nothing ticked is no answer; "None of these" is one.
    assert_eq!(
        seen["tabsWithNothing"],
        json!(["■ Database", "□ Features", "□ Name", "✓ Submit"])
    );
    assert_eq!(
        seen["tabsWithNone"],
        json!(["■ Database", "■ Features", "□ Name", "✓ Submit"])
    );
    assert_eq!(
        seen["review"],
        "Which database should we use?\nSQLite\nWhich features should we include?\nNone of these\n\
         What should we name this service?\nnone-svc"
    );
    assert_eq!(
        out["answers"][1],
        json!({"question": "Which features should we include?", "answer": [], "wasCustom": false})
    );
}

fn check_answered(viewport: &str) {
    let (seen, code, out) = browser("answer", viewport);
    assert_eq!(
        seen["tabs"],
        json!(["□ Database", "□ Features", "□ Name", "✓ Submit"])
    );
    assert_eq!(code, 0);
    // One mark for the recommended option: its own words, as the terminal UI shows them.
    assert_eq!(seen["recommendedLabel"], "PostgreSQL (Recommended)");
    assert_eq!(seen["recommendedMarks"], json!(["(Recommended)"]));
    assert_eq!(
        seen["review"],
        "Which database should we use?\nSQLite\nNote: only for the tests\n\
         Which features should we include?\nAuthentication, Audit log\nWhat should we name this service?\norder-processor"
    );
    assert_eq!(
        seen["tabsAfter"],
        json!(["■ Database", "■ Features", "■ Name", "✓ Submit"])
    );
    // The second page saw the transition live.
    assert_eq!(seen["watcher"], "These questions were answered.");
    // The confirmation is said once, where the questions were, and read there.
    assert_eq!(seen["sentSaid"], 1, "{seen}");
    assert_eq!(
        seen["focused"],
        "Your answers were sent. You can close this page."
    );
    // Below it, what was sent, as the review showed it, in the page's own colours.
    assert_eq!(
        seen["recap"],
        "Which database should we use?\nSQLite\nNote: only for the tests\n\
         Which features should we include?\nAuthentication, Audit log\nWhat should we name this service?\norder-processor"
    );
    assert_eq!(seen["recapGrey"], json!([false, false]), "{seen}");
    assert_eq!(
        out,
        json!({"answered": true, "answers": [
            {"question": "Which database should we use?", "answer": "SQLite",
             "selectedOption": "SQLite", "wasCustom": false, "notes": "only for the tests"},
            {"question": "Which features should we include?",
             "answer": ["Authentication", "Audit log"], "wasCustom": true},
            {"question": "What should we name this service?", "answer": "order-processor",
             "wasCustom": true}]})
    );
}

fn check_cancelled(viewport: &str) {
    let (seen, code, out) = browser("cancel", viewport);
    assert_eq!(seen["dialog"], "Discard 1 answer?");
    // The page's own buttons, reached by the keyboard, No first; Esc answers No.
    assert_eq!(
        seen["dialogLooks"],
        json!({"yes": true, "no": true}),
        "{seen}"
    );
    assert_eq!(
        seen["dialogKeys"],
        json!(["confirm-no", "confirm-yes", "confirm-no"])
    );
    assert_eq!(seen["escapeKeeps"], true, "Esc keeps the answers");
    assert_eq!(seen["stillWaiting"], true, "No keeps the answers");
    assert_eq!(seen["watcher"], "These questions were cancelled.");
    assert_eq!(seen["cancelledSaid"], 1, "{seen}");
    assert_eq!(code, 130);
    assert_eq!(out["cancelled"], true);
}

#[test]
#[ignore = "needs chromium and playwright; run by .ci/run"]
fn browser_answers_single_multi_other_and_free_text_on_a_phone() {
    let _heavy = common::heavy::heavy("web");
    check_answered("phone");
}

#[test]
#[ignore = "needs chromium and playwright; run by .ci/run"]
fn browser_answers_single_multi_other_and_free_text_on_a_desktop() {
    let _heavy = common::heavy::heavy("web");
    check_answered("desktop");
}

#[test]
#[ignore = "needs chromium and playwright; run by .ci/run"]
fn browser_cancel_asks_before_discarding_answers_on_a_phone() {
    let _heavy = common::heavy::heavy("web");
    check_cancelled("phone");
}

#[test]
#[ignore = "needs chromium and playwright; run by .ci/run"]
fn browser_cancel_asks_before_discarding_answers_on_a_desktop() {
    let _heavy = common::heavy::heavy("web");
    check_cancelled("desktop");
}

/// The top, left, bottom and right of a bounding box the browser script measured.
fn edges(found: &Value) -> [f64; 4] {
    let at = |name: &str| found[name].as_f64().unwrap();
    [
        at("y"),
        at("x"),
        at("y") + at("height"),
        at("x") + at("width"),
    ]
}

#[test]
#[ignore = "needs chromium and playwright; run by .ci/run"]
fn browser_puts_the_buttons_side_by_side_from_tablet_width_and_stacks_them_on_a_phone() {
    let _heavy = common::heavy::heavy("web");
    let (seen, code, _) = browser("layout", "desktop");
    assert_eq!(code, 130);
    for screen in ["question", "review"] {
        for width in ["390", "600", "1280"] {
            let pair = &seen[screen][width];
            let [first, cancel] = [edges(&pair[0]), edges(&pair[1])];
            if width == "390" {
                // Stacked: Cancel below, both as wide as the ask.
                assert!(cancel[0] >= first[2], "{screen} at {width}: {pair}");
                assert_eq!(first[1], cancel[1], "{screen} at {width}: {pair}");
                assert_eq!(first[3], cancel[3], "{screen} at {width}: {pair}");
            } else {
                // Side by side: one row, Cancel on the right.
                assert_eq!(first[0], cancel[0], "{screen} at {width}: {pair}");
                assert!(cancel[1] >= first[3], "{screen} at {width}: {pair}");
            }
        }
    }
}

/// Runs the `words` scenario against `ask-user --mode web ARGS` with the browser's
/// `Accept-Language` (`-`: Chromium's own): what the page showed, the exit code and stdout.
fn browser_words(args: &[&str], accept: &str, viewport: &str) -> (Value, i32, Value) {
    run_browser(Web::start(args), &["words", viewport, accept])
}

/// Runs `web_browser.py` against the page of `web` with `args`: the scenario and the viewport,
/// then the page's link, then the rest of `args`. Gives what the page showed, then `web`'s exit
/// code and stdout.
fn run_browser(web: Web, args: &[&str]) -> (Value, i32, Value) {
    needs_browser();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/web_browser.py");
    let output = Command::new("python3")
        .arg(script)
        .args(&args[..2])
        .arg(&web.link)
        .args(&args[2..])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "the browser script failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let seen: Value = serde_json::from_slice(&output.stdout).unwrap();
    let (code, out) = web.finish();
    (seen, code, out)
}

/// Checks that the page spoke `lang` throughout, and that the answers went back as the
/// options are written, whatever the language.
fn check_spoken(seen: &Value, code: i32, out: &Value, lang: ask_core::lang::Lang) {
    let text = lang.page();
    assert_eq!(seen["lang"], lang.code());
    assert_eq!(seen["title"], text.title);
    assert_eq!(seen["heading"], text.heading);
    assert_eq!(seen["status"], text.waiting.one);
    assert_eq!(
        seen["tabs"],
        json!(["□ Database", "□ Features", "□ Name", text.submit_tab])
    );
    assert_eq!(seen["buttons"], json!([text.next, text.cancel]));
    assert_eq!(seen["noteLabel"], text.note_label);
    // The questions' own words are never translated; "Other" is.
    assert_eq!(
        seen["radios"],
        json!(["PostgreSQL (Recommended)", "SQLite", text.other])
    );
    assert_eq!(seen["hint"], text.choose_any);
    let review = seen["review"].as_str().unwrap();
    assert!(review.starts_with(text.review_title), "{review}");
    assert!(review.ends_with(text.all_answered), "{review}");
    assert_eq!(
        seen["reviewButtons"],
        json!([text.submit_answers, text.cancel])
    );
    assert_eq!(seen["outcome"], text.sent);
    assert_eq!(seen["body"].as_str().unwrap().matches(text.sent).count(), 1);
    // Not one English word of the page's own is left.
    if lang != ask_core::lang::Lang::En {
        let english = ask_core::lang::Lang::En.page();
        for word in [english.heading, english.sent, english.next, english.cancel] {
            assert!(!seen.to_string().contains(word), "{word:?} in {seen}");
        }
    }
    assert_eq!(code, 0);
    assert_eq!(
        out["answers"],
        json!([
            {"question": "Which database should we use?", "answer": "PostgreSQL (Recommended)",
             "selectedOption": "PostgreSQL (Recommended)", "wasCustom": false},
            {"question": "Which features should we include?", "answer": ["Authentication"],
             "wasCustom": false},
            {"question": "What should we name this service?", "answer": "order-processor",
             "wasCustom": true}
        ])
    );
}

#[test]
#[ignore = "needs chromium and playwright; run by .ci/run"]
fn browser_page_speaks_the_browser_language_on_a_desktop() {
    let _heavy = common::heavy::heavy("web");
    let (seen, code, out) = browser_words(&[], "de-DE,de;q=0.9,en;q=0.5", "desktop");
    check_spoken(&seen, code, &out, ask_core::lang::Lang::De);
}

#[test]
#[ignore = "needs chromium and playwright; run by .ci/run"]
fn browser_page_speaks_the_lang_given_over_the_browser_language_on_a_phone() {
    let _heavy = common::heavy::heavy("web");
    let (seen, code, out) = browser_words(&["--lang", "ja"], "de", "phone");
    check_spoken(&seen, code, &out, ask_core::lang::Lang::Ja);
}

#[test]
#[ignore = "needs chromium and playwright; run by .ci/run"]
fn browser_page_speaks_english_to_a_browser_of_another_language() {
    let _heavy = common::heavy::heavy("web");
    let (seen, code, out) = browser_words(&[], "pt-BR,nl;q=0.8", "desktop");
    check_spoken(&seen, code, &out, ask_core::lang::Lang::En);
}

#[test]
#[ignore = "needs chromium and playwright; run by .ci/run"]
fn browser_every_control_has_a_role_and_a_name_and_the_keyboard_reaches_it() {
    let _heavy = common::heavy::heavy("web");
    let (seen, code, out) = browser("keyboard", "desktop");
    let controls = seen["controls"].as_array().unwrap();
    assert!(controls.len() >= 10, "{controls:?}");
    for control in controls {
        assert_ne!(control["name"], "", "a control without a name: {control}");
    }
    let radios: Vec<&str> = controls
        .iter()
        .filter(|c| c["role"] == "radio")
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        radios,
        [
            "PostgreSQL (Recommended)",
            "SQLite",
            "Other (type your answer)"
        ]
    );
    // Tab reaches the open tab, the option group, the Other field, the note, Next and Cancel,
    // in order.
    let order: Vec<&str> = seen["order"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(
        order[..6],
        [
            "a0-tab0",
            "a0-q0-o0",
            "a0-q0-other-text",
            "a0-q0-note",
            "null:Next",
            "null:Cancel"
        ]
    );
    // Answered by keyboard alone: 2, Enter; 1, 3, Enter; typing, Enter; Enter on Submit.
    assert_eq!(seen["focusedAfterLast"], "Submit answers");
    assert_eq!(code, 0);
    assert_eq!(out["answers"][0]["answer"], "SQLite");
    assert_eq!(
        out["answers"][1]["answer"],
        json!(["Authentication", "Admin Dashboard"])
    );
    assert_eq!(out["answers"][2]["answer"], "kb-service");
}

#[test]
#[ignore = "needs chromium and playwright; run by .ci/run"]
fn browser_shows_previews_as_text_and_asks_yes_no_paths_and_secrets() {
    let _heavy = common::heavy::heavy("web");
    let call = json!({"questions": [
        {"question": "Which layout?", "header": "Layout", "options": [
            {"label": "Sidebar", "preview": "<script>window.pwned = 1</script>\n+------+----+\n| nav  |    |"},
            {"label": "Top bar", "description": "<b>not bold</b>"}]},
        {"question": "Deploy now?", "header": "Deploy", "kind": "yesno"},
        {"question": "Where is the config?", "header": "Config", "kind": "path",
         "placeholder": "e.g. ./config.toml"},
        {"question": "What is the API token?", "header": "Token", "secret": true}]});
    let (seen, code, out) = browser_with(&call, "fields", "phone");
    // Agent text is text: the markup shows as written and no script ran.
    assert_eq!(
        seen["preview"],
        "<script>window.pwned = 1</script>\n+------+----+\n| nav  |    |"
    );
    assert_eq!(seen["pwned"], false);
    assert_eq!(seen["boldElements"], 0);
    // Yes and No, then "Other", which the specification keeps on every question.
    assert_eq!(seen["yesNoRadios"], json!(["Yes", "No", null]));
    assert_eq!(seen["pathPlaceholder"], "e.g. ./config.toml");
    assert_eq!(seen["secretType"], "password");
    assert_eq!(seen["secretNoteType"], "password");
    assert_eq!(
        seen["review"],
        "Which layout?\nSidebar\nDeploy now?\nNo\nWhere is the config?\n./conf/app.toml\nWhat is the API token?\n[secret]\nNote: [secret]"
    );
    assert_eq!(code, 0);
    assert_eq!(out["answers"][0]["answer"], "Sidebar");
    assert_eq!(out["answers"][1]["answer"], "No");
    assert_eq!(out["answers"][2]["answer"], "./conf/app.toml");
    // The secret reaches the model in the result.
    assert_eq!(out["answers"][3]["answer"], "tok-123");
    assert_eq!(out["answers"][3]["notes"], "expires friday");
}

#[test]
#[ignore = "needs chromium and playwright; run by .ci/run"]
fn browser_review_never_shows_a_secret_chosen_option_other_text_or_note() {
    let _heavy = common::heavy::heavy("web");
    let call = json!({"questions": [
        {"question": "Which signing key?", "header": "Key", "secret": true,
         "options": [{"label": "key-alpha-7"}, {"label": "key-beta-9"}]},
        {"question": "Which scopes?", "header": "Scopes", "secret": true, "multiSelect": true,
         "options": [{"label": "scope-read"}, {"label": "scope-write"}]}]});
    let (seen, code, out) = browser_with(&call, "secrets", "desktop");
    let review = seen["review"].as_str().unwrap();
    for secret in ["key-beta-9", "scope-read", "hunter2-scope", "rotated-today"] {
        assert!(!review.contains(secret), "{secret} in the review: {review}");
    }
    // The terminal's words: the mask stands for the answer and for its note.
    assert_eq!(
        review,
        "Which signing key?\n[secret]\nNote: [secret]\nWhich scopes?\n[secret]"
    );
    // So is the recap once they were sent.
    assert_eq!(seen["recap"], review);
    // What is typed is masked too.
    assert_eq!(seen["otherType"], "password");
    assert_eq!(seen["noteType"], "password");
    assert_eq!(code, 0);
    assert_eq!(
        out["answers"],
        json!([
            {"question": "Which signing key?", "answer": "key-beta-9",
             "selectedOption": "key-beta-9", "wasCustom": false, "notes": "rotated-today"},
            {"question": "Which scopes?", "answer": ["scope-read", "hunter2-scope"],
             "wasCustom": true}
        ])
    );
}

#[test]
#[ignore = "needs chromium and playwright; run by .ci/run"]
fn browser_shows_the_answers_a_call_carries_and_submits_them_unchanged() {
    let _heavy = common::heavy::heavy("web");
    let (seen, code, out) = browser_with(&claude_call_with_answers(), "given", "phone");
    // Every question came answered: the page opens on the review, as the terminal UI does.
    assert_eq!(seen["selectedTab"], "✓ Submit");
    assert_eq!(
        seen["review"],
        "Which database should we use?\nSQLite\nWhich features should we include?\n\
         Authentication, REST API\nWhat should we name this service?\norder-processor"
    );
    assert_eq!(
        seen["checked"],
        json!([
            "SQLite",
            "Authentication",
            "REST API",
            "Other (type your answer)"
        ])
    );
    assert_eq!(seen["otherText"], "order-processor");
    assert_eq!(code, 0);
    assert_eq!(out, the_given_answers());
}

/// A running `ask-user serve` on a free port, with its token file in a folder of its own.
struct Serve {
    child: Child,
    base: String,
    host: String,
    link: String,
    dir: tempfile::TempDir,
}

impl Serve {
    /// `ask-user serve --link`: a fresh link for people; the earlier, unused one stops working.
    fn fresh_link(&self) -> String {
        let fresh = common::ask_user()
            .args(["serve", "--link", "--via", &self.base])
            .env("XDG_RUNTIME_DIR", self.dir.path())
            .env_remove("ASK_USER_VIA_TOKEN")
            .output()
            .unwrap();
        assert_eq!(
            fresh.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&fresh.stderr)
        );
        String::from_utf8_lossy(&fresh.stderr)
            .trim()
            .rsplit(' ')
            .next()
            .unwrap()
            .to_string()
    }

    /// Spends the one-time `link` as the page does and gives the `Authorization` value of
    /// the credential.
    fn visit(&self, link: &str) -> String {
        common::spend_link(link).unwrap()
    }

    fn start() -> Serve {
        Serve::start_under(None)
    }

    /// `ask-user serve` run by `prlimit --nofile=SOFT:HARD`.
    fn start_under(nofile: Option<&str>) -> Serve {
        Serve::start_in(tempfile::tempdir().unwrap(), nofile, &[]).0
    }

    /// `ask-user serve` with `extra` flags and its token files in `dir`; and the line that
    /// says whether it kept its tokens.
    fn start_in(dir: tempfile::TempDir, nofile: Option<&str>, extra: &[&str]) -> (Serve, String) {
        Serve::start_on("127.0.0.1:0", dir, nofile, extra)
    }

    /// `ask-user serve --listen LISTEN` with `extra` flags and its token files in `dir`; and
    /// the line that says whether it kept its tokens.
    fn start_on(
        listen: &str,
        dir: tempfile::TempDir,
        nofile: Option<&str>,
        extra: &[&str],
    ) -> (Serve, String) {
        let command = match nofile {
            Some(limits) => {
                let mut command = Command::new("prlimit");
                command
                    .arg(format!("--nofile={limits}"))
                    .arg("--")
                    .arg(env!("CARGO_BIN_EXE_ask-user"));
                command
            }
            None => common::ask_user(),
        };
        let mut child = common::serve_in(command, listen, dir.path())
            .args(extra)
            .spawn()
            .unwrap();
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        let mut first = String::new();
        stderr.read_line(&mut first).unwrap();
        let mut tokens = String::new();
        stderr.read_line(&mut tokens).unwrap();
        let mut second = String::new();
        stderr.read_line(&mut second).unwrap();
        std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
        let base = first
            .strip_prefix("ask-user: inbox at ")
            .and_then(|rest| rest.split(": ").next())
            .unwrap_or_else(|| panic!("{first}"))
            .to_string();
        let token_file = dir.path().join("ask-user/serve-token");
        assert!(
            first.contains(&format!("their token is in {}", token_file.display())),
            "{first}"
        );
        let link = second.trim().rsplit(' ').next().unwrap().to_string();
        assert!(link.starts_with(&format!("{base}/#token=")), "{second}");
        let host = base.strip_prefix("http://").unwrap().to_string();
        let serve = Serve {
            child,
            base,
            host,
            link,
            dir,
        };
        (serve, tokens)
    }

    /// The agents' token in its file: its first line.
    fn token(&self) -> String {
        let file = std::fs::read_to_string(self.dir.path().join("ask-user/serve-token")).unwrap();
        file.lines().next().unwrap().to_string()
    }

    /// Stops `serve` with SIGTERM and waits for its clean exit; gives back its folder.
    fn stop(mut self) -> tempfile::TempDir {
        let killed = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
        let status = wait_bounded(&mut self.child, std::time::Duration::from_secs(20));
        assert_eq!(status.code(), Some(0), "a clean stop");
        let dir = tempfile::tempdir().unwrap();
        std::mem::replace(&mut self.dir, dir)
    }

    /// Kills `serve` with SIGKILL, as the system does on a crash or out of memory, and gives
    /// back its folder (its token files stay, as a killed `serve` leaves them).
    fn kill(mut self) -> tempfile::TempDir {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::mem::replace(&mut self.dir, dir)
    }

    /// `ask-user --via BASE CALL` holding `token`, answered on the page: its exit code and
    /// stderr.
    fn ask_holding(&self, token: &str) -> (i32, String) {
        let path = self.dir.path().join("held.json");
        std::fs::write(&path, call().to_string()).unwrap();
        let mut child = common::ask_user()
            .args(["--via", &self.base, "--agent-name", "holder"])
            .arg(&path)
            .env("ASK_USER_VIA_TOKEN", token)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let credential = self.visit(&self.fresh_link());
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        // Refused, it ends on its own; accepted, its ask shows on the page and is answered.
        while child.try_wait().unwrap().is_none() {
            let asks = self.asks(&credential);
            if let Some(id) = asks["asks"][0]["requestId"].as_str() {
                assert_eq!(self.answer(&credential, id, "held"), 200);
                break;
            }
            assert!(std::time::Instant::now() < deadline, "the ask arrives");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let output = child.wait_with_output().unwrap();
        let said = String::from_utf8_lossy(&output.stderr).into_owned();
        (output.status.code().unwrap(), said)
    }

    /// The challenge-response of an agent holding `token`: the `Authorization` of one request.
    fn prove(&self, token: &str) -> String {
        let nonce = ask_web::testing::auth::random_token().unwrap();
        let hello = http(
            &self.host,
            "POST",
            "/api/agent/hello",
            &[("Host", &self.host), ("Content-Type", "application/json")],
            &json!({"nonce": nonce, "address": self.host}).to_string(),
        );
        assert_eq!(hello.status, 200, "{hello:?}");
        let hello: Value = serde_json::from_str(&hello.body).unwrap();
        let exchange = ask_web::testing::auth::Exchange {
            client_nonce: &nonce,
            inbox_nonce: hello["nonce"].as_str().unwrap(),
            address: &self.host,
        };
        assert_eq!(
            hello["proof"],
            ask_web::testing::auth::inbox_proof(token, exchange)
        );
        ask_web::testing::auth::authorization(token, exchange)
    }

    /// `ask-user --via BASE --agent-name NAME CALL` with the call of these tests.
    fn ask(&self, name: &str) -> Child {
        self.ask_with(name, &call())
    }

    /// `ask-user --via BASE --agent-name NAME CALL` with `call`.
    fn ask_with(&self, name: &str, call: &Value) -> Child {
        let path = self.dir.path().join(format!("{name}.json"));
        std::fs::write(&path, call.to_string()).unwrap();
        common::ask_user()
            .args(["--via", &self.base, "--agent-name", name])
            .arg(&path)
            .env("XDG_RUNTIME_DIR", self.dir.path())
            .env_remove("ASK_USER_VIA_TOKEN")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    }

    /// `ask-user --via BASE --agent-name NAME --call-id CALL_ID CALL` with the call of these
    /// tests, run in the test's folder.
    fn ask_call(&self, name: &str, call_id: &str) -> Child {
        let path = self.dir.path().join(format!("{name}.json"));
        std::fs::write(&path, call().to_string()).unwrap();
        common::ask_user()
            .args([
                "--via",
                &self.base,
                "--agent-name",
                name,
                "--call-id",
                call_id,
            ])
            .arg(&path)
            .env("XDG_RUNTIME_DIR", self.dir.path())
            .env_remove("ASK_USER_VIA_TOKEN")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    }

    fn asks(&self, credential: &str) -> Value {
        let reply = http(
            &self.host,
            "GET",
            "/api/asks",
            &[("Host", &self.host), ("Authorization", credential)],
            "",
        );
        serde_json::from_str(&reply.body).unwrap()
    }

    /// Waits until the page lists `n` asks, on the page's event stream.
    fn wait_for(&self, credential: &str, n: usize) -> Value {
        common::Events::open(&self.host, credential)
            .until(|snapshot| snapshot["asks"].as_array().unwrap().len() >= n)
    }

    fn answer(&self, credential: &str, id: &str, name: &str) -> u16 {
        let origin = self.base.clone();
        http(
            &self.host,
            "POST",
            &format!("/api/asks/{id}/answer"),
            &[
                ("Host", &self.host),
                ("Authorization", credential),
                ("Origin", &origin),
                ("Content-Type", "application/json"),
            ],
            &json!({"answers": [{"answer": "SQLite"}, {"answer": ["REST API"]},
                {"answer": name, "notes": format!("note on {name}")}]})
            .to_string(),
        )
        .status
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Waits for `child` to end, at most `bound`.
fn wait_bounded(child: &mut Child, bound: std::time::Duration) -> std::process::ExitStatus {
    let deadline = std::time::Instant::now() + bound;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the process ends in time"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

fn output_of(child: Child) -> (i32, Value) {
    let output = child.wait_with_output().unwrap();
    (
        output.status.code().unwrap(),
        serde_json::from_slice(&output.stdout).unwrap_or(Value::Null),
    )
}

#[test]
fn serve_takes_many_asks_answered_in_any_order_and_a_gone_agent_is_connection_lost() {
    let serve = Serve::start();
    let token_file = serve.dir.path().join("ask-user/serve-token");
    let mode = std::os::unix::fs::PermissionsExt::mode(
        &std::fs::metadata(&token_file).unwrap().permissions(),
    );
    assert_eq!(
        mode & 0o777,
        0o600,
        "the token file is readable by its user only"
    );
    let credential = serve.visit(&serve.link);
    let first = serve.ask("alpha");
    serve.wait_for(&credential, 1);
    let mut second = serve.ask("beta");
    serve.wait_for(&credential, 2);
    let third = serve.ask("gamma");
    let asks = serve.wait_for(&credential, 3);
    let names: Vec<&str> = asks["asks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["agent"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["alpha", "beta", "gamma"]);
    assert_eq!(
        asks["asks"][0]["cwd"],
        std::env::current_dir().unwrap().display().to_string()
    );
    assert!(asks["asks"][0]["since"].as_u64().unwrap() > 0);
    // Answered out of order: the third, then the first.
    assert_eq!(serve.answer(&credential, "ask-3", "from-gamma"), 200);
    assert_eq!(serve.answer(&credential, "ask-1", "from-alpha"), 200);
    let (code, out) = output_of(third);
    assert_eq!(code, 0);
    assert_eq!(out["answers"][2]["answer"], "from-gamma");
    // The note travels from the inbox to the agent beside its answer.
    assert_eq!(out["answers"][2]["notes"], "note on from-gamma");
    let (code, out) = output_of(first);
    assert_eq!(code, 0);
    assert_eq!(out["answers"][2]["answer"], "from-alpha");
    // The second agent goes away: its ask ends as connection lost, visibly, and can no longer
    // be answered.
    let mut events = common::Events::open(&serve.host, &credential);
    second.kill().unwrap();
    second.wait().unwrap();
    events.until(|snapshot| snapshot["asks"][1]["state"] == "connection_lost");
    assert_eq!(serve.answer(&credential, "ask-2", "late"), 409);
    let asks = serve.asks(&credential);
    let states: Vec<&str> = asks["asks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["state"].as_str().unwrap())
        .collect();
    assert_eq!(states, ["answered", "connection_lost", "answered"]);
}

#[test]
fn via_hands_the_answers_a_call_carries_to_the_inbox_page() {
    let serve = Serve::start();
    let credential = serve.visit(&serve.link);
    let agent = serve.ask_with("alpha", &claude_call_with_answers());
    let asks = opened(&serve.host, &credential, serve.wait_for(&credential, 1));
    // The page pre-fills them: the options chosen, the typed text as "Other".
    assert_eq!(
        asks["asks"][0]["given"],
        json!([{"chosen": [1]}, {"chosen": [0, 1]}, {"chosen": [], "other": "order-processor"}]),
        "{asks}"
    );
    assert_eq!(asks["asks"][0]["masks"], json!([null, null, null]));
    let origin = serve.base.clone();
    let sent = http(
        &serve.host,
        "POST",
        "/api/asks/ask-1/answer",
        &[
            ("Host", &serve.host),
            ("Authorization", &credential),
            ("Origin", &origin),
            ("Content-Type", "application/json"),
        ],
        &json!({"answers": [{"answer": "SQLite"}, {"answer": ["Authentication", "REST API"]},
                            {"answer": "order-processor"}]})
        .to_string(),
    );
    assert_eq!(sent.status, 200, "{sent:?}");
    let (code, out) = output_of(agent);
    assert_eq!(code, 0);
    assert_eq!(out, the_given_answers());
}

#[test]
fn serve_refuses_agents_without_the_token_and_browsers_on_the_agent_api() {
    let serve = Serve::start();
    let host = serve.host.clone();
    let body = json!({"input": call()}).to_string();
    let path = "/api/agent/asks";
    let json_type = ("Content-Type", "application/json");
    let none = http(&host, "POST", path, &[("Host", &host), json_type], &body);
    assert_eq!(none.status, 401, "{none:?}");
    let wrong = http(
        &host,
        "POST",
        path,
        &[("Host", &host), ("Authorization", "Bearer 00"), json_type],
        &body,
    );
    assert_eq!(wrong.status, 401);
    let token = serve.token();
    let bearer = format!("Bearer {token}");
    let from_browser = http(
        &host,
        "POST",
        path,
        &[
            ("Host", &host),
            ("Authorization", &bearer),
            ("Origin", &serve.base),
            json_type,
        ],
        &body,
    );
    assert_eq!(
        from_browser.status, 403,
        "a browser never speaks for an agent"
    );
    // The token itself is no proof: an agent proves it holds it, and never sends it.
    let with_token = http(
        &host,
        "POST",
        path,
        &[("Host", &host), ("Authorization", &bearer), json_type],
        &body,
    );
    assert_eq!(with_token.status, 401, "{with_token:?}");
    let proof = serve.prove(token.trim());
    let invalid = http(
        &host,
        "POST",
        path,
        &[("Host", &host), ("Authorization", &proof), json_type],
        &json!({"input": {"questions": []}}).to_string(),
    );
    assert_eq!(invalid.status, 422, "{invalid:?}");
    assert!(invalid.body.contains("/questions"), "{}", invalid.body);
    // A bad token from --via: a clear error, exit 1, nothing on stdout.
    let path = serve.dir.path().join("call.json");
    std::fs::write(&path, call().to_string()).unwrap();
    let output = common::ask_user()
        .args(["--via", &serve.base])
        .arg(&path)
        .env("ASK_USER_VIA_TOKEN", "00")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty());
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(
        said.contains("is not the ask-user inbox this token belongs to"),
        "{said}"
    );
    // `serve --link`: a fresh link; the earlier, unused one stops working.
    let fresh_link = serve.fresh_link();
    assert_ne!(fresh_link, serve.link);
    assert_eq!(common::spend_link(&serve.link).unwrap_err().status, 403);
    assert!(common::spend_link(&fresh_link).is_ok());
}

#[test]
fn serve_stops_on_sigterm_telling_its_agents_and_pages_and_removes_its_token_files() {
    let mut serve = Serve::start();
    let token_file = serve.dir.path().join("ask-user/serve-token");
    let link_file = serve.dir.path().join("ask-user/serve-token-link");
    assert!(token_file.exists() && link_file.exists());
    let credential = serve.visit(&serve.link);
    let agent = serve.ask("alpha");
    serve.wait_for(&credential, 1);
    let mut events = common::Events::open(&serve.host, &credential);
    let killed = Command::new("kill")
        .args(["-TERM", &serve.child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    // The page hears that the inbox closes, the waiting agent that its ask ended unanswered.
    events.until(|snapshot| snapshot["closing"] == true);
    let (code, _) = output_of(agent);
    assert_eq!(code, 5, "the agent's ask ends as connection lost");
    let status = wait_bounded(&mut serve.child, std::time::Duration::from_secs(20));
    assert_eq!(status.code(), Some(0), "a clean stop");
    assert!(!token_file.exists(), "the agents' token file is removed");
    assert!(!link_file.exists(), "the people's token file is removed");
}

/// A store for `serve --store`, in a folder of its own.
fn store() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("asks.db").display().to_string();
    (dir, path)
}

#[test]
fn a_restarted_serve_with_a_store_keeps_its_tokens_and_an_agent_holding_the_old_one_is_accepted() {
    let (_kept, store) = store();
    let (serve, said) = Serve::start_in(tempfile::tempdir().unwrap(), None, &["--store", &store]);
    assert!(said.contains("a fresh agents' token"), "{said}");
    assert!(said.contains("there was none"), "{said}");
    let token = serve.token();
    let people = std::fs::read_to_string(serve.dir.path().join("ask-user/serve-token-link"));
    let dir = serve.stop();
    // A graceful stop keeps the token files when the asks are kept in a store.
    let token_file = dir.path().join("ask-user/serve-token");
    let kept_text = std::fs::read_to_string(&token_file).unwrap();
    assert_eq!(kept_text.lines().next(), Some(token.as_str()));
    let (serve, said) = Serve::start_in(dir, None, &["--store", &store]);
    let kept = format!("the agents' token is kept from `{}`", token_file.display());
    assert!(said.contains(&kept), "{said}");
    assert!(said.contains("the people's token is kept from"), "{said}");
    assert_eq!(serve.token(), token);
    let link_file = serve.dir.path().join("ask-user/serve-token-link");
    assert_eq!(std::fs::read_to_string(link_file).unwrap(), people.unwrap());
    // An agent started before the restart, holding the token it read then, is accepted.
    let (code, said) = serve.ask_holding(&token);
    assert_eq!(code, 0, "{said}");
}

/// `127.0.0.1:PORT` with a port free now, for a `serve` that must come back on the same one.
fn free_address() -> String {
    let probe = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    probe.local_addr().unwrap().to_string()
}

/// The answers of [`Serve::answer`] with `name`, as the agent prints them.
fn answered_as(name: &str) -> Value {
    json!([
        {"question": "Which database should we use?", "answer": "SQLite",
         "selectedOption": "SQLite", "wasCustom": false},
        {"question": "Which features should we include?", "answer": ["REST API"],
         "wasCustom": false},
        {"question": "What should we name this service?", "answer": name,
         "wasCustom": true, "notes": format!("note on {name}")}])
}

#[test]
fn a_serve_killed_with_sigkill_comes_back_with_its_waiting_ask_and_the_agent_gets_the_answer() {
    let (_kept, store) = store();
    let listen = free_address();
    let dir = tempfile::tempdir().unwrap();
    let (serve, _) = Serve::start_on(&listen, dir, None, &["--store", &store]);
    let credential = serve.visit(&serve.link);
    let mut agent = serve.ask_call("alpha", "call-1");
    let before = serve.wait_for(&credential, 1);
    let id = before["asks"][0]["requestId"].as_str().unwrap().to_string();
    // No graceful stop: the process dies at once, as on a crash or out of memory.
    let dir = serve.kill();
    let (serve, _) = Serve::start_on(&listen, dir, None, &["--store", &store]);
    assert!(
        agent.try_wait().unwrap().is_none(),
        "the agent waits through the restart"
    );
    // A fresh page of the restarted inbox lists the same ask, still waiting.
    let credential = serve.visit(&serve.fresh_link());
    let after = serve.wait_for(&credential, 1);
    let asks = after["asks"].as_array().unwrap();
    assert_eq!(asks.len(), 1, "{after}");
    assert_eq!(asks[0]["requestId"], id.as_str());
    assert_eq!(asks[0]["state"], "waiting_for_user");
    assert_eq!(asks[0]["agent"], "alpha");
    assert_eq!(asks[0]["questions"], before["asks"][0]["questions"]);
    // The answer reaches the agent that waited: at once when it is attached again (200), else
    // saved for it (202) until it is.
    let status = serve.answer(&credential, &id, "after-the-crash");
    assert!(status == 200 || status == 202, "{status}");
    let output = agent.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", common::stderr(&output));
    let out = common::stdout_json(&output);
    assert_eq!(out["answers"], answered_as("after-the-crash"));
    let mut events = common::Events::open(&serve.host, &credential);
    events.until(|list| list["asks"][0]["state"] == "answered");
}

#[test]
fn an_answer_given_while_the_agent_is_away_is_saved_and_a_rerun_of_its_call_gets_it_at_once() {
    let (_kept, store) = store();
    let (serve, _) = Serve::start_in(tempfile::tempdir().unwrap(), None, &["--store", &store]);
    let credential = serve.visit(&serve.link);
    let mut agent = serve.ask_call("alpha", "call-7");
    let listed = serve.wait_for(&credential, 1);
    let id = listed["asks"][0]["requestId"].as_str().unwrap().to_string();
    // The agent dies with its question open; its ask keeps waiting for it.
    agent.kill().unwrap();
    agent.wait().unwrap();
    let origin = serve.base.clone();
    let reply = http(
        &serve.host,
        "POST",
        &format!("/api/asks/{id}/answer"),
        &[
            ("Host", &serve.host),
            ("Authorization", &credential),
            ("Origin", &origin),
            ("Content-Type", "application/json"),
        ],
        &json!({"answers": [{"answer": "SQLite"}, {"answer": ["REST API"]},
            {"answer": "while-away", "notes": "note on while-away"}]})
        .to_string(),
    );
    // Written to the store, not yet delivered: the person is told it is safe.
    assert_eq!(reply.status, 202, "{reply:?}");
    let body: Value = serde_json::from_str(&reply.body).unwrap();
    assert_eq!(body["saved"], true, "{body}");
    assert_eq!(serve.asks(&credential)["asks"][0]["state"], "answered");
    // The same call run again takes the saved answers at once.
    let started = std::time::Instant::now();
    let again = serve.ask_call("alpha", "call-7");
    let output = again.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", common::stderr(&output));
    assert!(
        started.elapsed() < std::time::Duration::from_secs(10),
        "at once: {:?}",
        started.elapsed()
    );
    let out = common::stdout_json(&output);
    assert_eq!(out["answers"], answered_as("while-away"));
    let asks = serve.asks(&credential);
    assert_eq!(asks["asks"].as_array().unwrap().len(), 1, "{asks}");
    assert_eq!(asks["asks"][0]["requestId"], id.as_str());
    assert_eq!(asks["asks"][0]["state"], "answered");
}

#[test]
fn serve_rotate_token_makes_fresh_tokens_and_the_old_agents_token_is_refused() {
    let (_kept, store) = store();
    let (serve, _) = Serve::start_in(tempfile::tempdir().unwrap(), None, &["--store", &store]);
    let old = serve.token();
    let dir = serve.stop();
    let rotate = ["--store", store.as_str(), "--rotate-token"];
    let (serve, said) = Serve::start_in(dir, None, &rotate);
    assert!(
        said.contains(
            "fresh tokens (--rotate-token): an agent still waiting with the old token must be \
             started again"
        ),
        "{said}"
    );
    let new = serve.token();
    assert_ne!(new, old);
    assert_eq!(new.len(), 64);
    let (code, said) = serve.ask_holding(&old);
    assert_eq!(code, 1, "{said}");
    assert!(
        said.contains("is not the ask-user inbox this token belongs to"),
        "{said}"
    );
    let (code, said) = serve.ask_holding(&new);
    assert_eq!(code, 0, "{said}");
}

#[test]
fn a_token_file_others_may_read_or_that_holds_no_token_is_not_reused() {
    use std::os::unix::fs::PermissionsExt;
    let (_kept, store) = store();
    let (serve, _) = Serve::start_in(tempfile::tempdir().unwrap(), None, &["--store", &store]);
    let old = serve.token();
    let dir = serve.stop();
    let token_file = dir.path().join("ask-user/serve-token");
    let link_file = dir.path().join("ask-user/serve-token-link");
    std::fs::set_permissions(&token_file, std::fs::Permissions::from_mode(0o640)).unwrap();
    std::fs::write(&link_file, "not a token\n").unwrap();
    let (serve, said) = Serve::start_in(dir, None, &["--store", &store]);
    let exposed = format!(
        "a fresh agents' token (`{}`: its group or other users may read it)",
        token_file.display()
    );
    assert!(said.contains(&exposed), "{said}");
    let malformed = format!(
        "a fresh people's token (`{}`: it does not hold a token)",
        link_file.display()
    );
    assert!(said.contains(&malformed), "{said}");
    let new = serve.token();
    assert_ne!(new, old);
    let mode = std::fs::metadata(&token_file).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "written readable by its user only");
    let (code, said) = serve.ask_holding(&old);
    assert_eq!(code, 1, "{said}");
    // A symbolic link to a well-formed token file is not followed.
    let dir = serve.stop();
    let elsewhere = dir.path().join("elsewhere");
    std::fs::rename(&token_file, &elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, &token_file).unwrap();
    let (serve, said) = Serve::start_in(dir, None, &["--store", &store]);
    assert!(
        said.contains("is a symbolic link, which ask-user never follows"),
        "{said}"
    );
    assert_ne!(serve.token(), new);
}

#[test]
fn serve_lang_speaks_that_language_on_the_inbox_page_whatever_the_browser_prefers() {
    use ask_core::lang::Lang;
    let words = |serve: &Serve| {
        let reply = http(
            &serve.host,
            "GET",
            "/text.json",
            &[("Host", &serve.host), ("Accept-Language", "de-DE,de;q=0.9")],
            "",
        );
        assert_eq!(reply.status, 200, "{reply:?}");
        serde_json::from_str::<Value>(&reply.body).unwrap()
    };
    let (french, _) = Serve::start_in(tempfile::tempdir().unwrap(), None, &["--lang", "fr"]);
    let said = words(&french);
    assert_eq!(said["lang"], "fr");
    assert_eq!(said["text"], serde_json::to_value(Lang::Fr.page()).unwrap());
    // Without --lang, the browser's language.
    let said = words(&Serve::start());
    assert_eq!(said["lang"], "de");
}

#[test]
fn serve_raises_its_descriptor_limit_and_serves_a_client_among_idle_and_slow_connections() {
    use std::io::Write;
    // 128 descriptors at first, 256 at most: `serve` raises its own limit to 256.
    let serve = Serve::start_under(Some("128:256"));
    let limits = std::fs::read_to_string(format!("/proc/{}/limits", serve.child.id())).unwrap();
    let open_files = limits
        .lines()
        .find(|line| line.starts_with("Max open files"))
        .unwrap()
        .split_whitespace()
        .collect::<Vec<_>>();
    assert_eq!(&open_files[3..5], ["256", "256"], "{limits}");
    // 300 connections that never send a byte, and 100 that send their headers a byte at a
    // time: more than the process may open.
    let mut idle = Vec::new();
    for _ in 0..300 {
        idle.push(std::net::TcpStream::connect(&serve.host).unwrap());
    }
    let mut slow = Vec::new();
    for _ in 0..100 {
        let mut stream = std::net::TcpStream::connect(&serve.host).unwrap();
        stream.write_all(b"GET /api/asks HTTP/1.1\r\nHo").unwrap();
        slow.push(stream);
    }
    for stream in &mut slow {
        let _ = stream.write_all(b"s");
    }
    // A person is still served (how soon is measured by `bench/crowd.py`, at full scale).
    let page = http(&serve.host, "GET", "/", &[("Host", &serve.host)], "");
    assert_eq!(page.status, 200);
    // The oldest idle connection was closed to make room.
    idle[0]
        .set_read_timeout(Some(std::time::Duration::from_secs(5)))
        .unwrap();
    assert_eq!(idle[0].read(&mut [0u8; 1]).unwrap(), 0, "closed by serve");
    // And an agent's ask still goes through.
    let credential = serve.visit(&serve.link);
    let agent = serve.ask("alpha");
    serve.wait_for(&credential, 1);
    assert_eq!(serve.answer(&credential, "ask-1", "despite-the-crowd"), 200);
    let (code, out) = output_of(agent);
    assert_eq!(code, 0);
    assert_eq!(out["answers"][2]["answer"], "despite-the-crowd");
    drop((idle, slow));
}

#[test]
fn mode_web_ends_as_connection_lost_when_its_agent_stops_reading() {
    let mut web = Web::start(&[]);
    let credential = web.session();
    let mut events = common::Events::open(&web.host, &credential);
    events.until(|snapshot| snapshot["asks"][0]["state"] == "waiting_for_user");
    // The agent goes away: the reading end of stdout closes.
    drop(web.child.stdout.take());
    let snapshot = events.until(|snapshot| snapshot["asks"][0]["state"] != "waiting_for_user");
    assert_eq!(snapshot["asks"][0]["state"], "connection_lost");
    let status = wait_bounded(&mut web.child, std::time::Duration::from_secs(20));
    assert_eq!(status.code(), Some(5), "connection lost");
}

/// The agent that started `--mode web` dies (its parent process is gone; stdout, a file, still
/// takes writes): the ask ends as connection lost. The test process adopts the orphan (a child
/// subreaper) to read its exit code.
#[test]
fn mode_web_ends_as_connection_lost_when_its_parent_dies() {
    let dir = tempfile::tempdir().unwrap();
    let call_path = dir.path().join("call.json");
    std::fs::write(&call_path, call().to_string()).unwrap();
    let script = r#"
import ctypes, os, signal, subprocess, sys, time
PR_SET_CHILD_SUBREAPER = 36
if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
    print("no-subreaper")
    sys.exit(0)
exe, call, out = sys.argv[1:4]
# The shell's own stderr is not this script's: a shell left behind must not hold the test's pipe.
agent = subprocess.Popen(
    ["sh", "-c", '"$0" --mode web "$1" >"$2" 2>"$2.err" & echo $!; wait', exe, call, out],
    stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
pid = int(agent.stdout.readline())
def said():
    # The shell may not have made the file yet when the pid arrives.
    try:
        return open(out + ".err").read()
    except FileNotFoundError:
        return ""
deadline = time.time() + 20
while "http://127.0.0.1:" not in said():
    if time.time() > deadline:
        print("no-link")
        agent.kill()
        os.kill(pid, signal.SIGKILL)
        sys.exit(0)
    time.sleep(0.05)
agent.kill()
agent.wait()
"#;
    let out = dir.path().join("out");
    let output = Command::new("python3")
        .args(["-c", &format!("{script}{}", common::EXIT_OF_PID)])
        .arg(env!("CARGO_BIN_EXE_ask-user"))
        .arg(&call_path)
        .arg(&out)
        .env_remove("ASK_USER_SESSION")
        .env("ASK_USER_NO_OPEN", "1")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&output.stdout).trim(),
        "exit 5",
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let said = std::fs::read_to_string(dir.path().join("out.err")).unwrap();
    assert!(
        said.contains("the client went away before an answer"),
        "{said}"
    );
}

#[test]
#[ignore = "needs chromium and playwright; run by .ci/run"]
fn browser_answers_one_of_many_asks_in_the_inbox() {
    let _heavy = common::heavy::heavy("web");
    let serve = Serve::start();
    let alpha = serve.ask("alpha");
    // Wait for the first ask through the API with a link of its own, so the page's link stays
    // unspent.
    let visit_credential = serve.visit(&serve.fresh_link());
    serve.wait_for(&visit_credential, 1);
    let beta = serve.ask("beta");
    serve.wait_for(&visit_credential, 2);
    let gammas = [serve.ask("gamma"), serve.ask_call("gamma", "toolu_gamma_2")];
    serve.wait_for(&visit_credential, 4);
    // A fresh link for the browser (the one above was spent).
    let link = serve.fresh_link();
    let seen = seen_on(&["inbox", "phone", &link]);
    let cwd = std::env::current_dir().unwrap().display().to_string();
    assert_eq!(
        seen["askers"],
        json!([
            format!("alpha in {cwd}"),
            format!("beta in {cwd}"),
            format!("gamma in {cwd}"),
            format!("gamma in {cwd}")
        ])
    );
    // The fourth ask was listed without its questions until the person opened it.
    assert_eq!(seen["closed"], "3 questions");
    assert_eq!(seen["closedRadios"], 0);
    // Both of gamma's asks were cancelled in one action.
    assert_eq!(seen["cancelled"], 2);
    for gamma in gammas {
        let (code, _) = output_of(gamma);
        assert_eq!(code, 130);
    }
    let (code, out) = output_of(beta);
    assert_eq!(code, 0);
    assert_eq!(out["answers"][2]["answer"], "from-the-page");
    // The note went through the inbox to the agent, beside its answer.
    assert_eq!(out["answers"][2]["notes"], "rename later");
    assert_eq!(out["answers"][1]["answer"], json!(["REST API"]));
    // alpha still waits.
    assert_eq!(
        serve.asks(&visit_credential)["asks"][0]["state"],
        "waiting_for_user"
    );
    let mut alpha = alpha;
    alpha.kill().unwrap();
    alpha.wait().unwrap();
}

#[test]
#[ignore = "needs chromium and playwright; run by .ci/run"]
fn browser_says_it_fell_behind_and_that_away_asks_fill_the_inbox_and_cancels_them_at_once() {
    let _heavy = common::heavy::heavy("web");
    let serve = Serve::start();
    let gammas = [serve.ask("gamma"), serve.ask_call("gamma", "toolu_gamma_2")];
    let credential = serve.visit(&serve.fresh_link());
    serve.wait_for(&credential, 2);
    let listed = serve.asks(&credential).to_string();
    let link = serve.fresh_link();
    let seen = seen_on(&["full", "phone", &link, &listed]);
    let cwd = std::env::current_dir().unwrap().display().to_string();
    assert_eq!(
        seen["behind"],
        "This page fell behind the changes and was reconnected; it shows the asks as they are now."
    );
    assert_eq!(
        seen["full"],
        "The inbox is full: asks whose agents went away take its room. Cancel them to make room \
         for the others."
    );
    assert_eq!(
        seen["buttons"],
        json!([format!("Cancel all 2 from gamma in {cwd}")])
    );
    assert_eq!(seen["cancelled"], 2);
    for gamma in gammas {
        let (code, _) = output_of(gamma);
        assert_eq!(code, 130);
    }
}

/// What `tests/web_browser.py ARGS…` says the page showed, once it ended well.
fn seen_on(args: &[&str]) -> Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/web_browser.py");
    let output = Command::new("python3")
        .arg(script)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

/// The answers the page gives in `submit_three` of `tests/web_browser.py`, as the agent prints
/// them.
fn answered_on_the_page() -> Value {
    json!([
        {"question": "Which database should we use?", "answer": "SQLite",
         "selectedOption": "SQLite", "wasCustom": false},
        {"question": "Which features should we include?", "answer": ["REST API"],
         "wasCustom": false},
        {"question": "What should we name this service?", "answer": "from-the-page",
         "wasCustom": true}])
}

/// `tests/web_browser.py SCENARIO phone LINK` against `serve`, with its stdout piped: the
/// scenarios of an agent away say on a line of their own when the test is to act.
fn browser_on(serve: &Serve, scenario: &str) -> Child {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/web_browser.py");
    Command::new("python3")
        .arg(script)
        .args([scenario, "phone", &serve.fresh_link()])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// The next line the browser script prints; when it printed none (it failed), its stderr.
fn said_by(
    script: &mut Child,
    lines: &mut impl Iterator<Item = std::io::Result<String>>,
) -> String {
    match lines.next() {
        Some(line) => line.unwrap(),
        None => {
            let mut stderr = String::new();
            script
                .stderr
                .take()
                .unwrap()
                .read_to_string(&mut stderr)
                .unwrap();
            panic!("the browser script failed:\n{stderr}");
        }
    }
}

#[test]
#[ignore = "needs chromium and playwright; run by .ci/run"]
fn browser_says_an_answer_for_an_agent_away_is_saved_and_a_rerun_of_its_call_gets_it() {
    let _heavy = common::heavy::heavy("web");
    needs_browser();
    let (_kept, store) = store();
    let (serve, _) = Serve::start_in(tempfile::tempdir().unwrap(), None, &["--store", &store]);
    let credential = serve.visit(&serve.fresh_link());
    let mut agent = serve.ask_call("alpha", "call-away");
    serve.wait_for(&credential, 1);
    // The agent dies with its question open: the inbox keeps the ask waiting for it.
    agent.kill().unwrap();
    agent.wait().unwrap();
    let mut script = browser_on(&serve, "saved");
    let mut lines = BufReader::new(script.stdout.take().unwrap()).lines();
    let seen: Value = serde_json::from_str(&said_by(&mut script, &mut lines)).unwrap();
    assert!(wait_bounded(&mut script, std::time::Duration::from_secs(30)).success());
    // The person is told where the answers are: saved for the agent, not sent to it.
    let saved = ask_core::lang::Lang::En.page().saved_for_agent;
    assert_eq!(
        saved,
        "Saved: your agent is not connected now, and it gets this when it asks again."
    );
    assert_eq!(seen["outcome"], saved, "{seen}");
    let body = seen["body"].as_str().unwrap();
    assert!(!body.contains("were sent"), "{body}");
    assert_eq!(body.matches(saved).count(), 1, "{body}");
    // The same call run again by a new agent process gets exactly those answers.
    let again = serve.ask_call("alpha", "call-away");
    let output = again.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", common::stderr(&output));
    let out = common::stdout_json(&output);
    assert_eq!(out["answers"], answered_on_the_page(), "{out}");
}

#[test]
#[ignore = "needs chromium and playwright; run by .ci/run"]
fn browser_shows_the_form_again_when_an_ended_call_is_asked_again() {
    let _heavy = common::heavy::heavy("web");
    needs_browser();
    let serve = Serve::start();
    let credential = serve.visit(&serve.fresh_link());
    let mut first = serve.ask_call("alpha", "call-again");
    serve.wait_for(&credential, 1);
    let mut script = browser_on(&serve, "again");
    let mut lines = BufReader::new(script.stdout.take().unwrap()).lines();
    assert_eq!(said_by(&mut script, &mut lines), "form");
    // Without a store, the ask of an agent that dies ends as connection lost on the page.
    first.kill().unwrap();
    first.wait().unwrap();
    assert_eq!(said_by(&mut script, &mut lines), "ended");
    // The same call (same agent name, folder and call id) asked again by a new agent process.
    let second = serve.ask_call("alpha", "call-again");
    let seen: Value = serde_json::from_str(&said_by(&mut script, &mut lines)).unwrap();
    assert!(wait_bounded(&mut script, std::time::Duration::from_secs(30)).success());
    let lost = ask_core::lang::Lang::En.page().final_lost;
    assert!(seen["ended"].as_str().unwrap().contains(lost), "{seen}");
    // One section for the ask: the form in place of the ended one, without its words.
    assert_eq!(seen["sections"], 1, "{seen}");
    assert!(!seen["back"].as_str().unwrap().contains(lost), "{seen}");
    assert_eq!(
        seen["status"],
        ask_core::lang::Lang::En.page().waiting.one,
        "{seen}"
    );
    let sent = ask_core::lang::Lang::En.page().sent;
    assert_eq!(seen["outcome"], sent, "{seen}");
    assert!(!seen["body"].as_str().unwrap().contains(lost), "{seen}");
    let (code, out) = output_of(second);
    assert_eq!(code, 0, "{out}");
    assert_eq!(out["answers"], answered_on_the_page(), "{out}");
}

#[test]
#[ignore = "needs chromium and playwright; run by .ci/run"]
fn browser_keeps_two_asks_apart_after_reconnecting_to_a_list_in_another_order() {
    let _heavy = common::heavy::heavy("web");
    needs_browser();
    let serve = Serve::start();
    let credential = serve.visit(&serve.fresh_link());
    let mut first = serve.ask_call("alpha", "call-moved");
    serve.wait_for(&credential, 1);
    let beta = serve.ask("beta");
    serve.wait_for(&credential, 2);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/web_browser.py");
    let mut script = Command::new("python3")
        .arg(script)
        .args(["reconnect", "desktop", &serve.fresh_link()])
        .spawn_piped();
    let mut lines = BufReader::new(script.stdout.take().unwrap()).lines();
    first.kill().unwrap();
    first.wait().unwrap();
    assert_eq!(said_by(&mut script, &mut lines), "ended");
    assert_eq!(said_by(&mut script, &mut lines), "offline");
    // Asked again while the page is cut off, alpha's call comes after beta's ask in the list.
    let second = serve.ask_call("alpha", "call-moved");
    common::Events::open(&serve.host, &credential).until(|list| {
        list["asks"]
            .as_array()
            .unwrap()
            .iter()
            .any(|ask| ask["agent"] == "alpha" && ask["state"] == "waiting_for_user")
    });
    let asks = serve.asks(&credential);
    assert_eq!(asks["asks"][0]["agent"], "beta", "{asks}");
    std::io::Write::write_all(&mut script.stdin.take().unwrap(), b"go\n").unwrap();
    let seen: Value = serde_json::from_str(&said_by(&mut script, &mut lines)).unwrap();
    assert!(wait_bounded(&mut script, std::time::Duration::from_secs(30)).success());
    assert_eq!(seen["betaKept"], true, "{seen}");
    let sent = ask_core::lang::Lang::En.page().sent;
    assert_eq!(seen["outcomes"], json!([sent, sent]), "{seen}");
    for agent in [second, beta] {
        let (code, out) = output_of(agent);
        assert_eq!(code, 0, "{out}");
        assert_eq!(out["answers"], answered_on_the_page(), "{out}");
    }
}

#[test]
#[ignore = "needs chromium and playwright; run by .ci/run"]
fn browser_asks_before_sending_an_answer_over_2000_characters() {
    let _heavy = common::heavy::heavy("web");
    let call = json!({"questions": [{"question": "What should we name this service?"}]});
    let (seen, code, out) = browser_with(&call, "long", "desktop");
    assert_eq!(
        seen["count"],
        "Answer is long (2,001 chars): Submit asks before sending it."
    );
    assert_eq!(
        seen["dialog"],
        "Answer is long (2,001 chars). Continue anyway?"
    );
    assert_eq!(seen["stillWaiting"], true, "No keeps the question open");
    assert_eq!(code, 0);
    assert_eq!(out["answers"][0]["answer"].as_str().unwrap().len(), 2001);
}

#[test]
#[ignore = "needs chromium and playwright; run by .ci/run"]
fn browser_stops_an_answer_and_a_note_at_the_64_kib_cap_and_says_so() {
    let _heavy = common::heavy::heavy("web");
    let call = json!({"questions": [{"question": "What should we name this service?"}]});
    let (seen, code, out) = browser_with(&call, "cap", "desktop");
    let cap = ask_core::MAX_ANSWER_BYTES;
    let said = ask_core::lang::Lang::En.page().answer_cap;
    assert_eq!(seen["kept"], cap, "{seen}");
    assert_eq!(seen["count"], said, "{seen}");
    assert_eq!(seen["noteKept"], cap, "{seen}");
    assert_eq!(seen["noteCount"], said, "{seen}");
    // 65,520 bytes and two 4-byte emoji fit in 65,529; a third would pass it.
    assert_eq!(seen["withLabels"], json!([true, cap - 8]), "{seen}");
    assert_eq!(code, 0);
    assert_eq!(out["answers"][0]["answer"], "é".repeat(cap / 2));
    assert_eq!(out["answers"][0]["notes"], "n".repeat(cap));
}

#[test]
fn mcp_with_an_inbox_posts_each_call_there_and_the_person_answers_on_its_page() {
    use common::mcp_raw::{raw_session_of, read_message, send_line};
    let serve = Serve::start();
    let credential = serve.visit(&serve.link);
    // A client that draws no form, on a machine with no terminal and no display: the default
    // chain's `web` presenter reaches the person through the inbox, not a page of its own.
    let mut command = common::ask_user();
    command
        .args(["mcp", "--via", &serve.base, "--agent-name", "mcp-agent"])
        .current_dir(serve.dir.path())
        .env("XDG_RUNTIME_DIR", serve.dir.path())
        .env("ASK_USER_NO_TTY", "1")
        .env_remove("ASK_USER_VIA_TOKEN")
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY");
    let (mut server, mut stdin, mut lines) = raw_session_of(command, json!({}));
    send_line(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "ask_user", "arguments": call()}}),
    );
    let asks = serve.wait_for(&credential, 1);
    assert_eq!(asks["asks"][0]["agent"], "mcp-agent", "{asks}");
    assert_eq!(serve.answer(&credential, "ask-1", "order-processor"), 200);
    let reply = loop {
        let message = read_message(&mut lines);
        if message["id"] == 2 {
            break message;
        }
    };
    let structured = &reply["result"]["structuredContent"];
    assert_eq!(structured["answered"], true, "{reply}");
    assert_eq!(structured["answers"][0]["answer"], "SQLite");
    assert_eq!(structured["answers"][2]["answer"], "order-processor");
    assert!(
        !serve.dir.path().join(".pi/pending-questions.json").exists(),
        "nothing went to the pending file"
    );
    drop(stdin);
    server.wait().unwrap();
}

#[test]
fn a_persons_open_page_is_never_closed_to_make_room_for_strangers() {
    let serve = Serve::start_under(Some("128:128"));
    let credential = serve.visit(&serve.link);
    // The person's page holds its event stream open first, so it is the oldest connection.
    let mut events = common::Events::open(&serve.host, &credential);
    events.until(|snapshot| snapshot["asks"].as_array().is_some_and(Vec::is_empty));
    // Then strangers open more connections than the cap on unauthenticated ones (a quarter of
    // 128), each closing the oldest unauthenticated one.
    let idle: Vec<_> = (0..100)
        .map(|_| std::net::TcpStream::connect(&serve.host).unwrap())
        .collect();
    // The page still hears of the next ask.
    let agent = serve.ask("alpha");
    events.until(|snapshot| snapshot["asks"].as_array().is_some_and(|a| a.len() == 1));
    assert_eq!(serve.answer(&credential, "ask-1", "still-here"), 200);
    let (code, _) = output_of(agent);
    assert_eq!(code, 0);
    drop(idle);
}

/// The largest ask the inbox takes at its default limits, for the call `n`: four questions of
/// four options, each text at its most characters, in a script of three bytes a character.
fn largest_ask(n: usize) -> String {
    let text = |tag: &str, chars: usize| {
        let head = format!("{tag}-{n} ");
        let rest = chars - head.chars().count();
        format!("{head}{}", "語".repeat(rest))
    };
    let questions: Vec<Value> = (0..4)
        .map(|q| {
            let options: Vec<Value> = (0..4)
                .map(|o| {
                    json!({
                        "label": text(&format!("o{q}{o}"), 200),
                        "description": text(&format!("d{q}{o}"), 1000),
                        "preview": text(&format!("p{q}{o}"), 4000),
                    })
                })
                .collect();
            json!({
                "question": text(&format!("q{q}"), 1000),
                "header": format!("Header {q}"),
                "options": options,
            })
        })
        .collect();
    json!({
        "agent": format!("agent-{}", n / 50),
        "input": {"questions": questions},
    })
    .to_string()
}

/// The resident memory of process `pid`, in KiB.
fn resident_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

#[test]
fn serve_stays_within_256_mib_with_40_pages_that_stop_reading_over_a_full_budget() {
    use std::io::Write;
    let serve = Serve::start();
    let token = serve.token();
    // Agents fill the budget of waiting asks with the largest asks, and hold them.
    let mut held = Vec::new();
    for n in 0.. {
        let body = largest_ask(n);
        let authorization = serve.prove(&token);
        let mut stream = std::net::TcpStream::connect(&serve.host).unwrap();
        let head = format!(
            "POST /api/agent/asks HTTP/1.1\r\nHost: {}\r\nAuthorization: {authorization}\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            serve.host,
            body.len()
        );
        stream.write_all(head.as_bytes()).unwrap();
        stream.write_all(body.as_bytes()).unwrap();
        let mut status = [0u8; 12];
        stream.read_exact(&mut status).unwrap();
        let status = String::from_utf8_lossy(&status[9..12]).into_owned();
        if status == "503" {
            break;
        }
        assert_eq!(status, "200", "ask {n}");
        held.push(stream);
    }
    assert!(held.len() > 200, "{} asks fill 64 MiB", held.len());
    let full = resident_kib(serve.child.id());
    // Forty pages open their event stream, and as many their list, and read nothing.
    let credential = serve.visit(&serve.link);
    let pages: Vec<_> = (0..40)
        .flat_map(|_| ["/api/events", "/api/asks"])
        .map(|path| {
            let mut stream = std::net::TcpStream::connect(&serve.host).unwrap();
            let request = format!(
                "GET {path} HTTP/1.1\r\nHost: {}\r\nAuthorization: {credential}\r\n\r\n",
                serve.host
            );
            stream.write_all(request.as_bytes()).unwrap();
            stream
        })
        .collect();
    // Each of them was sent what fits in its socket; the rest waits in serve, shared.
    let mut most = 0;
    for _ in 0..20 {
        most = most.max(resident_kib(serve.child.id()));
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    println!(
        "serve: {} asks waiting, {} KiB resident; with 40 streams and 40 lists that stop \
         reading, at most {most} KiB",
        held.len(),
        full
    );
    assert!(most < 256 * 1024, "{most} KiB resident");
    drop((pages, held));
}

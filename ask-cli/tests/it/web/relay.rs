//! The agents' channel with something between: a relaying program on another port fails the
//! handshake before any question is sent, whether it forwards the agent's hello as it is or
//! rewrites the address in it; a proxy named with `serve --public-url` is let through; and the
//! Unix socket that local agents dial instead, its modes, and its start over a stale or a live
//! socket.

use super::{Serve, call, free_address, output_of, wait_bounded};
use crate::common;

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

/// A program on another port that relays every connection to the inbox at `target`, keeping
/// what the agents sent; with `rewrite`, it puts the inbox's own address in each hello.
struct Relay {
    url: String,
    seen: Arc<Mutex<Vec<u8>>>,
}

impl Relay {
    /// A relay on a port of its own, to the inbox at `target` (`host:port`).
    fn start(target: &str, rewrite: bool) -> Relay {
        Relay::on(TcpListener::bind("127.0.0.1:0").unwrap(), target, rewrite)
    }

    fn on(listener: TcpListener, target: &str, rewrite: bool) -> Relay {
        let url = format!("http://{}", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let (kept, target) = (Arc::clone(&seen), target.to_string());
        std::thread::spawn(move || {
            for client in listener.incoming() {
                let (kept, target) = (Arc::clone(&kept), target.clone());
                std::thread::spawn(move || relay(client.unwrap(), &target, rewrite, &kept));
            }
        });
        Relay { url, seen }
    }

    /// Everything the agents sent through the relay.
    fn seen(&self) -> String {
        String::from_utf8_lossy(&self.seen.lock().unwrap()).into_owned()
    }
}

/// Relays one connection: the agent's one request (its hello's address rewritten when
/// `rewrite`), then the inbox's answer back.
fn relay(mut client: TcpStream, target: &str, rewrite: bool, seen: &Mutex<Vec<u8>>) {
    let mut request = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        let Ok(read) = client.read(&mut chunk) else {
            return;
        };
        if read == 0 {
            return;
        }
        request.extend_from_slice(&chunk[..read]);
        if let Some(at) = request.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
    };
    let head = String::from_utf8_lossy(&request[..head_end]).into_owned();
    let length: usize = head
        .lines()
        .find_map(|line| {
            line.to_ascii_lowercase()
                .strip_prefix("content-length: ")
                .map(str::to_string)
        })
        .map_or(0, |n| n.trim().parse().unwrap());
    while request.len() < head_end + length {
        let read = client.read(&mut chunk).unwrap();
        assert!(read > 0, "a whole body");
        request.extend_from_slice(&chunk[..read]);
    }
    seen.lock().unwrap().extend_from_slice(&request);
    if rewrite && head.starts_with("POST /api/agent/hello ") {
        let mut hello: Value = serde_json::from_slice(&request[head_end..]).unwrap();
        hello["address"] = json!(target);
        let body = hello.to_string();
        let head: String = head
            .lines()
            .filter(|line| !line.to_ascii_lowercase().starts_with("content-length:"))
            .filter(|line| !line.is_empty())
            .map(|line| format!("{line}\r\n"))
            .collect();
        request = format!("{head}Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes();
    }
    let mut inbox = TcpStream::connect(target).unwrap();
    inbox.write_all(&request).unwrap();
    let mut answer = Vec::new();
    let _ = inbox.read_to_end(&mut answer);
    let _ = client.write_all(&answer);
}

/// `ask-user --via URL CALL` holding `token` given in its variable (no token file, so no
/// socket): its exit code, stdout and stderr.
fn ask_through(url: &str, token: &str, dir: &Path) -> (i32, String, String) {
    let path = dir.join("relayed.json");
    std::fs::write(&path, call().to_string()).unwrap();
    let mut child = common::ask_user()
        .args(["--via", url, "--agent-name", "relayed"])
        .arg(&path)
        .env("ASK_USER_VIA_TOKEN", token)
        .env("XDG_RUNTIME_DIR", dir.join("elsewhere"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Let through, the ask would wait for the person: the refusal ends it at once.
    wait_bounded(&mut child, std::time::Duration::from_secs(20));
    let output = child.wait_with_output().unwrap();
    (
        output.status.code().unwrap(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// Checks that the relay got no question and the inbox no ask.
fn nothing_went_through(serve: &Serve, relay: &Relay) {
    let credential = serve.visit(&serve.fresh_link());
    let asks = serve.asks(&credential);
    assert_eq!(asks["asks"], json!([]), "no ask reached the inbox: {asks}");
    let seen = relay.seen();
    assert!(seen.contains("POST /api/agent/hello "), "{seen}");
    assert!(!seen.contains("/api/agent/asks"), "{seen}");
    assert!(!seen.contains("Which database"), "no question text: {seen}");
}

/// An agent asks through a relay to a running inbox (one that rewrites the address the agent
/// dialled, when `rewrites`): it must stop with exit 1, nothing on stdout, and a sentence
/// holding each of `words` (given the relay's address), with no question through. Gives the
/// relay, for what it saw.
fn refused_through_a_relay(rewrites: bool, words: impl Fn(&str) -> Vec<String>) -> Relay {
    let serve = Serve::start();
    let relay = Relay::start(&serve.host, rewrites);
    let (code, stdout, said) = ask_through(&relay.url, &serve.token(), serve.dir.path());
    assert_eq!(code, 1, "{said}");
    assert!(stdout.is_empty(), "{stdout}");
    for words in words(relay.url.strip_prefix("http://").unwrap()) {
        assert!(said.contains(&words), "{words} in {said}");
    }
    nothing_went_through(&serve, &relay);
    relay
}

#[test]
fn a_relay_on_another_port_is_refused_by_the_inbox_before_any_question_is_sent() {
    refused_through_a_relay(false, |relay| {
        vec![
            format!("the ask-user inbox reached through {relay} refused the handshake"),
            "no question was sent".to_string(),
            format!("`{relay}`, the address you dialled, is not one this inbox listens on"),
            "--public-url".to_string(),
        ]
    });
}

#[test]
fn a_relay_that_rewrites_the_address_fails_the_agents_check_before_any_question_is_sent() {
    let relay = refused_through_a_relay(true, |relay| {
        vec![
            format!("what listens at {relay} is not the ask-user inbox this token belongs to"),
            "no question was sent".to_string(),
            "relays to the inbox under another address".to_string(),
        ]
    });
    // The inbox did answer the rewritten hello: the agent's own check refused it.
    let relay_address = relay.url.strip_prefix("http://").unwrap();
    assert!(
        relay
            .seen()
            .contains(&format!("\"address\":\"{relay_address}\""))
    );
}

#[test]
fn serve_public_url_lets_the_proxy_it_names_through() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let (serve, _) = Serve::start_in(tempfile::tempdir().unwrap(), None, &["--public-url", &url]);
    let relay = Relay::on(listener, &serve.host, false);
    let path = serve.dir.path().join("proxied.json");
    std::fs::write(&path, call().to_string()).unwrap();
    let child = common::ask_user()
        .args(["--via", &relay.url, "--agent-name", "proxied"])
        .arg(&path)
        .env("ASK_USER_VIA_TOKEN", serve.token())
        .env("XDG_RUNTIME_DIR", serve.dir.path().join("elsewhere"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let credential = serve.visit(&serve.fresh_link());
    let asks = serve.wait_for(&credential, 1);
    let id = asks["asks"][0]["requestId"].as_str().unwrap().to_string();
    assert_eq!(asks["asks"][0]["agent"], "proxied");
    assert_eq!(serve.answer(&credential, &id, "proxied"), 200);
    let (code, out) = output_of(child);
    assert_eq!(code, 0);
    assert_eq!(out["answers"][2]["answer"], "proxied");
    assert!(relay.seen().contains("Which database"), "through the proxy");
    // A URL that names no host and port is refused before anything starts.
    let dir = tempfile::tempdir().unwrap();
    let child = common::serve_in(common::ask_user(), "127.0.0.1:0", dir.path())
        .args(["--public-url", "ask.example.org"])
        .spawn()
        .unwrap();
    let output = child.wait_with_output().unwrap();
    let said = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{said}");
    assert!(
        said.contains("--public-url needs the URL agents dial")
            && said.contains("`ask.example.org`"),
        "{said}"
    );
}

/// The socket the token file of `serve` names.
fn named_socket(serve: &Serve) -> PathBuf {
    let file = std::fs::read_to_string(serve.dir.path().join("ask-user/serve-token")).unwrap();
    let mut lines = file.lines();
    assert_eq!(lines.next().unwrap().len(), 64, "the token first: {file}");
    let socket = lines.find_map(|line| line.strip_prefix("socket ")).unwrap();
    PathBuf::from(socket)
}

#[test]
fn via_dials_the_socket_the_token_file_names_which_only_this_user_may_reach() {
    let serve = Serve::start();
    let socket = named_socket(&serve);
    let port = serve.host.rsplit(':').next().unwrap();
    assert_eq!(
        socket,
        serve.dir.path().join(format!("ask-user/serve-{port}.sock"))
    );
    let meta = std::fs::symlink_metadata(&socket).unwrap();
    assert!(meta.file_type().is_socket());
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    let folder = std::fs::metadata(socket.parent().unwrap()).unwrap();
    assert_eq!(folder.permissions().mode() & 0o777, 0o700);
    // A loopback URL on a port where nothing listens: only the socket can carry the ask.
    let nowhere = format!("http://{}", free_address());
    let path = serve.dir.path().join("local.json");
    std::fs::write(&path, call().to_string()).unwrap();
    let child = common::ask_user()
        .args(["--via", &nowhere, "--agent-name", "local"])
        .arg(&path)
        .env("XDG_RUNTIME_DIR", serve.dir.path())
        .env_remove("ASK_USER_VIA_TOKEN")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let credential = serve.visit(&serve.fresh_link());
    let asks = serve.wait_for(&credential, 1);
    let id = asks["asks"][0]["requestId"].as_str().unwrap().to_string();
    assert_eq!(serve.answer(&credential, &id, "local"), 200);
    let (code, out) = output_of(child);
    assert_eq!(code, 0);
    assert_eq!(out["answers"][2]["answer"], "local");
    // A clean stop removes the socket.
    let _dir = serve.stop();
    assert!(!socket.exists(), "{} removed", socket.display());
}

/// `ask-user serve --listen ADDRESS` with its files in `dir`, which is expected to fail: its
/// exit code and stderr.
fn serve_failing(address: &str, dir: &Path) -> (i32, String) {
    let child = common::serve_in(common::ask_user(), address, dir)
        .spawn()
        .unwrap();
    let output = child.wait_with_output().unwrap();
    (
        output.status.code().unwrap(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// A free address for `serve`, a runtime folder with its `ask-user` folder made (0700), and the
/// path `serve` will take for its socket there.
fn socket_place() -> (String, tempfile::TempDir, PathBuf) {
    use std::os::unix::fs::DirBuilderExt;
    let address = free_address();
    let port = address.rsplit(':').next().unwrap().to_string();
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("ask-user");
    std::fs::DirBuilder::new()
        .mode(0o700)
        .create(&folder)
        .unwrap();
    let socket = folder.join(format!("serve-{port}.sock"));
    (address, dir, socket)
}

#[test]
fn a_stale_socket_is_replaced_and_a_live_one_refuses_the_start() {
    use std::os::unix::net::{UnixListener, UnixStream};
    // A socket left by a `serve` that is gone: nothing listens on it any more.
    let (address, dir, stale) = socket_place();
    drop(UnixListener::bind(&stale).unwrap());
    assert!(UnixStream::connect(&stale).is_err(), "nothing listens");
    let (serve, _) = Serve::start_on(&address, dir, None, &[]);
    assert_eq!(named_socket(&serve), stale);
    UnixStream::connect(&stale).expect("the new socket listens");
    drop(serve);
    // A socket something still listens on: serve refuses to start, and names it.
    let (address, dir, live) = socket_place();
    let _listening = UnixListener::bind(&live).unwrap();
    let (code, said) = serve_failing(&address, dir.path());
    assert_eq!(code, 1, "{said}");
    assert!(
        said.contains(&format!(
            "cannot listen on the socket {}: another `ask-user serve` is listening on it",
            live.display()
        )),
        "{said}"
    );
    assert!(live.exists(), "the live socket is left alone");
    assert!(
        !live.with_file_name("serve-token").exists(),
        "no token file written"
    );
}

#[test]
fn a_token_folder_too_deep_for_a_socket_leaves_agents_on_tcp_with_a_warning() {
    use std::io::BufRead;
    // A socket's path holds at most 107 bytes: this folder's is longer.
    let dir = tempfile::Builder::new()
        .prefix(&"deep".repeat(30))
        .tempdir()
        .unwrap();
    let address = free_address();
    let mut child = common::serve_in(common::ask_user(), &address, dir.path())
        .spawn()
        .unwrap();
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut said = String::new();
    while !said.contains("inbox at ") {
        assert_ne!(stderr.read_line(&mut said).unwrap(), 0, "{said}");
    }
    assert!(
        said.contains("no socket for the agents of this machine")
            && said.contains("longer than the 107 bytes"),
        "{said}"
    );
    assert!(!said.contains("names the socket"), "{said}");
    let token = std::fs::read_to_string(dir.path().join("ask-user/serve-token")).unwrap();
    assert_eq!(token.lines().count(), 1, "no socket line: {token}");
    // The handshake over TCP still works: a fresh link for people.
    let fresh = common::ask_user()
        .args(["serve", "--link", "--via", &format!("http://{address}")])
        .env("XDG_RUNTIME_DIR", dir.path())
        .env_remove("ASK_USER_VIA_TOKEN")
        .output()
        .unwrap();
    let words = String::from_utf8_lossy(&fresh.stderr);
    assert_eq!(fresh.status.code(), Some(0), "{words}");
    assert!(words.contains("#token="), "{words}");
    let _ = child.kill();
    let _ = child.wait();
}

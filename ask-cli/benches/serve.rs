//! Answers per second through `ask-user serve` with 1,000 asks in flight.
//!
//! Starts the real binary's inbox on a free port, opens 1,000 asks through the agents' API
//! (`POST /api/agent/asks` with the agent token, HTTP/1.0 as `ask-user --via` sends them, each
//! held open), takes a session with the one-time link, then answers every ask through the
//! people's API (`POST /api/asks/{id}/answer` with the cookie, from a few keep-alive HTTP/1.1
//! connections) while the held agent responses are read until each has its `answered` line.
//! The rate is asks divided by the time from the first answer sent to the last agent told.
//! Plain std sockets: the load generator adds no dependency.
//!
//! `cargo bench -p ask-user --bench serve [-- --bin PATH] [--asks N] [--rounds N] [--people N]`
//! (a relative PATH is taken from the workspace root)
//! (default: the binary cargo builds for the bench, 1,000 asks, 5 rounds, 4 connections).
//! Prints one line per round and a last line `answers per second through serve: N/s (median)`.

#![allow(clippy::expect_used, clippy::print_stdout, clippy::unwrap_used)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const CALL: &str = r#"{"questions": [{"question": "Which database should we use?", "header": "Database",
  "options": [{"label": "PostgreSQL (Recommended)", "description": "Battle-tested relational DB"},
              {"label": "SQLite", "description": "Lightweight, file-based"}]}]}"#;

struct Options {
    bin: String,
    asks: usize,
    rounds: usize,
    people: usize,
}

fn options() -> Options {
    let mut options = Options {
        bin: env!("CARGO_BIN_EXE_ask-user").to_owned(),
        asks: 1000,
        rounds: 5,
        people: 4,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--bin" => {
                // `cargo bench` runs this in ask-cli/: a relative path is taken from the
                // workspace root, as the other benchmark commands take it.
                let bin = args.next().expect("--bin PATH");
                let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
                options.bin = root.join(bin).to_string_lossy().into_owned();
            }
            "--asks" => options.asks = args.next().and_then(|n| n.parse().ok()).expect("--asks N"),
            "--rounds" => {
                options.rounds = args
                    .next()
                    .and_then(|n| n.parse().ok())
                    .expect("--rounds N");
            }
            "--people" => {
                options.people = args
                    .next()
                    .and_then(|n| n.parse().ok())
                    .expect("--people N");
            }
            // `cargo bench` passes `--bench`; anything else is not ours either.
            _ => {}
        }
    }
    options
}

/// A running `ask-user serve`, killed when dropped.
struct Serve {
    child: Child,
    /// `127.0.0.1:PORT`.
    host: String,
    token: String,
    link: String,
    _folder: tempfile::TempDir,
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(bin: &str) -> Serve {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let token_file = folder.path().join("serve-token");
    let mut child = Command::new(bin)
        .args(["serve", "--listen", "127.0.0.1:0", "--token-file"])
        .arg(&token_file)
        .env_remove("ASK_USER_VIA_TOKEN")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ask-user serve starts");
    let mut stderr = BufReader::new(child.stderr.take().expect("stderr"));
    let (mut host, mut link) = (None, None);
    let mut line = String::new();
    while host.is_none() || link.is_none() {
        line.clear();
        assert!(
            stderr.read_line(&mut line).expect("serve's stderr") > 0,
            "serve ended before printing its address and link"
        );
        if let Some(rest) = line.split("inbox at http://").nth(1) {
            host = rest.split(':').take(2).collect::<Vec<_>>().join(":").into();
        }
        if let Some(at) = line.find("/?token=") {
            let token: String = line[at + "/?token=".len()..]
                .chars()
                .take_while(char::is_ascii_hexdigit)
                .collect();
            link = Some(format!("/?token={token}"));
        }
    }
    // Keep reading stderr so that serve never blocks on a full pipe.
    std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
    let token = std::fs::read_to_string(&token_file)
        .expect("the agent token")
        .trim()
        .to_owned();
    Serve {
        child,
        host: host.expect("the address"),
        token,
        link: link.expect("the link"),
        _folder: folder,
    }
}

/// Reads one HTTP/1.1 response with a `Content-Length` body; returns the status and the head.
fn response(reader: &mut BufReader<TcpStream>) -> (u16, String) {
    let mut head = String::new();
    loop {
        let before = head.len();
        assert!(
            reader.read_line(&mut head).expect("a response") > 0,
            "connection closed"
        );
        if head[before..].trim_end().is_empty() {
            break;
        }
    }
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status line");
    let length: usize = head
        .lines()
        .find_map(|l| {
            let (name, value) = l.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse().ok())?
        })
        .unwrap_or(0);
    let mut body = vec![0; length];
    reader.read_exact(&mut body).expect("the body");
    (status, head)
}

/// Spends the one-time link: the session cookie (`ask_user_session=…`).
fn session(serve: &Serve) -> String {
    let stream = TcpStream::connect(&serve.host).expect("connect");
    let mut reader = BufReader::new(stream.try_clone().expect("clone"));
    write!(
        &stream,
        "GET {} HTTP/1.1\r\nHost: {}\r\n\r\n",
        serve.link, serve.host
    )
    .expect("send");
    let (status, head) = response(&mut reader);
    assert_eq!(status, 303, "the link gives a session: {head}");
    head.lines()
        .find_map(|l| {
            let (name, value) = l.split_once(':')?;
            name.eq_ignore_ascii_case("set-cookie")
                .then(|| value.trim().split(';').next().unwrap_or("").to_owned())
        })
        .expect("a session cookie")
}

/// Opens one ask through the agents' API and waits for the head of its held response.
fn open_ask(serve: &Serve, index: usize) -> BufReader<TcpStream> {
    let body = format!(r#"{{"agent": "agent-{index}", "cwd": "/tmp", "input": {CALL}}}"#);
    let stream = TcpStream::connect(&serve.host).expect("connect");
    stream.set_nodelay(true).expect("nodelay");
    write!(
        &stream,
        "POST /api/agent/asks HTTP/1.0\r\nHost: {}\r\nAuthorization: Bearer {}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        serve.host,
        serve.token,
        body.len()
    )
    .expect("send the ask");
    BufReader::new(stream)
}

/// Reads the head of a held agent response (the ask is registered and waiting).
fn held_head(reader: &mut BufReader<TcpStream>) {
    let mut line = String::new();
    reader.read_line(&mut line).expect("the status line");
    assert!(line.contains(" 200 "), "the ask is held: {line}");
    while line.trim_end() != "" {
        line.clear();
        reader.read_line(&mut line).expect("a header");
    }
}

/// Reads a held agent response until its outcome line; heartbeats are blank lines.
fn outcome(reader: &mut BufReader<TcpStream>) -> String {
    let mut line = String::new();
    loop {
        line.clear();
        assert!(
            reader.read_line(&mut line).expect("the outcome") > 0,
            "the ask ended without an outcome"
        );
        if !line.trim().is_empty() {
            return line;
        }
    }
}

/// One round: `asks` asks opened and held, then all answered; the rate in answers per second.
fn round(serve: &Serve, cookie: &str, first_id: usize, options: &Options) -> f64 {
    let mut held: Vec<_> = (0..options.asks).map(|i| open_ask(serve, i)).collect();
    held.iter_mut().for_each(held_head);
    let ids: Vec<usize> = (first_id..first_id + options.asks).collect();
    let start = Instant::now();
    let people: Vec<_> = ids
        .chunks(options.asks.div_ceil(options.people))
        .map(|chunk| {
            let chunk = chunk.to_vec();
            let (host, cookie) = (serve.host.clone(), cookie.to_owned());
            std::thread::spawn(move || {
                let stream = TcpStream::connect(&host).expect("connect");
                stream.set_nodelay(true).expect("nodelay");
                let mut reader = BufReader::new(stream.try_clone().expect("clone"));
                let body = r#"{"answers":[{"answer":"SQLite"}]}"#;
                for id in chunk {
                    write!(
                        &stream,
                        "POST /api/asks/ask-{id}/answer HTTP/1.1\r\nHost: {host}\r\n\
                         Origin: http://{host}\r\nCookie: {cookie}\r\n\
                         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
                        body.len()
                    )
                    .expect("send the answer");
                    let (status, head) = response(&mut reader);
                    assert_eq!(status, 200, "ask-{id} is answered: {head}");
                }
            })
        })
        .collect();
    for reader in &mut held {
        let line = outcome(reader);
        assert!(
            line.contains(r#""state":"answered""#) && line.contains("SQLite"),
            "the agent gets the answer: {line}"
        );
    }
    let elapsed = start.elapsed();
    for person in people {
        person.join().expect("a person's connection");
    }
    options.asks as f64 / elapsed.as_secs_f64()
}

fn main() {
    let options = options();
    let serve = start(&options.bin);
    let cookie = session(&serve);
    // One uncounted round first, so the counted ones start warm.
    let mut next_id = 1;
    round(&serve, &cookie, next_id, &options);
    next_id += options.asks;
    let mut rates = Vec::new();
    for n in 1..=options.rounds {
        let rate = round(&serve, &cookie, next_id, &options);
        next_id += options.asks;
        println!(
            "round {n}: {rate:.0} answers/s with {} asks in flight",
            options.asks
        );
        rates.push(rate);
        // Let the closed connections of this round go before the next opens 1,000 more.
        std::thread::sleep(Duration::from_millis(100));
    }
    rates.sort_by(f64::total_cmp);
    let median = rates[rates.len() / 2];
    println!(
        "answers per second through serve: {median:.0}/s (median of {} rounds, {} asks in flight, {} people's connections)",
        options.rounds, options.asks, options.people
    );
}

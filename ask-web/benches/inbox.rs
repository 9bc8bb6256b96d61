//! Answers per second through the inbox with 1,000 asks in flight and one page subscribed, for
//! 10 rounds, and the memory of the process after many finished asks.
//!
//! The inbox runs in this process on a current-thread tokio runtime of its own, with its
//! descriptor limit raised and the bounds that follow, as `ask-user serve` runs it.
//! Each round opens 1,000 asks through the real agent side (`ViaFrontend`: the challenge, the
//! held request, the confirmation), one page reads the event stream the whole time, and people
//! answer every ask through the people's API from keep-alive HTTP/1.1 connections; the clock
//! runs from the first answer sent to the last agent that has its answer. Then more asks are
//! answered, a thousand at a time, until `--finished` asks have ended, and the resident memory
//! of the process is read from `/proc/self/status`.
//!
//! `cargo bench -p ask-web --bench inbox [-- --asks N] [--rounds N] [--people N] [--finished N]
//! [--store PATH]` (default: 1,000 asks, 10 rounds, 16 connections, 100,000 finished, no store;
//! with `--store`, the inbox keeps its asks in a new store at PATH, as `serve --store` does, and
//! every ask and answer waits for the disk; cargo runs benches in `ask-web/`, so give an absolute
//! PATH). Prints one line per round and the memory line.

// A bench is test code: it reads its own command line, and its helpers take what they need.
#![allow(
    clippy::disallowed_methods,
    clippy::expect_used,
    clippy::print_stdout,
    clippy::too_many_arguments,
    clippy::unwrap_used
)]

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use ask_core::{AskRequest, Frontend, Limits, Outcome};
use ask_web::{Asker, Inbox, ViaFrontend};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

const CALL: &str = r#"{"questions": [{"question": "Which database should we use?", "header": "Database",
  "options": [{"label": "PostgreSQL (Recommended)", "description": "Battle-tested relational DB"},
              {"label": "SQLite", "description": "Lightweight, file-based"}]}]}"#;

struct Options {
    asks: usize,
    rounds: usize,
    people: usize,
    finished: usize,
    store: Option<std::path::PathBuf>,
}

fn options() -> Options {
    let mut options = Options {
        asks: 1000,
        rounds: 10,
        people: 16,
        finished: 100_000,
        store: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut number = || args.next().and_then(|n| n.parse().ok()).expect("a number");
        match arg.as_str() {
            "--asks" => options.asks = number(),
            "--rounds" => options.rounds = number(),
            "--people" => options.people = number(),
            "--finished" => options.finished = number(),
            "--store" => options.store = args.next().map(Into::into),
            // `cargo bench` passes `--bench`; anything else is not ours either.
            _ => {}
        }
    }
    options
}

/// Reads one HTTP/1.1 response with a `Content-Length` body: the status and the body; `None`
/// when the connection closed first.
async fn response(reader: &mut BufReader<TcpStream>) -> Option<(u16, String)> {
    let mut head = String::new();
    loop {
        let before = head.len();
        if reader.read_line(&mut head).await.ok()? == 0 {
            return None;
        }
        if head[before..].trim_end().is_empty() {
            break;
        }
    }
    let status = head.split_whitespace().nth(1)?.parse().ok()?;
    let length: usize = head
        .lines()
        .find_map(|l| {
            let (name, value) = l.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse().ok())?
        })
        .unwrap_or(0);
    let mut body = vec![0; length];
    reader.read_exact(&mut body).await.ok()?;
    Some((status, String::from_utf8_lossy(&body).into_owned()))
}

/// A keep-alive connection of the page's API, with the person's credential.
struct Person {
    reader: BufReader<TcpStream>,
    host: String,
    credential: String,
}

impl Person {
    async fn connect(host: &str, credential: &str) -> Person {
        let stream = TcpStream::connect(host).await.unwrap();
        stream.set_nodelay(true).unwrap();
        Person {
            reader: BufReader::new(stream),
            host: host.to_string(),
            credential: credential.to_string(),
        }
    }

    /// `send`, on a new connection when the inbox closed this one to make room (it does so
    /// only before a connection's first request was served, so nothing was done twice).
    async fn send(&mut self, method: &str, path: &str, body: &str) -> (u16, String) {
        for _ in 0..5 {
            if let Some(reply) = self.try_send(method, path, body).await {
                return reply;
            }
            *self = Person::connect(&self.host, &self.credential).await;
        }
        panic!("{method} {path}: the inbox kept closing the connection");
    }

    async fn try_send(&mut self, method: &str, path: &str, body: &str) -> Option<(u16, String)> {
        let request = format!(
            "{method} {path} HTTP/1.1\r\nHost: {host}\r\nOrigin: http://{host}\r\n\
             Authorization: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            self.credential,
            body.len(),
            host = self.host,
        );
        self.reader
            .get_mut()
            .write_all(request.as_bytes())
            .await
            .unwrap();
        response(&mut self.reader).await
    }
}

/// Spends the link of `inbox` for a credential, as the page does.
async fn sign_in(inbox: &Inbox) -> String {
    let link = inbox.link();
    let token = link.rsplit("#token=").next().unwrap();
    let host = inbox.local_addr().to_string();
    let mut person = Person::connect(&host, "none").await;
    let (status, body) = person
        .send("POST", "/api/session", &format!(r#"{{"token":"{token}"}}"#))
        .await;
    assert_eq!(status, 200, "{body}");
    let reply: serde_json::Value = serde_json::from_str(&body).unwrap();
    format!("Bearer {}", reply["session"].as_str().unwrap())
}

/// The page: reads the event stream the whole time, opening it again when the inbox drops it
/// (as the page does when it falls behind); counts the bytes it got and the streams it opened.
async fn page(host: String, credential: String, bytes: Arc<AtomicU64>, streams: Arc<AtomicU64>) {
    loop {
        streams.fetch_add(1, Ordering::Relaxed);
        let Ok(mut stream) = TcpStream::connect(&host).await else {
            return;
        };
        let request = format!(
            "GET /api/events HTTP/1.0\r\nHost: {host}\r\nAuthorization: {credential}\r\n\r\n"
        );
        if stream.write_all(request.as_bytes()).await.is_err() {
            continue;
        }
        let mut buffer = vec![0u8; 64 * 1024];
        loop {
            match stream.read(&mut buffer).await {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    bytes.fetch_add(n as u64, Ordering::Relaxed);
                }
            }
        }
    }
}

/// The CPU time of this process so far.
fn cpu() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap();
    let fields: Vec<&str> = stat
        .rsplit(')')
        .next()
        .unwrap()
        .split_whitespace()
        .collect();
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    Duration::from_millis(ticks * 10)
}

/// The resident memory of this process, in KiB.
fn resident_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap()
}

/// One round: `asks` asks held, then all answered by `people` connections; the time from the
/// first answer sent to the last agent told.
async fn round(inbox: &Inbox, credential: &str, options: &Options) -> Duration {
    let host = inbox.local_addr().to_string();
    let call: serde_json::Value = serde_json::from_str(CALL).unwrap();
    let input = ask_schema::parse(&call, &Limits::default()).unwrap();
    let mut agents = tokio::task::JoinSet::new();
    for index in 0..options.asks {
        let via = ViaFrontend::new(
            inbox.base_url(),
            inbox.agent_token().to_string(),
            Asker {
                agent: Some(format!("agent-{index}")),
                cwd: Some("/tmp".to_string()),
            },
        )
        .unwrap();
        // No call id: the inbox numbers the asks `ask-1`, `ask-2`, … as the people answer them.
        let request = AskRequest {
            request_id: ask_core::testing::NO_CALL_ID.to_string(),
            input: input.clone(),
            given: Vec::new(),
        };
        agents.spawn(async move { via.present(&request).await.unwrap() });
    }
    // Every ask waits before the clock starts. The people answer the asks listed as waiting:
    // an agent whose connection was closed to make room asks again, under the next number.
    let mut person = Person::connect(&host, credential).await;
    let ids: Vec<String> = loop {
        let (_, body) = person.send("GET", "/api/asks", "").await;
        let list: serde_json::Value = serde_json::from_str(&body).unwrap();
        let waiting: Vec<String> = list["asks"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|a| a["state"] == "waiting_for_user")
            .map(|a| a["requestId"].as_str().unwrap().to_string())
            .collect();
        if waiting.len() == options.asks {
            break waiting;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let started = Instant::now();
    let mut people = tokio::task::JoinSet::new();
    for chunk in ids.chunks(options.asks.div_ceil(options.people)) {
        let chunk = chunk.to_vec();
        let (host, credential) = (host.clone(), credential.to_string());
        people.spawn(async move {
            let mut person = Person::connect(&host, &credential).await;
            let body = r#"{"answers":[{"answer":"SQLite"}]}"#;
            for id in chunk {
                let (status, reply) = person
                    .send("POST", &format!("/api/asks/{id}/answer"), body)
                    .await;
                assert_eq!(status, 200, "{id}: {reply}");
            }
        });
    }
    while let Some(outcome) = agents.join_next().await {
        assert!(matches!(outcome.unwrap(), Outcome::Answered(_)));
    }
    let elapsed = started.elapsed();
    while people.join_next().await.is_some() {}
    elapsed
}

fn main() {
    let options = options();
    // The inbox as `ask-user serve` runs it: on a current-thread runtime of its own, with its
    // descriptor limit raised and the bounds that follow from it. The agents, the people and
    // the page run on the other runtime.
    let server = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let descriptors = ask_web::raise_descriptor_limit().unwrap_or(u64::MAX);
    let inbox = {
        let _entered = server.enter();
        let addr = "127.0.0.1:0".parse().unwrap();
        let inbox = match &options.store {
            Some(path) => {
                for suffix in ["", "-wal", "-shm"] {
                    let mut file = path.as_os_str().to_os_string();
                    file.push(suffix);
                    let _ = std::fs::remove_file(file);
                }
                let store = Arc::new(ask_web::SqliteStore::open(path).unwrap());
                let tokens = ask_web::InboxTokens::fresh().unwrap();
                Inbox::bind_stored(
                    addr,
                    Limits::default(),
                    ask_web::Stored {
                        tokens,
                        store,
                        kept: Default::default(),
                    },
                )
                .unwrap()
            }
            None => Inbox::bind(addr, Limits::default()).unwrap(),
        };
        Arc::new(inbox.with_bounds(ask_web::Bounds::for_descriptors(descriptors)))
    };
    let stop = tokio_util::sync::CancellationToken::new();
    let serving = std::thread::spawn({
        let inbox = Arc::clone(&inbox);
        let stop = stop.clone();
        move || {
            server.block_on(inbox.serve_until(stop)).unwrap();
        }
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let credential = sign_in(&inbox).await;
        let page_bytes = Arc::new(AtomicU64::new(0));
        let page_streams = Arc::new(AtomicU64::new(0));
        let reading = tokio::spawn(page(
            inbox.local_addr().to_string(),
            credential.clone(),
            Arc::clone(&page_bytes),
            Arc::clone(&page_streams),
        ));
        let mut finished = 0;
        let mut rates = Vec::new();
        for n in 1..=options.rounds {
            let (cpu_before, bytes_before) = (cpu(), page_bytes.load(Ordering::Relaxed));
            let elapsed = round(&inbox, &credential, &options).await;
            finished += options.asks;
            let rate = options.asks as f64 / elapsed.as_secs_f64();
            let cpu_per_answer = (cpu() - cpu_before).as_micros() as f64 / options.asks as f64;
            let sent = page_bytes.load(Ordering::Relaxed) - bytes_before;
            println!(
                "round {n}: {rate:.0} answers/s, {cpu_per_answer:.0} µs CPU per answer (inbox and \
                 clients), {:.1} MB to the page, page streams opened so far {}, connections \
                 closed to make room so far {}",
                sent as f64 / 1e6,
                page_streams.load(Ordering::Relaxed),
                ask_web::testing::evicted(),
            );
            rates.push(rate);
        }
        if let (Some(first_rate), Some(last_rate)) = (rates.first(), rates.last()) {
            println!(
                "round {} / round 1: {:.0} %",
                rates.len(),
                100.0 * last_rate / first_rate
            );
        }
        while finished < options.finished {
            round(&inbox, &credential, &options).await;
            finished += options.asks;
        }
        println!(
            "resident memory after {finished} finished asks: {:.1} MiB (this process: the inbox, \
             its page and its clients)",
            resident_kib() as f64 / 1024.0
        );
        reading.abort();
    });
    stop.cancel();
    serving.join().unwrap();
}

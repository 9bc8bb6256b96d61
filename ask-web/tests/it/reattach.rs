//! `--via` against an inbox that keeps its asks and dies at the worst instant: a scripted inbox
//! on 127.0.0.1 writes the outcome to the agent's held connection and goes away before the
//! agent's confirmation reaches it, then comes back with the same ask. Nothing here needs more
//! than the Rust toolchain.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ask_core::{Answer, Frontend, Outcome};
use ask_web::testing::auth;
use ask_web::{Asker, ViaFrontend};
use serde_json::{Value, json};

/// How long the test waits for the agent before it fails: a bound, never a pace.
const PATIENCE: Duration = Duration::from_secs(20);

/// What the scripted inbox does with the agent's first confirmation.
#[derive(Clone, Copy)]
enum FirstReceipt {
    /// The inbox died: the connection closes before any reply.
    Dropped,
    /// The inbox came back at once, without the outcome in flight: `409`.
    Unknown,
    /// The inbox took the confirmation and died before it answered: it no longer has the ask
    /// when the agent attaches again (`404`).
    Taken,
}

/// One request: its path and its body.
fn read_request(stream: &mut TcpStream) -> (String, String) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut line = String::new();
    reader.read_line(&mut line).unwrap();
    let path = line.split(' ').nth(1).unwrap().to_string();
    let mut length = 0;
    loop {
        let mut header = String::new();
        reader.read_line(&mut header).unwrap();
        if header.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().unwrap();
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).unwrap();
    (path, String::from_utf8(body).unwrap())
}

fn reply(stream: &mut TcpStream, status: &str, headers: &str, body: &str) {
    let response =
        format!("HTTP/1.0 {status}\r\n{headers}Content-Type: application/json\r\n\r\n{body}");
    stream.write_all(response.as_bytes()).unwrap();
}

/// Serves the agent as an inbox with a store would across a restart, logging each path.
fn scripted_inbox(token: String, first: FirstReceipt) -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let log = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&log);
    std::thread::spawn(move || {
        let outcome = json!({"state": "answered", "answers": [
            {"question": "Which database?", "answer": "SQLite", "selectedOption": "SQLite",
             "wasCustom": false}]})
        .to_string();
        let held = "X-Ask-Capability: 00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff\r\n\
                    X-Ask-Kept: 1\r\n";
        let mut receipts = 0;
        for stream in listener.incoming() {
            let mut stream = stream.unwrap();
            let (path, body) = read_request(&mut stream);
            seen.lock().unwrap().push(path.clone());
            match path.as_str() {
                "/api/agent/hello" => {
                    let hello: Value = serde_json::from_str(&body).unwrap();
                    let ours = auth::random_token().unwrap();
                    let exchange = auth::Exchange {
                        client_nonce: hello["nonce"].as_str().unwrap(),
                        inbox_nonce: &ours,
                        address: hello["address"].as_str().unwrap(),
                    };
                    let proof = auth::inbox_proof(&token, exchange);
                    reply(
                        &mut stream,
                        "200 OK",
                        "",
                        &json!({"nonce": ours, "proof": proof}).to_string(),
                    );
                }
                // The outcome goes out on the held connection, which then ends.
                "/api/agent/wait" if matches!(first, FirstReceipt::Taken) => reply(
                    &mut stream,
                    "404 Not Found",
                    "",
                    r#"{"error": "no waiting ask has this capability"}"#,
                ),
                "/api/agent/asks" | "/api/agent/wait" => {
                    reply(&mut stream, "200 OK", held, &format!("\n{outcome}\n"));
                }
                "/api/agent/received" => {
                    receipts += 1;
                    match (receipts, first) {
                        (1, FirstReceipt::Dropped | FirstReceipt::Taken) => drop(stream),
                        (1, FirstReceipt::Unknown) => reply(
                            &mut stream,
                            "409 Conflict",
                            "",
                            r#"{"error": "no outcome was sent for this ask"}"#,
                        ),
                        _ => reply(&mut stream, "200 OK", "", "{}"),
                    }
                }
                other => panic!("an unexpected request to {other}"),
            }
        }
    });
    (url, log)
}

/// The agent's outcome, and the requests the inbox saw apart from the `hello`s.
async fn confirmation_lost(first: FirstReceipt) -> Vec<String> {
    let token = auth::random_token().unwrap();
    let (url, log) = scripted_inbox(token.clone(), first);
    let via = ViaFrontend::new(&url, token, Asker::default()).unwrap();
    let outcome = tokio::time::timeout(PATIENCE, via.present(&common::one_choice("toolu_kept")))
        .await
        .expect("an outcome in time")
        .unwrap();
    assert_eq!(
        outcome,
        Outcome::Answered(vec![Answer::selected("Which database?", "SQLite")])
    );
    let paths = log.lock().unwrap().clone();
    paths
        .into_iter()
        .filter(|path| path != "/api/agent/hello")
        .collect()
}

/// The agent attached again and confirmed the outcome handed to it again.
const TAKEN_AGAIN: [&str; 4] = [
    "/api/agent/asks",
    "/api/agent/received",
    "/api/agent/wait",
    "/api/agent/received",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_outcome_whose_confirmation_the_dying_inbox_never_heard_is_taken_again() {
    assert_eq!(confirmation_lost(FirstReceipt::Dropped).await, TAKEN_AGAIN);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_outcome_whose_confirmation_the_restarted_inbox_does_not_know_is_taken_again() {
    assert_eq!(confirmation_lost(FirstReceipt::Unknown).await, TAKEN_AGAIN);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_outcome_whose_ask_the_restarted_inbox_finished_stays_the_agents() {
    assert_eq!(
        confirmation_lost(FirstReceipt::Taken).await,
        ["/api/agent/asks", "/api/agent/received", "/api/agent/wait"]
    );
}

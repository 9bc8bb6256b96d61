//! The page's data, served in process: what `GET /api/asks` tells the page about masking and
//! about answers given before the page took over, through the single-ask page and through an
//! inbox fed by `ViaFrontend`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::io::{Read, Write};

use std::time::{Duration, Instant};

use common::{http, prove, visit};

use ask_core::{
    Answer, AskRequest, AskUserInput, Frontend, Limits, Outcome, Question, ValidatedInput,
};
use ask_web::{Asker, Inbox, ViaFrontend, WebFrontend};
use serde_json::{Value, json};

/// A secret choice, a secret multi-select, a plain choice and a free-text question.
fn call() -> ValidatedInput {
    let input = AskUserInput {
        questions: vec![
            Question::choice("Which key?", ["key-alpha", "key-beta"]).secret(),
            Question::choice("Which scopes?", ["read", "write"])
                .multi()
                .secret(),
            Question::choice("Which database?", ["PostgreSQL (Recommended)", "SQLite"]),
            Question::text("Name?"),
        ],
        metadata: None,
    };
    ask_core::validate(input, &Limits::default()).unwrap()
}

/// Answers given elsewhere to the plain questions: an option with a note, and typed text.
fn given(input: &ValidatedInput) -> Vec<Option<Answer>> {
    vec![
        None,
        None,
        Some(Answer::from_text(&input.questions[2], "sqlite").with_notes(Some("tests only"))),
        Some(Answer::custom("Name?", "orders")),
    ]
}

/// The page's data for the four questions with the answers of [`given`].
fn expected_page_data() -> (Value, Value) {
    (
        json!(["[secret]", "[secret]", null, null]),
        json!([null, null, {"chosen": [1], "notes": "tests only"}, {"chosen": [], "other": "orders"}]),
    )
}

/// The page's list of asks, once it holds one.
fn asks(addr: &str, credential: &str) -> Value {
    let start = Instant::now();
    loop {
        let (status, _, body) = http(
            addr,
            "GET",
            "/api/asks",
            &[("Authorization", credential)],
            "",
        );
        assert_eq!(status, 200, "{body}");
        let mut snapshot: Value = serde_json::from_str(&body).unwrap();
        if let Some(asks) = snapshot["asks"].as_array_mut()
            && !asks.is_empty()
        {
            // The list holds summaries: each ask's questions come when the page opens it.
            for ask in asks.iter_mut() {
                let path = format!("/api/asks/{}", ask["requestId"].as_str().unwrap());
                let (status, _, body) =
                    http(addr, "GET", &path, &[("Authorization", credential)], "");
                assert_eq!(status, 200, "{body}");
                *ask = serde_json::from_str(&body).unwrap();
            }
            return snapshot;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "no ask reached the page"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Posts the page's answer to the first ask of `snapshot`, as the page does.
fn answer(addr: &str, credential: &str, snapshot: &Value, answers: &Value) {
    let origin = format!("http://{addr}");
    let id = snapshot["asks"][0]["requestId"].as_str().unwrap();
    let (status, _, body) = http(
        addr,
        "POST",
        &format!("/api/asks/{id}/answer"),
        &[
            ("Authorization", credential),
            ("Origin", &origin),
            ("Content-Type", "application/json"),
        ],
        &json!({ "answers": answers }).to_string(),
    );
    assert_eq!(status, 200, "{body}");
}

fn page_answers() -> Value {
    json!([{"answer": "key-beta"}, {"answer": ["read", "sso-scope"]},
           {"answer": "SQLite", "notes": "tests only"}, {"answer": "orders"}])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_is_told_each_mask_and_each_given_answer() {
    let web = WebFrontend::bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let link = web.link().to_string();
    let input = call();
    let request = AskRequest {
        request_id: "toolu_1".into(),
        given: given(&input),
        input,
    };
    let person = tokio::task::spawn_blocking(move || {
        let (addr, credential) = visit(&link);
        let snapshot = asks(&addr, &credential);
        answer(&addr, &credential, &snapshot, &page_answers());
        snapshot
    });
    let outcome = web.present(&request).await.unwrap();
    let snapshot = person.await.unwrap();
    let (masks, given) = expected_page_data();
    assert_eq!(snapshot["asks"][0]["masks"], masks, "{snapshot}");
    assert_eq!(snapshot["asks"][0]["given"], given, "{snapshot}");
    let Outcome::Answered(answers) = outcome else {
        panic!("answered: {outcome:?}");
    };
    assert_eq!(answers[0], Answer::selected("Which key?", "key-beta"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nothing_given_sends_no_given_answers() {
    let web = WebFrontend::bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let link = web.link().to_string();
    let request = AskRequest {
        request_id: "toolu_2".into(),
        given: Vec::new(),
        input: call(),
    };
    let person = tokio::task::spawn_blocking(move || {
        let (addr, credential) = visit(&link);
        let snapshot = asks(&addr, &credential);
        answer(&addr, &credential, &snapshot, &page_answers());
        snapshot
    });
    web.present(&request).await.unwrap();
    let snapshot = person.await.unwrap();
    assert_eq!(snapshot["asks"][0].get("given"), None, "{snapshot}");
    assert_eq!(snapshot["asks"][0]["masks"], expected_page_data().0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn via_sends_given_answers_to_the_inbox_which_gives_them_to_the_page() {
    let inbox = std::sync::Arc::new(
        Inbox::bind("127.0.0.1:0".parse().unwrap(), Limits::default()).unwrap(),
    );
    let serving = {
        let inbox = std::sync::Arc::clone(&inbox);
        tokio::spawn(async move { inbox.serve().await })
    };
    let via = ViaFrontend::new(
        inbox.base_url(),
        inbox.agent_token().to_string(),
        Asker {
            agent: Some("tester".into()),
            cwd: None,
        },
    )
    .unwrap();
    let link = inbox.link();
    let input = call();
    let request = AskRequest {
        request_id: "toolu_3".into(),
        given: given(&input),
        input,
    };
    let person = tokio::task::spawn_blocking(move || {
        let (addr, credential) = visit(&link);
        let snapshot = asks(&addr, &credential);
        answer(&addr, &credential, &snapshot, &page_answers());
        snapshot
    });
    let outcome = via.present(&request).await.unwrap();
    let snapshot = person.await.unwrap();
    let (masks, given) = expected_page_data();
    assert_eq!(snapshot["asks"][0]["agent"], "tester");
    assert_eq!(snapshot["asks"][0]["masks"], masks, "{snapshot}");
    assert_eq!(snapshot["asks"][0]["given"], given, "{snapshot}");
    assert!(matches!(outcome, Outcome::Answered(_)), "{outcome:?}");
    serving.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_inbox_refuses_given_answers_that_do_not_fit_the_questions() {
    let inbox = std::sync::Arc::new(
        Inbox::bind("127.0.0.1:0".parse().unwrap(), Limits::default()).unwrap(),
    );
    let serving = {
        let inbox = std::sync::Arc::clone(&inbox);
        tokio::spawn(async move { inbox.serve().await })
    };
    let addr = inbox.local_addr().to_string();
    let token = inbox.agent_token().to_string();
    let post = move |given: Value| {
        let body = json!({"input": {"questions": [{"question": "Name?"}]}, "given": given});
        let authorization = prove(&addr, &token);
        http(
            &addr,
            "POST",
            "/api/agent/asks",
            &[
                ("Authorization", &authorization),
                ("Content-Type", "application/json"),
            ],
            &body.to_string(),
        )
    };
    let (too_many, other_question) = tokio::task::spawn_blocking(move || {
        (
            post(json!([null, null])),
            post(json!([{"question": "Age?", "answer": "3", "wasCustom": true}])),
        )
    })
    .await
    .unwrap();
    assert_eq!(too_many.0, 422, "{}", too_many.2);
    assert!(
        too_many.2.contains("given holds 2 answers for 1 questions"),
        "{}",
        too_many.2
    );
    assert_eq!(other_question.0, 422, "{}", other_question.2);
    assert!(
        other_question.2.contains("names the question \\\"Age?\\\""),
        "{}",
        other_question.2
    );
    serving.abort();
}

/// A program squatting on the inbox's port: it answers `hello` with a made-up proof and
/// records every byte it receives; it gives them back with its listener, where any later
/// connection would wait.
fn squatter() -> (
    String,
    std::thread::JoinHandle<(Vec<u8>, std::net::TcpListener)>,
) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let recorded = std::thread::spawn(move || {
        let mut seen = Vec::new();
        // `--via` makes one request, the hello, and stops when the proof is wrong.
        let (mut stream, _) = listener.accept().unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(2)))
            .unwrap();
        let mut buffer = [0u8; 4096];
        while let Ok(n) = stream.read(&mut buffer) {
            if n == 0 {
                break;
            }
            seen.extend_from_slice(&buffer[..n]);
            if seen.windows(4).any(|w| w == b"\r\n\r\n") && seen.ends_with(b"}") {
                break;
            }
        }
        let body = json!({"nonce": "ab".repeat(32), "proof": "cd".repeat(32)}).to_string();
        let _ = write!(
            stream,
            "HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n{body}"
        );
        drop(stream);
        (seen, listener)
    });
    (format!("http://{addr}"), recorded)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn via_sends_nothing_to_a_server_that_cannot_prove_it_holds_the_token() {
    let (url, recorded) = squatter();
    let token = "5ec2e7".repeat(10) + "abcd";
    let via = ViaFrontend::new(&url, token.clone(), Asker::default()).unwrap();
    let input = call();
    let request = AskRequest {
        request_id: "toolu_9".into(),
        given: Vec::new(),
        input,
    };
    let error = via.present(&request).await.unwrap_err().to_string();
    assert!(error.contains("is not the ask-user inbox"), "{error}");
    let (seen, listener) = recorded.join().unwrap();
    // `present` has returned: nothing more arrived, no ask, no token. A connection it had
    // opened would be waiting in the listener's queue.
    listener.set_nonblocking(true).unwrap();
    assert!(listener.accept().is_err(), "a second connection");
    let seen = String::from_utf8(seen).unwrap();
    assert!(seen.starts_with("POST /api/agent/hello "), "{seen}");
    assert!(
        !seen.contains(&token),
        "the token crossed the socket: {seen}"
    );
    assert!(
        !seen.contains("Which"),
        "the questions crossed the socket: {seen}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopping_inbox_tells_its_agents_and_ends() {
    let inbox = std::sync::Arc::new(
        Inbox::bind("127.0.0.1:0".parse().unwrap(), Limits::default()).unwrap(),
    );
    let stop = tokio_util::sync::CancellationToken::new();
    let serving = {
        let inbox = std::sync::Arc::clone(&inbox);
        let stop = stop.clone();
        tokio::spawn(async move { inbox.serve_until(stop).await })
    };
    let via = ViaFrontend::new(
        inbox.base_url(),
        inbox.agent_token().to_string(),
        Asker::default(),
    )
    .unwrap();
    let request = AskRequest {
        request_id: "toolu_4".into(),
        given: Vec::new(),
        input: call(),
    };
    let link = inbox.link();
    let waiting = tokio::spawn(async move { via.present(&request).await.unwrap() });
    tokio::task::spawn_blocking(move || {
        let (addr, credential) = visit(&link);
        let deadline = Instant::now() + Duration::from_secs(10);
        while asks(&addr, &credential)["asks"]
            .as_array()
            .unwrap()
            .is_empty()
        {
            assert!(Instant::now() < deadline, "the ask arrives");
            std::thread::sleep(Duration::from_millis(20));
        }
    })
    .await
    .unwrap();
    stop.cancel();
    // The agent hears that the inbox stopped, and the inbox ends.
    let outcome = tokio::time::timeout(Duration::from_secs(10), waiting)
        .await
        .expect("the agent is told in time")
        .unwrap();
    assert_eq!(outcome, Outcome::ConnectionLost);
    tokio::time::timeout(Duration::from_secs(10), serving)
        .await
        .expect("the inbox stops in time")
        .unwrap()
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_that_sends_no_headers_or_stays_idle_is_closed() {
    let bounds = ask_web::Bounds {
        header_timeout: Duration::from_millis(300),
        ..ask_web::Bounds::default()
    };
    let inbox = std::sync::Arc::new(
        Inbox::bind("127.0.0.1:0".parse().unwrap(), Limits::default())
            .unwrap()
            .with_bounds(bounds),
    );
    let serving = {
        let inbox = std::sync::Arc::clone(&inbox);
        tokio::spawn(async move { inbox.serve().await })
    };
    let addr = inbox.local_addr().to_string();
    let closed_within = tokio::task::spawn_blocking(move || {
        let closed_after = |mut stream: std::net::TcpStream| {
            let started = Instant::now();
            stream
                .set_read_timeout(Some(Duration::from_secs(10)))
                .unwrap();
            let mut rest = Vec::new();
            let _ = stream.read_to_end(&mut rest);
            (
                started.elapsed(),
                String::from_utf8_lossy(&rest).to_string(),
            )
        };
        // Silent from the start.
        let silent = std::net::TcpStream::connect(&addr).unwrap();
        let (silent, _) = closed_after(silent);
        // Half the headers, then nothing.
        let mut slow = std::net::TcpStream::connect(&addr).unwrap();
        slow.write_all(b"GET / HTTP/1.1\r\nHost: 127.0").unwrap();
        let (slow, _) = closed_after(slow);
        // One request served, then idle on a kept-alive connection.
        let mut kept = std::net::TcpStream::connect(&addr).unwrap();
        write!(kept, "GET /app.css HTTP/1.1\r\nHost: {addr}\r\n\r\n").unwrap();
        let (idle, reply) = closed_after(kept);
        assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
        [silent, slow, idle]
    })
    .await
    .unwrap();
    for elapsed in closed_within {
        assert!(
            elapsed >= Duration::from_millis(250) && elapsed < Duration::from_secs(5),
            "{elapsed:?}"
        );
    }
    serving.abort();
}

/// A server on the inbox's port that answers the hello with `reply`, written until the agent
/// stops reading.
fn flooding(reply: Vec<u8>) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        stream
            .set_read_timeout(Some(Duration::from_millis(200)))
            .unwrap();
        let _ = stream.read(&mut [0u8; 4096]);
        let _ = stream.write_all(&reply);
    });
    addr
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn via_stops_reading_a_server_that_sends_an_endless_line_or_too_many_headers() {
    let request = AskRequest {
        request_id: "toolu_8".into(),
        given: Vec::new(),
        input: call(),
    };
    let token = "5ec2e7".repeat(10) + "abcd";
    // One header line of 9 MiB, past the cap of 8 MiB: the agent stops there.
    let mut endless = b"HTTP/1.0 200 OK\r\nX-Filler: ".to_vec();
    endless.resize(endless.len() + 9 * 1024 * 1024, b'a');
    let mut many = b"HTTP/1.0 200 OK\r\n".to_vec();
    for n in 0..101 {
        many.extend_from_slice(format!("X-Header-{n}: {n}\r\n").as_bytes());
    }
    many.extend_from_slice(b"\r\n{}");
    for (reply, says) in [
        (endless, "a line longer than 8388608 bytes"),
        (many, "more than 100 headers"),
    ] {
        let url = format!("http://{}", flooding(reply));
        let via = ViaFrontend::new(&url, token.clone(), Asker::default()).unwrap();
        let error = tokio::time::timeout(Duration::from_secs(20), via.present(&request))
            .await
            .expect("the agent stops reading")
            .unwrap_err()
            .to_string();
        assert!(error.contains(says), "{error}");
    }
}

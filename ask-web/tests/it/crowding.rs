//! `--via` when strangers crowd the inbox's table of challenges: a proxy on 127.0.0.1 between
//! `ViaFrontend` and a real inbox sends the inbox as many strangers' `hello`s as the table holds
//! just before it forwards an agent's ask, which pushes the agent's own challenge out. Nothing
//! here needs more than the Rust toolchain.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use ask_core::{Answer, Frontend, Limits, Outcome};
use ask_web::testing::auth;
use ask_web::{Asker, Inbox, ViaFrontend};
use axum::body::Body;
use axum::http::{Request, StatusCode};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tower::ServiceExt;

/// How long a test waits for an event before it fails: a bound, never a pace.
const PATIENCE: Duration = Duration::from_secs(20);

/// An inbox served on 127.0.0.1, and a proxy in front of it that crowds its challenges.
struct Crowded {
    inbox: Arc<Inbox>,
    /// How many of the agents' asks still get a crowd before them.
    crowds: AtomicUsize,
    /// The `hello`s and the asks the proxy forwarded.
    hellos: AtomicUsize,
    asks: AtomicUsize,
}

impl Crowded {
    /// An inbox and the proxy's address (`http://127.0.0.1:PORT`); the first `crowds` asks
    /// that pass the proxy are preceded by a crowd.
    async fn start(crowds: usize) -> (Arc<Crowded>, String) {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        // The proxy is the inbox's own, as a reverse proxy would be.
        let inbox = Inbox::bind("127.0.0.1:0".parse().unwrap(), Limits::default())
            .unwrap()
            .with_public_urls(std::slice::from_ref(&url))
            .unwrap();
        let inbox = Arc::new(inbox);
        {
            let inbox = Arc::clone(&inbox);
            tokio::spawn(async move { inbox.serve().await });
        }
        let crowded = Arc::new(Crowded {
            inbox,
            crowds: AtomicUsize::new(crowds),
            hellos: AtomicUsize::new(0),
            asks: AtomicUsize::new(0),
        });
        let proxy = Arc::clone(&crowded);
        tokio::spawn(async move {
            loop {
                let (client, _) = listener.accept().await.unwrap();
                tokio::spawn(Arc::clone(&proxy).forward(client));
            }
        });
        (crowded, url)
    }

    /// Reads one request from `client`, crowds the inbox first when it is an ask that should
    /// be crowded, then passes the request and everything after it both ways.
    async fn forward(self: Arc<Crowded>, mut client: TcpStream) {
        let mut request = Vec::new();
        let mut chunk = [0u8; 4096];
        let head_end = loop {
            let read = client.read(&mut chunk).await.unwrap();
            assert!(read > 0, "a whole head");
            request.extend_from_slice(&chunk[..read]);
            if let Some(at) = request.windows(4).position(|w| w == b"\r\n\r\n") {
                break at + 4;
            }
        };
        let head = String::from_utf8_lossy(&request[..head_end]).to_string();
        let length: usize = head
            .lines()
            .find_map(|line| line.strip_prefix("Content-Length: "))
            .map_or(0, |n| n.trim().parse().unwrap());
        while request.len() < head_end + length {
            let read = client.read(&mut chunk).await.unwrap();
            assert!(read > 0, "a whole body");
            request.extend_from_slice(&chunk[..read]);
        }
        if head.starts_with("POST /api/agent/hello ") {
            self.hellos.fetch_add(1, Ordering::SeqCst);
        }
        if head.starts_with("POST /api/agent/asks ") {
            self.asks.fetch_add(1, Ordering::SeqCst);
            let crowd = self
                .crowds
                .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
                .is_ok();
            if crowd {
                self.crowd().await;
            }
        }
        let mut server = TcpStream::connect(self.inbox.local_addr()).await.unwrap();
        server.write_all(&request).await.unwrap();
        let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
    }

    /// As many strangers' `hello`s as the inbox keeps challenges, through its own router.
    async fn crowd(&self) {
        let router = self.inbox.router();
        let host = self.inbox.local_addr().to_string();
        for _ in 0..auth::MAX_CHALLENGES {
            let nonce = auth::random_token().unwrap();
            let hello = Request::post("/api/agent/hello")
                .header("host", &host)
                .header("content-type", "application/json")
                .body(Body::from(
                    json!({ "nonce": nonce, "address": host }).to_string(),
                ))
                .unwrap();
            let reply = router.clone().oneshot(hello).await.unwrap();
            assert_eq!(reply.status(), StatusCode::OK);
        }
    }

    /// The person: opens the inbox's link, waits for one ask and answers it.
    async fn answer_the_ask(&self) {
        let router = self.inbox.router();
        let host = self.inbox.local_addr().to_string();
        let origin = format!("http://{host}");
        let send = |request: axum::http::request::Builder, body: Value| {
            let router = router.clone();
            let request = request
                .header("host", &host)
                .header("content-type", "application/json")
                .body(Body::from(body.to_string()))
                .unwrap();
            async move {
                let reply = router.oneshot(request).await.unwrap();
                let status = reply.status();
                let body = axum::body::to_bytes(reply.into_body(), usize::MAX)
                    .await
                    .unwrap();
                (status, serde_json::from_slice::<Value>(&body).unwrap())
            }
        };
        let link = self.inbox.link();
        let token = link.split("#token=").nth(1).unwrap();
        let exchange = Request::post("/api/session").header("origin", &origin);
        let (status, session) = send(exchange, json!({ "token": token })).await;
        assert_eq!(status, StatusCode::OK);
        let credential = format!("Bearer {}", session["session"].as_str().unwrap());
        let deadline = Instant::now() + PATIENCE;
        let id = loop {
            let list = Request::get("/api/asks").header("authorization", &credential);
            let (_, asks) = send(list, Value::Null).await;
            if let Some(id) = asks["asks"][0]["requestId"].as_str() {
                break id.to_string();
            }
            assert!(Instant::now() < deadline, "the ask arrives");
            tokio::time::sleep(Duration::from_millis(20)).await;
        };
        let answer = Request::post(format!("/api/asks/{id}/answer"))
            .header("origin", &origin)
            .header("authorization", &credential);
        let (status, reply) = send(answer, json!({"answers": [{"answer": "SQLite"}]})).await;
        assert_eq!(status, StatusCode::OK, "{reply}");
    }
}

fn via(url: &str, token: &str) -> ViaFrontend {
    ViaFrontend::new(url, token.to_string(), Asker::default()).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn via_takes_a_fresh_challenge_when_strangers_pushed_its_own_out() {
    let (crowded, url) = Crowded::start(2).await;
    let via = via(&url, crowded.inbox.agent_token());
    let person = {
        let crowded = Arc::clone(&crowded);
        tokio::spawn(async move { crowded.answer_the_ask().await })
    };
    let outcome = tokio::time::timeout(PATIENCE, via.present(&common::one_choice("toolu_crowd")))
        .await
        .expect("answered in time")
        .unwrap();
    person.await.unwrap();
    assert_eq!(
        outcome,
        Outcome::Answered(vec![Answer::selected("Which database?", "SQLite")])
    );
    // Two asks were refused for their pushed-out challenge; the third, on a fresh one, held.
    assert_eq!(crowded.asks.load(Ordering::SeqCst), 3);
    assert_eq!(crowded.hellos.load(Ordering::SeqCst), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn via_gives_up_on_a_lasting_crowd_after_a_bounded_number_of_tries_and_says_why() {
    let (crowded, url) = Crowded::start(usize::MAX).await;
    let via = via(&url, crowded.inbox.agent_token());
    let started = Instant::now();
    let error = tokio::time::timeout(PATIENCE, via.present(&common::one_choice("toolu_crowd")))
        .await
        .expect("it gives up in time")
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("(401): refused: this challenge is unknown or expired"),
        "{error}"
    );
    assert_eq!(
        crowded.asks.load(Ordering::SeqCst),
        ask_web::testing::CONNECT_TRIES
    );
    // The pauses between the tries double from 50 ms.
    let paused = Duration::from_millis(50 * ((1 << (ask_web::testing::CONNECT_TRIES - 1)) - 1));
    assert!(started.elapsed() >= paused, "{:?}", started.elapsed());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn via_with_a_wrong_token_fails_at_once_even_in_a_crowd() {
    let (crowded, url) = Crowded::start(usize::MAX).await;
    let via = via(&url, &"0".repeat(64));
    let error = tokio::time::timeout(PATIENCE, via.present(&common::one_choice("toolu_crowd")))
        .await
        .expect("it fails in time")
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("is not the ask-user inbox this token belongs to"),
        "{error}"
    );
    assert_eq!(crowded.hellos.load(Ordering::SeqCst), 1, "no second try");
    assert_eq!(crowded.asks.load(Ordering::SeqCst), 0, "nothing asked");
}

//! The budget of request bodies one server holds at once. Nothing here needs more than the Rust
//! toolchain.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{Read, Write};
use std::time::{Duration, Instant};

use ask_core::Limits;
use ask_web::Inbox;
use ask_web::testing::{BODY_BUDGET, BODY_TIMEOUT, MAX_BODY};

/// Sends the headers of a POST announcing `length` bytes of body, and `body`.
fn post(addr: &str, length: usize, body: &str) -> std::net::TcpStream {
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    write!(
        stream,
        "POST /api/session HTTP/1.1\r\nHost: {addr}\r\nOrigin: http://{addr}\r\n\
         Content-Type: application/json\r\nContent-Length: {length}\r\n\r\n{body}"
    )
    .unwrap();
    stream
}

fn status(mut stream: std::net::TcpStream) -> String {
    stream.set_read_timeout(Some(BODY_TIMEOUT * 3)).unwrap();
    let mut reply = [0u8; 12];
    stream.read_exact(&mut reply).unwrap();
    String::from_utf8_lossy(&reply[9..12]).to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bodies_held_at_once_stay_within_the_budget() {
    let inbox = std::sync::Arc::new(
        Inbox::bind("127.0.0.1:0".parse().unwrap(), Limits::default()).unwrap(),
    );
    let serving = {
        let inbox = std::sync::Arc::clone(&inbox);
        tokio::spawn(async move { inbox.serve().await })
    };
    let addr = inbox.local_addr().to_string();
    let (waited, elapsed, hogs, later, quick) = tokio::task::spawn_blocking(move || {
        // Clients that announce the largest bodies and send none fill the budget.
        let hogs: Vec<_> = (0..BODY_BUDGET / MAX_BODY)
            .map(|_| post(&addr, MAX_BODY, ""))
            .collect();
        std::thread::sleep(Duration::from_millis(300));
        // A small request waits for room: it comes once the slow bodies are cut off.
        let body = r#"{"token":"0"}"#;
        let started = Instant::now();
        let waited = status(post(&addr, body.len(), body));
        let elapsed = started.elapsed();
        let hogs: Vec<String> = hogs.into_iter().map(status).collect();
        // With the room free, a request is served at once.
        let started = Instant::now();
        let later = status(post(&addr, body.len(), body));
        (waited, elapsed, hogs, later, started.elapsed())
    })
    .await
    .unwrap();
    // A made-up token: refused for what it is, once there was room to read it.
    assert_eq!(waited, "403");
    assert!(
        elapsed >= BODY_TIMEOUT - Duration::from_secs(1),
        "{elapsed:?}"
    );
    assert!(hogs.iter().all(|status| status == "408"), "{hogs:?}");
    assert_eq!(later, "403");
    assert!(quick < Duration::from_secs(1), "{quick:?}");
    serving.abort();
}

//! The budget of request bodies one server holds at once, through the inbox's own router
//! (`tower::ServiceExt::oneshot`) on tokio's paused clock: the runtime skips ahead to the next
//! timer whenever every task waits, so the test takes no time and proves the order of the
//! timeouts, not a pace. Nothing here needs more than the Rust toolchain.

use std::time::Duration;

use ask_core::Limits;
use ask_web::Inbox;
use ask_web::testing::{BODY_BUDGET, BODY_TIMEOUT, MAX_BODY};
use axum::Router;
use axum::body::{Body, Bytes};
use axum::http::{Request, StatusCode};
use tokio::time::Instant;
use tower::ServiceExt;

/// `POST /api/session` with `body`, as the page at `host` sends it; gives the status.
async fn post(router: Router, host: String, body: Body) -> StatusCode {
    let request = Request::post("/api/session")
        .header("host", &host)
        .header("origin", format!("http://{host}"))
        .header("content-type", "application/json")
        .body(body)
        .unwrap();
    router.oneshot(request).await.unwrap().status()
}

/// A body that never arrives, counted at the largest size a body may have.
fn never() -> Body {
    Body::from_stream(futures_util::stream::pending::<Result<Bytes, std::io::Error>>())
}

#[tokio::test(start_paused = true)]
async fn bodies_held_at_once_stay_within_the_budget() {
    let inbox = Inbox::bind("127.0.0.1:0".parse().unwrap(), Limits::default()).unwrap();
    let router = inbox.router();
    let host = inbox.local_addr().to_string();
    // Clients that announce the largest bodies and send none fill the budget.
    let hogs: Vec<_> = (0..BODY_BUDGET / MAX_BODY)
        .map(|_| tokio::spawn(post(router.clone(), host.clone(), never())))
        .collect();
    tokio::time::sleep(Duration::from_millis(300)).await;
    // A small request waits for room: it comes once the slow bodies are cut off.
    let body = r#"{"token":"0"}"#;
    let started = Instant::now();
    let waited = post(router.clone(), host.clone(), Body::from(body)).await;
    let elapsed = started.elapsed();
    let mut statuses = Vec::new();
    for hog in hogs {
        statuses.push(hog.await.unwrap());
    }
    // With the room free, a request is served at once.
    let started = Instant::now();
    let later = post(router, host, Body::from(body)).await;
    let quick = started.elapsed();
    // A made-up token: refused for what it is, once there was room to read it.
    assert_eq!(waited, StatusCode::FORBIDDEN);
    assert_eq!(elapsed, BODY_TIMEOUT - Duration::from_millis(300));
    assert!(
        statuses.iter().all(|s| *s == StatusCode::REQUEST_TIMEOUT),
        "{statuses:?}"
    );
    assert_eq!(later, StatusCode::FORBIDDEN);
    assert_eq!(quick, Duration::ZERO);
}

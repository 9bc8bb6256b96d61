//! The budget of request bodies one server holds at once, through the inbox's own router
//! (`tower::ServiceExt::oneshot`) on tokio's paused clock: the runtime skips ahead to the next
//! timer whenever every task waits, so the test takes no time and proves the order of the
//! timeouts, not a pace. Nothing here needs more than the Rust toolchain.

use std::time::Duration;

use ask_core::{Frontend, Limits};
use ask_web::{Asker, Inbox, ViaFrontend};

use crate::common;
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

/// How long a test waits for an event before it fails: a bound, never a pace.
const PATIENCE: Duration = Duration::from_secs(20);

/// An inbox served on 127.0.0.1 on a task of its own.
fn served(inbox: Inbox) -> std::sync::Arc<Inbox> {
    let inbox = std::sync::Arc::new(inbox);
    let serving = std::sync::Arc::clone(&inbox);
    tokio::spawn(async move { serving.serve().await });
    inbox
}

fn bind() -> Inbox {
    Inbox::bind("127.0.0.1:0".parse().unwrap(), Limits::default()).unwrap()
}

/// The body of an ask of one question from `agent`, for the call `call_id`.
fn ask_body(agent: &str, call_id: &str) -> String {
    padded_ask_body(agent, call_id, 0)
}

/// The same, with `padding` more characters in its question.
fn padded_ask_body(agent: &str, call_id: &str, padding: usize) -> String {
    serde_json::json!({
        "agent": agent,
        "callId": call_id,
        "input": {"questions": [{
            "question": format!("Which database for {call_id}? {}", "x".repeat(padding)),
            "header": "Database",
            "options": [{"label": "PostgreSQL"}, {"label": "SQLite"}],
        }]},
    })
    .to_string()
}

/// An agent that sends an ask and reads the head of the reply: with `leave`, it then closes
/// the connection (it went away); else the connection is kept open in what it gives back.
fn ask_raw(
    addr: &str,
    token: &str,
    body: &str,
    leave: bool,
) -> (u16, String, Option<std::net::TcpStream>) {
    use std::io::{Read, Write};
    let authorization = common::prove(addr, token);
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(PATIENCE)).unwrap();
    let request = format!(
        "POST /api/agent/asks HTTP/1.1\r\nHost: {addr}\r\nAuthorization: {authorization}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).unwrap();
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        assert_eq!(stream.read(&mut byte).unwrap(), 1, "a whole head");
        head.push(byte[0]);
    }
    let head = String::from_utf8(head).unwrap();
    let status: u16 = head.split(' ').nth(1).unwrap().parse().unwrap();
    let mut rest = String::new();
    if status != 200 {
        let _ = stream.read_to_string(&mut rest);
    }
    let kept = (status == 200 && !leave).then_some(stream);
    (status, format!("{head}{rest}"), kept)
}

/// The list the page gets (`GET /api/asks`).
fn list(addr: &str, credential: &str) -> serde_json::Value {
    let (status, _, body) = common::http(
        addr,
        "GET",
        "/api/asks",
        &[("Authorization", credential)],
        "",
    );
    assert_eq!(status, 200, "{body}");
    serde_json::from_str(&body).unwrap()
}

/// The person answers the ask `id` with SQLite; gives the status.
fn answer(addr: &str, credential: &str, id: &str) -> u16 {
    let origin = format!("http://{addr}");
    common::http(
        addr,
        "POST",
        &format!("/api/asks/{id}/answer"),
        &[
            ("Authorization", credential),
            ("Origin", &origin),
            ("Content-Type", "application/json"),
        ],
        r#"{"answers": [{"answer": "SQLite"}]}"#,
    )
    .0
}

fn blocking<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> JoinHandle<T> {
    tokio::task::spawn_blocking(work)
}

type JoinHandle<T> = tokio::task::JoinHandle<T>;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn agents_holding_every_held_connection_lock_out_neither_the_page_nor_the_link() {
    let bounds = ask_web::Bounds {
        max_held: 3,
        ..ask_web::Bounds::default()
    };
    let inbox = served(bind().with_bounds(bounds));
    let (addr, token) = (
        inbox.local_addr().to_string(),
        inbox.agent_token().to_string(),
    );
    let link = inbox.link();
    // Three asks take every held connection the inbox allows.
    let hog = ViaFrontend::new(
        inbox.base_url(),
        token.clone(),
        Asker {
            agent: Some("hog".into()),
            cwd: None,
        },
    )
    .unwrap();
    let held: Vec<_> = (0..3)
        .map(|n| {
            let hog = hog.clone();
            tokio::spawn(async move { hog.present(&common::one_choice(&format!("hog-{n}"))).await })
        })
        .collect();
    let deadline = std::time::Instant::now() + PATIENCE;
    while inbox.waiting() < 3 {
        assert!(
            std::time::Instant::now() < deadline,
            "the hog's asks arrive"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // A fourth is refused for now, and told when to try again.
    let (a, t) = (addr.clone(), token.clone());
    let (status, head, _) = blocking(move || ask_raw(&a, &t, &ask_body("other", "x"), false))
        .await
        .unwrap();
    assert_eq!(status, 503, "{head}");
    assert!(head.to_lowercase().contains("retry-after: 2\r\n"), "{head}");
    assert!(head.contains("as many waiting agents as it can"), "{head}");
    // The person's page and the link exchange still get in.
    let (a, l) = (addr.clone(), link.clone());
    let (_, credential) = blocking(move || common::visit(&l)).await.unwrap();
    let c = credential.clone();
    let asks = blocking(move || list(&a, &c)).await.unwrap();
    assert_eq!(asks["asks"].as_array().unwrap().len(), 3, "{asks}");
    let people = ViaFrontend::for_people(inbox.base_url(), inbox.people_token().to_string());
    let fresh = people.unwrap().fresh_link().await.unwrap();
    assert!(fresh.contains("#token="), "{fresh}");
    // An agent that gives up soon says why; a patient one gets in once the person answered.
    let quick = ViaFrontend::new(inbox.base_url(), token.clone(), Asker::default())
        .unwrap()
        .waiting_for_room(Duration::from_secs(1));
    let error = quick
        .present(&common::one_choice("toolu_quick"))
        .await
        .unwrap_err()
        .to_string();
    assert!(error.contains("had no room for the questions"), "{error}");
    assert!(error.contains("gave up (503)"), "{error}");
    let patient = ViaFrontend::new(inbox.base_url(), token.clone(), Asker::default()).unwrap();
    let waiting = tokio::spawn(async move {
        patient
            .present(&common::one_choice("toolu_patient"))
            .await
            .unwrap()
    });
    let (a, c) = (addr.clone(), credential.clone());
    let first = asks["asks"][0]["requestId"].as_str().unwrap().to_string();
    assert_eq!(blocking(move || answer(&a, &c, &first)).await.unwrap(), 200);
    let (a, c) = (addr.clone(), credential.clone());
    let id = loop {
        let (a, c) = (a.clone(), c.clone());
        let asks = blocking(move || list(&a, &c)).await.unwrap();
        let patient = asks["asks"].as_array().unwrap().iter().find(|ask| {
            ask["state"] == "waiting_for_user" && ask["count"] == 1 && ask.get("agent").is_none()
        });
        if let Some(ask) = patient {
            break ask["requestId"].as_str().unwrap().to_string();
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(blocking(move || answer(&a, &c, &id)).await.unwrap(), 200);
    let outcome = tokio::time::timeout(PATIENCE, waiting)
        .await
        .unwrap()
        .unwrap();
    assert!(
        matches!(outcome, ask_core::Outcome::Answered(_)),
        "{outcome:?}"
    );
    drop(held);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_at_its_quota_is_refused_and_another_agent_still_asks() {
    let quota = ask_web::Quota {
        asks: 2,
        ..ask_web::Quota::default()
    };
    let inbox = served(bind().with_quota(quota));
    let (addr, token) = (
        inbox.local_addr().to_string(),
        inbox.agent_token().to_string(),
    );
    let mut held = Vec::new();
    for n in 0..2 {
        let (a, t) = (addr.clone(), token.clone());
        let body = ask_body("busy", &format!("call-{n}"));
        let (status, head, stream) = blocking(move || ask_raw(&a, &t, &body, false))
            .await
            .unwrap();
        assert_eq!(status, 200, "{head}");
        held.push(stream.unwrap());
    }
    let (a, t) = (addr.clone(), token.clone());
    let (status, head, _) = blocking(move || ask_raw(&a, &t, &ask_body("busy", "third"), false))
        .await
        .unwrap();
    assert_eq!(status, 429, "{head}");
    assert!(head.to_lowercase().contains("retry-after: 2\r\n"), "{head}");
    assert!(
        head.contains("this agent (its name and folder) already has 2 asks"),
        "{head}"
    );
    // The same name in another folder is another agent.
    let body = serde_json::json!({
        "agent": "busy", "cwd": "/elsewhere",
        "input": {"questions": [{"question": "Go?", "header": "Go", "options": [{"label": "Yes"}, {"label": "No"}]}]},
    })
    .to_string();
    let (a, t) = (addr.clone(), token.clone());
    let (status, head, other) = blocking(move || ask_raw(&a, &t, &body, false))
        .await
        .unwrap();
    assert_eq!(status, 200, "{head}");
    assert_eq!(inbox.waiting(), 3);
    drop((held, other));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn asks_of_an_agent_that_went_away_leave_its_quota_fill_the_budget_and_go_in_one_action() {
    let dir = tempfile::tempdir().unwrap();
    let store = ask_web::SqliteStore::open(&dir.path().join("asks.db")).unwrap();
    let kept = ask_web::AskStore::load(&store).await.unwrap();
    let stored = ask_web::Stored {
        tokens: ask_web::InboxTokens::fresh().unwrap(),
        store: std::sync::Arc::new(store),
        kept,
    };
    let quota = ask_web::Quota {
        asks: 1,
        away_after: Duration::from_millis(300),
        ..ask_web::Quota::default()
    };
    let inbox = Inbox::bind_stored("127.0.0.1:0".parse().unwrap(), Limits::default(), stored)
        .unwrap()
        .with_quota(quota)
        .with_budget(3000);
    let inbox = served(inbox);
    let (addr, token) = (
        inbox.local_addr().to_string(),
        inbox.agent_token().to_string(),
    );
    let (a, link) = (addr.clone(), inbox.link());
    let (_, credential) = blocking(move || common::visit(&link)).await.unwrap();
    let page = |a: String, c: String| async move { blocking(move || list(&a, &c)).await.unwrap() };
    // The agent asks and goes away, again and again: while it may still come back, its ask
    // counts against its quota; once it stayed away, it no longer does, but fills the budget.
    let mut full = None;
    for n in 0..20 {
        let (a2, t) = (a.clone(), token.clone());
        let (status, head, _) = blocking(move || {
            ask_raw(
                &a2,
                &t,
                &padded_ask_body("gone", &format!("call-{n}"), 600),
                true,
            )
        })
        .await
        .unwrap();
        if status == 503 {
            full = Some(head);
            break;
        }
        assert_eq!(status, 200, "{head}");
        let (a2, t) = (a.clone(), token.clone());
        let (status, head, _) =
            blocking(move || ask_raw(&a2, &t, &ask_body("gone", "too-soon"), true))
                .await
                .unwrap();
        assert_eq!(status, 429, "{head}");
        let asks = loop {
            let asks = page(a.clone(), credential.clone()).await;
            if asks["asks"]
                .as_array()
                .unwrap()
                .iter()
                .all(|ask| ask["away"] == true)
            {
                break asks;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        assert_eq!(asks["asks"].as_array().unwrap().len(), n + 1);
    }
    let full = full.expect("the budget fills");
    assert!(
        full.contains("as many waiting questions as it can (2 KiB)"),
        "{full}"
    );
    // Every agent is refused now, and the page is told that the inbox is full.
    let (a2, t) = (a.clone(), token.clone());
    let (status, _, _) =
        blocking(move || ask_raw(&a2, &t, &padded_ask_body("fresh", "one", 600), true))
            .await
            .unwrap();
    assert_eq!(status, 503);
    let asks = page(a.clone(), credential.clone()).await;
    assert_eq!(asks["full"], true, "{asks}");
    let held = asks["asks"].as_array().unwrap().len();
    // An ask whose agent is away stays answerable: its answer is saved for the agent.
    let first = asks["asks"][0]["requestId"].as_str().unwrap().to_string();
    let (a2, c) = (a.clone(), credential.clone());
    assert_eq!(
        blocking(move || answer(&a2, &c, &first)).await.unwrap(),
        202
    );
    // The person cancels the rest of that agent's asks in one action.
    let origin = format!("http://{a}");
    let (a2, c) = (a.clone(), credential.clone());
    let (status, _, body) = blocking(move || {
        common::http(
            &a2,
            "POST",
            "/api/agents/cancel",
            &[
                ("Authorization", &c),
                ("Origin", &origin),
                ("Content-Type", "application/json"),
            ],
            r#"{"agent": "gone", "cwd": null}"#,
        )
    })
    .await
    .unwrap();
    assert_eq!(status, 200, "{body}");
    let cancelled: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(cancelled["cancelled"], held - 1, "{body}");
    let asks = page(a.clone(), credential.clone()).await;
    assert!(asks.get("full").is_none(), "{asks}");
    // Saved outcomes still wait for their agent, in the budget, but the room is back.
    let (a2, t) = (a.clone(), token.clone());
    let (status, head, _) =
        blocking(move || ask_raw(&a2, &t, &padded_ask_body("fresh", "two", 600), true))
            .await
            .unwrap();
    assert_eq!(status, 200, "{head}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_connections_closes_one_still_sending_its_request_and_the_page_gets_in() {
    use std::io::{Read, Write};
    let bounds = ask_web::Bounds {
        max_unauthenticated: 4,
        ..ask_web::Bounds::default()
    };
    let inbox = served(bind().with_bounds(bounds));
    let addr = inbox.local_addr().to_string();
    let link = inbox.link();
    let evicted = ask_web::testing::evicted();
    let (slow, page) = blocking(move || {
        // A client sends half a request and stops: it holds no place a flood cannot take.
        let mut slow = std::net::TcpStream::connect(&addr).unwrap();
        slow.set_read_timeout(Some(PATIENCE)).unwrap();
        let head = format!(
            "POST /api/session HTTP/1.1\r\nHost: {addr}\r\nOrigin: http://{addr}\r\n\
             Content-Type: application/json\r\nContent-Length: 13\r\n\r\n{{\"to"
        );
        slow.write_all(head.as_bytes()).unwrap();
        std::thread::sleep(Duration::from_millis(100));
        let strangers: Vec<_> = (0..40)
            .map(|_| std::net::TcpStream::connect(&addr).unwrap())
            .collect();
        let mut reply = Vec::new();
        let slow = slow.read_to_end(&mut reply).map(|_| reply.len());
        // The person's page comes amid the strangers, and gets in.
        let page = common::visit(&link);
        drop(strangers);
        (slow.map_err(|e| e.kind()), page)
    })
    .await
    .unwrap();
    assert!(matches!(slow, Ok(0) | Err(_)), "closed: {slow:?}");
    assert!(page.1.starts_with("Bearer "), "{page:?}");
    assert!(ask_web::testing::evicted() >= evicted + 36);
}

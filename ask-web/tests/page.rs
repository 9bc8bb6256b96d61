//! The page's data, served in process: what `GET /api/asks` tells the page about masking and
//! about answers given before the page took over, through the single-ask page and through an
//! inbox fed by `ViaFrontend`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{Read, Write};
use std::time::{Duration, Instant};

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

/// One HTTP/1.1 request to `addr`, read to the end: the status, the headers and the body.
fn http(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String, String) {
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut request = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    stream.write_all(request.as_bytes()).unwrap();
    let mut raw = String::new();
    stream.read_to_string(&mut raw).unwrap();
    let (head, body) = raw.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, head.to_string(), body.to_string())
}

/// A person's browser: the session cookie the one-time `link` is exchanged for.
fn visit(link: &str) -> (String, String) {
    let rest = link.strip_prefix("http://").unwrap();
    let (addr, path) = rest.split_at(rest.find('/').unwrap());
    let (status, head, _) = http(addr, "GET", path, &[], "");
    assert_eq!(status, 303, "{head}");
    let cookie = head
        .lines()
        .find_map(|line| line.strip_prefix("set-cookie: "))
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_string();
    (addr.to_string(), cookie)
}

/// The page's list of asks, once it holds one.
fn asks(addr: &str, cookie: &str) -> Value {
    let start = Instant::now();
    loop {
        let (status, _, body) = http(addr, "GET", "/api/asks", &[("Cookie", cookie)], "");
        assert_eq!(status, 200, "{body}");
        let snapshot: Value = serde_json::from_str(&body).unwrap();
        if snapshot["asks"]
            .as_array()
            .is_some_and(|asks| !asks.is_empty())
        {
            return snapshot;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "no ask reached the page"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Posts the page's answer to `ask-1`, as the page does.
fn answer(addr: &str, cookie: &str, answers: &Value) {
    let origin = format!("http://{addr}");
    let (status, _, body) = http(
        addr,
        "POST",
        "/api/asks/ask-1/answer",
        &[
            ("Cookie", cookie),
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
        let (addr, cookie) = visit(&link);
        let snapshot = asks(&addr, &cookie);
        answer(&addr, &cookie, &page_answers());
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
        let (addr, cookie) = visit(&link);
        let snapshot = asks(&addr, &cookie);
        answer(&addr, &cookie, &page_answers());
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
        let (addr, cookie) = visit(&link);
        let snapshot = asks(&addr, &cookie);
        answer(&addr, &cookie, &page_answers());
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
    let bearer = format!("Bearer {}", inbox.agent_token());
    let post = move |given: Value| {
        let body = json!({"input": {"questions": [{"question": "Name?"}]}, "given": given});
        http(
            &addr,
            "POST",
            "/api/agent/asks",
            &[
                ("Authorization", &bearer),
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

//! What the tests of the page and the inbox share: plain HTTP requests, as a browser or an agent
//! sends them, over real connections to 127.0.0.1.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{Read, Write};
use std::time::Duration;

use serde_json::{Value, json};

/// One HTTP/1.1 request to `addr`, read to the end: the status, the headers and the body.
pub(crate) fn http(
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

/// The challenge-response of an agent holding `token`: the `Authorization` of one request.
pub(crate) fn prove(addr: &str, token: &str) -> String {
    let nonce = ask_web::testing::auth::random_token().unwrap();
    let body = json!({"nonce": nonce, "address": addr}).to_string();
    let (status, _, reply) = http(
        addr,
        "POST",
        "/api/agent/hello",
        &[("Content-Type", "application/json")],
        &body,
    );
    assert_eq!(status, 200, "{reply}");
    let reply: Value = serde_json::from_str(&reply).unwrap();
    let exchange = ask_web::testing::auth::Exchange {
        client_nonce: &nonce,
        inbox_nonce: reply["nonce"].as_str().unwrap(),
        address: addr,
    };
    ask_web::testing::auth::authorization(token, exchange)
}

/// A person's browser: spends the one-time token of `link` (in its fragment) as the page
/// does, and gives the address and the `Authorization` value of the credential.
pub(crate) fn visit(link: &str) -> (String, String) {
    let rest = link.strip_prefix("http://").unwrap();
    let (addr, path) = rest.split_at(rest.find('/').unwrap());
    let token = path.strip_prefix("/#token=").unwrap();
    let origin = format!("http://{addr}");
    let (status, head, body) = http(
        addr,
        "POST",
        "/api/session",
        &[("Origin", &origin), ("Content-Type", "application/json")],
        &json!({ "token": token }).to_string(),
    );
    assert_eq!(status, 200, "{head}");
    let reply: Value = serde_json::from_str(&body).unwrap();
    let credential = format!("Bearer {}", reply["session"].as_str().unwrap());
    (addr.to_string(), credential)
}

/// One question, "Which database?", as an agent's call with the id `call_id`.
pub(crate) fn one_choice(call_id: &str) -> ask_core::AskRequest {
    let input = ask_core::AskUserInput {
        questions: vec![ask_core::Question::choice(
            "Which database?",
            ["PostgreSQL", "SQLite"],
        )],
        metadata: None,
    };
    ask_core::AskRequest {
        request_id: call_id.into(),
        given: Vec::new(),
        input: ask_core::validate(input, &ask_core::Limits::default()).unwrap(),
    }
}

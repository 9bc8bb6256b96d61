//! The web page and the inbox as a browser, an agent or an attacker sees them: each request goes
//! through the presenter's own router (`WebFrontend::router`, `Inbox::router`) with
//! `tower::ServiceExt::oneshot`, in process, on the same state that `present` and the agents'
//! asks use. Waits follow the page's own event stream or the held response, never the clock.
//! Nothing here needs more than the Rust toolchain.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use ask_core::{Answer, AnswerValue, AskRequest, Frontend, Limits, Outcome, PresentError};
use ask_web::testing::{CSP, MAX_BODY};
use ask_web::{Inbox, WebFrontend};
use axum::Router;
use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, Method, Request, StatusCode, header};
use futures_util::StreamExt;
use serde_json::{Value, json};
use tokio::task::JoinHandle;
use tower::ServiceExt;

/// What the page is told when its answer did not reach the agent.
const NOT_DELIVERED: &str = "your agent stopped waiting: the answers were not delivered, and \
                             they stay on this page";

/// How long a test waits for an event before it fails: a bound, never a pace.
const PATIENCE: Duration = Duration::from_secs(20);

/// Three questions: a single choice with a recommended option, a multi-select and free text.
fn call() -> Value {
    json!({"questions": [
        {"question": "Which database should we use?", "header": "Database", "options": [
            {"label": "PostgreSQL (Recommended)", "description": "Battle-tested relational DB"},
            {"label": "SQLite", "description": "Lightweight, file-based"}]},
        {"question": "Which features should we include?", "header": "Features",
         "multiSelect": true,
         "options": [{"label": "Authentication"}, {"label": "REST API"},
                     {"label": "Admin Dashboard"}]},
        {"question": "What should we name this service?", "header": "Name"}]})
}

/// Answers to [`call`] as the page sends them, with a note on the last.
fn answers(name: &str) -> Value {
    json!({"answers": [{"answer": "SQLite"}, {"answer": ["REST API", "Authentication"]},
                       {"answer": name, "notes": format!("note on {name}")}]})
}

/// What the agent receives for [`answers`].
fn answered(name: &str) -> Vec<Answer> {
    vec![
        Answer::selected("Which database should we use?", "SQLite"),
        Answer::multi(
            "Which features should we include?",
            vec!["Authentication".into(), "REST API".into()],
            None,
        ),
        Answer::custom("What should we name this service?", name)
            .with_notes(Some(format!("note on {name}"))),
    ]
}

/// One response, its body read whole (or left as a stream for the event stream and the held
/// response).
struct Reply {
    status: StatusCode,
    headers: HeaderMap,
    body: Body,
}

impl Reply {
    fn header(&self, name: header::HeaderName) -> &str {
        self.headers
            .get(&name)
            .unwrap_or_else(|| panic!("no {name} header"))
            .to_str()
            .unwrap()
    }

    async fn text(self) -> String {
        let bytes = axum::body::to_bytes(self.body, usize::MAX).await.unwrap();
        String::from_utf8(bytes.to_vec()).unwrap()
    }

    async fn json(self) -> Value {
        let text = self.text().await;
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
    }

    /// The sentence of a refusal with status `status`: plain text for a request refused before
    /// it reached an address (host, origin, session, spent link), `{"error": …}` from the API.
    async fn refusal_text(self, status: StatusCode) -> String {
        assert_eq!(self.status, status);
        let json = self
            .header(header::CONTENT_TYPE)
            .starts_with("application/json");
        if json {
            let body = self.json().await;
            body["error"].as_str().unwrap().to_string()
        } else {
            self.text().await
        }
    }
}

/// A request as a client would send it.
struct Outgoing {
    request: axum::http::request::Builder,
    body: Body,
}

fn request(method: Method, path: &str) -> Outgoing {
    Outgoing {
        request: Request::builder().method(method).uri(path),
        body: Body::empty(),
    }
}

fn get(path: &str) -> Outgoing {
    request(Method::GET, path)
}

fn post(path: &str) -> Outgoing {
    request(Method::POST, path)
}

impl Outgoing {
    fn header(mut self, name: &str, value: &str) -> Outgoing {
        self.request = self.request.header(name, value);
        self
    }

    fn json(mut self, body: &Value) -> Outgoing {
        self.body = Body::from(body.to_string());
        self.header("content-type", "application/json")
    }

    /// Sent over the inbox's Unix socket by a process of user id `uid`.
    fn over_socket(mut self, uid: u32) -> Outgoing {
        self.request = ask_web::testing::over_socket(self.request, uid);
        self
    }

    fn body(mut self, body: impl Into<Bytes>) -> Outgoing {
        self.body = Body::from(body.into());
        self
    }

    /// Sends it through `router`. Every response, refusals included, carries the
    /// Content-Security-Policy and the other headers that keep the page to itself.
    async fn to(self, router: &Router) -> Reply {
        let request = self.request.body(self.body).unwrap();
        let response = router.clone().oneshot(request).await.unwrap();
        let (parts, body) = response.into_parts();
        let headers = parts.headers;
        assert_eq!(headers.get(header::CONTENT_SECURITY_POLICY).unwrap(), CSP);
        assert_eq!(
            headers.get(header::X_CONTENT_TYPE_OPTIONS).unwrap(),
            "nosniff"
        );
        assert_eq!(headers.get(header::REFERRER_POLICY).unwrap(), "no-referrer");
        assert_eq!(headers.get(header::X_FRAME_OPTIONS).unwrap(), "DENY");
        assert_eq!(headers.get(header::CACHE_CONTROL).unwrap(), "no-store");
        Reply {
            status: parts.status,
            headers,
            body,
        }
    }
}

/// A page (the single-ask web presenter or the inbox) as its person reaches it.
struct Page {
    router: Router,
    /// `127.0.0.1:PORT`, the `Host` of every request.
    host: String,
    /// `http://127.0.0.1:PORT`, the `Origin` of the page's own requests.
    origin: String,
}

impl Page {
    fn new(router: Router, link: &str) -> Page {
        let host = link
            .strip_prefix("http://")
            .unwrap()
            .split('/')
            .next()
            .unwrap()
            .to_string();
        Page {
            router,
            origin: format!("http://{host}"),
            host,
        }
    }

    /// `send` from this page's host.
    async fn send(&self, send: Outgoing) -> Reply {
        send.header("host", &self.host).to(&self.router).await
    }

    /// The path and query of `link`.
    fn path<'a>(&self, link: &'a str) -> &'a str {
        link.strip_prefix(&self.origin).unwrap()
    }

    /// The link's token, from its fragment (`/#token=…`).
    fn token<'a>(&self, link: &'a str) -> &'a str {
        let path = self.path(link);
        assert!(path.starts_with("/#token="), "{link}");
        path.strip_prefix("/#token=").unwrap()
    }

    /// Spends `token` as the page does (`POST /api/session`).
    async fn exchange(&self, token: &str) -> Reply {
        self.send(
            post("/api/session")
                .header("origin", &self.origin)
                .json(&json!({ "token": token })),
        )
        .await
    }

    /// Spends `token` as the page does, with the browser key `key` this browser holds.
    async fn exchange_holding(&self, token: &str, key: &str) -> Reply {
        self.send(
            post("/api/session")
                .header("origin", &self.origin)
                .json(&json!({ "token": token, "key": key })),
        )
        .await
    }

    /// Spends the token of `link` as the page does, and gives the `Authorization` value of the
    /// credential it was exchanged for. No cookie is ever set.
    async fn visit(&self, link: &str) -> String {
        let reply = self.exchange(self.token(link)).await;
        assert_eq!(reply.status, StatusCode::OK);
        assert!(reply.headers.get(header::SET_COOKIE).is_none());
        let session = reply.json().await["session"].as_str().unwrap().to_string();
        assert_eq!(session.len(), 64, "256 bits");
        format!("Bearer {session}")
    }

    /// `GET /api/asks` with the person's `credential`.
    async fn asks(&self, credential: &str) -> Value {
        let reply = self
            .send(get("/api/asks").header("authorization", credential))
            .await;
        assert_eq!(reply.status, StatusCode::OK);
        reply.json().await
    }

    /// `GET /api/asks/{id}` with the person's `credential`: the ask with its questions.
    async fn ask(&self, credential: &str, id: &str) -> Reply {
        self.send(get(&format!("/api/asks/{id}")).header("authorization", credential))
            .await
    }

    /// Posts `body` to `/api/asks/{id}/{action}` as the page does.
    async fn post(&self, credential: &str, id: &str, action: &str, body: &Value) -> Reply {
        self.send(
            post(&format!("/api/asks/{id}/{action}"))
                .header("authorization", credential)
                .header("origin", &self.origin)
                .json(body),
        )
        .await
    }

    /// The page's event stream.
    async fn events(&self, credential: &str) -> Events {
        let reply = self
            .send(get("/api/events").header("authorization", credential))
            .await;
        assert_eq!(reply.status, StatusCode::OK);
        assert_eq!(reply.header(header::CONTENT_TYPE), "text/event-stream");
        Events {
            stream: Box::pin(reply.body.into_data_stream()),
            buffer: String::new(),
            list: json!({"asks": [], "closing": false}),
        }
    }
}

type DataStream =
    std::pin::Pin<Box<dyn futures_util::Stream<Item = Result<Bytes, axum::Error>> + Send>>;

/// The server-sent events of `GET /api/events`, applied as the page applies them: the whole
/// list first, then each change.
struct Events {
    stream: DataStream,
    buffer: String,
    list: Value,
}

impl Events {
    /// The list after the next event, or `None` once the stream ended.
    async fn next(&mut self) -> Option<Value> {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let frame: String = self.buffer.drain(..end + 2).collect();
                if frame.starts_with(':') {
                    continue;
                }
                let (event, data) = frame
                    .strip_prefix("event: ")
                    .and_then(|rest| rest.split_once("\ndata: "))
                    .unwrap_or_else(|| panic!("not an event: {frame:?}"));
                let data: Value = serde_json::from_str(data.trim_end()).unwrap();
                match event {
                    "asks" => self.list = data,
                    "ask" => {
                        let asks = self.list["asks"].as_array_mut().unwrap();
                        match asks
                            .iter_mut()
                            .find(|a| a["requestId"] == data["requestId"])
                        {
                            Some(ask) => *ask = data,
                            None => asks.push(data),
                        }
                        self.list["closing"] = json!(false);
                    }
                    "closing" => self.list["closing"] = json!(true),
                    other => panic!("an unknown event {other}"),
                }
                return Some(self.list.clone());
            }
            let chunk = tokio::time::timeout(PATIENCE, self.stream.next())
                .await
                .expect("an event in time")?;
            self.buffer
                .push_str(std::str::from_utf8(&chunk.unwrap()).unwrap());
        }
    }

    /// The first list for which `until` holds.
    async fn until(&mut self, until: impl Fn(&Value) -> bool) -> Value {
        loop {
            let snapshot = self.next().await.expect("the stream goes on");
            if until(&snapshot) {
                return snapshot;
            }
        }
    }
}

/// The state of ask `n` (counted from 0) in a snapshot.
fn state(snapshot: &Value, n: usize) -> &str {
    snapshot["asks"][n]["state"].as_str().unwrap_or("absent")
}

/// `ask-user --mode web`'s presenter, showing [`call`] on a task of its own, and the session of
/// the person who opened its link.
struct Single {
    page: Page,
    credential: String,
    link: String,
    asked: JoinHandle<Result<Outcome, PresentError>>,
}

impl Single {
    async fn start() -> Single {
        let web = Arc::new(WebFrontend::bind("127.0.0.1:0".parse().unwrap()).unwrap());
        let link = web.link().to_string();
        let page = Page::new(web.router(), &link);
        let credential = page.visit(&link).await;
        // The ask is shown through the presenter's public face, as the ask path does.
        let request = AskRequest {
            request_id: "call-1".to_string(),
            input: ask_schema::parse(&call(), &Limits::default()).unwrap(),
            given: Vec::new(),
        };
        let asked = tokio::spawn(async move { web.present(&request).await });
        let mut events = page.events(&credential).await;
        events.until(|s| state(s, 0) == "waiting_for_user").await;
        Single {
            page,
            credential,
            link,
            asked,
        }
    }

    async fn post(&self, action: &str, body: &Value) -> Reply {
        self.page
            .post(&self.credential, "ask-1", action, body)
            .await
    }

    /// The outcome `present` gave the ask path.
    async fn outcome(self) -> Outcome {
        tokio::time::timeout(PATIENCE, self.asked)
            .await
            .expect("the ask ends in time")
            .unwrap()
            .unwrap()
    }
}

#[tokio::test]
async fn the_link_carries_its_token_in_the_fragment_spent_once_for_a_credential() {
    let web = WebFrontend::bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let link = web.link().to_string();
    assert!(
        link.starts_with(&format!("http://{}/#token=", web.local_addr())),
        "{link}"
    );
    let page = Page::new(web.router(), &link);
    let credential = page.visit(&link).await;
    // Anyone else who spends the token later is refused.
    let token = page.token(&link).to_string();
    let reply = page.exchange(&token).await;
    assert_eq!(
        reply.refusal_text(StatusCode::FORBIDDEN).await,
        "refused: this link was already used; ask for a fresh link where ask-user runs"
    );
    // A made-up token is refused like a spent one, and a page elsewhere cannot spend one.
    let reply = page.exchange(&"0".repeat(64)).await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN);
    let reply = page
        .send(
            post("/api/session")
                .header("origin", "http://127.0.0.1:1")
                .json(&json!({ "token": token })),
        )
        .await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN);
    // The credential works as an Authorization header, never as a cookie.
    let session = credential.strip_prefix("Bearer ").unwrap();
    let reply = page
        .send(get("/api/asks").header("cookie", &format!("ask_user_session={session}")))
        .await;
    assert_eq!(reply.status, StatusCode::UNAUTHORIZED);
    assert_eq!(page.asks(&credential).await["asks"], json!([]));
}

/// The `session` and the `key` of a successful spend of a link.
async fn spent(reply: Reply) -> (String, Option<String>) {
    assert_eq!(reply.status, StatusCode::OK);
    let body = reply.json().await;
    let key = body["key"].as_str().map(str::to_string);
    (body["session"].as_str().unwrap().to_string(), key)
}

const USED: &str = "refused: this link was already used; ask for a fresh link where ask-user runs";

#[tokio::test]
async fn a_link_opens_the_page_until_a_browser_spends_it_or_a_fresh_one_replaces_it() {
    let web = WebFrontend::bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let link = web.link().to_string();
    let links = web.links();
    assert!(links.opens(&link));
    assert!(links.opens(&link), "asking spends nothing");
    assert!(!links.opens(&format!("{link}0")));
    let page = Page::new(web.router(), &link);
    spent(page.exchange(page.token(&link)).await).await;
    assert!(!links.opens(&link), "spent");
    let fresh = links.unspent().unwrap();
    assert!(links.opens(&fresh));
    let fresher = links.fresh().unwrap();
    assert!(!links.opens(&fresh), "replaced before it was spent");
    assert!(links.opens(&fresher));
}

#[tokio::test]
async fn a_spent_link_opens_again_only_in_the_browser_that_holds_its_key() {
    let web = WebFrontend::bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let link = web.link().to_string();
    let page = Page::new(web.router(), &link);
    let token = page.token(&link).to_string();
    // The first spend gives the browser a key of 256 random bits with its credential.
    let (first, key) = spent(page.exchange(&token).await).await;
    let key = key.expect("the one-call page gives a browser key");
    assert_eq!(key.len(), 64);
    assert_ne!(key, first);
    // The same link, opened again in that browser (a new tab): a credential of its own.
    let (second, again) = spent(page.exchange_holding(&token, &key).await).await;
    assert_ne!(second, first, "each tab has its own credential");
    assert_eq!(
        again.as_deref(),
        Some(key.as_str()),
        "the browser keeps its key"
    );
    for session in [&first, &second] {
        assert_eq!(
            page.asks(&format!("Bearer {session}")).await["asks"],
            json!([])
        );
    }
    // Any other browser: one that holds no key, another key, or the key with a made-up link.
    let reply = page.exchange(&token).await;
    assert_eq!(reply.refusal_text(StatusCode::FORBIDDEN).await, USED);
    let stranger = ask_web::testing::auth::random_token().unwrap();
    let reply = page.exchange_holding(&token, &stranger).await;
    assert_eq!(reply.refusal_text(StatusCode::FORBIDDEN).await, USED);
    let reply = page.exchange_holding(&"0".repeat(64), &key).await;
    assert_eq!(reply.refusal_text(StatusCode::FORBIDDEN).await, USED);
    // Once the link is spent, the page has an unspent one, the same until a browser spends it.
    let links = web.links();
    let fresh = links.unspent().unwrap();
    assert_ne!(fresh, link);
    assert_eq!(links.unspent().unwrap(), fresh, "unspent: not made again");
    // Spent in the same browser, it keeps its key; that browser may open either link again.
    let (_, same) = spent(page.exchange_holding(page.token(&fresh), &key).await).await;
    assert_eq!(same.as_deref(), Some(key.as_str()));
    spent(page.exchange_holding(page.token(&fresh), &key).await).await;
    // Another browser spending the next fresh link gets a key of its own, which opens that
    // link again and no other.
    let other_link = links.unspent().unwrap();
    let (_, other) = spent(
        page.exchange_holding(page.token(&other_link), &stranger)
            .await,
    )
    .await;
    let other = other.unwrap();
    assert_ne!(other, key);
    assert_ne!(other, stranger, "a key this page never made is replaced");
    spent(page.exchange_holding(page.token(&other_link), &other).await).await;
    let reply = page.exchange_holding(&token, &other).await;
    assert_eq!(reply.refusal_text(StatusCode::FORBIDDEN).await, USED);
}

#[tokio::test]
async fn a_browser_key_opens_only_the_page_that_made_it() {
    // Two calls on one port, one after the other, are two servers: the second knows no key of
    // the first, and its first spend gives the browser a new key in place of the old.
    let earlier = WebFrontend::bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let earlier_link = earlier.link().to_string();
    let earlier_page = Page::new(earlier.router(), &earlier_link);
    let (_, old) = spent(
        earlier_page
            .exchange(earlier_page.token(&earlier_link))
            .await,
    )
    .await;
    let old = old.unwrap();
    let web = WebFrontend::bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let link = web.link().to_string();
    let page = Page::new(web.router(), &link);
    let token = page.token(&link).to_string();
    let (_, key) = spent(page.exchange_holding(&token, &old).await).await;
    assert_ne!(key.as_deref(), Some(old.as_str()));
    let reply = page.exchange_holding(&token, &old).await;
    assert_eq!(reply.refusal_text(StatusCode::FORBIDDEN).await, USED);
    // The inbox of `ask-user serve` gives no key: its links open once, whatever the browser
    // holds.
    let served = Served::start(Limits::default()).await;
    let link = served.inbox.links().fresh().unwrap();
    let token = served.page.token(&link).to_string();
    let (_, none) = spent(served.page.exchange_holding(&token, &old).await).await;
    assert_eq!(none, None);
    let reply = served.page.exchange_holding(&token, &old).await;
    assert_eq!(reply.refusal_text(StatusCode::FORBIDDEN).await, USED);
}

#[tokio::test]
async fn a_body_within_the_cap_is_read_whole_however_large() {
    // 3 MiB: over axum's own default of 2 MiB, within the page's cap of 4 MiB.
    let web = WebFrontend::bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let link = web.link().to_string();
    let page = Page::new(web.router(), &link);
    let large = json!({ "token": "0".repeat(3 * 1024 * 1024) });
    assert!(large.to_string().len() < MAX_BODY);
    let reply = page
        .send(
            post("/api/session")
                .header("origin", &page.origin)
                .json(&large),
        )
        .await;
    // Read and refused for its made-up token, as a small body is.
    assert_eq!(
        reply.refusal_text(StatusCode::FORBIDDEN).await,
        "refused: this link was already used; ask for a fresh link where ask-user runs"
    );
}

#[tokio::test]
async fn the_page_and_its_assets_are_served_to_the_session() {
    let single = Single::start().await;
    for (path, content_type, marker) in [
        ("/", "text/html; charset=utf-8", "<script src=\"/app.js\""),
        ("/app.js", "text/javascript; charset=utf-8", "/api/events"),
        ("/app.css", "text/css; charset=utf-8", "{"),
    ] {
        let reply = single
            .page
            .send(get(path).header("authorization", &single.credential))
            .await;
        assert_eq!(reply.status, StatusCode::OK, "{path}");
        assert_eq!(reply.header(header::CONTENT_TYPE), content_type, "{path}");
        let text = reply.text().await;
        assert!(text.contains(marker), "{path}: {marker}");
    }
}

#[tokio::test]
async fn a_host_that_is_not_an_ip_address_or_localhost_is_refused() {
    let single = Single::start().await;
    let port = single.page.host.rsplit(':').next().unwrap().to_string();
    let credential = single.credential.as_str();
    // DNS could point these names anywhere (rebinding): nothing is served to them, not even
    // the link.
    for host in ["evil.example", "127.0.0.1.nip.io", "localhost.evil:1", ""] {
        let requests = [
            get("/").header("authorization", credential),
            get("/api/asks").header("authorization", credential),
            get(single.page.path(&single.link)),
            post("/api/asks/ask-1/cancel")
                .header("authorization", credential)
                .header("origin", &format!("http://{host}"))
                .json(&json!({})),
            post("/api/agent/asks").json(&json!({})),
        ];
        for send in requests {
            let reply = send.header("host", host).to(&single.page.router).await;
            assert_eq!(
                reply.refusal_text(StatusCode::MISDIRECTED_REQUEST).await,
                "refused: the Host header must be an IP address or localhost (see SECURITY.md)",
                "{host}"
            );
        }
    }
    // No Host at all is refused too.
    let reply = get("/api/asks")
        .header("authorization", credential)
        .to(&single.page.router)
        .await;
    assert_eq!(reply.status, StatusCode::MISDIRECTED_REQUEST);
    // localhost and IP literals, with any port, are this machine.
    for host in [format!("localhost:{port}"), format!("[::1]:{port}")] {
        let reply = get("/api/asks")
            .header("authorization", credential)
            .header("host", &host)
            .to(&single.page.router)
            .await;
        assert_eq!(reply.status, StatusCode::OK, "{host}");
    }
    // Nothing was answered.
    assert_eq!(
        state(&single.page.asks(credential).await, 0),
        "waiting_for_user"
    );
}

#[tokio::test]
async fn a_request_from_another_origin_is_refused() {
    let single = Single::start().await;
    let credential = single.credential.as_str();
    const REFUSED: &str = "refused: the request comes from another origin";
    // A page elsewhere reads nothing and answers nothing, even with the person's credential.
    let reply = single
        .page
        .send(
            get("/api/asks")
                .header("authorization", credential)
                .header("origin", "http://evil.example"),
        )
        .await;
    assert_eq!(reply.refusal_text(StatusCode::FORBIDDEN).await, REFUSED);
    let reply = single
        .page
        .send(
            post("/api/asks/ask-1/answer")
                .header("authorization", credential)
                .header("origin", "http://evil.example")
                .json(&answers("evil")),
        )
        .await;
    assert_eq!(reply.refusal_text(StatusCode::FORBIDDEN).await, REFUSED);
    // A POST must say where it comes from.
    let reply = single
        .page
        .send(
            post("/api/asks/ask-1/answer")
                .header("authorization", credential)
                .json(&answers("no origin")),
        )
        .await;
    assert_eq!(reply.refusal_text(StatusCode::FORBIDDEN).await, REFUSED);
    // A browser opening the page itself from elsewhere (a link on another site, a file on
    // disk) gets the page, and nothing but the page: not in a frame, not its data.
    let navigate = |path: &str, dest: &str| {
        get(path)
            .header("sec-fetch-site", "cross-site")
            .header("sec-fetch-mode", "navigate")
            .header("sec-fetch-dest", dest)
    };
    let reply = single.page.send(navigate("/", "document")).await;
    assert_eq!(reply.status, StatusCode::OK);
    let reply = single.page.send(navigate("/", "iframe")).await;
    assert_eq!(reply.refusal_text(StatusCode::FORBIDDEN).await, REFUSED);
    let reply = single
        .page
        .send(navigate("/api/asks", "document").header("authorization", credential))
        .await;
    assert_eq!(reply.refusal_text(StatusCode::FORBIDDEN).await, REFUSED);
    let reply = single
        .page
        .send(navigate("/", "document").header("origin", "http://evil.example"))
        .await;
    assert_eq!(reply.refusal_text(StatusCode::FORBIDDEN).await, REFUSED);
    // A browser that says the request is cross-site is believed.
    let reply = single
        .page
        .send(
            get("/api/asks")
                .header("authorization", credential)
                .header("sec-fetch-site", "cross-site"),
        )
        .await;
    assert_eq!(reply.refusal_text(StatusCode::FORBIDDEN).await, REFUSED);
    // The page's own origin is served.
    let reply = single
        .page
        .send(
            get("/api/asks")
                .header("authorization", credential)
                .header("origin", &single.page.origin)
                .header("sec-fetch-site", "same-origin"),
        )
        .await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(
        state(&single.page.asks(credential).await, 0),
        "waiting_for_user"
    );
}

#[tokio::test]
async fn without_the_credential_no_data_is_served() {
    let single = Single::start().await;
    const REFUSED: &str =
        "refused: open the link that ask-user printed; this browser has no session";
    let wrong = format!("Bearer {}", "0".repeat(64));
    let token = single
        .credential
        .strip_prefix("Bearer ")
        .unwrap()
        .to_string();
    for credential in [
        None,
        Some("Bearer "),
        Some(wrong.as_str()),
        Some(token.as_str()),
    ] {
        // The page itself holds no data, and is served to anyone.
        for path in ["/", "/app.js", "/app.css"] {
            let mut send = get(path);
            if let Some(credential) = credential {
                send = send.header("authorization", credential);
            }
            assert_eq!(
                single.page.send(send).await.status,
                StatusCode::OK,
                "{path}"
            );
        }
        for path in ["/api/asks", "/api/events"] {
            let mut send = get(path);
            if let Some(credential) = credential {
                send = send.header("authorization", credential);
            }
            let reply = single.page.send(send).await;
            assert_eq!(
                reply.refusal_text(StatusCode::UNAUTHORIZED).await,
                REFUSED,
                "{path} {credential:?}"
            );
        }
        let mut send = post("/api/asks/ask-1/answer")
            .header("origin", &single.page.origin)
            .json(&answers("no session"));
        if let Some(credential) = credential {
            send = send.header("authorization", credential);
        }
        let reply = single.page.send(send).await;
        assert_eq!(reply.refusal_text(StatusCode::UNAUTHORIZED).await, REFUSED);
    }
    // The ask still waits for the person with the session.
    assert_eq!(
        single.post("answer", &answers("Falcon")).await.status,
        StatusCode::OK
    );
    assert_eq!(
        single.outcome().await,
        Outcome::Answered(answered("Falcon"))
    );
}

#[tokio::test]
async fn the_waiting_ask_is_listed_as_a_summary_and_opened_with_its_questions() {
    let single = Single::start().await;
    let asks = single.page.asks(&single.credential).await;
    assert_eq!(asks["closing"], false);
    let list = asks["asks"].as_array().unwrap();
    assert_eq!(list.len(), 1, "{asks}");
    assert_eq!(list[0]["requestId"], "ask-1");
    assert_eq!(list[0]["state"], "waiting_for_user");
    assert!(list[0]["since"].as_u64().unwrap() > 0);
    // The list says how many questions, never the questions themselves.
    assert_eq!(list[0]["count"], 3, "{asks}");
    assert!(list[0].get("questions").is_none(), "{asks}");
    // The single-ask page names no agent.
    assert!(list[0].get("agent").is_none(), "{asks}");
    // Opened, the ask has the questions as the model asked them, as validation read them.
    let reply = single.page.ask(&single.credential, "ask-1").await;
    assert_eq!(reply.status, StatusCode::OK);
    let ask = reply.json().await;
    let input = ask_schema::parse(&call(), &Limits::default()).unwrap();
    assert_eq!(
        ask["questions"],
        serde_json::to_value(&input.input().questions).unwrap()
    );
    assert_eq!(
        ask["questions"][0]["options"][1],
        json!({"label": "SQLite", "description": "Lightweight, file-based"})
    );
    // Another id is no ask, and no session opens none.
    let reply = single.page.ask(&single.credential, "ask-2").await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND);
    let reply = single.page.ask("Bearer 0000", "ask-1").await;
    assert_eq!(reply.status, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn an_answer_ends_the_ask_and_a_second_one_is_refused() {
    let single = Single::start().await;
    let mut events = single.page.events(&single.credential).await;
    let reply = single.post("answer", &answers("Falcon")).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.json().await, json!({"state": "answered"}));
    // Every open page sees the ask answered, then the server closing; the stream then ends.
    let last = events.until(|s| s["closing"] == true).await;
    assert_eq!(state(&last, 0), "answered");
    assert_eq!(events.next().await, None);
    let reply = single.post("answer", &answers("again")).await;
    assert_eq!(
        reply.refusal_text(StatusCode::CONFLICT).await,
        "this ask is no longer waiting: it was answered, cancelled or withdrawn"
    );
    let reply = single.post("cancel", &json!({})).await;
    assert_eq!(reply.status, StatusCode::CONFLICT);
    // The agent gets the first answers, the note beside its answer.
    assert_eq!(
        single.outcome().await,
        Outcome::Answered(answered("Falcon"))
    );
}

#[tokio::test]
async fn answers_that_do_not_fit_are_refused_and_the_ask_keeps_waiting() {
    let single = Single::start().await;
    let refusals = [
        (
            json!({"answers": [{"answer": "SQLite"}]}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "1 answer given for 3 questions; give one answer per question",
        ),
        (
            json!({"answers": [{"answer": "SQLite"}, {"answer": ["REST API"]},
                               {"question": "Who?", "answer": "x"}]}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "answer 3 is for \"Who?\", which was not asked",
        ),
        (
            json!({"answers": [{"answer": "SQLite"}, {"answer": ["REST API"]},
                               {"answer": "x"}], "extra": 1}),
            StatusCode::BAD_REQUEST,
            "the body is not an answer object: unknown field `extra`",
        ),
        (
            json!(["SQLite"]),
            StatusCode::BAD_REQUEST,
            "the body is not an answer object",
        ),
        // `null`, `""` and `[""]` leave the multi-select question unanswered.
        (
            json!({"answers": [{"answer": "SQLite"}, {"answer": null}, {"answer": "x"}]}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "question 2 (\"Which features should we include?\") has an empty answer",
        ),
        (
            json!({"answers": [{"answer": "SQLite"}, {"answer": [""]}, {"answer": "x"}]}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "question 2 (\"Which features should we include?\") has an empty answer",
        ),
    ];
    for (body, status, sentence) in refusals {
        let reply = single.post("answer", &body).await;
        let text = reply.refusal_text(status).await;
        assert!(text.starts_with(sentence), "{body}: {text}");
    }
    // An ask that does not exist, and an action that does not.
    let reply = single
        .page
        .post(&single.credential, "ask-9", "answer", &answers("x"))
        .await;
    assert_eq!(
        reply.refusal_text(StatusCode::NOT_FOUND).await,
        "no such ask"
    );
    let reply = single.post("skip", &json!({})).await;
    assert_eq!(
        reply.refusal_text(StatusCode::NOT_FOUND).await,
        "no such address"
    );
    // A body that is not sent as JSON, and one over the cap.
    let reply = single
        .page
        .send(
            post("/api/asks/ask-1/answer")
                .header("authorization", &single.credential)
                .header("origin", &single.page.origin)
                .header("content-type", "text/plain")
                .body(answers("x").to_string()),
        )
        .await;
    assert_eq!(
        reply.refusal_text(StatusCode::UNSUPPORTED_MEDIA_TYPE).await,
        "send the body as application/json"
    );
    let huge = format!(
        "{{\"answers\": [{{\"answer\": \"{}\"}}]}}",
        "x".repeat(MAX_BODY)
    );
    let reply = single
        .page
        .send(
            post("/api/asks/ask-1/answer")
                .header("authorization", &single.credential)
                .header("origin", &single.page.origin)
                .header("content-type", "application/json")
                .body(huge),
        )
        .await;
    assert_eq!(
        reply.refusal_text(StatusCode::PAYLOAD_TOO_LARGE).await,
        "the request body is larger than 4 MiB"
    );
    // None of them touched the ask: it waits, and takes a good answer.
    assert_eq!(
        state(&single.page.asks(&single.credential).await, 0),
        "waiting_for_user"
    );
    assert_eq!(
        single.post("answer", &answers("Falcon")).await.status,
        StatusCode::OK
    );
    assert_eq!(
        single.outcome().await,
        Outcome::Answered(answered("Falcon"))
    );
}

#[tokio::test]
async fn an_empty_list_answers_a_multi_select_with_none_of_these() {
    let single = Single::start().await;
    let body = json!({"answers": [{"answer": "SQLite"}, {"answer": [], "wasCustom": false},
                                  {"answer": "Falcon"}]});
    assert_eq!(single.post("answer", &body).await.status, StatusCode::OK);
    assert_eq!(
        single.outcome().await,
        Outcome::Answered(vec![
            Answer::selected("Which database should we use?", "SQLite"),
            Answer::none_of_these("Which features should we include?"),
            Answer::custom("What should we name this service?", "Falcon"),
        ])
    );
}

#[tokio::test]
async fn a_cancel_ends_the_ask_as_cancelled() {
    let single = Single::start().await;
    let reply = single.post("cancel", &json!({})).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.json().await, json!({"state": "cancelled"}));
    assert_eq!(
        state(&single.page.asks(&single.credential).await, 0),
        "cancelled"
    );
    assert_eq!(single.outcome().await, Outcome::Cancelled);
}

#[tokio::test]
async fn an_ask_whose_agent_stopped_waiting_cannot_be_answered() {
    let Single {
        page,
        credential,
        asked,
        ..
    } = Single::start().await;
    // The ask path withdraws the ask (its MCP client went away): the presenter's future is
    // dropped.
    asked.abort();
    assert!(asked.await.unwrap_err().is_cancelled());
    let reply = page
        .post(&credential, "ask-1", "answer", &answers("late"))
        .await;
    assert_eq!(reply.status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(
        reply.json().await,
        json!({"error": NOT_DELIVERED, "kept": true})
    );
    assert_eq!(state(&page.asks(&credential).await, 0), "connection_lost");
}

#[tokio::test]
async fn a_wrong_method_or_address_is_not_served() {
    let single = Single::start().await;
    let page = &single.page;
    for method in [Method::PUT, Method::DELETE, Method::PATCH] {
        let reply = page
            .send(
                request(method.clone(), "/api/asks/ask-1/answer")
                    .header("authorization", &single.credential)
                    .header("origin", &page.origin)
                    .json(&answers("x")),
            )
            .await;
        assert_eq!(
            reply.refusal_text(StatusCode::NOT_FOUND).await,
            "no such address",
            "{method}"
        );
    }
    for path in ["/api/asks/ask-1/answer", "/nowhere", "/api"] {
        let reply = page
            .send(get(path).header("authorization", &single.credential))
            .await;
        assert_eq!(reply.status, StatusCode::NOT_FOUND, "{path}");
    }
    let reply = page
        .send(
            post("/api/elsewhere")
                .header("authorization", &single.credential)
                .header("origin", &page.origin)
                .json(&json!({})),
        )
        .await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND);
    // The single-ask page takes no agents: there is no agent token to match.
    let reply = page
        .send(
            post("/api/agent/asks")
                .header("authorization", "Bearer ")
                .json(&json!({"input": call()})),
        )
        .await;
    assert_eq!(reply.status, StatusCode::UNAUTHORIZED);
    assert_eq!(
        state(&page.asks(&single.credential).await, 0),
        "waiting_for_user"
    );
}

/// `ask-user serve`'s inbox, with the session of the person who opened its first link.
struct Served {
    inbox: Inbox,
    page: Page,
    credential: String,
}

impl Served {
    async fn start(limits: Limits) -> Served {
        let inbox = Inbox::bind("127.0.0.1:0".parse().unwrap(), limits).unwrap();
        assert_eq!(inbox.base_url(), format!("http://{}", inbox.local_addr()));
        let link = inbox.link();
        let page = Page::new(inbox.router(), &link);
        let credential = page.visit(&link).await;
        Served {
            inbox,
            page,
            credential,
        }
    }

    /// `send` as an agent that proved it holds the inbox's agent token.
    async fn agent(&self, send: Outgoing) -> Reply {
        let authorization = self.prove(self.inbox.agent_token(), "agent").await;
        self.page
            .send(send.header("authorization", &authorization))
            .await
    }

    /// `send` as `ask-user serve --link`, with the people's token.
    async fn people(&self, send: Outgoing) -> Reply {
        let authorization = self.prove(self.inbox.people_token(), "people").await;
        self.page
            .send(send.header("authorization", &authorization))
            .await
    }

    /// The challenge-response: checks the inbox's proof and gives the `Authorization` of one
    /// request.
    async fn prove(&self, token: &str, role: &str) -> String {
        let nonce = ask_web::testing::auth::random_token().unwrap();
        let reply = self
            .page
            .send(
                post("/api/agent/hello")
                    .json(&json!({"nonce": nonce, "as": role, "address": self.page.host})),
            )
            .await;
        assert_eq!(reply.status, StatusCode::OK);
        let hello = reply.json().await;
        let exchange = ask_web::testing::auth::Exchange {
            client_nonce: &nonce,
            inbox_nonce: hello["nonce"].as_str().unwrap(),
            address: &self.page.host,
        };
        assert_eq!(
            hello["proof"],
            ask_web::testing::auth::inbox_proof(token, exchange),
            "the inbox proves it holds the token"
        );
        ask_web::testing::auth::authorization(token, exchange)
    }

    /// An agent's ask of [`call`]: the held response.
    async fn ask(&self, agent: &str) -> Held {
        let reply = self
            .agent(
                post("/api/agent/asks").json(
                    &json!({"agent": agent, "cwd": format!("/work/{agent}"), "input": call()}),
                ),
            )
            .await;
        assert_eq!(reply.status, StatusCode::OK);
        assert_eq!(reply.header(header::CONTENT_TYPE), "application/x-ndjson");
        let capability = reply
            .header(header::HeaderName::from_static("x-ask-capability"))
            .to_string();
        assert_eq!(capability.len(), 64, "a 256-bit capability");
        Held {
            stream: Box::pin(reply.body.into_data_stream()),
            capability,
            page: Page::new(self.page.router.clone(), &self.inbox.link()),
        }
    }
}

/// An agent's held request: blank lines while its ask waits, then the outcome.
struct Held {
    stream: DataStream,
    /// The capability of this ask alone.
    capability: String,
    page: Page,
}

impl Held {
    /// The outcome line, past any blank lines, confirmed to the inbox as an agent does.
    async fn outcome(self) -> Value {
        let page = Page::new(
            self.page.router.clone(),
            &format!("http://{}/", self.page.host),
        );
        let capability = self.capability.clone();
        let outcome = self.unconfirmed().await;
        if outcome["state"] != "connection_lost" {
            let reply = page
                .send(
                    post("/api/agent/received")
                        .header("authorization", &format!("Bearer {capability}"))
                        .json(&json!({})),
                )
                .await;
            assert_eq!(reply.status, StatusCode::OK);
        }
        outcome
    }

    /// The outcome line, not confirmed.
    async fn unconfirmed(mut self) -> Value {
        let mut text = String::new();
        loop {
            if let Some(line) = text.lines().find(|line| !line.trim().is_empty()) {
                return serde_json::from_str(line).unwrap();
            }
            let chunk = tokio::time::timeout(PATIENCE, self.stream.next())
                .await
                .expect("the outcome in time")
                .expect("the outcome before the end");
            text.push_str(std::str::from_utf8(&chunk.unwrap()).unwrap());
        }
    }
}

#[tokio::test]
async fn agents_asks_are_held_until_the_person_answers_in_any_order() {
    let served = Served::start(Limits::default()).await;
    let mut events = served.page.events(&served.credential).await;
    let alpha = served.ask("alpha").await;
    let beta = served.ask("beta").await;
    let snapshot = events.until(|s| state(s, 1) == "waiting_for_user").await;
    let asks = snapshot["asks"].as_array().unwrap();
    let listed: Vec<(&str, &str, &str)> = asks
        .iter()
        .map(|a| {
            (
                a["requestId"].as_str().unwrap(),
                a["agent"].as_str().unwrap(),
                a["cwd"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        listed,
        [
            ("ask-1", "alpha", "/work/alpha"),
            ("ask-2", "beta", "/work/beta")
        ]
    );
    // The second, then the first.
    let body = answers("from-beta");
    let (reply, outcome) = tokio::join!(
        served
            .page
            .post(&served.credential, "ask-2", "answer", &body),
        beta.outcome()
    );
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(outcome["state"], "answered");
    assert_eq!(
        serde_json::from_value::<Vec<Answer>>(outcome["answers"].clone()).unwrap(),
        answered("from-beta")
    );
    let body = json!({});
    let (reply, outcome) = tokio::join!(
        served
            .page
            .post(&served.credential, "ask-1", "cancel", &body),
        alpha.outcome()
    );
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(outcome, json!({"state": "cancelled"}));
    let asks = served.page.asks(&served.credential).await;
    assert_eq!(
        (state(&asks, 0), state(&asks, 1)),
        ("cancelled", "answered")
    );
    // The inbox goes on: it never closes.
    assert_eq!(asks["closing"], false);
}

#[tokio::test]
async fn an_agent_that_goes_away_leaves_its_ask_connection_lost() {
    let served = Served::start(Limits::default()).await;
    let held = served.ask("gone").await;
    let mut events = served.page.events(&served.credential).await;
    events.until(|s| state(s, 0) == "waiting_for_user").await;
    // The agent closes its connection: the held response is dropped.
    drop(held);
    events.until(|s| state(s, 0) == "connection_lost").await;
    let reply = served
        .page
        .post(&served.credential, "ask-1", "answer", &answers("late"))
        .await;
    assert_eq!(reply.status, StatusCode::CONFLICT);
}

// The clock is paused: the runtime skips ahead to the next timer whenever every task waits.
#[tokio::test(start_paused = true)]
async fn a_held_ask_gets_a_blank_line_every_heartbeat_while_it_waits() {
    let served = Served::start(Limits::default()).await;
    let mut held = served.ask("patient").await;
    let started = tokio::time::Instant::now();
    for _ in 0..3 {
        let chunk = held.stream.next().await.unwrap().unwrap();
        assert_eq!(chunk, "\n");
    }
    assert_eq!(started.elapsed(), 3 * ask_web::testing::HEARTBEAT);
    let body = answers("late");
    let (reply, outcome) = tokio::join!(
        served
            .page
            .post(&served.credential, "ask-1", "answer", &body),
        held.outcome()
    );
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(outcome["state"], "answered");
}

#[tokio::test]
async fn the_agent_api_needs_a_proof_of_the_token_and_refuses_browsers() {
    let served = Served::start(Limits::default()).await;
    let body = json!({"agent": "intruder", "input": call()});
    // The token itself, a wrong proof, a spent or unknown nonce: all refused.
    let token = served.inbox.agent_token().to_string();
    let bearer = format!("Bearer {token}");
    let nonce = "0123456789abcdef";
    let unknown = ask_web::testing::auth::authorization(
        &token,
        ask_web::testing::auth::Exchange {
            client_nonce: nonce,
            inbox_nonce: &"1".repeat(64),
            address: &served.page.host,
        },
    );
    let spent = served.prove(&token, "agent").await;
    let reply = served
        .page
        .send(post("/api/agent/link").header("authorization", &spent))
        .await;
    assert_eq!(
        reply.status,
        StatusCode::FORBIDDEN,
        "the agents' token makes no link"
    );
    let mut wrong = served.prove(&token, "agent").await;
    wrong.replace_range(wrong.len() - 4.., "0000");
    // A challenge the inbox does not know (any more) is refused as such: the client may take a
    // fresh one. A wrong proof on a known challenge is not.
    for authorization in [unknown.as_str(), spent.as_str()] {
        let send = post("/api/agent/asks").json(&body);
        let reply = served
            .page
            .send(send.header("authorization", authorization))
            .await;
        assert_eq!(
            reply.headers.get(header::WWW_AUTHENTICATE).unwrap(),
            ask_web::testing::STALE_CHALLENGE
        );
        let text = reply.refusal_text(StatusCode::UNAUTHORIZED).await;
        assert!(
            text.starts_with("refused: this challenge is unknown or expired"),
            "{authorization}: {text}"
        );
    }
    for authorization in [
        None,
        Some(bearer.as_str()),
        Some("AskUser "),
        Some(wrong.as_str()),
        Some("Basic abc"),
    ] {
        let mut send = post("/api/agent/asks").json(&body);
        if let Some(value) = authorization {
            send = send.header("authorization", value);
        }
        let reply = served.page.send(send).await;
        assert!(reply.headers.get(header::WWW_AUTHENTICATE).is_none());
        let text = reply.refusal_text(StatusCode::UNAUTHORIZED).await;
        assert!(
            text.starts_with("refused: prove that you hold"),
            "{authorization:?}: {text}"
        );
    }
    // A browser's request, even one that carries a proof, is refused: a page elsewhere must
    // not ask in an agent's name.
    for (name, value) in [
        ("origin", served.page.origin.as_str()),
        ("sec-fetch-site", "same-origin"),
    ] {
        let reply = served
            .agent(post("/api/agent/asks").header(name, value).json(&body))
            .await;
        assert_eq!(
            reply.refusal_text(StatusCode::FORBIDDEN).await,
            "refused: the request comes from another origin",
            "{name}"
        );
    }
    // No agent address lists asks.
    let reply = served.agent(get("/api/agent/asks")).await;
    assert_eq!(
        reply.refusal_text(StatusCode::METHOD_NOT_ALLOWED).await,
        "use POST"
    );
    let reply = served
        .agent(post("/api/agent/elsewhere").json(&json!({})))
        .await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND);
    // The people's token makes links and asks nothing.
    let reply = served.people(post("/api/agent/asks").json(&body)).await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN);
    // The person's session is no agent token.
    let reply = served
        .page
        .send(
            post("/api/agent/asks")
                .header("authorization", &served.credential)
                .json(&body),
        )
        .await;
    assert_eq!(reply.status, StatusCode::UNAUTHORIZED);
    let asks = served.page.asks(&served.credential).await;
    assert_eq!(asks["asks"], json!([]), "nothing was asked");
}

#[tokio::test]
async fn a_capability_confirms_or_withdraws_its_own_ask_only() {
    let served = Served::start(Limits::default()).await;
    let mut events = served.page.events(&served.credential).await;
    let alpha = served.ask("alpha").await;
    let beta = served.ask("beta").await;
    events.until(|s| state(s, 1) == "waiting_for_user").await;
    assert_ne!(alpha.capability, beta.capability);
    let by = |capability: &str, what: &str| {
        post(&format!("/api/agent/{what}"))
            .header("authorization", &format!("Bearer {capability}"))
            .json(&json!({}))
    };
    // The agents' token is no capability; an unknown capability finds nothing.
    let token = served.inbox.agent_token().to_string();
    assert_eq!(
        served.page.send(by(&token, "cancel")).await.status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        served.page.send(by(&"f".repeat(64), "cancel")).await.status,
        StatusCode::NOT_FOUND
    );
    // Waiting again needs the agents' proof and the ask's own capability: the agents' token,
    // or a capability no ask has, finds nothing to wait on.
    for capability in [token.clone(), "f".repeat(64)] {
        let wait = post("/api/agent/wait").json(&json!({ "capability": capability }));
        assert_eq!(served.agent(wait).await.status, StatusCode::NOT_FOUND);
    }
    let wait = post("/api/agent/wait").json(&json!({ "capability": beta.capability }));
    let unproven = wait.header("authorization", &format!("Bearer {}", beta.capability));
    assert_eq!(
        served.page.send(unproven).await.status,
        StatusCode::UNAUTHORIZED
    );
    // Nothing was sent to beta, so there is nothing to confirm.
    assert_eq!(
        served
            .page
            .send(by(&beta.capability, "received"))
            .await
            .status,
        StatusCode::CONFLICT
    );
    // Alpha withdraws its ask: alpha's alone ends, and its held request says so.
    let reply = served.page.send(by(&alpha.capability, "cancel")).await;
    assert_eq!(reply.status, StatusCode::OK);
    let snapshot = events.until(|s| state(s, 0) == "connection_lost").await;
    assert_eq!(state(&snapshot, 1), "waiting_for_user");
    assert_eq!(alpha.unconfirmed().await["state"], "connection_lost");
}

// The clock is paused: the runtime skips ahead to the next timer whenever every task waits.
#[tokio::test(start_paused = true)]
async fn an_answer_is_sent_only_once_its_agent_confirms_it() {
    let served = Served::start(Limits::default()).await;
    let mut events = served.page.events(&served.credential).await;
    let held = served.ask("mute").await;
    events.until(|s| state(s, 0) == "waiting_for_user").await;
    // The agent's connection carries the outcome, but the agent never confirms it (it died
    // after the write): the person is not told "sent", and the answer stays on the page.
    let started = tokio::time::Instant::now();
    let body = answers("kept");
    let (reply, outcome) = tokio::join!(
        served
            .page
            .post(&served.credential, "ask-1", "answer", &body),
        held.unconfirmed()
    );
    assert_eq!(outcome["state"], "answered");
    assert_eq!(reply.status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(
        reply.json().await,
        json!({"error": NOT_DELIVERED, "kept": true})
    );
    assert_eq!(started.elapsed(), ask_web::testing::DELIVERY_PATIENCE);
    events.until(|s| state(s, 0) == "connection_lost").await;
    // A second answer finds no ask waiting.
    let reply = served
        .page
        .post(&served.credential, "ask-1", "answer", &answers("again"))
        .await;
    assert_eq!(reply.status, StatusCode::CONFLICT);
}

#[tokio::test]
async fn an_answer_whose_page_closed_its_connection_still_reaches_its_agent_and_ends_the_ask() {
    let served = Served::start(Limits::default()).await;
    let mut events = served.page.events(&served.credential).await;
    let held = served.ask("alpha").await;
    events.until(|s| state(s, 0) == "waiting_for_user").await;
    let capability = held.capability.clone();
    let body = answers("from-a-closed-page");
    let outcome = {
        let answering = served
            .page
            .post(&served.credential, "ask-1", "answer", &body);
        let mut answering = std::pin::pin!(answering);
        tokio::select! {
            outcome = held.unconfirmed() => outcome,
            reply = &mut answering => panic!("a reply before the agent had the answer: {}", reply.status),
        }
        // The page's request is given up here, while it waits for the agent's confirmation.
    };
    assert_eq!(outcome["state"], "answered");
    let confirm = post("/api/agent/received")
        .header("authorization", &format!("Bearer {capability}"))
        .json(&json!({}));
    assert_eq!(served.page.send(confirm).await.status, StatusCode::OK);
    // The ask ends as answered, as if the page had waited for the reply.
    tokio::time::timeout(PATIENCE, events.until(|s| state(s, 0) == "answered"))
        .await
        .expect("the ask ends as answered");
}

#[tokio::test]
async fn an_agent_call_that_does_not_validate_is_refused_with_its_problems() {
    let limits = Limits {
        max_questions: 2,
        ..Limits::default()
    };
    let served = Served::start(limits).await;
    // Three questions are one too many for this inbox's limits.
    let reply = served
        .agent(post("/api/agent/asks").json(&json!({"input": call()})))
        .await;
    let text = reply.refusal_text(StatusCode::UNPROCESSABLE_ENTITY).await;
    assert!(
        text.contains("/questions: 3 questions given; give 1 to 2"),
        "{text}"
    );
    // A body that is not an ask.
    for body in [
        json!({"questions": []}),
        json!({"input": call(), "extra": 1}),
    ] {
        let reply = served.agent(post("/api/agent/asks").json(&body)).await;
        let text = reply.refusal_text(StatusCode::BAD_REQUEST).await;
        assert!(text.starts_with("the body is not an ask"), "{text}");
    }
    let huge = format!("{{\"input\": \"{}\"}}", "x".repeat(MAX_BODY));
    let reply = served
        .agent(
            post("/api/agent/asks")
                .header("content-type", "application/json")
                .body(huge),
        )
        .await;
    assert_eq!(reply.status, StatusCode::PAYLOAD_TOO_LARGE);
    let asks = served.page.asks(&served.credential).await;
    assert_eq!(asks["asks"], json!([]), "nothing was asked");
}

#[tokio::test]
async fn a_fresh_link_replaces_an_unused_one() {
    let served = Served::start(Limits::default()).await;
    // `ask-user serve --link` asks for a link for people, with the people's token.
    let reply = served
        .people(post("/api/agent/link").json(&json!({})))
        .await;
    assert_eq!(reply.status, StatusCode::OK);
    let unused = reply.json().await["link"].as_str().unwrap().to_string();
    assert!(
        unused.starts_with(&format!("{}/#token=", served.inbox.base_url())),
        "{unused}"
    );
    // The host makes another before anyone used that one: only the newest works.
    let fresh = served.inbox.fresh_link().unwrap();
    assert_eq!(served.inbox.link(), fresh);
    let reply = served.page.exchange(served.page.token(&unused)).await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN);
    let credential = served.page.visit(&fresh).await;
    assert_ne!(credential, served.credential, "a session of its own");
    // Both sessions see the inbox.
    for credential in [&credential, &served.credential] {
        assert_eq!(served.page.asks(credential).await["asks"], json!([]));
    }
}

#[tokio::test]
async fn every_response_carries_the_content_security_policy() {
    // `Outgoing::to` checks the headers of every response of these tests; here, one request of
    // each kind, refusals included, on the inbox (which has both APIs).
    let served = Served::start(Limits::default()).await;
    let page = &served.page;
    let credential = served.credential.as_str();
    let replies = [
        page.send(get("/").header("authorization", credential))
            .await
            .status,
        page.send(get("/app.js").header("authorization", credential))
            .await
            .status,
        page.send(get("/api/asks").header("authorization", credential))
            .await
            .status,
        page.send(get("/api/events").header("authorization", credential))
            .await
            .status,
        page.send(get("/api/asks")).await.status,
        page.exchange("spent").await.status,
        get("/")
            .header("host", "evil.example")
            .to(&page.router)
            .await
            .status,
        page.send(
            get("/")
                .header("authorization", credential)
                .header("origin", "http://x"),
        )
        .await
        .status,
        page.post(credential, "ask-1", "answer", &answers("x"))
            .await
            .status,
        served.agent(get("/api/agent/asks")).await.status,
        page.send(post("/api/agent/link")).await.status,
        served.people(post("/api/agent/link")).await.status,
        served.agent(post("/api/agent/link")).await.status,
    ];
    assert_eq!(
        replies.map(|status| status.as_u16()),
        [
            200, 200, 200, 200, 401, 403, 421, 403, 404, 405, 401, 200, 403
        ]
    );
}

#[tokio::test]
async fn an_agent_name_or_folder_too_long_or_hiding_text_is_refused() {
    let served = Served::start(Limits::default()).await;
    for (asker, expected) in [
        (
            json!({"agent": "a".repeat(ask_web::testing::MAX_AGENT_NAME + 1)}),
            "/agent: 101 characters; give at most 100",
        ),
        (
            json!({"cwd": "/w".repeat(600)}),
            "/cwd: 1200 characters; give at most 1024",
        ),
        (
            json!({"agent": "ok\u{202e}gnp"}),
            "/agent: character 3 is U+202E",
        ),
        (
            json!({"cwd": "/tmp/\u{1b}[2J"}),
            "/cwd: character 6 is U+001B",
        ),
        (
            json!({"agent": "two\nlines"}),
            "/agent: character 4 is U+000A",
        ),
    ] {
        let mut body = asker;
        body["input"] = call();
        let reply = served.agent(post("/api/agent/asks").json(&body)).await;
        let text = reply.refusal_text(StatusCode::UNPROCESSABLE_ENTITY).await;
        assert!(text.starts_with(expected), "{text}");
    }
    let asks = served.page.asks(&served.credential).await;
    assert_eq!(asks["asks"], json!([]), "nothing was asked");
    // `--via` fits who asks to the caps before it sends, so a strange folder costs no ask.
    let fitted = ask_web::testing::fit_asker(ask_web::Asker {
        agent: Some("x".repeat(500)),
        cwd: Some("/a\u{1b}b\u{202e}c".to_string()),
    });
    let agent = fitted.agent.unwrap();
    assert_eq!(agent.chars().count(), ask_web::testing::MAX_AGENT_NAME);
    assert!(agent.ends_with('…'));
    assert_eq!(fitted.cwd.unwrap(), "/a^[b\\u{202e}c");
}

/// The answers of [`call`] with `typed` as the multi-select's own answer beside a ticked label.
fn with_typed_other(typed: &str) -> Value {
    json!({"answers": [{"answer": "SQLite"}, {"answer": ["REST API", typed]},
                       {"answer": "Falcon"}]})
}

/// The "Other" text that makes the multi-select's answer exactly the cap, ticked label included.
fn other_at_the_cap() -> String {
    "é".repeat((ask_core::MAX_ANSWER_BYTES - "REST API".len()) / 2)
}

const OVER_THE_CAP: &str = "question 2 (\"Which features should we include?\"): the answer is \
                            65537 bytes of UTF-8, over the cap of 65536 bytes (64 KiB) per \
                            question; send a shorter one";

/// The page's answer one byte over the 64 KiB cap is refused naming the cap, and the ask keeps
/// waiting; one at exactly the cap is taken.
#[tokio::test]
async fn a_page_answer_over_the_cap_is_refused_and_one_at_the_cap_taken() {
    let single = Single::start().await;
    let at_cap = other_at_the_cap();
    let over = format!("{at_cap}!");
    let reply = single.post("answer", &with_typed_other(&over)).await;
    assert_eq!(
        reply.refusal_text(StatusCode::UNPROCESSABLE_ENTITY).await,
        OVER_THE_CAP
    );
    assert_eq!(
        state(&single.page.asks(&single.credential).await, 0),
        "waiting_for_user"
    );
    let reply = single.post("answer", &with_typed_other(&at_cap)).await;
    assert_eq!(reply.status, StatusCode::OK);
    let Outcome::Answered(answers) = single.outcome().await else {
        panic!("not answered")
    };
    assert_eq!(
        answers[1].answer,
        AnswerValue::Choices(vec!["REST API".into(), at_cap])
    );
}

/// An inbox's answer one byte over the cap is refused the same way, and its agent keeps waiting
/// for the answer at the cap.
#[tokio::test]
async fn an_inbox_answer_over_the_cap_is_refused_and_the_agent_keeps_waiting() {
    let served = Served::start(Limits::default()).await;
    let held = served.ask("alpha").await;
    let at_cap = other_at_the_cap();
    let over = with_typed_other(&format!("{at_cap}!"));
    let reply = served
        .page
        .post(&served.credential, "ask-1", "answer", &over)
        .await;
    assert_eq!(
        reply.refusal_text(StatusCode::UNPROCESSABLE_ENTITY).await,
        OVER_THE_CAP
    );
    let body = with_typed_other(&at_cap);
    let (reply, outcome) = tokio::join!(
        served
            .page
            .post(&served.credential, "ask-1", "answer", &body),
        held.outcome()
    );
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(outcome["state"], "answered");
    assert_eq!(outcome["answers"][1]["answer"], json!(["REST API", at_cap]));
}

/// A hello from a client that dialled `address`, over the socket as `uid` when given: the
/// reply.
async fn hello_from(page: &Page, address: &str, uid: Option<u32>) -> Reply {
    let nonce = ask_web::testing::auth::random_token().unwrap();
    let hello = post("/api/agent/hello").json(&json!({"nonce": nonce, "address": address}));
    let hello = match uid {
        Some(uid) => hello.over_socket(uid),
        None => hello,
    };
    page.send(hello).await
}

#[tokio::test]
async fn the_inbox_answers_the_hello_only_for_an_address_it_listens_on() {
    let dir = tempfile::tempdir().unwrap();
    // A folder the inbox makes, of this user's alone.
    let socket = dir.path().join("run/serve.sock");
    let inbox = Inbox::bind("127.0.0.1:0".parse().unwrap(), Limits::default())
        .unwrap()
        .with_socket(&socket)
        .unwrap()
        .with_public_urls(&["https://Ask.Example.org".to_string()])
        .unwrap();
    let own = inbox.local_addr().to_string();
    let port = inbox.local_addr().port();
    let page = Page::new(inbox.router(), &inbox.link());
    let unix = format!("unix:{}", socket.display());
    for (address, uid) in [
        (own.as_str(), None),
        (&format!("localhost:{port}"), None),
        ("ask.example.org:443", None),
        (&unix, Some(1000)),
    ] {
        let reply = hello_from(&page, address, uid).await;
        assert_eq!(reply.status, StatusCode::OK, "{address}");
    }
    let relay = format!("127.0.0.1:{}", port.wrapping_add(1));
    for (address, uid) in [
        (relay.as_str(), None),
        ("ask.example.org:80", None),
        // The socket's address over TCP, and a TCP address over the socket.
        (&unix, None),
        (own.as_str(), Some(1000)),
        ("unix:/tmp/relay.sock", Some(1000)),
    ] {
        let said = hello_from(&page, address, uid)
            .await
            .refusal_text(StatusCode::MISDIRECTED_REQUEST)
            .await;
        assert!(
            said.contains(&format!(
                "`{address}`, the address you dialled, is not one this inbox listens on ({own})"
            )),
            "{said}"
        );
        assert!(said.contains("serve --public-url URL"), "{said}");
    }
}

#[tokio::test]
async fn over_the_socket_each_user_id_has_the_quota_of_one_agent() {
    let dir = tempfile::tempdir().unwrap();
    // A folder the inbox makes, of this user's alone.
    let socket = dir.path().join("run/serve.sock");
    let quota = ask_web::Quota {
        asks: 1,
        ..ask_web::Quota::default()
    };
    let inbox = Inbox::bind("127.0.0.1:0".parse().unwrap(), Limits::default())
        .unwrap()
        .with_quota(quota)
        .with_socket(&socket)
        .unwrap();
    let page = Page::new(inbox.router(), &inbox.link());
    let token = inbox.agent_token().to_string();
    let unix = format!("unix:{}", socket.display());
    // An ask of agent `agent`, over the socket as `uid` or over TCP.
    let ask = async |agent: &str, uid: Option<u32>| {
        let address = match uid {
            Some(_) => unix.clone(),
            None => page.host.clone(),
        };
        let nonce = ask_web::testing::auth::random_token().unwrap();
        let hello = post("/api/agent/hello").json(&json!({"nonce": nonce, "address": address}));
        let hello = match uid {
            Some(uid) => hello.over_socket(uid),
            None => hello,
        };
        let hello = page.send(hello).await.json().await;
        let exchange = ask_web::testing::auth::Exchange {
            client_nonce: &nonce,
            inbox_nonce: hello["nonce"].as_str().unwrap(),
            address: &address,
        };
        let ask = post("/api/agent/asks")
            .header(
                "authorization",
                &ask_web::testing::auth::authorization(&token, exchange),
            )
            .json(&json!({"agent": agent, "cwd": "/work", "input": call()}));
        let ask = match uid {
            Some(uid) => ask.over_socket(uid),
            None => ask,
        };
        page.send(ask).await
    };
    let first = ask("alpha", Some(1001)).await;
    assert_eq!(first.status, StatusCode::OK);
    // Another agent's name is no way around the quota of its user id.
    let said = ask("beta", Some(1001))
        .await
        .refusal_text(StatusCode::TOO_MANY_REQUESTS)
        .await;
    assert!(
        said.contains("the agents of user id 1001 on the socket together have 1 asks"),
        "{said}"
    );
    // Another user id, and an agent over TCP, each have a quota of their own.
    let other = ask("alpha", Some(1002)).await;
    assert_eq!(other.status, StatusCode::OK);
    let tcp = ask("alpha", None).await;
    assert_eq!(tcp.status, StatusCode::OK);
    assert_eq!(inbox.waiting(), 3);
    drop((first, other, tcp));
}

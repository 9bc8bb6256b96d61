//! The web presenter: the questions on a local HTTP page, answered in any browser.
//!
//! [`WebFrontend::bind`] opens the listening socket and makes a one-time link
//! ([`WebFrontend::link`]); [`Frontend::present`] serves the page until the person answers or
//! cancels, and dropping its future stops the server.
//!
//! Security (see `SECURITY.md`): the link's token is spent by the first visit, which gets an
//! HttpOnly, SameSite=Strict session cookie instead; every request must carry that cookie, a
//! `Host` that is an IP literal or `localhost` (no DNS rebinding), and, when it sends one, an
//! `Origin` equal to the page's own (every POST must send one). Responses carry a strict
//! Content-Security-Policy with no inline script, and the page inserts agent text only as text.
//!
//! The HTTP API (`ask-web/WEB.md`): `GET /api/asks` lists the asks with their state, questions,
//! masks and given answers ([`AskView`]), `GET /api/events` streams the same list as server-sent
//! events on every change, `POST /api/asks/{requestId}/answer` takes
//! `{"answers": [AnswerInput…]}` and `POST /api/asks/{requestId}/cancel` cancels.
//!
//! The page decides nothing about what it shows: the server sends, with each question, the text
//! that stands for its answer on every display when the answer is masked
//! ([`ask_core::answer_mask`]), and the answers given before the page took over as the page
//! pre-fills them ([`ask_core::Prefill`]).

mod link;

pub use link::{default_token_file, parent_name, qr_text, shows_qr, write_token};

use std::collections::HashSet;
use std::io::Read;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use ask_core::{
    Answer, AskUserInput, BoxError, Frontend, Limits, Outcome, Prefill, PresentError, Presenter,
    Question,
};
use async_trait::async_trait;
use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use tokio::sync::{oneshot, watch};

use ask_core::{AnswerInput, WireState};

/// The name of the session cookie.
pub const COOKIE: &str = "ask_user_session";

/// The Content-Security-Policy of every response: scripts, styles and requests from the page's
/// own origin only, nothing inline, no frames, no forms posted anywhere.
pub const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
                       connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; \
                       frame-ancestors 'none'";

/// How often a held agent request gets a blank line while its ask waits: a closed connection
/// is found at the next one, and ends the ask as connection lost.
pub const HEARTBEAT: Duration = Duration::from_secs(1);

/// How long the server waits, once the ask is over, for open pages to receive the final state.
const LINGER: Duration = Duration::from_secs(2);

const INDEX_HTML: &str = include_str!("../assets/index.html");
const APP_JS: &str = include_str!("../assets/app.js");
const APP_CSS: &str = include_str!("../assets/app.css");

/// Why the web presenter could not start.
#[derive(Debug, thiserror::Error)]
pub enum WebError {
    /// The address could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address asked for.
        addr: SocketAddr,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// No random bytes for the tokens.
    #[error("cannot read random bytes for the link token from /dev/urandom: {0}")]
    Random(#[source] std::io::Error),
    /// The server failed.
    #[error("the web server failed: {0}")]
    Serve(#[source] std::io::Error),
    /// `--via` names no `http://host:port` address.
    #[error("--via needs an address such as http://127.0.0.1:8080, not `{0}`")]
    ViaAddress(String),
    /// The inbox could not be reached.
    #[error(
        "cannot reach the ask-user inbox at {addr} ({source}); start one with `ask-user serve`, \
         or check the address given to --via"
    )]
    ViaConnect {
        /// The inbox.
        addr: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The inbox refused the ask.
    #[error("the ask-user inbox refused the questions ({status}): {message}")]
    ViaRefused {
        /// The HTTP status.
        status: u16,
        /// The inbox's sentence.
        message: String,
    },
}

/// Who asks, as the inbox page shows it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Asker {
    /// The agent's name (`--agent-name`, by default the parent process's name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// The agent's working folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
}

/// One ask as the page sees it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AskView {
    /// The id the page answers with.
    pub request_id: String,
    /// The state of the ask.
    pub state: WireState,
    /// The questions, as the model asked them.
    pub questions: Vec<Question>,
    /// For each question, the text the page shows in place of its answer and its note, which it
    /// also types masked ([`ask_core::answer_mask`]: `"[secret]"` for a secret question), or
    /// `None` when they are shown as typed.
    pub masks: Vec<Option<&'static str>>,
    /// The answers given before the page took over, one per question in order, as the page
    /// pre-fills them (`None` for a question still open); empty when nothing was given.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub given: Vec<Option<Prefill>>,
    /// Who asks.
    #[serde(flatten)]
    pub asker: Asker,
    /// When the ask arrived, in milliseconds since the Unix epoch.
    pub since: u64,
}

/// Everything the page is told: the asks, in the order they arrived.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Snapshot {
    /// Every ask this server has shown, waiting or finished.
    pub asks: Vec<AskView>,
    /// True once the server is about to stop: no more changes follow.
    pub closing: bool,
}

/// The mutable half of the server: the link token, the sessions, the ask in flight.
#[derive(Debug, Default)]
struct Inner {
    /// The link's token, until the first visit spends it.
    token: Option<String>,
    /// The session cookies handed out.
    sessions: HashSet<String>,
    /// Where the answer of the waiting ask goes, by request id.
    waiting: Vec<(String, oneshot::Sender<Outcome>)>,
    /// The number of asks shown so far, for their request ids.
    taken: u64,
}

#[derive(Debug)]
struct Shared {
    inner: Mutex<Inner>,
    snapshot: watch::Sender<Snapshot>,
    /// The token agents send (`Authorization: Bearer …`); `None` for the single-ask page.
    agent_token: Option<String>,
    /// The limits an agent's call is checked against.
    limits: Limits,
    /// `http://host:port` of the links.
    base: String,
}

impl AskView {
    /// The view of a new ask of `questions`, waiting for the person, with the answers `given`
    /// before it reached the page (in question order; empty when none were).
    pub fn waiting(
        request_id: String,
        questions: Vec<Question>,
        given: &[Option<Answer>],
        asker: Asker,
    ) -> AskView {
        let masks = questions.iter().map(ask_core::answer_mask).collect();
        let given = if given.iter().all(Option::is_none) {
            Vec::new()
        } else {
            questions
                .iter()
                .zip(given)
                .map(|(question, answer)| {
                    answer
                        .as_ref()
                        .and_then(|answer| Prefill::of(question, answer))
                })
                .collect()
        };
        AskView {
            request_id,
            state: WireState::WaitingForUser,
            questions,
            masks,
            given,
            asker,
            since: ask_core::now_ms(),
        }
    }
}

impl Shared {
    fn new(
        bound: SocketAddr,
        agent_token: Option<String>,
        limits: Limits,
    ) -> Result<Shared, WebError> {
        let host = if bound.ip().is_unspecified() {
            // Listening on every address: the link names this machine's loopback, which works
            // here; people elsewhere put this machine's address in its place.
            SocketAddr::new(IpAddr::from([127, 0, 0, 1]), bound.port())
        } else {
            bound
        };
        let (snapshot, _) = watch::channel(Snapshot::default());
        Ok(Shared {
            inner: Mutex::new(Inner {
                token: Some(random_token()?),
                ..Inner::default()
            }),
            snapshot,
            agent_token,
            limits,
            base: format!("http://{host}"),
        })
    }

    /// The link of the current token.
    fn link(&self) -> String {
        let token = self.lock().token.clone().unwrap_or_default();
        format!("{}/?token={token}", self.base)
    }

    /// A fresh one-time link; any earlier link that was not used stops working.
    fn fresh_link(&self) -> Result<String, WebError> {
        let token = random_token()?;
        self.lock().token = Some(token.clone());
        Ok(format!("{}/?token={token}", self.base))
    }

    /// Shows an ask on the page and gives the receiver of its outcome.
    fn open(&self, view: AskView) -> oneshot::Receiver<Outcome> {
        let (answer_tx, answer_rx) = oneshot::channel();
        self.lock()
            .waiting
            .push((view.request_id.clone(), answer_tx));
        self.snapshot.send_modify(|snapshot| {
            snapshot.closing = false;
            snapshot.asks.push(view);
        });
        answer_rx
    }

    /// The id of the next ask: `ask-1`, `ask-2`, ….
    fn next_id(&self) -> String {
        let mut inner = self.lock();
        inner.taken += 1;
        format!("ask-{}", inner.taken)
    }

    /// Ends a waiting ask as connection lost: its agent went away.
    fn lost(&self, request_id: &str) {
        let removed = {
            let mut inner = self.lock();
            let at = inner.waiting.iter().position(|(id, _)| id == request_id);
            at.map(|at| inner.waiting.swap_remove(at))
        };
        if removed.is_some() {
            self.set_state(request_id, WireState::ConnectionLost);
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic while the lock is held leaves data that is still consistent (every change is
        // one assignment), so a poisoned lock is taken as it is.
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Sets the state of one ask and tells every open page.
    fn set_state(&self, request_id: &str, state: WireState) {
        self.snapshot.send_modify(|snapshot| {
            if let Some(ask) = snapshot
                .asks
                .iter_mut()
                .find(|ask| ask.request_id == request_id)
            {
                ask.state = state;
            }
        });
    }
}

/// The web presenter: one local page that shows each ask it is given.
#[derive(Debug)]
pub struct WebFrontend {
    listener: std::net::TcpListener,
    addr: SocketAddr,
    shared: Arc<Shared>,
    link: String,
}

impl WebFrontend {
    /// Binds `addr` (use port 0 for any free port) and makes the one-time link.
    pub fn bind(addr: SocketAddr) -> Result<WebFrontend, WebError> {
        let listener =
            std::net::TcpListener::bind(addr).map_err(|source| WebError::Bind { addr, source })?;
        listener
            .set_nonblocking(true)
            .map_err(|source| WebError::Bind { addr, source })?;
        let bound = listener
            .local_addr()
            .map_err(|source| WebError::Bind { addr, source })?;
        let shared = Shared::new(bound, None, Limits::default())?;
        let link = shared.link();
        Ok(WebFrontend {
            listener,
            addr: bound,
            shared: Arc::new(shared),
            link,
        })
    }

    /// The one-time link to the page, to give the person.
    pub fn link(&self) -> &str {
        &self.link
    }

    /// The address the page listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Every address of the page (the page, its API, the link) on this presenter's state, with
    /// every check: what [`Frontend::present`] serves, for a host that serves it on a listener
    /// of its own or drives it in process.
    pub fn router(&self) -> axum::Router {
        router(&self.shared)
    }
}

/// The routes of one page and its API over `shared`.
fn router(shared: &Arc<Shared>) -> axum::Router {
    let shared = Arc::clone(shared);
    axum::Router::new().fallback(move |req| handle(Arc::clone(&shared), req))
}

#[async_trait]
impl Frontend for WebFrontend {
    fn presenter(&self) -> Presenter {
        Presenter::Web
    }

    async fn present(&self, request: &ask_core::AskRequest) -> Result<Outcome, PresentError> {
        self.serve_one(request).await.map_err(PresentError::Failed)
    }
}

impl WebFrontend {
    /// Serves the page until the person answers or cancels the one ask of `request`.
    async fn serve_one(&self, request: &ask_core::AskRequest) -> Result<Outcome, BoxError> {
        let listener = tokio::net::TcpListener::from_std(self.listener.try_clone()?)?;
        // The page names asks `ask-1`, `ask-2`, … in the order they came: an MCP session that
        // asks again gets a new id, never one of an earlier ask.
        let answer_rx = self.shared.open(AskView::waiting(
            self.shared.next_id(),
            request.input.questions.clone(),
            &request.given,
            Asker::default(),
        ));
        let app = self.router();
        let (stop_tx, stop_rx) = oneshot::channel::<()>();
        let mut server = tokio::spawn(
            axum::serve(listener, app)
                .with_graceful_shutdown(async move {
                    let _ = stop_rx.await;
                })
                .into_future(),
        );
        // Stops the server when this future ends or is dropped.
        let _guard = AbortOnDrop(server.abort_handle());
        let outcome = tokio::select! {
            outcome = answer_rx => outcome.unwrap_or(Outcome::ConnectionLost),
            served = &mut server => {
                return Err(Box::new(WebError::Serve(match served {
                    Ok(Err(error)) => error,
                    Ok(Ok(())) => std::io::Error::other("the server stopped"),
                    Err(join) => std::io::Error::other(join),
                })));
            }
        };
        // Open pages see the final state and their streams end; the server then stops,
        // waiting at most `LINGER` for them.
        self.shared
            .snapshot
            .send_modify(|snapshot| snapshot.closing = true);
        let _ = stop_tx.send(());
        let _ = tokio::time::timeout(LINGER, &mut server).await;
        Ok(outcome)
    }
}

/// Aborts a task when dropped.
struct AbortOnDrop(tokio::task::AbortHandle);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// 32 random bytes from the kernel, as 64 hex digits.
fn random_token() -> Result<String, WebError> {
    let mut bytes = [0u8; 32];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut file| file.read_exact(&mut bytes))
        .map_err(WebError::Random)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Compares two secrets in time that depends only on their lengths.
fn same_secret(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

/// Why a request was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Refusal {
    Host,
    Origin,
    NoSession,
    SpentLink,
}

impl Refusal {
    fn response(self) -> Response {
        let (status, text) = match self {
            Refusal::Host => (
                StatusCode::MISDIRECTED_REQUEST,
                "refused: the Host header must be an IP address or localhost (see SECURITY.md)",
            ),
            Refusal::Origin => (
                StatusCode::FORBIDDEN,
                "refused: the request comes from another origin",
            ),
            Refusal::NoSession => (
                StatusCode::UNAUTHORIZED,
                "refused: open the link that ask-user printed; this browser has no session",
            ),
            Refusal::SpentLink => (
                StatusCode::FORBIDDEN,
                "refused: this link was already used; ask for a fresh link where ask-user runs",
            ),
        };
        with_headers((status, text).into_response())
    }
}

/// The `Host` of a request when it names this machine by an IP address or `localhost`; a
/// name that DNS could point anywhere (rebinding) is refused.
fn checked_host(headers: &HeaderMap) -> Result<&str, Refusal> {
    let host = headers
        .get(header::HOST)
        .and_then(|value| value.to_str().ok())
        .ok_or(Refusal::Host)?;
    let name = match host.strip_prefix('[') {
        // [v6]:port
        Some(rest) => rest.split(']').next().unwrap_or_default(),
        None => host.rsplit_once(':').map_or(host, |(name, _)| name),
    };
    if name.eq_ignore_ascii_case("localhost") || name.parse::<IpAddr>().is_ok() {
        Ok(host)
    } else {
        Err(Refusal::Host)
    }
}

/// Checks `Origin` (and `Sec-Fetch-Site`): when sent, the page's own origin; a POST must send
/// it.
fn check_origin(method: &Method, headers: &HeaderMap, host: &str) -> Result<(), Refusal> {
    if let Some(site) = headers.get("sec-fetch-site")
        && !matches!(site.as_bytes(), b"same-origin" | b"none")
    {
        return Err(Refusal::Origin);
    }
    match headers.get(header::ORIGIN) {
        Some(origin) if origin.as_bytes() == format!("http://{host}").as_bytes() => Ok(()),
        Some(_) => Err(Refusal::Origin),
        None if method == Method::GET => Ok(()),
        None => Err(Refusal::Origin),
    }
}

/// The value of the session cookie, if the request carries one.
fn session_cookie(headers: &HeaderMap) -> Option<&str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .find_map(|pair| {
            let (name, value) = pair.trim().split_once('=')?;
            (name == COOKIE).then_some(value)
        })
}

/// The headers every response carries.
fn with_headers(mut response: Response) -> Response {
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

fn json_response<T: Serialize>(status: StatusCode, value: &T) -> Response {
    let body = serde_json::to_string(value).unwrap_or_else(|_| "{}".to_string());
    with_headers(
        (
            status,
            [(header::CONTENT_TYPE, "application/json; charset=utf-8")],
            body,
        )
            .into_response(),
    )
}

fn error_response(status: StatusCode, message: &str) -> Response {
    json_response(status, &serde_json::json!({ "error": message }))
}

/// Serves one request.
async fn handle(shared: Arc<Shared>, request: axum::extract::Request) -> Response {
    let (parts, body) = request.into_parts();
    let host = match checked_host(&parts.headers) {
        Ok(host) => host.to_string(),
        Err(refusal) => return refusal.response(),
    };
    if parts.uri.path().starts_with("/api/agent/") {
        return agent(&shared, &parts, body).await;
    }
    if let Err(refusal) = check_origin(&parts.method, &parts.headers, &host) {
        return refusal.response();
    }
    let session = session_cookie(&parts.headers)
        .filter(|cookie| {
            shared
                .lock()
                .sessions
                .iter()
                .any(|s| same_secret(s, cookie))
        })
        .is_some();
    let path = parts.uri.path();
    if parts.method == Method::GET
        && path == "/"
        && let Some(token) = parts
            .uri
            .query()
            .and_then(|query| query.split('&').find_map(|kv| kv.strip_prefix("token=")))
    {
        return exchange(&shared, token, session);
    }
    if !session {
        return Refusal::NoSession.response();
    }
    match (&parts.method, path) {
        (&Method::GET, "/") => page(INDEX_HTML, "text/html; charset=utf-8"),
        (&Method::GET, "/app.js") => page(APP_JS, "text/javascript; charset=utf-8"),
        (&Method::GET, "/app.css") => page(APP_CSS, "text/css; charset=utf-8"),
        (&Method::GET, "/api/asks") => json_response(StatusCode::OK, &*shared.snapshot.borrow()),
        (&Method::GET, "/api/events") => events(&shared),
        (&Method::POST, path) => {
            let Some(rest) = path.strip_prefix("/api/asks/") else {
                return error_response(StatusCode::NOT_FOUND, "no such address");
            };
            let Some((request_id, action)) = rest.rsplit_once('/') else {
                return error_response(StatusCode::NOT_FOUND, "no such address");
            };
            let json = parts
                .headers
                .get(header::CONTENT_TYPE)
                .is_some_and(|value| value.as_bytes().starts_with(b"application/json"));
            if !json {
                return error_response(
                    StatusCode::UNSUPPORTED_MEDIA_TYPE,
                    "send the body as application/json",
                );
            }
            let body = match axum::body::to_bytes(body, MAX_BODY).await {
                Ok(body) => body,
                Err(_) => {
                    return error_response(
                        StatusCode::PAYLOAD_TOO_LARGE,
                        "the request body is larger than 4 MiB",
                    );
                }
            };
            settle(&shared, request_id, action, &body)
        }
        _ => error_response(StatusCode::NOT_FOUND, "no such address"),
    }
}

/// An agent's request to the inbox: `Authorization: Bearer TOKEN`, and never a browser's
/// (no `Origin`, no `Sec-Fetch-Site`).
async fn agent(shared: &Arc<Shared>, parts: &axum::http::request::Parts, body: Body) -> Response {
    if parts.headers.contains_key(header::ORIGIN) || parts.headers.contains_key("sec-fetch-site") {
        return Refusal::Origin.response();
    }
    let sent = parts
        .headers
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "));
    let allowed = match (&shared.agent_token, sent) {
        (Some(expected), Some(sent)) => same_secret(expected, sent),
        _ => false,
    };
    if !allowed {
        return error_response(
            StatusCode::UNAUTHORIZED,
            "refused: send the agent token of `ask-user serve` as Authorization: Bearer TOKEN",
        );
    }
    if parts.method != Method::POST {
        return error_response(StatusCode::METHOD_NOT_ALLOWED, "use POST");
    }
    match parts.uri.path() {
        "/api/agent/link" => match shared.fresh_link() {
            Ok(link) => json_response(StatusCode::OK, &serde_json::json!({ "link": link })),
            Err(error) => error_response(StatusCode::INTERNAL_SERVER_ERROR, &error.to_string()),
        },
        "/api/agent/asks" => {
            let body = match axum::body::to_bytes(body, MAX_BODY).await {
                Ok(body) => body,
                Err(_) => {
                    return error_response(
                        StatusCode::PAYLOAD_TOO_LARGE,
                        "the request body is larger than 4 MiB",
                    );
                }
            };
            let ask = match serde_json::from_slice::<AgentAsk>(&body) {
                Ok(ask) => ask,
                Err(error) => {
                    return error_response(
                        StatusCode::BAD_REQUEST,
                        &format!("the body is not an ask: {error}"),
                    );
                }
            };
            let input = match ask_core::validate(ask.input, &shared.limits) {
                Ok(input) => input,
                Err(problems) => {
                    return error_response(StatusCode::UNPROCESSABLE_ENTITY, &problems.to_string());
                }
            };
            let questions = input.into_inner().questions;
            if let Err(problem) = check_given(&questions, &ask.given) {
                return error_response(StatusCode::UNPROCESSABLE_ENTITY, &problem);
            }
            let request_id = shared.next_id();
            let view = AskView::waiting(request_id.clone(), questions, &ask.given, ask.asker);
            let receiver = shared.open(view);
            held(Arc::clone(shared), request_id, receiver)
        }
        _ => error_response(StatusCode::NOT_FOUND, "no such address"),
    }
}

/// The body of `POST /api/agent/asks`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct AgentAsk {
    #[serde(flatten)]
    asker: Asker,
    input: AskUserInput,
    /// The answers the person gave before the ask reached the inbox, one per question in
    /// order, `null` for a question still open; absent when nothing was given.
    #[serde(default)]
    given: Vec<Option<Answer>>,
}

/// Checks that the answers an agent says were given belong to its questions: none, or one per
/// question, each naming its question.
fn check_given(questions: &[Question], given: &[Option<Answer>]) -> Result<(), String> {
    if given.is_empty() {
        return Ok(());
    }
    if given.len() != questions.len() {
        return Err(format!(
            "given holds {} answers for {} questions; give one per question, null for an open one",
            given.len(),
            questions.len()
        ));
    }
    for (index, (question, answer)) in questions.iter().zip(given).enumerate() {
        if let Some(answer) = answer
            && answer.question != question.question
        {
            return Err(format!(
                "given answer {} names the question \"{}\", not question {} (\"{}\")",
                index + 1,
                ask_core::sanitize_for_display(&answer.question),
                index + 1,
                ask_core::sanitize_for_display(&question.question)
            ));
        }
    }
    Ok(())
}

/// What the agent reads at the end of its held request: one JSON line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentOutcome {
    /// `answered`, `cancelled` or `connection_lost`.
    pub state: WireState,
    /// The answers, when answered.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub answers: Vec<Answer>,
}

/// Ends the ask as connection lost when the held response is dropped before its outcome was
/// sent (the agent closed the connection).
struct Holding {
    shared: Arc<Shared>,
    request_id: String,
    done: bool,
}

impl Drop for Holding {
    fn drop(&mut self) {
        if !self.done {
            self.shared.lost(&self.request_id);
        }
    }
}

/// The held response of an agent's ask: a blank line every [`HEARTBEAT`] while it waits (a
/// closed connection fails the write and ends the ask), then the outcome as one JSON line.
fn held(shared: Arc<Shared>, request_id: String, receiver: oneshot::Receiver<Outcome>) -> Response {
    let holding = Holding {
        shared,
        request_id,
        done: false,
    };
    let stream = futures_util::stream::unfold(Some((receiver, holding)), |state| async move {
        let (mut receiver, mut holding) = state?;
        tokio::select! {
            outcome = &mut receiver => {
                holding.done = true;
                let outcome = match outcome {
                    Ok(Outcome::Answered(answers)) => AgentOutcome { state: WireState::Answered, answers },
                    Ok(Outcome::Cancelled) => AgentOutcome { state: WireState::Cancelled, answers: Vec::new() },
                    _ => AgentOutcome { state: WireState::ConnectionLost, answers: Vec::new() },
                };
                let line = serde_json::to_string(&outcome).unwrap_or_default() + "\n";
                Some((Ok::<_, std::convert::Infallible>(Bytes::from(line)), None))
            }
            () = tokio::time::sleep(HEARTBEAT) => {
                Some((Ok(Bytes::from_static(b"\n")), Some((receiver, holding))))
            }
        }
    });
    with_headers(
        (
            [(header::CONTENT_TYPE, "application/x-ndjson")],
            Body::from_stream(stream),
        )
            .into_response(),
    )
}

/// The inbox of `ask-user serve`: one page for the asks of many agents, which send them with
/// [`ViaFrontend`].
#[derive(Debug)]
pub struct Inbox {
    listener: std::net::TcpListener,
    addr: SocketAddr,
    shared: Arc<Shared>,
}

impl Inbox {
    /// Binds `addr` and makes the agent token and the first one-time link; the agents' calls
    /// are checked against `limits`.
    pub fn bind(addr: SocketAddr, limits: Limits) -> Result<Inbox, WebError> {
        let listener =
            std::net::TcpListener::bind(addr).map_err(|source| WebError::Bind { addr, source })?;
        listener
            .set_nonblocking(true)
            .map_err(|source| WebError::Bind { addr, source })?;
        let bound = listener
            .local_addr()
            .map_err(|source| WebError::Bind { addr, source })?;
        let shared = Shared::new(bound, Some(random_token()?), limits)?;
        Ok(Inbox {
            listener,
            addr: bound,
            shared: Arc::new(shared),
        })
    }

    /// The address the inbox listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://host:port`, the address agents give to `--via`.
    pub fn base_url(&self) -> &str {
        &self.shared.base
    }

    /// The token agents must send.
    pub fn agent_token(&self) -> &str {
        self.shared.agent_token.as_deref().unwrap_or_default()
    }

    /// The current one-time link for people.
    pub fn link(&self) -> String {
        self.shared.link()
    }

    /// A fresh one-time link; the earlier one stops working if it was not used.
    pub fn fresh_link(&self) -> Result<String, WebError> {
        self.shared.fresh_link()
    }

    /// Every address of the inbox (the page, its API, the agents' API) on its state, with every
    /// check: what [`Inbox::serve`] serves, for a host that serves it on a listener of its own
    /// or drives it in process.
    pub fn router(&self) -> axum::Router {
        router(&self.shared)
    }

    /// Serves until the process ends.
    pub async fn serve(&self) -> Result<(), WebError> {
        let listener = self
            .listener
            .try_clone()
            .and_then(tokio::net::TcpListener::from_std)
            .map_err(WebError::Serve)?;
        axum::serve(listener, self.router())
            .await
            .map_err(WebError::Serve)
    }
}

/// Sends each ask to an inbox (`ask-user serve`) and waits, on the held request, for its
/// outcome: the agent side of `ask-user --via URL`.
#[derive(Debug, Clone)]
pub struct ViaFrontend {
    addr: String,
    token: String,
    asker: Asker,
}

impl ViaFrontend {
    /// The inbox at `url` (`http://host:port`), with the agent token and who asks.
    pub fn new(url: &str, token: String, asker: Asker) -> Result<ViaFrontend, WebError> {
        let addr = url
            .strip_prefix("http://")
            .map(|rest| rest.trim_end_matches('/'))
            .filter(|rest| !rest.is_empty() && !rest.contains('/'))
            .ok_or_else(|| WebError::ViaAddress(url.to_string()))?;
        Ok(ViaFrontend {
            addr: addr.to_string(),
            token,
            asker,
        })
    }

    /// Asks the inbox for a fresh one-time link for people.
    pub async fn fresh_link(&self) -> Result<String, BoxError> {
        let (status, mut lines) = self.post("/api/agent/link", "{}").await?;
        let body = lines.next_line().await?.unwrap_or_default();
        let reply: serde_json::Value = serde_json::from_str(&body)?;
        if status != 200 {
            return Err(self.refused(status, &reply));
        }
        Ok(reply["link"].as_str().unwrap_or_default().to_string())
    }

    fn refused(&self, status: u16, reply: &serde_json::Value) -> BoxError {
        Box::new(WebError::ViaRefused {
            status,
            message: reply["error"]
                .as_str()
                .unwrap_or("no reason given")
                .to_string(),
        })
    }

    /// Sends one HTTP/1.0 POST (the answer is then delimited by the end of the connection) and
    /// gives the status and the lines of the body.
    async fn post(
        &self,
        path: &str,
        body: &str,
    ) -> Result<
        (
            u16,
            tokio::io::Lines<tokio::io::BufReader<tokio::net::TcpStream>>,
        ),
        BoxError,
    > {
        use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
        let mut stream = tokio::net::TcpStream::connect(&self.addr)
            .await
            .map_err(|source| WebError::ViaConnect {
                addr: self.addr.clone(),
                source,
            })?;
        let request = format!(
            "POST {path} HTTP/1.0\r\nHost: {}\r\nAuthorization: Bearer {}\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            self.addr,
            self.token,
            body.len()
        );
        stream.write_all(request.as_bytes()).await?;
        let mut lines = tokio::io::BufReader::new(stream).lines();
        let status_line = lines.next_line().await?.unwrap_or_default();
        let status = status_line
            .split(' ')
            .nth(1)
            .and_then(|code| code.parse().ok())
            .unwrap_or(0);
        while let Some(line) = lines.next_line().await? {
            if line.trim().is_empty() {
                break;
            }
        }
        Ok((status, lines))
    }
}

#[async_trait]
impl Frontend for ViaFrontend {
    fn presenter(&self) -> Presenter {
        Presenter::Web
    }

    async fn present(&self, request: &ask_core::AskRequest) -> Result<Outcome, PresentError> {
        self.ask_inbox(request).await.map_err(PresentError::Failed)
    }
}

impl ViaFrontend {
    /// Posts the ask of `request` to the inbox and waits for its outcome.
    async fn ask_inbox(&self, request: &ask_core::AskRequest) -> Result<Outcome, BoxError> {
        let mut body = serde_json::json!({
            "agent": self.asker.agent,
            "cwd": self.asker.cwd,
            "input": request.input.input(),
        });
        // The answers given before the inbox took over go with the ask, for the page to show.
        if request.given.iter().any(Option::is_some) {
            body["given"] = serde_json::to_value(&request.given)?;
        }
        let body = body.to_string();
        let (status, mut lines) = self.post("/api/agent/asks", &body).await?;
        if status != 200 {
            let text = lines.next_line().await?.unwrap_or_default();
            let reply = serde_json::from_str(&text).unwrap_or(serde_json::Value::Null);
            return Err(self.refused(status, &reply));
        }
        // Blank lines keep the request alive; the one JSON line is the outcome. The end of
        // the connection before it is a lost inbox.
        while let Some(line) = lines.next_line().await? {
            if line.trim().is_empty() {
                continue;
            }
            let outcome: AgentOutcome = serde_json::from_str(&line)?;
            return Ok(match outcome.state {
                WireState::Answered => Outcome::Answered(outcome.answers),
                WireState::Cancelled => Outcome::Cancelled,
                WireState::ConnectionLost | WireState::WaitingForUser => Outcome::ConnectionLost,
            });
        }
        Ok(Outcome::ConnectionLost)
    }
}

/// The most bytes one request body may hold: far above four answers at the limits.
pub const MAX_BODY: usize = 4 * 1024 * 1024;

fn page(text: &'static str, content_type: &'static str) -> Response {
    with_headers(([(header::CONTENT_TYPE, content_type)], text).into_response())
}

/// The first visit of the link: spends the token and hands out a session cookie.
fn exchange(shared: &Shared, token: &str, has_session: bool) -> Response {
    let mut inner = shared.lock();
    let valid = inner
        .token
        .as_deref()
        .is_some_and(|expected| same_secret(expected, token));
    if !valid {
        drop(inner);
        if has_session {
            // A reload of the link in the browser that spent it.
            return with_headers(
                (StatusCode::SEE_OTHER, [(header::LOCATION, "/")]).into_response(),
            );
        }
        return Refusal::SpentLink.response();
    }
    inner.token = None;
    let session = match random_token() {
        Ok(session) => session,
        Err(error) => {
            return error_response(StatusCode::INTERNAL_SERVER_ERROR, &error.to_string());
        }
    };
    inner.sessions.insert(session.clone());
    drop(inner);
    let cookie = format!("{COOKIE}={session}; HttpOnly; SameSite=Strict; Path=/");
    with_headers(
        (
            StatusCode::SEE_OTHER,
            [
                (header::LOCATION, "/".to_string()),
                (header::SET_COOKIE, cookie),
            ],
        )
            .into_response(),
    )
}

/// The body of `POST /api/asks/{id}/answer`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct AnswerBody {
    answers: Vec<AnswerInput>,
}

/// Answers or cancels one ask.
fn settle(shared: &Shared, request_id: &str, action: &str, body: &Bytes) -> Response {
    let outcome = match action {
        "answer" => {
            let answers = match serde_json::from_slice::<AnswerBody>(body) {
                Ok(body) => body.answers,
                Err(error) => {
                    return error_response(
                        StatusCode::BAD_REQUEST,
                        &format!("the body is not an answer object: {error}"),
                    );
                }
            };
            let questions = shared
                .snapshot
                .borrow()
                .asks
                .iter()
                .find(|ask| ask.request_id == request_id)
                .map(|ask| ask.questions.clone());
            let Some(questions) = questions else {
                return error_response(StatusCode::NOT_FOUND, "no such ask");
            };
            match ask_core::to_answers(&questions, &answers) {
                Ok(answers) => Outcome::Answered(answers),
                Err(problem) => return error_response(StatusCode::UNPROCESSABLE_ENTITY, &problem),
            }
        }
        "cancel" => Outcome::Cancelled,
        _ => return error_response(StatusCode::NOT_FOUND, "no such address"),
    };
    let sender = {
        let mut inner = shared.lock();
        let at = inner.waiting.iter().position(|(id, _)| id == request_id);
        at.map(|at| inner.waiting.swap_remove(at).1)
    };
    let Some(sender) = sender else {
        return error_response(
            StatusCode::CONFLICT,
            "this ask is no longer waiting: it was answered, cancelled or withdrawn",
        );
    };
    let state = match outcome {
        Outcome::Answered(_) => WireState::Answered,
        _ => WireState::Cancelled,
    };
    if sender.send(outcome).is_err() {
        shared.set_state(request_id, WireState::ConnectionLost);
        return error_response(StatusCode::GONE, "the agent stopped waiting for this ask");
    }
    shared.set_state(request_id, state);
    json_response(StatusCode::OK, &serde_json::json!({ "state": state }))
}

/// `GET /api/events`: the snapshot now and after every change, as server-sent events, until
/// the server closes.
fn events(shared: &Shared) -> Response {
    let mut receiver = shared.snapshot.subscribe();
    receiver.mark_changed();
    let stream =
        futures_util::stream::unfold((receiver, false), |(mut receiver, done)| async move {
            if done || receiver.changed().await.is_err() {
                return None;
            }
            let snapshot = receiver.borrow_and_update().clone();
            let data = serde_json::to_string(&snapshot).unwrap_or_else(|_| "{}".to_string());
            let frame = format!("event: asks\ndata: {data}\n\n");
            Some((
                Ok::<_, std::convert::Infallible>(Bytes::from(frame)),
                (receiver, snapshot.closing),
            ))
        });
    with_headers(
        (
            [(header::CONTENT_TYPE, "text/event-stream")],
            Body::from_stream(stream),
        )
            .into_response(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(*name, HeaderValue::from_str(value).unwrap());
        }
        map
    }

    #[test]
    fn host_must_be_an_ip_address_or_localhost() {
        for ok in [
            "127.0.0.1:8080",
            "localhost:1",
            "LOCALHOST",
            "[::1]:99",
            "10.0.0.2",
        ] {
            assert_eq!(checked_host(&headers(&[("host", ok)])), Ok(ok), "{ok}");
        }
        for bad in [
            "evil.example:8080",
            "127.0.0.1.nip.io",
            "",
            "localhost.evil:1",
        ] {
            assert_eq!(
                checked_host(&headers(&[("host", bad)])),
                Err(Refusal::Host),
                "{bad}"
            );
        }
        assert_eq!(checked_host(&HeaderMap::new()), Err(Refusal::Host));
    }

    #[test]
    fn origin_must_be_the_page_itself_and_posts_must_send_it() {
        let host = "127.0.0.1:8080";
        let own = headers(&[("origin", "http://127.0.0.1:8080")]);
        assert_eq!(check_origin(&Method::POST, &own, host), Ok(()));
        let foreign = headers(&[("origin", "http://evil.example")]);
        assert_eq!(
            check_origin(&Method::GET, &foreign, host),
            Err(Refusal::Origin)
        );
        assert_eq!(
            check_origin(&Method::POST, &HeaderMap::new(), host),
            Err(Refusal::Origin)
        );
        assert_eq!(check_origin(&Method::GET, &HeaderMap::new(), host), Ok(()));
        let cross = headers(&[("sec-fetch-site", "cross-site")]);
        assert_eq!(
            check_origin(&Method::GET, &cross, host),
            Err(Refusal::Origin)
        );
    }

    #[test]
    fn the_session_cookie_is_found_among_others() {
        let map = headers(&[("cookie", "a=1; ask_user_session=abc; b=2")]);
        assert_eq!(session_cookie(&map), Some("abc"));
        assert_eq!(session_cookie(&headers(&[("cookie", "a=1")])), None);
        assert!(same_secret("abc", "abc"));
        assert!(!same_secret("abc", "abd"));
        assert!(!same_secret("abc", "ab"));
    }
}

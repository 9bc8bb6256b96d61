//! The web presenter: the questions on a local HTTP page, answered in any browser, and the
//! inbox of `ask-user serve` that shows the asks of many agents on one page.
//!
//! [`WebFrontend::bind`] opens the listening socket and makes a one-time link
//! ([`WebFrontend::link`]); [`present`](ask_core::Frontend::present) serves the page until the
//! person answers or cancels, and dropping its future stops the server. [`Inbox`] serves the
//! same page for the agents that send their asks with [`ViaFrontend`] (`ask-user --via URL`);
//! [`run`] holds what the command line needs around them.
//!
//! Security (see `SECURITY.md`): the link carries its one-time token in the URL fragment, which
//! no request carries; the page spends it with `POST /api/session` for a credential that it
//! keeps in `sessionStorage` (whose origin includes the port) and sends as
//! `Authorization: Bearer …`. No cookie is ever set. Every request must carry a `Host` that is
//! an IP literal or `localhost` (no DNS rebinding), and, when it sends one, an `Origin` equal to
//! the page's own (every POST must send one). Responses carry a strict
//! Content-Security-Policy with no inline script, and the page inserts agent text only as text.
//! Agents and the inbox prove to each other that they hold the agents' token by an HMAC
//! challenge-response ([`auth`]); the token never crosses the socket.
//!
//! Nothing is acknowledged that did not arrive: the person's answer is reported as sent only
//! once the agent confirmed that it received it (`--via`), or once the process that waits for it
//! took it while its agent is still there (`--mode web`); otherwise the page says that the agent
//! cannot be reached and keeps the answer on screen.
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

pub mod auth;
mod board;
mod gone;
mod inbox;
mod link;
mod listen;
pub mod run;
mod single;
pub mod store;
mod via;
mod words;

pub use board::{AskView, Asker, QUEUE, RETAIN_FINISHED, Snapshot, WAITING_BUDGET};
pub use gone::AgentWatch;
pub use inbox::{
    AgentOutcome, Inbox, InboxTokens, MAX_AGENT_NAME, MAX_FOLDER, STALE_CHALLENGE, fit_asker,
};
pub use link::{
    NotKept, default_token_file, kept_token, link_token_file, parent_name, qr_text, shows_qr,
    write_token,
};
pub use listen::{Bounds, HEADER_TIMEOUT, evicted};
pub use single::WebFrontend;
pub use store::{AskStore, FileStore, Kept, KeptState, StoreError, StoredAsk};
pub use via::{CONNECT_TRIES, ViaFrontend};

use std::collections::{HashSet, VecDeque};
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use ask_core::Outcome;
use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use tokio::sync::{oneshot, watch};

use ask_core::{AnswerInput, WireState};

use auth::same_secret;

/// The Content-Security-Policy of every response: scripts, styles and requests from the page's
/// own origin only, nothing inline, no frames, no forms posted anywhere.
pub const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
                       connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; \
                       frame-ancestors 'none'";

/// How often a held agent request gets a blank line while its ask waits: a closed connection
/// is found at the next one, and ends the ask as connection lost.
pub const HEARTBEAT: Duration = Duration::from_secs(1);

/// How long the person's answer waits for its agent to confirm that it received it; past that,
/// the agent counts as gone, and the page says the answer was not delivered.
pub const DELIVERY_PATIENCE: Duration = Duration::from_secs(5);

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
    /// What listens at the address could not prove that it holds the token.
    #[error(
        "what listens at {addr} is not the ask-user inbox this token belongs to (it could not \
         prove that it holds the token, which was not sent); check --via, or the token file \
         after `ask-user serve --rotate-token`"
    )]
    ViaImpostor {
        /// The address.
        addr: String,
    },
    /// The inbox sent something that is not its protocol.
    #[error("the ask-user inbox at {addr} answered out of protocol: {reason}")]
    ViaProtocol {
        /// The address.
        addr: String,
        /// What was wrong.
        reason: String,
    },
}

/// A non-blocking listener bound to `addr` (port 0: any free port), and the address it got.
impl WebError {
    /// True when the inbox did not prove that it holds the token: something else listens there.
    pub fn is_impostor(&self) -> bool {
        matches!(self, WebError::ViaImpostor { .. })
    }
}

fn bind_listener(addr: SocketAddr) -> Result<(std::net::TcpListener, SocketAddr), WebError> {
    let bind = |source| WebError::Bind { addr, source };
    let listener = std::net::TcpListener::bind(addr).map_err(bind)?;
    listener.set_nonblocking(true).map_err(bind)?;
    let bound = listener.local_addr().map_err(bind)?;
    Ok((listener, bound))
}

fn random_token() -> Result<String, WebError> {
    auth::random_token().map_err(WebError::Random)
}

/// An outcome on its way to the agent, with the receipt the agent's side fires once it has it.
#[derive(Debug)]
struct Delivery {
    outcome: Outcome,
    receipt: oneshot::Sender<()>,
}

/// One ask still waiting for the person.
#[derive(Debug)]
struct Waiting {
    request_id: String,
    /// The questions, as the agent asked them.
    questions: Vec<ask_core::Question>,
    /// The SHA-256 ([`auth::digest`]) of the 256-bit capability of this ask alone, given to the
    /// agent that created it (the single-ask page has none).
    capability: Option<String>,
    /// Where the outcome goes: the agent's held connection, or the waiting `present`; `None`
    /// while no agent is attached (its connection ended and the inbox keeps its asks).
    agent: Option<oneshot::Sender<Delivery>>,
    /// Which attachment of an agent holds `agent`: a held connection that ends detaches only
    /// its own.
    attached: u64,
    /// The outcome the person gave while no agent could take it, saved in the store for the
    /// agent that comes back.
    saved: Option<Outcome>,
    /// True while an answer is on its way: a second one is refused.
    delivering: bool,
    /// The receipt of an outcome the held connection carried, fired when the agent confirms.
    receipt: Option<oneshot::Sender<()>>,
}

/// The mutable half of the server: the link token, the sessions, the asks in flight.
#[derive(Debug, Default)]
struct Inner {
    /// The link's token, until the first visit spends it.
    token: Option<String>,
    /// The people's credentials handed out for spent links.
    sessions: HashSet<String>,
    /// The asks waiting for the person.
    waiting: Vec<Waiting>,
    /// The number of asks shown so far, for their request ids.
    taken: u64,
    /// The nonces of the inbox handed out by `hello`, each answerable once, oldest first.
    challenges: VecDeque<(String, Instant)>,
    /// True once the server stops: new answers are refused and kept on the page.
    stopping: bool,
    /// The answers on their way to their agents now.
    in_flight: usize,
    /// The page's language when one was given (`--lang`); else each browser's.
    lang: Option<ask_core::lang::Lang>,
    /// The number of agent attachments so far, for [`Waiting::attached`].
    attachments: u64,
}

impl Inner {
    /// The waiting ask `request_id`.
    fn waiting_mut(&mut self, request_id: &str) -> Option<&mut Waiting> {
        self.waiting
            .iter_mut()
            .find(|waiting| waiting.request_id == request_id)
    }
}

/// The agents' API (`/api/agent/…`) of a server: the inbox's, handed to `Shared::new` by
/// whoever makes the server, so that the page server never names the inbox.
type AgentApi = fn(
    Arc<Shared>,
    axum::http::request::Parts,
    Body,
) -> std::pin::Pin<Box<dyn std::future::Future<Output = Response> + Send>>;

#[derive(Debug)]
struct Shared {
    inner: Mutex<Inner>,
    /// Serves `/api/agent/…`.
    agent_api: AgentApi,
    /// What the pages are told.
    board: Arc<board::Board>,
    /// The token agents prove they hold; `None` for the single-ask page.
    agent_token: Option<String>,
    /// The token that alone mints links for people (`ask-user serve --link`); `None` for the
    /// single-ask page.
    people_token: Option<String>,
    /// The limits an agent's call is checked against.
    limits: ask_core::Limits,
    /// `http://host:port` of the links.
    base: String,
    /// Turns true when the server stops: held agent requests end as connection lost.
    stopped: watch::Sender<bool>,
    /// Told when the last answer in flight arrived or failed.
    settled: tokio::sync::Notify,
    /// Where the inbox keeps its asks (`ask-user serve --store`): then an agent whose
    /// connection ends stays attached to nothing, and its ask waits for it to come back.
    store: Option<Arc<dyn AskStore>>,
}

impl Shared {
    fn new(
        bound: SocketAddr,
        tokens: Option<InboxTokens>,
        limits: ask_core::Limits,
        agent_api: AgentApi,
        store: Option<Arc<dyn AskStore>>,
    ) -> Result<Shared, WebError> {
        let host = if bound.ip().is_unspecified() {
            // Listening on every address: the link names this machine's loopback, which works
            // here; people elsewhere put this machine's address in its place.
            SocketAddr::new(IpAddr::from([127, 0, 0, 1]), bound.port())
        } else {
            bound
        };
        let (stopped, _) = watch::channel(false);
        let (agent_token, people_token) = match tokens {
            Some(tokens) => (Some(tokens.agent), Some(tokens.people)),
            None => (None, None),
        };
        Ok(Shared {
            inner: Mutex::new(Inner {
                token: Some(random_token()?),
                ..Inner::default()
            }),
            agent_api,
            board: Arc::new(board::Board::new()),
            agent_token,
            people_token,
            limits,
            base: format!("http://{host}"),
            stopped,
            settled: tokio::sync::Notify::new(),
            store,
        })
    }

    /// The link of the current token.
    fn link(&self) -> String {
        let token = self.lock().token.clone().unwrap_or_default();
        format!("{}/#token={token}", self.base)
    }

    /// A fresh one-time link; any earlier link that was not used stops working.
    fn fresh_link(&self) -> Result<String, WebError> {
        let token = random_token()?;
        self.lock().token = Some(token.clone());
        Ok(format!("{}/#token={token}", self.base))
    }

    /// Shows an ask on the page and gives the receiver of its outcome, with the number of this
    /// attachment; `Err` when the asks waiting already fill [`WAITING_BUDGET`]. `capability`
    /// is the digest of the ask's capability.
    fn open(
        &self,
        view: AskView,
        capability: Option<String>,
    ) -> Result<(oneshot::Receiver<Delivery>, u64), board::Full> {
        let (agent, delivered) = oneshot::channel();
        let request_id = view.request_id.clone();
        let questions = view.questions.clone();
        self.board.push(view)?;
        let mut inner = self.lock();
        inner.attachments += 1;
        let attached = inner.attachments;
        inner.waiting.push(Waiting {
            request_id,
            questions,
            capability,
            agent: Some(agent),
            attached,
            saved: None,
            delivering: false,
            receipt: None,
        });
        Ok((delivered, attached))
    }

    /// The held connection of attachment `attached` to the ask `request_id` ended before it
    /// carried an outcome: with a store, the ask waits for its agent to come back; without
    /// one, it ends as connection lost.
    fn detach(&self, request_id: &str, attached: u64) {
        if self.store.is_none() {
            self.lost(request_id);
            return;
        }
        let mut inner = self.lock();
        if let Some(waiting) = inner
            .waiting
            .iter_mut()
            .find(|w| w.request_id == request_id && w.attached == attached)
        {
            waiting.agent = None;
        }
    }

    /// An outcome did not go out: the ask `request_id` waits again, held by `agent` when it
    /// is still attached.
    fn undeliver(&self, request_id: &str, agent: Option<oneshot::Sender<Delivery>>) {
        let mut inner = self.lock();
        if let Some(waiting) = inner.waiting_mut(request_id) {
            waiting.delivering = false;
            waiting.agent = agent.or(waiting.agent.take());
        }
    }

    /// Keeps `outcome` for the agent of `request_id`, which is not attached now: it was written
    /// to the store, and the pages show the ask as ended.
    fn save(self: &Arc<Shared>, request_id: &str, outcome: Outcome) {
        let state = WireState::of(&outcome);
        let attached = {
            let mut inner = self.lock();
            inner.waiting_mut(request_id).and_then(|waiting| {
                waiting.delivering = false;
                waiting.saved = Some(outcome.clone());
                // The agent attached again while the outcome was on its way to the connection
                // before: the new one takes it.
                waiting.agent.is_some().then(|| waiting.questions.clone())
            })
        };
        self.set_state(request_id, state);
        if let Some(questions) = attached {
            self.hand_saved(request_id, questions, outcome);
        }
    }

    /// Hands the outcome saved for the ask `request_id` to its agent, attached again: the ask
    /// ends once the agent confirms it, or stays saved for the next attachment.
    fn hand_saved(
        self: &Arc<Shared>,
        request_id: &str,
        questions: Vec<ask_core::Question>,
        outcome: Outcome,
    ) {
        let agent = {
            let mut inner = self.lock();
            inner
                .waiting_mut(request_id)
                .and_then(|w| Some((w.agent.take()?, w.attached)))
        };
        let Some((agent, attached)) = agent else {
            return;
        };
        let (receipt, received) = oneshot::channel();
        let delivery = Delivery {
            outcome: outcome.clone(),
            receipt,
        };
        if agent.send(delivery).is_err() {
            return;
        }
        let shared = Arc::clone(self);
        let request_id = request_id.to_string();
        tokio::spawn(async move {
            if let Ok(Ok(())) = tokio::time::timeout(DELIVERY_PATIENCE, received).await {
                shared
                    .delivered(&request_id, attached, &questions, &outcome)
                    .await;
            }
        });
    }

    /// The agent of `request_id`, attached as `attached`, confirmed that it has `outcome`: the
    /// store (if any) records that it was delivered, and the ask ends, unless the agent attached
    /// again meanwhile (then the newer attachment, which is handed the same outcome, ends it).
    async fn delivered(
        &self,
        request_id: &str,
        attached: u64,
        questions: &[ask_core::Question],
        outcome: &Outcome,
    ) {
        // The store first: until the ask leaves the list, the same call attaching again gets
        // the outcome from memory, and once it left, from the store.
        if let Some(store) = &self.store {
            let state = store::kept_state(questions, outcome).delivered();
            // An ask not marked is offered to its agent again after a restart: at least once.
            if let Err(error) = store.mark_delivered(request_id, state).await {
                ask_session::console::say(&error.to_string());
            }
        }
        let newer = self
            .lock()
            .waiting_mut(request_id)
            .is_some_and(|waiting| waiting.attached != attached);
        if !newer {
            self.remove(request_id);
            self.set_state(request_id, WireState::of(outcome));
        }
    }

    /// The id of the next ask: `ask-1`, `ask-2`, ….
    fn next_id(&self) -> String {
        let mut inner = self.lock();
        inner.taken += 1;
        format!("ask-{}", inner.taken)
    }

    /// Ends a waiting ask as connection lost: its agent went away.
    fn lost(&self, request_id: &str) {
        if self.remove(request_id).is_some() {
            self.set_state(request_id, WireState::ConnectionLost);
        }
    }

    /// Takes a waiting ask off the list.
    fn remove(&self, request_id: &str) -> Option<Waiting> {
        let mut inner = self.lock();
        let at = inner
            .waiting
            .iter()
            .position(|w| w.request_id == request_id);
        at.map(|at| inner.waiting.swap_remove(at))
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
        self.board.set_state(request_id, state);
    }

    /// Stops the server in order: new answers are refused (and kept on their pages), the
    /// answers in flight reach their agents or fail (at most [`DELIVERY_PATIENCE`]), then the
    /// pages are told that the server closes and the held agent requests end.
    async fn stop(&self) {
        self.lock().stopping = true;
        let _ = tokio::time::timeout(DELIVERY_PATIENCE + Duration::from_secs(1), async {
            loop {
                let settled = self.settled.notified();
                if self.lock().in_flight == 0 {
                    return;
                }
                settled.await;
            }
        })
        .await;
        self.board.close();
        self.stopped.send_replace(true);
    }
}

/// Makes fresh one-time links for a running page or inbox, from another thread (Enter on the
/// terminal).
#[derive(Debug, Clone)]
pub struct Links(Arc<Shared>);

impl Links {
    /// A fresh one-time link; the earlier one stops working if it was not used.
    pub fn fresh(&self) -> Result<String, WebError> {
        self.0.fresh_link()
    }
}

/// The routes of one page and its API over `shared`.
fn router(shared: &Arc<Shared>) -> axum::Router {
    let shared = Arc::clone(shared);
    axum::Router::new().fallback(move |req| handle(Arc::clone(&shared), req))
}

/// Aborts a task when dropped.
struct AbortOnDrop(tokio::task::AbortHandle);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
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

/// The person's credential, `Authorization: Bearer SESSION`, if the request carries one.
fn session_credential(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "))
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
        return (shared.agent_api)(Arc::clone(&shared), parts, body).await;
    }
    if let Err(refusal) = check_origin(&parts.method, &parts.headers, &host) {
        return refusal.response();
    }
    let path = parts.uri.path();
    // The page itself holds no data: it is served to anyone who may reach it, and asks for
    // everything else with the credential its link was exchanged for.
    match (&parts.method, path) {
        (&Method::GET, "/") => return page(INDEX_HTML, "text/html; charset=utf-8"),
        (&Method::GET, "/app.js") => return page(APP_JS, "text/javascript; charset=utf-8"),
        (&Method::GET, "/app.css") => return page(APP_CSS, "text/css; charset=utf-8"),
        (&Method::GET, "/text.json") => {
            let words = words::words(shared.lock().lang, &parts.headers);
            let mut response = json_response(StatusCode::OK, &words);
            let vary = HeaderValue::from_static("accept-language");
            response.headers_mut().insert(header::VARY, vary);
            return response;
        }
        (&Method::POST, "/api/session") => {
            let body = match read_body(body).await {
                Ok(body) => body,
                Err(refused) => return refused,
            };
            let exchanged = exchange(&shared, &body);
            if exchanged.status() == StatusCode::OK {
                trust(&parts);
            }
            return exchanged;
        }
        _ => {}
    }
    let session = session_credential(&parts.headers)
        .is_some_and(|sent| shared.lock().sessions.iter().any(|s| same_secret(s, sent)));
    if !session {
        return Refusal::NoSession.response();
    }
    // The person's connection: never closed to make room for unauthenticated ones.
    trust(&parts);
    match (&parts.method, path) {
        (&Method::GET, "/api/asks") => json_response(StatusCode::OK, &shared.board.snapshot()),
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
            let body = match read_body(body).await {
                Ok(body) => body,
                Err(refused) => return refused,
            };
            settle(&shared, request_id, action, &body).await
        }
        _ => error_response(StatusCode::NOT_FOUND, "no such address"),
    }
}

/// Marks the connection of `parts` as one that carried an authenticated request, which the
/// cap on unauthenticated connections never closes.
fn trust(parts: &axum::http::request::Parts) {
    if let Some(trusted) = parts.extensions.get::<listen::Trusted>() {
        trusted.mark();
    }
}

/// The most bytes one request body may hold: far above four answers at the limits.
pub const MAX_BODY: usize = 4 * 1024 * 1024;

/// The most bytes of request bodies held at once, all requests together.
pub const BODY_BUDGET: usize = 64 * 1024 * 1024;

/// How long a client may take to send a request body, and how long a body waits for room in
/// [`BODY_BUDGET`].
pub const BODY_TIMEOUT: Duration = Duration::from_secs(10);

/// The room of [`BODY_BUDGET`], in KiB.
static BODY_ROOM: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(BODY_BUDGET / 1024);

/// A request body, with its share of [`BODY_BUDGET`] while it lives.
struct Read {
    bytes: Bytes,
    _room: tokio::sync::SemaphorePermit<'static>,
}

impl std::ops::Deref for Read {
    type Target = Bytes;
    fn deref(&self) -> &Bytes {
        &self.bytes
    }
}

/// A request body of at most [`MAX_BODY`] bytes, read within [`BODY_TIMEOUT`] once there is
/// room for it (its `Content-Length`, else [`MAX_BODY`]) in [`BODY_BUDGET`].
async fn read_body(body: Body) -> Result<Read, Response> {
    use axum::body::HttpBody as _;
    let size = body
        .size_hint()
        .upper()
        .and_then(|n| usize::try_from(n).ok())
        .unwrap_or(MAX_BODY)
        .min(MAX_BODY);
    let kib = u32::try_from(size.div_ceil(1024).max(1)).unwrap_or(u32::MAX);
    let busy = || {
        error_response(
            StatusCode::SERVICE_UNAVAILABLE,
            "ask-user is busy reading other requests; try again",
        )
    };
    let room = tokio::time::timeout(BODY_TIMEOUT, BODY_ROOM.acquire_many(kib))
        .await
        .map_err(|_| busy())?
        .map_err(|_| busy())?;
    let bytes = tokio::time::timeout(BODY_TIMEOUT, axum::body::to_bytes(body, MAX_BODY))
        .await
        .map_err(|_| {
            error_response(
                StatusCode::REQUEST_TIMEOUT,
                "the request body did not arrive in time",
            )
        })?
        .map_err(|_| {
            error_response(
                StatusCode::PAYLOAD_TOO_LARGE,
                "the request body is larger than 4 MiB",
            )
        })?;
    Ok(Read { bytes, _room: room })
}

fn page(text: &'static str, content_type: &'static str) -> Response {
    with_headers(([(header::CONTENT_TYPE, content_type)], text).into_response())
}

/// The body of `POST /api/session`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SessionBody {
    token: String,
}

/// `POST /api/session {"token": …}`: the page spends the link's token (from the link's
/// fragment, which no request carries) for a credential of its own, which it keeps in
/// `sessionStorage` and sends as `Authorization: Bearer …`. No cookie is ever set: the
/// credential reaches no other server of this machine, and two pages in one browser keep
/// theirs apart.
fn exchange(shared: &Shared, body: &Bytes) -> Response {
    let Ok(SessionBody { token }) = serde_json::from_slice::<SessionBody>(body) else {
        return error_response(StatusCode::BAD_REQUEST, "send {\"token\": …}");
    };
    let mut inner = shared.lock();
    let valid = inner
        .token
        .as_deref()
        .is_some_and(|expected| same_secret(expected, &token));
    if !valid {
        drop(inner);
        return Refusal::SpentLink.response();
    }
    let session = match random_token() {
        Ok(session) => session,
        Err(error) => {
            return error_response(StatusCode::INTERNAL_SERVER_ERROR, &error.to_string());
        }
    };
    inner.token = None;
    inner.sessions.insert(session.clone());
    drop(inner);
    json_response(StatusCode::OK, &serde_json::json!({ "session": session }))
}

/// The body of `POST /api/asks/{id}/answer`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct AnswerBody {
    answers: Vec<AnswerInput>,
}

/// What the page is told when its answer did not reach the agent: the answer stays on the page.
const NOT_DELIVERED: &str = "your agent stopped waiting: the answers were not delivered, and \
                             they stay on this page";

/// What the page is told when the server stops before the answer could be delivered.
const STOPPING: &str = "ask-user is stopping: the answers were not delivered, and they stay on \
                        this page";

/// Counts one answer in flight while it lives.
struct InFlight<'a>(&'a Shared);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.lock().in_flight -= 1;
        self.0.settled.notify_waiters();
    }
}

/// What the page is told of an ask that already ended.
const NO_LONGER_WAITING: &str =
    "this ask is no longer waiting: it was answered, cancelled or withdrawn";

/// What the page is told when the store could not keep the answer.
const NOT_STORED: &str = "ask-user could not save the answers: they were not delivered, and \
                          they stay on this page";

/// Answers or cancels one ask. The reply says the answer was sent only once its agent has it.
/// When the inbox keeps its asks in a store, an outcome that its agent cannot take now is
/// written there first and waits for the agent to come back: the reply is `202` with
/// `"saved": true`. Otherwise it is `503` with `"kept": true`, and the answers stay on the page.
async fn settle(shared: &Arc<Shared>, request_id: &str, action: &str, body: &Bytes) -> Response {
    let questions = shared
        .lock()
        .waiting
        .iter()
        .find(|w| w.request_id == request_id)
        .map(|w| w.questions.clone());
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
            let Some(questions) = &questions else {
                return if shared.board.knows(request_id) {
                    error_response(StatusCode::CONFLICT, NO_LONGER_WAITING)
                } else {
                    error_response(StatusCode::NOT_FOUND, "no such ask")
                };
            };
            match ask_core::to_answers(questions, &answers) {
                Ok(answers) => Outcome::Answered(answers),
                Err(problem) => {
                    return error_response(StatusCode::UNPROCESSABLE_ENTITY, &problem.to_string());
                }
            }
        }
        "cancel" => Outcome::Cancelled,
        _ => return error_response(StatusCode::NOT_FOUND, "no such address"),
    };
    let questions = questions.unwrap_or_default();
    // An answer holding a secret is never written to the store: only its agent may take it.
    let storable = shared.store.is_some()
        && !(matches!(outcome, Outcome::Answered(_)) && ask_core::any_secret(&questions));
    let (agent, attached) = {
        let mut inner = shared.lock();
        if inner.stopping {
            return kept(STOPPING);
        }
        let Some(waiting) = inner.waiting_mut(request_id) else {
            return error_response(StatusCode::CONFLICT, NO_LONGER_WAITING);
        };
        if waiting.delivering || waiting.saved.is_some() {
            return error_response(
                StatusCode::CONFLICT,
                "an answer to this ask is already on its way to its agent",
            );
        }
        let agent = waiting.agent.take();
        if agent.is_none() && !storable {
            return kept(NOT_DELIVERED);
        }
        waiting.delivering = true;
        let attached = waiting.attached;
        inner.in_flight += 1;
        (agent, attached)
    };
    // The outcome goes out on a task of its own, which finishes even when the person's request
    // does not (the page closed its connection meanwhile): the ask is never left half-way, its
    // agent without the outcome and the ask neither waiting nor ended.
    let delivery = Outgoing {
        request_id: request_id.to_string(),
        questions,
        outcome,
        agent,
        attached,
        storable,
    };
    tokio::spawn(deliver_outcome(Arc::clone(shared), delivery))
        .await
        .unwrap_or_else(|error| {
            error_response(StatusCode::INTERNAL_SERVER_ERROR, &error.to_string())
        })
}

/// An outcome on its way from the person to the agent of its ask.
struct Outgoing {
    request_id: String,
    questions: Vec<ask_core::Question>,
    outcome: Outcome,
    /// The held connection of the agent, when one is attached.
    agent: Option<oneshot::Sender<Delivery>>,
    /// Which attachment of the ask took the outcome.
    attached: u64,
    /// Whether the outcome may be written to the store: there is one, and it holds no secret.
    storable: bool,
}

/// Writes the outcome to the store when it may be, hands it to the agent, and gives the reply
/// to the person (see [`settle`]).
async fn deliver_outcome(shared: Arc<Shared>, delivery: Outgoing) -> Response {
    let Outgoing {
        request_id,
        questions,
        outcome,
        agent,
        attached,
        storable,
    } = delivery;
    let (shared, request_id) = (&shared, request_id.as_str());
    let state = WireState::of(&outcome);
    let _in_flight = InFlight(shared);
    // With a store, the first outcome wins on the disk before anyone is told of it.
    if storable && let Some(store) = &shared.store {
        let written = store
            .settle(request_id, store::kept_state(&questions, &outcome))
            .await;
        if !matches!(written, Ok(true)) {
            shared.undeliver(request_id, agent);
            return match written {
                Ok(_) => error_response(StatusCode::CONFLICT, NO_LONGER_WAITING),
                Err(error) => {
                    ask_session::console::say(&error.to_string());
                    kept(NOT_STORED)
                }
            };
        }
    }
    let delivered = match agent {
        Some(agent) => {
            let (receipt, received) = oneshot::channel();
            let delivery = Delivery {
                outcome: outcome.clone(),
                receipt,
            };
            agent.send(delivery).is_ok()
                && matches!(
                    tokio::time::timeout(DELIVERY_PATIENCE, received).await,
                    Ok(Ok(()))
                )
        }
        None => false,
    };
    if delivered {
        shared
            .delivered(request_id, attached, &questions, &outcome)
            .await;
        return json_response(StatusCode::OK, &serde_json::json!({ "state": state }));
    }
    if storable {
        // Saved: the agent gets it when it comes back.
        shared.save(request_id, outcome);
        return json_response(
            StatusCode::ACCEPTED,
            &serde_json::json!({ "state": state, "saved": true }),
        );
    }
    if shared.store.is_some() {
        // A secret answer that its agent could not take: the ask waits again.
        shared.undeliver(request_id, None);
    } else {
        shared.lost(request_id);
    }
    kept(NOT_DELIVERED)
}

/// `503` for an answer that did not reach its agent and stays on the page.
fn kept(message: &str) -> Response {
    json_response(
        StatusCode::SERVICE_UNAVAILABLE,
        &serde_json::json!({ "error": message, "kept": true }),
    )
}

/// How often an event stream with no change gets a comment line: a page that went away is
/// found at the next one.
pub const EVENTS_HEARTBEAT: Duration = Duration::from_secs(15);

/// `GET /api/events`: the list now, then each change, as server-sent events, until the server
/// closes ([`board`]).
fn events(shared: &Shared) -> Response {
    with_headers(
        (
            [(header::CONTENT_TYPE, "text/event-stream")],
            Body::from_stream(board::stream(&shared.board, EVENTS_HEARTBEAT)),
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
    fn the_credential_is_a_bearer_authorization_and_never_a_cookie() {
        let map = headers(&[("authorization", "Bearer abc")]);
        assert_eq!(session_credential(&map), Some("abc"));
        let cookie = headers(&[("cookie", "ask_user_session=abc")]);
        assert_eq!(session_credential(&cookie), None);
        assert_eq!(
            session_credential(&headers(&[("authorization", "Basic abc")])),
            None
        );
    }
}

//! The inbox of `ask-user serve`: one page for the asks of many agents, and the agents' API.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Instant;

use ask_core::{Answer, AskUserInput, Limits, Outcome, Question, WireState};
use axum::body::{Body, Bytes};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use tokio::sync::{oneshot, watch};

use crate::auth::{self, same_secret};
use crate::{
    AskView, Asker, Bounds, Delivery, HEARTBEAT, Refusal, Shared, WebError, error_response,
    json_response, random_token, read_body, router, with_headers,
};

/// The header that carries the capability of a new ask, on the held response that creates it.
pub const CAPABILITY_HEADER: &str = "x-ask-capability";

/// The two tokens of an inbox: the agents' (which only creates asks) and the people's (which
/// alone mints links for people).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InboxTokens {
    /// What agents prove they hold.
    pub agent: String,
    /// What `ask-user serve --link` proves it holds.
    pub people: String,
}

impl InboxTokens {
    /// Two fresh 256-bit tokens.
    pub fn fresh() -> Result<InboxTokens, WebError> {
        Ok(InboxTokens {
            agent: random_token()?,
            people: random_token()?,
        })
    }
}

/// The inbox of `ask-user serve`: one page for the asks of many agents, which send them with
/// [`crate::ViaFrontend`].
#[derive(Debug)]
pub struct Inbox {
    listener: std::net::TcpListener,
    addr: SocketAddr,
    shared: Arc<Shared>,
    bounds: Bounds,
}

impl Inbox {
    /// Binds `addr` with fresh tokens and the first one-time link; the agents' calls are
    /// checked against `limits`.
    pub fn bind(addr: SocketAddr, limits: Limits) -> Result<Inbox, WebError> {
        Inbox::bind_with(addr, limits, InboxTokens::fresh()?)
    }

    /// Binds `addr` with `tokens` (kept from an earlier run) and a fresh one-time link.
    pub fn bind_with(
        addr: SocketAddr,
        limits: Limits,
        tokens: InboxTokens,
    ) -> Result<Inbox, WebError> {
        let (listener, bound) = crate::bind_listener(addr)?;
        let shared = Shared::new(bound, Some(tokens), limits, agent_api)?;
        Ok(Inbox {
            listener,
            addr: bound,
            shared: Arc::new(shared),
            bounds: Bounds::default(),
        })
    }

    /// Serves its connections within `bounds` instead of [`Bounds::default`].
    pub fn with_bounds(mut self, bounds: Bounds) -> Inbox {
        self.bounds = bounds;
        self
    }

    /// Speaks `lang` on the page whatever the browser prefers; `None` (the default) follows each
    /// browser's `Accept-Language`.
    pub fn speaking(self, lang: Option<ask_core::lang::Lang>) -> Inbox {
        self.shared.lock().lang = lang;
        self
    }

    /// The address the inbox listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://host:port`, the address agents give to `--via`.
    pub fn base_url(&self) -> &str {
        &self.shared.base
    }

    /// The token agents prove they hold.
    pub fn agent_token(&self) -> &str {
        self.shared.agent_token.as_deref().unwrap_or_default()
    }

    /// The token that mints links for people.
    pub fn people_token(&self) -> &str {
        self.shared.people_token.as_deref().unwrap_or_default()
    }

    /// The current one-time link for people.
    pub fn link(&self) -> String {
        self.shared.link()
    }

    /// A fresh one-time link; the earlier one stops working if it was not used.
    pub fn fresh_link(&self) -> Result<String, WebError> {
        self.shared.fresh_link()
    }

    /// What makes fresh one-time links for this inbox.
    pub fn links(&self) -> crate::Links {
        crate::Links(Arc::clone(&self.shared))
    }

    /// Every address of the inbox (the page, its API, the agents' API) on its state, with every
    /// check: what [`Inbox::serve`] serves, for a host that serves it on a listener of its own
    /// or drives it in process.
    pub fn router(&self) -> axum::Router {
        router(&self.shared)
    }

    /// Serves until the process ends.
    pub async fn serve(&self) -> Result<(), WebError> {
        self.serve_until(std::future::pending()).await
    }

    /// Serves until `stop` resolves, then stops in order: answers given from then on are
    /// refused and stay on their pages, the answers in flight reach their agents or fail, the
    /// pages are told that the inbox closes, the held agent requests end as connection lost,
    /// and no connection is accepted any more.
    pub async fn serve_until(
        &self,
        stop: impl std::future::Future<Output = ()>,
    ) -> Result<(), WebError> {
        let listener = self
            .listener
            .try_clone()
            .and_then(tokio::net::TcpListener::from_std)
            .map_err(WebError::Serve)?;
        let shared = Arc::clone(&self.shared);
        crate::listen::serve(
            listener,
            self.router(),
            self.bounds,
            async move {
                stop.await;
                shared.stop().await;
            },
            crate::LINGER,
        )
        .await
        .map_err(WebError::Serve)
    }
}

/// Who proved what on an agent request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Agent,
    People,
}

/// The body of `POST /api/agent/hello`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Hello {
    /// The client's nonce: 16 to 128 lowercase hex digits.
    nonce: String,
    /// Which token the client holds: `agent` (the default) or `people`.
    #[serde(default, rename = "as")]
    role: Option<String>,
}

const NO_PROOF: &str = "refused: prove that you hold the agent token of `ask-user serve` \
                        (POST /api/agent/hello, then Authorization: AskUser …; see WEB.md)";

/// An agent's request to the inbox: never a browser's (no `Origin`, no `Sec-Fetch-Site`).
/// [`agent`] as the server's agents' API.
pub(crate) fn agent_api(
    shared: Arc<Shared>,
    parts: axum::http::request::Parts,
    body: Body,
) -> std::pin::Pin<Box<dyn std::future::Future<Output = Response> + Send>> {
    Box::pin(async move { agent(&shared, &parts, body).await })
}

pub(crate) async fn agent(
    shared: &Arc<Shared>,
    parts: &axum::http::request::Parts,
    body: Body,
) -> Response {
    if parts.headers.contains_key(header::ORIGIN) || parts.headers.contains_key("sec-fetch-site") {
        return Refusal::Origin.response();
    }
    if parts.method != Method::POST {
        return error_response(StatusCode::METHOD_NOT_ALLOWED, "use POST");
    }
    let sent = parts
        .headers
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok());
    let path = parts.uri.path();
    match path {
        "/api/agent/hello" => {
            let body = match read_body(body).await {
                Ok(body) => body,
                Err(refused) => return refused,
            };
            hello(shared, &body)
        }
        "/api/agent/received" | "/api/agent/cancel" => {
            let capability = sent.and_then(|value| value.strip_prefix("Bearer "));
            let reply = by_capability(shared, capability, path == "/api/agent/cancel");
            if reply.status() != StatusCode::UNAUTHORIZED && reply.status() != StatusCode::NOT_FOUND
            {
                crate::trust(parts);
            }
            reply
        }
        "/api/agent/asks" | "/api/agent/link" => {
            let proof = sent.map(|value| proven(shared, value));
            if matches!(proof, Some(Proof::Stale)) {
                return stale_challenge();
            }
            let role = match proof {
                Some(Proof::Holds(role)) => Some(role),
                _ => None,
            };
            if role.is_some() {
                crate::trust(parts);
            }
            match (path, role) {
                ("/api/agent/asks", Some(Role::Agent)) => create(shared, body).await,
                ("/api/agent/link", Some(Role::People)) => match shared.fresh_link() {
                    Ok(link) => json_response(StatusCode::OK, &serde_json::json!({ "link": link })),
                    Err(error) => {
                        error_response(StatusCode::INTERNAL_SERVER_ERROR, &error.to_string())
                    }
                },
                (_, Some(_)) => error_response(
                    StatusCode::FORBIDDEN,
                    "refused: this token cannot do that (the agents' token only asks; the \
                     people's token only makes links)",
                ),
                (_, None) => error_response(StatusCode::UNAUTHORIZED, NO_PROOF),
            }
        }
        _ => error_response(StatusCode::NOT_FOUND, "no such address"),
    }
}

/// `POST /api/agent/hello`: a nonce of the inbox and the proof that it holds the token the
/// client named, for the client to check before it sends anything.
fn hello(shared: &Shared, body: &Bytes) -> Response {
    let hello = match serde_json::from_slice::<Hello>(body) {
        Ok(hello) => hello,
        Err(error) => {
            return error_response(
                StatusCode::BAD_REQUEST,
                &format!("the body is not a hello: {error}"),
            );
        }
    };
    let nonce_ok = (16..=128).contains(&hello.nonce.len())
        && hello
            .nonce
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    if !nonce_ok {
        return error_response(
            StatusCode::BAD_REQUEST,
            "the nonce must be 16 to 128 lowercase hex digits",
        );
    }
    let token = match hello.role.as_deref() {
        None | Some("agent") => shared.agent_token.as_deref(),
        Some("people") => shared.people_token.as_deref(),
        Some(_) => None,
    };
    let Some(token) = token else {
        return error_response(StatusCode::BAD_REQUEST, "`as` is `agent` or `people`");
    };
    let inbox_nonce = match random_token() {
        Ok(nonce) => nonce,
        Err(error) => return error_response(StatusCode::INTERNAL_SERVER_ERROR, &error.to_string()),
    };
    {
        let mut inner = shared.lock();
        let now = Instant::now();
        while inner.challenges.len() >= auth::MAX_CHALLENGES
            || inner
                .challenges
                .front()
                .is_some_and(|(_, at)| now.duration_since(*at) > auth::CHALLENGE_LIFETIME)
        {
            inner.challenges.pop_front();
        }
        inner.challenges.push_back((inbox_nonce.clone(), now));
    }
    let proof = auth::inbox_proof(token, &hello.nonce, &inbox_nonce);
    json_response(
        StatusCode::OK,
        &serde_json::json!({ "nonce": inbox_nonce, "proof": proof }),
    )
}

/// What an `Authorization` proves.
enum Proof {
    /// The client holds the token of this role.
    Holds(Role),
    /// The inbox's nonce is not (or no longer) one it waits an answer for: it expired, was
    /// spent, or was pushed out of the table by newer ones. The client may take a fresh one.
    Stale,
    /// Nothing: not the `AskUser` scheme, or a proof made with no token of the inbox.
    Nothing,
}

/// The header of a refusal for a stale challenge, which a client answers with a fresh `hello`.
pub const STALE_CHALLENGE: &str = "AskUser error=\"stale_challenge\"";

/// The refusal of a stale challenge: 401, with [`STALE_CHALLENGE`] as `WWW-Authenticate`.
fn stale_challenge() -> Response {
    let mut response = error_response(
        StatusCode::UNAUTHORIZED,
        &format!(
            "refused: this challenge is unknown or expired (the inbox keeps its {} newest \
             challenges for {} s each); take a fresh one with POST /api/agent/hello",
            auth::MAX_CHALLENGES,
            auth::CHALLENGE_LIFETIME.as_secs()
        ),
    );
    response.headers_mut().insert(
        header::WWW_AUTHENTICATE,
        HeaderValue::from_static(STALE_CHALLENGE),
    );
    response
}

/// What `Authorization: AskUser CLIENT_NONCE INBOX_NONCE PROOF` proves, spending the inbox's
/// nonce.
fn proven(shared: &Shared, authorization: &str) -> Proof {
    let mut words = authorization
        .strip_prefix("AskUser ")
        .into_iter()
        .flat_map(|rest| rest.split(' '));
    let (Some(client_nonce), Some(inbox_nonce), Some(proof)) =
        (words.next(), words.next(), words.next())
    else {
        return Proof::Nothing;
    };
    {
        let mut inner = shared.lock();
        let at = inner.challenges.iter().position(|(nonce, issued)| {
            same_secret(nonce, inbox_nonce) && issued.elapsed() <= auth::CHALLENGE_LIFETIME
        });
        let Some(at) = at else {
            return Proof::Stale;
        };
        inner.challenges.remove(at);
    }
    let holds = |token: &Option<String>| {
        token.as_deref().is_some_and(|token| {
            same_secret(&auth::client_proof(token, client_nonce, inbox_nonce), proof)
        })
    };
    if holds(&shared.agent_token) {
        Proof::Holds(Role::Agent)
    } else if holds(&shared.people_token) {
        Proof::Holds(Role::People)
    } else {
        Proof::Nothing
    }
}

/// `POST /api/agent/received` (the agent has the outcome) or `POST /api/agent/cancel` (the
/// agent withdraws its ask), with `Authorization: Bearer CAPABILITY`.
fn by_capability(shared: &Shared, capability: Option<&str>, cancel: bool) -> Response {
    let Some(capability) = capability else {
        return error_response(
            StatusCode::UNAUTHORIZED,
            "refused: send the capability of the ask as Authorization: Bearer CAPABILITY",
        );
    };
    let mut inner = shared.lock();
    let at = inner.waiting.iter().position(|w| {
        w.capability
            .as_deref()
            .is_some_and(|own| same_secret(own, capability))
    });
    let Some(at) = at else {
        return error_response(StatusCode::NOT_FOUND, "no waiting ask has this capability");
    };
    if cancel {
        let request_id = inner.waiting[at].request_id.clone();
        drop(inner);
        shared.lost(&request_id);
        return json_response(
            StatusCode::OK,
            &serde_json::json!({"state": "connection_lost"}),
        );
    }
    match inner.waiting[at].receipt.take() {
        Some(receipt) => {
            let _ = receipt.send(());
            json_response(StatusCode::OK, &serde_json::json!({}))
        }
        None => error_response(StatusCode::CONFLICT, "no outcome was sent for this ask"),
    }
}

/// `POST /api/agent/asks`: checks the ask, shows it, and holds the response until its outcome.
async fn create(shared: &Arc<Shared>, body: Body) -> Response {
    let body = match read_body(body).await {
        Ok(body) => body,
        Err(refused) => return refused,
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
    if let Err(problem) = check_asker(&ask.asker) {
        return error_response(StatusCode::UNPROCESSABLE_ENTITY, &problem);
    }
    let questions = input.into_inner().questions;
    if let Err(problem) = check_given(&questions, &ask.given) {
        return error_response(StatusCode::UNPROCESSABLE_ENTITY, &problem);
    }
    let capability = match random_token() {
        Ok(capability) => capability,
        Err(error) => return error_response(StatusCode::INTERNAL_SERVER_ERROR, &error.to_string()),
    };
    let request_id = shared.next_id();
    let view = AskView::waiting(request_id.clone(), questions, &ask.given, ask.asker);
    let Ok(delivered) = shared.open(view, Some(capability.clone())) else {
        return error_response(
            StatusCode::SERVICE_UNAVAILABLE,
            "the inbox holds as many waiting questions as it can (64 MiB); try again once the \
             person answered some",
        );
    };
    let mut response = held(Arc::clone(shared), request_id, delivered);
    if let Ok(value) = HeaderValue::from_str(&capability) {
        response.headers_mut().insert(CAPABILITY_HEADER, value);
    }
    response
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

/// The most characters of an agent's name.
pub const MAX_AGENT_NAME: usize = 100;

/// The most characters of an agent's working folder.
pub const MAX_FOLDER: usize = 1024;

/// Checks who asks like every other text of an agent: within its cap, one line, and without a
/// control, bidi or invisible character.
fn check_asker(asker: &Asker) -> Result<(), String> {
    for (field, text, cap) in [
        ("agent", &asker.agent, MAX_AGENT_NAME),
        ("cwd", &asker.cwd, MAX_FOLDER),
    ] {
        let Some(text) = text else { continue };
        let chars: Vec<char> = text.chars().collect();
        if chars.len() > cap {
            return Err(format!(
                "/{field}: {} characters; give at most {cap}",
                chars.len()
            ));
        }
        for index in 0..chars.len() {
            if ask_core::classify_in_context(&chars, index) != ask_core::CharClass::Plain {
                return Err(format!(
                    "/{field}: character {} is {}, a control, line break, bidi or invisible \
                     character",
                    index + 1,
                    ask_core::describe_char(chars[index])
                ));
            }
        }
    }
    Ok(())
}

/// Who asks, fit for the inbox: each field cut to its cap and shown through the display rules,
/// so that a long or strange folder name never costs an agent its ask.
pub fn fit_asker(asker: Asker) -> Asker {
    let fit = |text: Option<String>, cap: usize| {
        text.map(|text| {
            let shown = ask_core::sanitize_for_display(&text).into_owned();
            if shown.chars().count() > cap {
                let mut cut: String = shown.chars().take(cap - 1).collect();
                cut.push('…');
                cut
            } else {
                shown
            }
        })
    };
    Asker {
        agent: fit(asker.agent, MAX_AGENT_NAME),
        cwd: fit(asker.cwd, MAX_FOLDER),
    }
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
/// closed connection fails the write and ends the ask), then the outcome as one JSON line. The
/// person is told the answer was sent once the agent confirms it with `POST /api/agent/received`.
fn held(
    shared: Arc<Shared>,
    request_id: String,
    delivered: oneshot::Receiver<Delivery>,
) -> Response {
    let stopped = shared.stopped.subscribe();
    let holding = Holding {
        shared,
        request_id,
        done: false,
    };
    type State = (oneshot::Receiver<Delivery>, watch::Receiver<bool>, Holding);
    let stream = futures_util::stream::unfold(
        Some((delivered, stopped, holding)),
        |state: Option<State>| async move {
            let (mut delivered, mut stopped, mut holding) = state?;
            /// What ended one wait of the held response.
            enum Woke {
                Delivered(Result<Delivery, oneshot::error::RecvError>),
                Stopped,
                Heartbeat,
            }
            let woke = tokio::select! {
                delivery = &mut delivered => Woke::Delivered(delivery),
                _ = stopped.wait_for(|stopped| *stopped) => Woke::Stopped,
                () = tokio::time::sleep(HEARTBEAT) => Woke::Heartbeat,
            };
            let outcome = match woke {
                Woke::Heartbeat => {
                    return Some((
                        Ok::<_, std::convert::Infallible>(Bytes::from_static(b"\n")),
                        Some((delivered, stopped, holding)),
                    ));
                }
                Woke::Stopped => {
                    holding.shared.lost(&holding.request_id);
                    Outcome::ConnectionLost
                }
                Woke::Delivered(Err(_)) => Outcome::ConnectionLost,
                Woke::Delivered(Ok(Delivery { outcome, receipt })) => {
                    // The receipt waits for the agent's confirmation.
                    let mut inner = holding.shared.lock();
                    if let Some(waiting) = inner
                        .waiting
                        .iter_mut()
                        .find(|w| w.request_id == holding.request_id)
                    {
                        waiting.receipt = Some(receipt);
                    }
                    outcome
                }
            };
            holding.done = true;
            let state = WireState::of(&outcome);
            let answers = match outcome {
                Outcome::Answered(answers) => answers,
                _ => Vec::new(),
            };
            let outcome = AgentOutcome { state, answers };
            let line = serde_json::to_string(&outcome).unwrap_or_default() + "\n";
            Some((Ok(Bytes::from(line)), None))
        },
    );
    with_headers(
        (
            [(header::CONTENT_TYPE, "application/x-ndjson")],
            Body::from_stream(stream),
        )
            .into_response(),
    )
}

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
    AskStore, AskView, Asker, Bounds, Delivery, HEARTBEAT, Kept, KeptState, Refusal, Shared,
    StoredAsk, WebError, error_response, json_response, random_token, read_body, router,
    with_headers,
};

/// The header that carries the capability of a new ask, on the held response that creates it.
pub const CAPABILITY_HEADER: &str = "x-ask-capability";

/// The header of a held response from an inbox that keeps its asks in a store: an agent whose
/// connection ends without an outcome attaches again (`POST /api/agent/wait`).
pub const KEPT_HEADER: &str = "x-ask-kept";

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
        Inbox::bind_inner(addr, limits, tokens, None)
    }

    /// Binds `addr` with `tokens`, keeping every ask and outcome in `store`, and shows again
    /// the asks `kept` there (what [`AskStore::load`] gave) that still wait for the person or
    /// for their agent: their agents attach again with their call id or their capability.
    pub fn bind_stored(
        addr: SocketAddr,
        limits: Limits,
        tokens: InboxTokens,
        store: Arc<dyn AskStore>,
        kept: Kept,
    ) -> Result<Inbox, WebError> {
        let inbox = Inbox::bind_inner(addr, limits, tokens, Some(store))?;
        restore(&inbox.shared, kept);
        Ok(inbox)
    }

    fn bind_inner(
        addr: SocketAddr,
        limits: Limits,
        tokens: InboxTokens,
        store: Option<Arc<dyn AskStore>>,
    ) -> Result<Inbox, WebError> {
        let (listener, bound) = crate::bind_listener(addr)?;
        let shared = Shared::new(bound, Some(tokens), limits, agent_api, store)?;
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

    /// How many asks wait, for the person or for their agent to take an outcome saved for it.
    pub fn waiting(&self) -> usize {
        self.shared.lock().waiting.len()
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

/// Shows again the asks kept in the store that still wait for the person or for their agent,
/// and numbers new asks after the highest kept.
fn restore(shared: &Shared, kept: Kept) {
    let numbered = |id: &str| id.strip_prefix("ask-").and_then(|n| n.parse::<u64>().ok());
    let highest = (kept.open.iter().map(|ask| ask.id.as_str()))
        .chain(kept.ended.iter().map(String::as_str))
        .filter_map(numbered)
        .max()
        .unwrap_or(0);
    for ask in kept.open {
        let secret = ask_core::any_secret(&ask.questions);
        let (saved, given) = match ask.state {
            KeptState::Waiting => (None, ask.given),
            // The secret was never kept: the ask waits again, with the other answers given.
            KeptState::Answered {
                answers,
                delivered: false,
            } if secret => {
                let given = ask
                    .questions
                    .iter()
                    .enumerate()
                    .map(|(at, question)| {
                        answers
                            .iter()
                            .find(|answer| answer.question == question.question)
                            .cloned()
                            .or_else(|| ask.given.get(at).cloned().flatten())
                    })
                    .collect();
                (None, given)
            }
            KeptState::Answered {
                answers,
                delivered: false,
            } => (Some(Outcome::Answered(answers)), ask.given),
            KeptState::Cancelled { delivered: false } => (Some(Outcome::Cancelled), ask.given),
            KeptState::Answered { .. } | KeptState::Cancelled { .. } | KeptState::Withdrawn => {
                continue;
            }
        };
        let mut view = AskView::waiting(ask.id.clone(), ask.questions, &given, ask.asker);
        view.since = ask.since;
        let questions = view.questions.clone();
        if shared.board.push(view).is_err() {
            // Beyond the budget of waiting asks: it stays in the store for a later start.
            continue;
        }
        let state = saved.as_ref().map(WireState::of);
        shared.lock().waiting.push(crate::Waiting {
            request_id: ask.id.clone(),
            questions,
            capability: Some(ask.capability),
            agent: None,
            attached: 0,
            saved,
            delivering: false,
            receipt: None,
        });
        if let Some(state) = state {
            shared.set_state(&ask.id, state);
        }
    }
    shared.lock().taken = highest;
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
            let reply = with_capability(shared, capability, path == "/api/agent/cancel").await;
            if reply.status() != StatusCode::UNAUTHORIZED && reply.status() != StatusCode::NOT_FOUND
            {
                crate::trust(parts);
            }
            reply
        }
        "/api/agent/asks" | "/api/agent/wait" | "/api/agent/link" => {
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
                ("/api/agent/wait", Some(Role::Agent)) => wait_again(shared, body).await,
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

/// The waiting ask whose capability is `capability`, by request id.
fn by_capability(shared: &Shared, capability: &str) -> Option<String> {
    let digest = auth::digest(&[capability]);
    shared
        .lock()
        .waiting
        .iter()
        .find(|w| {
            w.capability
                .as_deref()
                .is_some_and(|own| same_secret(own, &digest))
        })
        .map(|w| w.request_id.clone())
}

/// `POST /api/agent/received` (the agent has the outcome) or `POST /api/agent/cancel` (the
/// agent withdraws its ask), with `Authorization: Bearer CAPABILITY`.
async fn with_capability(shared: &Shared, capability: Option<&str>, cancel: bool) -> Response {
    let Some(capability) = capability else {
        return error_response(
            StatusCode::UNAUTHORIZED,
            "refused: send the capability of the ask as Authorization: Bearer CAPABILITY",
        );
    };
    let Some(request_id) = by_capability(shared, capability) else {
        return error_response(StatusCode::NOT_FOUND, "no waiting ask has this capability");
    };
    if cancel {
        if let Err(error) = withdraw(shared, &request_id).await {
            return error_response(StatusCode::SERVICE_UNAVAILABLE, &error.to_string());
        }
        return json_response(
            StatusCode::OK,
            &serde_json::json!({"state": "connection_lost"}),
        );
    }
    let receipt = {
        let mut inner = shared.lock();
        inner
            .waiting_mut(&request_id)
            .and_then(|w| w.receipt.take())
    };
    match receipt {
        Some(receipt) => {
            let _ = receipt.send(());
            json_response(StatusCode::OK, &serde_json::json!({}))
        }
        None => error_response(StatusCode::CONFLICT, "no outcome was sent for this ask"),
    }
}

/// The body of `POST /api/agent/wait`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Wait {
    /// The capability of the ask to wait on again.
    capability: String,
}

/// `POST /api/agent/wait`: an agent whose held connection ended attaches again to its ask,
/// naming it by its capability.
async fn wait_again(shared: &Arc<Shared>, body: Body) -> Response {
    let body = match read_body(body).await {
        Ok(body) => body,
        Err(refused) => return refused,
    };
    let wait = match serde_json::from_slice::<Wait>(&body) {
        Ok(wait) => wait,
        Err(error) => {
            return error_response(
                StatusCode::BAD_REQUEST,
                &format!("the body is not a wait: {error}"),
            );
        }
    };
    let Some(request_id) = by_capability(shared, &wait.capability) else {
        return error_response(StatusCode::NOT_FOUND, "no waiting ask has this capability");
    };
    match attach(shared, &request_id, None).await {
        Some(reply) => reply,
        None => error_response(StatusCode::NOT_FOUND, "no waiting ask has this capability"),
    }
}

/// The id of the ask of `call_id` from `asker`: the same call from the same agent and folder
/// finds the same ask, in this inbox's life and after a restart with its store.
fn derived_id(asker: &Asker, call_id: &str) -> String {
    let digest = auth::digest(&[
        asker.agent.as_deref().unwrap_or_default(),
        asker.cwd.as_deref().unwrap_or_default(),
        call_id,
    ]);
    format!("ask-{}", &digest[..32])
}

/// Attaches a new held connection to the ask `request_id` when it is still on the inbox's
/// list (waiting, or ended with an outcome saved for its agent), or answers at once when the
/// store says that it ended and its agent already took the outcome. `questions`, when given,
/// must be the ask's own. `None` when no such ask exists: the caller makes a new one.
async fn attach(
    shared: &Arc<Shared>,
    request_id: &str,
    questions: Option<&[Question]>,
) -> Option<Response> {
    let capability = match random_token() {
        Ok(capability) => capability,
        Err(error) => {
            return Some(error_response(
                StatusCode::INTERNAL_SERVER_ERROR,
                &error.to_string(),
            ));
        }
    };
    let digest = auth::digest(&[&capability]);
    let attached = {
        let mut inner = shared.lock();
        inner.attachments += 1;
        let attached = inner.attachments;
        match inner.waiting_mut(request_id) {
            None => None,
            Some(waiting) if questions.is_some_and(|q| q != waiting.questions.as_slice()) => {
                return Some(error_response(
                    StatusCode::CONFLICT,
                    SAME_CALL_OTHER_QUESTIONS,
                ));
            }
            Some(waiting) => {
                waiting.capability = Some(digest.clone());
                waiting.attached = attached;
                let (agent, delivered) = oneshot::channel();
                // The connection attached before, if still open, ends as connection lost.
                waiting.agent = Some(agent);
                Some((
                    attached,
                    delivered,
                    waiting.saved.clone(),
                    waiting.questions.clone(),
                ))
            }
        }
    };
    let Some((attached, delivered, saved, questions)) = attached else {
        return ended(shared, request_id, questions).await;
    };
    // The new capability only: an answer the person gives meanwhile is written beside it.
    if let Some(store) = &shared.store
        && let Err(error) = store.set_capability(request_id, &digest).await
    {
        return Some(error_response(
            StatusCode::SERVICE_UNAVAILABLE,
            &error.to_string(),
        ));
    }
    if let Some(outcome) = saved {
        shared.hand_saved(request_id, questions, outcome);
    }
    let mut response = held(
        Arc::clone(shared),
        request_id.to_string(),
        delivered,
        attached,
    );
    if let Ok(value) = HeaderValue::from_str(&capability) {
        response.headers_mut().insert(CAPABILITY_HEADER, value);
    }
    Some(response)
}

/// The reply to an agent that asks again for an ask the store says ended, once its outcome was
/// delivered: the same outcome at once (at least once; the ask's id makes it one record).
/// `None` when there is no such ask, or its outcome cannot be given again (a secret answer is
/// never kept, and a withdrawn ask is asked anew).
async fn ended(
    shared: &Shared,
    request_id: &str,
    questions: Option<&[Question]>,
) -> Option<Response> {
    let store = shared.store.as_ref()?;
    let ask = store.get(request_id).await.ok()??;
    if questions.is_some_and(|q| q != ask.questions.as_slice()) {
        return Some(error_response(
            StatusCode::CONFLICT,
            SAME_CALL_OTHER_QUESTIONS,
        ));
    }
    let outcome = match ask.state {
        KeptState::Answered {
            answers,
            delivered: true,
        } if !ask_core::any_secret(&ask.questions) => AgentOutcome {
            state: WireState::Answered,
            answers,
        },
        KeptState::Cancelled { delivered: true } => AgentOutcome {
            state: WireState::Cancelled,
            answers: Vec::new(),
        },
        _ => return None,
    };
    let line = serde_json::to_string(&outcome).unwrap_or_default() + "\n";
    Some(with_headers(
        ([(header::CONTENT_TYPE, "application/x-ndjson")], line).into_response(),
    ))
}

const SAME_CALL_OTHER_QUESTIONS: &str =
    "refused: this call id already asked other questions; give each call its own id";

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
    if let Some(call_id) = &ask.call_id
        && let Err(problem) = check_call_id(call_id)
    {
        return error_response(StatusCode::UNPROCESSABLE_ENTITY, &problem);
    }
    let request_id = match &ask.call_id {
        Some(call_id) => {
            let request_id = derived_id(&ask.asker, call_id);
            if let Some(reply) = attach(shared, &request_id, Some(&questions)).await {
                return reply;
            }
            request_id
        }
        None => shared.next_id(),
    };
    let capability = match random_token() {
        Ok(capability) => capability,
        Err(error) => return error_response(StatusCode::INTERNAL_SERVER_ERROR, &error.to_string()),
    };
    let given = crate::store::given_without_secrets(&questions, &ask.given);
    let view = AskView::waiting(request_id.clone(), questions, &ask.given, ask.asker);
    let digest = auth::digest(&[&capability]);
    // The ask is written and shown on a task of its own, which finishes even when this request
    // does not (its connection closed meanwhile): the store and the list never disagree. When
    // the agent is gone before it got the capability, the ask is withdrawn, unless its call id
    // lets the same call attach to it again.
    let (reply, replied) = oneshot::channel();
    let (task, id) = (Arc::clone(shared), request_id.clone());
    let found_again = ask.call_id.is_some();
    tokio::spawn(async move {
        let opened = open_kept(&task, view, given, digest).await;
        if let Err(Ok((_, attached))) = reply.send(opened) {
            if found_again {
                task.detach(&id, attached);
            } else {
                let _ = withdraw(&task, &id).await;
            }
        }
    });
    let (delivered, attached) = match replied.await {
        Ok(Ok(opened)) => opened,
        Ok(Err(refused)) => return refused,
        Err(_) => {
            return error_response(StatusCode::INTERNAL_SERVER_ERROR, "the ask was not opened");
        }
    };
    let mut response = held(Arc::clone(shared), request_id, delivered, attached);
    if let Ok(value) = HeaderValue::from_str(&capability) {
        response.headers_mut().insert(CAPABILITY_HEADER, value);
    }
    response
}

/// Writes the new ask `view` (with the answers `given` before it arrived, secret ones left out,
/// and the `digest` of its capability) to the store, when there is one, then shows it: its held
/// connection's end of the delivery and its attachment, or the refusal to send.
async fn open_kept(
    shared: &Arc<Shared>,
    view: AskView,
    given: Vec<Option<Answer>>,
    digest: String,
) -> Result<(oneshot::Receiver<Delivery>, u64), Response> {
    if let Some(store) = &shared.store {
        let kept = StoredAsk {
            id: view.request_id.clone(),
            capability: digest.clone(),
            asker: view.asker.clone(),
            questions: view.questions.clone(),
            given,
            since: view.since,
            state: KeptState::Waiting,
        };
        if let Err(error) = store.put(&kept).await {
            return Err(error_response(
                StatusCode::SERVICE_UNAVAILABLE,
                &error.to_string(),
            ));
        }
    }
    shared.open(view, Some(digest)).map_err(|_| {
        error_response(
            StatusCode::SERVICE_UNAVAILABLE,
            "the inbox holds as many waiting questions as it can (64 MiB); try again once the \
             person answered some",
        )
    })
}

/// Withdraws the ask `request_id` as its agent does (`POST /api/agent/cancel`): it ends as
/// connection lost, and the store keeps it as withdrawn.
async fn withdraw(shared: &Shared, request_id: &str) -> Result<(), crate::StoreError> {
    if let Some(store) = &shared.store {
        store.settle(request_id, KeptState::Withdrawn).await?;
    }
    shared.lost(request_id);
    Ok(())
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
    /// The id the host gave the tool call, when it has one: the same call from the same agent
    /// and folder attaches to its ask again.
    #[serde(default)]
    call_id: Option<String>,
}

/// The most characters of a call id.
pub const MAX_CALL_ID: usize = 256;

/// Checks a call id: within its cap, and printable ASCII without spaces.
fn check_call_id(call_id: &str) -> Result<(), String> {
    if call_id.is_empty() || call_id.len() > MAX_CALL_ID {
        return Err(format!(
            "/callId: {} characters; give 1 to {MAX_CALL_ID}",
            call_id.chars().count()
        ));
    }
    match call_id.chars().position(|c| !c.is_ascii_graphic()) {
        Some(at) => Err(format!(
            "/callId: character {} is {}; a call id is printable ASCII without spaces",
            at + 1,
            call_id
                .chars()
                .nth(at)
                .map_or_else(String::new, ask_core::describe_char)
        )),
        None => Ok(()),
    }
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
    /// Which attachment to the ask this connection is.
    attached: u64,
    done: bool,
}

impl Drop for Holding {
    fn drop(&mut self) {
        if !self.done {
            self.shared.detach(&self.request_id, self.attached);
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
    attached: u64,
) -> Response {
    let stopped = shared.stopped.subscribe();
    let holding_kept = shared.store.is_some();
    let holding = Holding {
        shared,
        request_id,
        attached,
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
                // An inbox that keeps its asks ends the connection with no outcome: the agent
                // attaches again once the inbox is back.
                Woke::Stopped if holding.shared.store.is_some() => {
                    holding.done = true;
                    return None;
                }
                Woke::Stopped => {
                    holding.shared.lost(&holding.request_id);
                    Outcome::ConnectionLost
                }
                Woke::Delivered(Err(_)) => Outcome::ConnectionLost,
                Woke::Delivered(Ok(Delivery { outcome, receipt })) => {
                    // The receipt waits for the agent's confirmation.
                    let mut inner = holding.shared.lock();
                    if let Some(waiting) = inner.waiting_mut(&holding.request_id) {
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
    let kept = holding_kept;
    let mut response = with_headers(
        (
            [(header::CONTENT_TYPE, "application/x-ndjson")],
            Body::from_stream(stream),
        )
            .into_response(),
    );
    if kept {
        response
            .headers_mut()
            .insert(KEPT_HEADER, HeaderValue::from_static("1"));
    }
    response
}

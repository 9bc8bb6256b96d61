//! The page's side of a server: the page itself and its words, the exchange of the link's token
//! for a session, and, with that session, the list of asks, their event stream, and the person's
//! answers ([`crate::answer`]).
//!
//! The page itself holds no data: it is served to anyone who may reach it, and asks for
//! everything else with the credential its link was exchanged for.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Path, State};
use axum::http::{Extensions, HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::from_fn_with_state;
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodRouter, get, post};
use serde::Deserialize;

use crate::answer::{self, AnswerBody};
use crate::auth::same_secret;
use crate::http::{PageChecks, Refusal, elsewhere, page_guard, session_credential};
use crate::reply::{JsonBody, error_response, json_response};
use crate::shared::{Claim, MAX_CLAIMS, Shared};
use crate::trusted::trust;
use crate::{auth, board, random_token, words};

const INDEX_HTML: &str = include_str!("../assets/index.html");
const APP_JS: &str = include_str!("../assets/app.js");
const APP_CSS: &str = include_str!("../assets/app.css");

/// How often an event stream with no change gets a comment line: a page that went away is
/// found at the next one.
pub const EVENTS_HEARTBEAT: Duration = Duration::from_secs(15);

/// The page's addresses over `shared`: the page and its words and `POST /api/session` for
/// anyone, the rest for a session; every one of them for the page's own origin only.
pub(crate) fn routes(shared: &Arc<Shared>) -> Router<Arc<Shared>> {
    let anyone = PageChecks::default();
    let session = PageChecks {
        session: true,
        ..PageChecks::default()
    };
    // The person's outcome: `POST` only, a JSON body within the cap.
    let outcome = PageChecks {
        session: true,
        json: true,
        body: true,
    };
    let exchange_checks = PageChecks {
        body: true,
        ..PageChecks::default()
    };
    Router::new()
        .route("/", checked(shared, anyone, get(index)))
        .route("/app.js", checked(shared, anyone, get(app_js)))
        .route("/app.css", checked(shared, anyone, get(app_css)))
        .route("/text.json", checked(shared, anyone, get(text)))
        .route(
            "/api/session",
            checked(shared, exchange_checks, post(exchange)),
        )
        .route("/api/asks", checked(shared, session, get(list)))
        .route("/api/asks/{request_id}", checked(shared, session, get(one)))
        .route("/api/events", checked(shared, session, get(events)))
        .route(
            "/api/agents/cancel",
            checked(shared, outcome, post(cancel_agent_route)),
        )
        .route(
            "/api/asks/{request_id}/answer",
            checked(shared, outcome, post(answer_route)),
        )
        .route(
            "/api/asks/{request_id}/cancel",
            checked(shared, outcome, post(cancel_route)),
        )
}

/// `route` behind the page's guard with `checks` ([`page_guard`]), and every other method
/// [`elsewhere`].
fn checked(
    shared: &Arc<Shared>,
    checks: PageChecks,
    route: MethodRouter<Arc<Shared>>,
) -> MethodRouter<Arc<Shared>> {
    route
        .route_layer(from_fn_with_state((Arc::clone(shared), checks), page_guard))
        .fallback(elsewhere)
}

fn page(text: &'static str, content_type: &'static str) -> Response {
    ([(header::CONTENT_TYPE, content_type)], text).into_response()
}

async fn index() -> Response {
    page(INDEX_HTML, "text/html; charset=utf-8")
}

async fn app_js() -> Response {
    page(APP_JS, "text/javascript; charset=utf-8")
}

async fn app_css() -> Response {
    page(APP_CSS, "text/css; charset=utf-8")
}

/// `GET /text.json`: the page's words in its language.
async fn text(State(shared): State<Arc<Shared>>, headers: HeaderMap) -> Response {
    let words = words::words(shared.lock().lang, &headers);
    let mut response = json_response(StatusCode::OK, &words);
    let vary = HeaderValue::from_static("accept-language");
    response.headers_mut().insert(header::VARY, vary);
    response
}

/// `GET /api/asks`: a summary of every ask shown ([`board`]).
async fn list(State(shared): State<Arc<Shared>>) -> Response {
    (
        [(header::CONTENT_TYPE, "application/json")],
        shared.board.list(),
    )
        .into_response()
}

/// `GET /api/asks/{requestId}`: one ask with its questions, as the page opens it.
async fn one(State(shared): State<Arc<Shared>>, Path(request_id): Path<String>) -> Response {
    match shared.board.view(&request_id) {
        Some(view) => json_response(StatusCode::OK, &view),
        None => error_response(StatusCode::NOT_FOUND, "no ask has this id"),
    }
}

/// `GET /api/events`: the list now, then each change, as server-sent events, until the server
/// closes ([`board`]). A page dropped for falling behind is told so when it comes back.
async fn events(State(shared): State<Arc<Shared>>, headers: HeaderMap) -> Response {
    let who = session_credential(&headers).map(|credential| auth::digest(&[credential]));
    (
        [(header::CONTENT_TYPE, "text/event-stream")],
        Body::from_stream(board::stream(&shared.board, EVENTS_HEARTBEAT, who)),
    )
        .into_response()
}

/// The body of `POST /api/agents/cancel`: who asks, as the list shows it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CancelAgent {
    #[serde(default)]
    agent: Option<String>,
    #[serde(default)]
    cwd: Option<String>,
}

impl crate::reply::Named for CancelAgent {
    const NAME: &'static str = "an agent to cancel";
}

/// `POST /api/agents/cancel {"agent": …, "cwd": …}`: the person cancels, in one action, every
/// ask of one agent (its name and folder) still waiting, whether its agent is there or away.
async fn cancel_agent_route(
    State(shared): State<Arc<Shared>>,
    JsonBody(body): JsonBody<CancelAgent>,
) -> Response {
    let asker = board::Asker {
        agent: body.agent,
        cwd: body.cwd,
    };
    let ids: Vec<String> = shared
        .lock()
        .waiting
        .iter()
        .filter(|w| w.asker == asker && w.saved.is_none() && !w.delivering)
        .map(|w| w.request_id.clone())
        .collect();
    let mut cancelled = 0;
    for id in ids {
        if answer::cancel(&shared, &id).await.status().is_success() {
            cancelled += 1;
        }
    }
    json_response(
        StatusCode::OK,
        &serde_json::json!({ "cancelled": cancelled }),
    )
}

/// `POST /api/asks/{requestId}/answer`.
async fn answer_route(
    State(shared): State<Arc<Shared>>,
    Path(request_id): Path<String>,
    JsonBody(body): JsonBody<AnswerBody>,
) -> Response {
    answer::answer(&shared, &request_id, body).await
}

/// `POST /api/asks/{requestId}/cancel`.
async fn cancel_route(
    State(shared): State<Arc<Shared>>,
    Path(request_id): Path<String>,
) -> Response {
    answer::cancel(&shared, &request_id).await
}

/// The body of `POST /api/session`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SessionBody {
    token: String,
    /// The browser key this browser keeps for the page's origin, if it has one.
    #[serde(default)]
    key: Option<String>,
}

/// `POST /api/session {"token": …, "key": …}`: the page spends the link's token (from the
/// link's fragment, which no request carries) for a credential of its own, which it keeps in
/// `sessionStorage` and sends as `Authorization: Bearer …`. No cookie is ever set: the
/// credential reaches no other server of this machine, and two pages in one browser keep
/// theirs apart.
///
/// On the single-ask page, the first spend of a link also gives a browser key, which the page
/// keeps in `localStorage` (its origin's, shared by the browser's tabs) and sends with `key`:
/// a browser that already holds a key of this page keeps it, any other gets a new one. The
/// same link spent again with the key of the browser that spent it gives a new tab its own
/// credential; spent again by any other browser, it is refused as used. The keys are made by
/// this server and die with it; the inbox of `ask-user serve` gives none.
async fn exchange(
    State(shared): State<Arc<Shared>>,
    extensions: Extensions,
    body: Bytes,
) -> Response {
    let Ok(SessionBody { token, key }) = serde_json::from_slice::<SessionBody>(&body) else {
        return error_response(StatusCode::BAD_REQUEST, "send {\"token\": …}");
    };
    let (session, new_key) = match (random_token(), random_token()) {
        (Ok(session), Ok(new_key)) => (session, new_key),
        (Err(error), _) | (_, Err(error)) => {
            return error_response(StatusCode::INTERNAL_SERVER_ERROR, &error.to_string());
        }
    };
    let mut inner = shared.lock();
    let unspent = inner
        .token
        .as_deref()
        .is_some_and(|expected| same_secret(expected, &token));
    let key = if unspent {
        inner.token = None;
        shared.reopen.then(|| {
            let held = key.filter(|key| inner.claims.iter().any(|c| same_secret(&c.key, key)));
            let key = held.unwrap_or(new_key);
            if inner.claims.len() == MAX_CLAIMS {
                inner.claims.pop_front();
            }
            inner.claims.push_back(Claim {
                token,
                key: key.clone(),
            });
            key
        })
    } else {
        // Both compared whole, whichever differs.
        let reopened = shared.reopen
            && key.as_deref().is_some_and(|key| {
                inner
                    .claims
                    .iter()
                    .any(|c| same_secret(&c.token, &token) & same_secret(&c.key, key))
            });
        if !reopened {
            drop(inner);
            return Refusal::SpentLink.response();
        }
        key
    };
    inner.sessions.insert(session.clone());
    drop(inner);
    trust(&extensions);
    let reply = match key {
        Some(key) => serde_json::json!({ "session": session, "key": key }),
        None => serde_json::json!({ "session": session }),
    };
    json_response(StatusCode::OK, &reply)
}

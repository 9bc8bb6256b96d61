//! The agents' credentials: the HMAC challenge-response (`POST /api/agent/hello`, then
//! `Authorization: AskUser …`) that proves which token an agent or `serve --link` holds, the
//! capability of one ask, and the refusal of any browser, as the checks that the agents' guard
//! calls.

use std::sync::Arc;
use std::time::Instant;

use axum::Extension;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use serde::Deserialize;

use crate::address::Came;
use crate::auth::{self, Exchange, same_secret};
use crate::http::{Refusal, Refused};
use crate::random_token;
use crate::reply::{JsonBody, Named, error_response, json_response};
use crate::shared::Shared;
use crate::trusted::trust;

/// Who proved what on an agent request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Role {
    Agent,
    People,
}

/// The body of `POST /api/agent/hello`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Hello {
    /// The client's nonce: 16 to 128 lowercase hex digits.
    nonce: String,
    /// Which token the client holds: `agent` (the default) or `people`.
    #[serde(default, rename = "as")]
    role: Option<String>,
    /// The address the client dialled: `host:port` of its URL, lowercased, or `unix:` and the
    /// socket's path. Both proofs name it.
    address: String,
}

impl Named for Hello {
    const NAME: &'static str = "a hello";
}

const NO_PROOF: &str = "refused: prove that you hold the agent token of `ask-user serve` \
                        (POST /api/agent/hello, then Authorization: AskUser …; see WEB.md)";

/// `POST /api/agent/hello`: a nonce of the inbox and the proof that it holds the token the
/// client named, for the client to check before it sends anything.
pub(super) async fn hello(
    State(shared): State<Arc<Shared>>,
    came: Option<Extension<Came>>,
    JsonBody(hello): JsonBody<Hello>,
) -> Response {
    let came = came.map_or(Came::Tcp, |Extension(came)| came);
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
    // A relay's address gets no proof: the relay never learns one it could pass on.
    let dialled = shared.dialled().clone();
    if !dialled.accepts(&hello.address, came) {
        return error_response(
            StatusCode::MISDIRECTED_REQUEST,
            &dialled.refusal(&hello.address),
        );
    }
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
                .is_some_and(|c| now.duration_since(c.issued) > auth::CHALLENGE_LIFETIME)
        {
            inner.challenges.pop_front();
        }
        inner.challenges.push_back(Challenge {
            nonce: inbox_nonce.clone(),
            issued: now,
            address: hello.address.clone(),
        });
    }
    let proof = auth::inbox_proof(
        token,
        Exchange {
            client_nonce: &hello.nonce,
            inbox_nonce: &inbox_nonce,
            address: &hello.address,
        },
    );
    json_response(
        StatusCode::OK,
        &serde_json::json!({ "nonce": inbox_nonce, "proof": proof }),
    )
}

/// A nonce of the inbox handed out by `hello`, waiting for the client's proof.
#[derive(Debug)]
pub(crate) struct Challenge {
    /// The inbox's nonce.
    nonce: String,
    /// When `hello` handed it out.
    issued: Instant,
    /// The address the client named in its `hello`, which its proof must name too.
    address: String,
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
    let address = {
        let mut inner = shared.lock();
        let at = inner.challenges.iter().position(|c| {
            same_secret(&c.nonce, inbox_nonce) && c.issued.elapsed() <= auth::CHALLENGE_LIFETIME
        });
        let Some(challenge) = at.and_then(|at| inner.challenges.remove(at)) else {
            return Proof::Stale;
        };
        challenge.address
    };
    // The address the inbox answered `hello` for: a proof made for another is no proof.
    let exchange = Exchange {
        client_nonce,
        inbox_nonce,
        address: &address,
    };
    let holds = |token: &Option<String>| {
        token
            .as_deref()
            .is_some_and(|token| same_secret(&auth::client_proof(token, exchange), proof))
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
pub(super) fn by_capability(shared: &Shared, capability: &str) -> Option<String> {
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

/// An agent's request to the inbox is never a browser's: one that sends `Origin` or
/// `Sec-Fetch-Site` is refused, whatever it proves.
pub(super) fn no_browsers(request: &Request) -> Result<(), Refused> {
    let headers = request.headers();
    if headers.contains_key(header::ORIGIN) || headers.contains_key("sec-fetch-site") {
        return Err(Refusal::Origin.refused());
    }
    Ok(())
}

/// Lets through only a request that proves it holds the token of `role`.
pub(super) fn proves(shared: &Shared, role: Role, request: &Request) -> Result<(), Refused> {
    match refusal(shared, role, request) {
        Some(refused) => Err(Box::new(refused)),
        None => Ok(()),
    }
}

/// The refusal of a request whose `Authorization` does not prove the token of `role`, spending
/// its challenge; a proof of the other token is refused as one that cannot do this.
fn refusal(shared: &Shared, role: Role, request: &Request) -> Option<Response> {
    let proof = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .map(|value| proven(shared, value));
    match proof {
        Some(Proof::Stale) => Some(stale_challenge()),
        Some(Proof::Holds(holds)) => {
            trust(request.extensions());
            if holds == role {
                None
            } else {
                Some(error_response(
                    StatusCode::FORBIDDEN,
                    "refused: this token cannot do that (the agents' token only asks; the \
                     people's token only makes links)",
                ))
            }
        }
        Some(Proof::Nothing) | None => Some(error_response(StatusCode::UNAUTHORIZED, NO_PROOF)),
    }
}

/// The ask a request names by its capability (`Authorization: Bearer CAPABILITY`).
#[derive(Debug, Clone)]
pub(super) struct AskOf(pub(super) String);

/// Lets through only a request with the capability of a waiting ask, which it names to the
/// route as [`AskOf`].
pub(super) fn capability(shared: &Shared, request: &Request) -> Result<AskOf, Refused> {
    let capability = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "));
    let Some(capability) = capability else {
        return Err(Box::new(error_response(
            StatusCode::UNAUTHORIZED,
            "refused: send the capability of the ask as Authorization: Bearer CAPABILITY",
        )));
    };
    let Some(request_id) = by_capability(shared, capability) else {
        return Err(Box::new(error_response(
            StatusCode::NOT_FOUND,
            "no waiting ask has this capability",
        )));
    };
    trust(request.extensions());
    Ok(AskOf(request_id))
}

/// `POST /api/agent/link`: a fresh one-time link for people.
pub(super) async fn fresh_link(State(shared): State<Arc<Shared>>) -> Response {
    match shared.fresh_link() {
        Ok(link) => json_response(StatusCode::OK, &serde_json::json!({ "link": link })),
        Err(error) => error_response(StatusCode::INTERNAL_SERVER_ERROR, &error.to_string()),
    }
}

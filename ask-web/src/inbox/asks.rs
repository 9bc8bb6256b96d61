//! The agents' asks: `POST /api/agent/asks` checks, writes and shows one and holds the
//! response until its outcome; `wait` attaches again to an ask; `received` and `cancel`
//! confirm or withdraw an ask by its capability.

use std::sync::Arc;

use ask_core::{Answer, AskUserInput, Question, WireState};
use axum::Extension;
use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use tokio::sync::oneshot;

use super::CAPABILITY_HEADER;
use super::checks::{check_asker, check_call_id, check_given};
use super::held::{AgentOutcome, Holding, Slot, held};
use super::proof::{AskOf, by_capability};
use crate::address::Came;
use crate::auth;
use crate::board::{AskView, Asker};
use crate::random_token;
use crate::reply::{JsonBody, Named, error_response, json_response};
use crate::shared::{Delivery, NoRoom, Opening, Shared};
use crate::store::{self, KeptState, StoreError, StoredAsk};

/// `POST /api/agent/received`: the agent of the ask has its outcome.
pub(super) async fn received(
    State(shared): State<Arc<Shared>>,
    Extension(AskOf(request_id)): Extension<AskOf>,
) -> Response {
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

/// `POST /api/agent/cancel`: the agent withdraws its ask.
pub(super) async fn withdrawn(
    State(shared): State<Arc<Shared>>,
    Extension(AskOf(request_id)): Extension<AskOf>,
) -> Response {
    if let Err(error) = withdraw(&shared, &request_id).await {
        return error_response(StatusCode::SERVICE_UNAVAILABLE, &error.to_string());
    }
    json_response(
        StatusCode::OK,
        &serde_json::json!({"state": "connection_lost"}),
    )
}

/// The body of `POST /api/agent/wait`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Wait {
    /// The capability of the ask to wait on again.
    capability: String,
}

impl Named for Wait {
    const NAME: &'static str = "a wait";
}

/// `POST /api/agent/wait`: an agent whose held connection ended attaches again to its ask,
/// naming it by its capability.
pub(super) async fn wait_again(
    State(shared): State<Arc<Shared>>,
    JsonBody(wait): JsonBody<Wait>,
) -> Response {
    let Some(request_id) = by_capability(&shared, &wait.capability) else {
        return error_response(StatusCode::NOT_FOUND, "no waiting ask has this capability");
    };
    match attach(&shared, &request_id, By::Capability(&wait.capability)).await {
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

/// How an agent names the ask it attaches to again.
#[derive(Clone, Copy)]
enum By<'a> {
    /// By its call id, asking these questions, which must be the ask's own: the agent gets a
    /// fresh capability.
    CallId(&'a [Question]),
    /// By the capability it holds, which it keeps: a capability stays valid until the agent
    /// has the one that replaces it, so an inbox killed while it answers a re-attachment never
    /// leaves the agent holding a capability the restarted inbox refuses.
    Capability(&'a str),
}

/// Attaches a new held connection to the ask `request_id` when it is still on the inbox's
/// list (waiting, or ended with an outcome saved for its agent), or answers at once when the
/// store says that it ended and its agent already took the outcome. `None` when no such ask
/// exists: the caller makes a new one.
async fn attach(shared: &Arc<Shared>, request_id: &str, by: By<'_>) -> Option<Response> {
    let Some(slot) = Slot::take(shared) else {
        return Some(too_many_held());
    };
    let (questions, capability) = match by {
        By::CallId(questions) => (Some(questions), random_token()),
        By::Capability(capability) => (None, Ok(capability.to_string())),
    };
    let capability = match capability {
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
                Some((attached, delivered, waiting.saved.clone()))
            }
        }
    };
    let Some((attached, delivered, saved)) = attached else {
        return ended(shared, request_id, questions).await;
    };
    // A new capability only, when there is one: an answer the person gives meanwhile is
    // written beside it.
    if let (Some(store), By::CallId(_)) = (&shared.store, by)
        && let Err(error) = store.set_capability(request_id, &digest).await
    {
        return Some(error_response(
            StatusCode::SERVICE_UNAVAILABLE,
            &error.to_string(),
        ));
    }
    shared.back(request_id);
    if let Some(outcome) = saved {
        shared.hand_saved(request_id, outcome);
    }
    let holding = Holding::new(slot, request_id.to_string(), attached);
    let mut response = held(holding, delivered);
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
    Some(([(header::CONTENT_TYPE, "application/x-ndjson")], line).into_response())
}

const SAME_CALL_OTHER_QUESTIONS: &str =
    "refused: this call id already asked other questions; give each call its own id";

/// `POST /api/agent/asks`: checks the ask, shows it, and holds the response until its outcome.
pub(super) async fn create(
    State(shared): State<Arc<Shared>>,
    came: Option<Extension<Came>>,
    JsonBody(ask): JsonBody<AgentAsk>,
) -> Response {
    let shared = &shared;
    // Over the socket, the quota is that of the sender's user id.
    let uid = match came {
        Some(Extension(Came::Socket { uid })) => Some(uid),
        _ => None,
    };
    let input = match ask_core::validate(ask.input, &shared.limits) {
        Ok(input) => input,
        Err(problems) => {
            return error_response(StatusCode::UNPROCESSABLE_ENTITY, &problems.to_string());
        }
    };
    if let Err(problem) = check_asker(&ask.asker) {
        return error_response(StatusCode::UNPROCESSABLE_ENTITY, &problem.to_string());
    }
    let questions = input.into_inner().questions;
    if let Err(problem) = check_given(&questions, &ask.given) {
        return error_response(StatusCode::UNPROCESSABLE_ENTITY, &problem.to_string());
    }
    if let Some(call_id) = &ask.call_id
        && let Err(problem) = check_call_id(call_id)
    {
        return error_response(StatusCode::UNPROCESSABLE_ENTITY, &problem.to_string());
    }
    let request_id = match &ask.call_id {
        Some(call_id) => {
            let request_id = derived_id(&ask.asker, call_id);
            if let Some(reply) = attach(shared, &request_id, By::CallId(&questions)).await {
                return reply;
            }
            request_id
        }
        None => shared.next_id(),
    };
    let Some(slot) = Slot::take(shared) else {
        return too_many_held();
    };
    let capability = match random_token() {
        Ok(capability) => capability,
        Err(error) => return error_response(StatusCode::INTERNAL_SERVER_ERROR, &error.to_string()),
    };
    let given = store::given_without_secrets(&questions, &ask.given);
    let view = AskView::waiting(request_id.clone(), questions, &ask.given).asked_by(ask.asker);
    let digest = auth::digest(&[&capability]);
    // The ask is written and shown on a task of its own, which finishes even when this request
    // does not (its connection closed meanwhile): the store and the list never disagree. When
    // the agent is gone before it got the capability, the ask is withdrawn, unless its call id
    // lets the same call attach to it again.
    let (reply, replied) = oneshot::channel();
    let (task, id) = (Arc::clone(shared), request_id.clone());
    let found_again = ask.call_id.is_some();
    tokio::spawn(async move {
        let opened = open_kept(
            &task,
            NewAsk {
                view,
                given,
                digest,
                uid,
            },
        )
        .await;
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
    let holding = Holding::new(slot, request_id, attached);
    let mut response = held(holding, delivered);
    if let Ok(value) = HeaderValue::from_str(&capability) {
        response.headers_mut().insert(CAPABILITY_HEADER, value);
    }
    response
}

/// A new ask on its way to the store and the page.
struct NewAsk {
    view: AskView,
    /// The answers given before it arrived, secret ones left out.
    given: Vec<Option<Answer>>,
    /// The digest of its capability.
    digest: String,
    /// The user id of its agent, when it came over the socket.
    uid: Option<u32>,
}

/// Writes the new ask to the store, when there is one, then shows it: its held connection's end
/// of the delivery and its attachment, or the refusal to send.
async fn open_kept(
    shared: &Arc<Shared>,
    ask: NewAsk,
) -> Result<(oneshot::Receiver<Delivery>, u64), Response> {
    let NewAsk {
        view,
        given,
        digest,
        uid,
    } = ask;
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
    let id = view.request_id.clone();
    let opened = shared.open(
        view,
        Opening {
            capability: Some(digest),
            uid,
        },
    );
    if opened.is_err()
        && let Some(store) = &shared.store
    {
        // Never shown, it ends for good, and the store forgets it with the other ended asks:
        // a refused ask does not wait in the store for a restart.
        let _ = store.record_first_outcome(&id, KeptState::Withdrawn).await;
    }
    opened.map_err(|no_room| no_room_response(shared, no_room))
}

/// How long an agent refused for want of room is asked to wait before it tries again: the
/// held connections free up as the person answers, and the budget as well.
pub(crate) const RETRY_AFTER_SECONDS: u64 = 2;

/// `503` with `Retry-After`: the inbox cannot take this ask now.
fn busy(status: StatusCode, message: &str) -> Response {
    let mut response = error_response(status, message);
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(RETRY_AFTER_SECONDS));
    response
}

/// The refusal of an ask while the agents' held connections take all the room they may (half
/// of the descriptors, so that pages and links keep theirs).
fn too_many_held() -> Response {
    busy(
        StatusCode::SERVICE_UNAVAILABLE,
        "the inbox holds as many waiting agents as it can; try again once the person answered \
         some",
    )
}

/// `bytes` as a person reads them: in MiB from 1 MiB up, else in KiB.
fn in_units(bytes: usize) -> String {
    if bytes >= 1024 * 1024 {
        format!("{} MiB", bytes / (1024 * 1024))
    } else {
        format!("{} KiB", bytes / 1024)
    }
}

/// The refusal of an ask for which there is no room: the inbox's budget (`503`) or its
/// agent's quota (`429`), both with `Retry-After`.
fn no_room_response(shared: &Shared, no_room: NoRoom) -> Response {
    match no_room {
        NoRoom::Full => busy(
            StatusCode::SERVICE_UNAVAILABLE,
            &format!(
                "the inbox holds as many waiting questions as it can ({}); try again once the \
                 person answered some",
                in_units(shared.board.budget())
            ),
        ),
        NoRoom::Quota { asks, bytes, uid } => {
            let quota = shared.quota();
            let who = match uid {
                Some(uid) => format!("the agents of user id {uid} on the socket together have"),
                None => "this agent (its name and folder) already has".to_string(),
            };
            busy(
                StatusCode::TOO_MANY_REQUESTS,
                &format!(
                    "{who} {asks} asks ({}) waiting, and may have at most {} asks ({}); try \
                     again once the person answered some",
                    in_units(bytes),
                    quota.asks,
                    in_units(quota.bytes)
                ),
            )
        }
    }
}

/// Withdraws the ask `request_id` as its agent does (`POST /api/agent/cancel`): it ends as
/// connection lost, and the store keeps it as withdrawn.
async fn withdraw(shared: &Shared, request_id: &str) -> Result<(), StoreError> {
    if let Some(store) = &shared.store {
        store
            .record_first_outcome(request_id, KeptState::Withdrawn)
            .await?;
    }
    shared.lost(request_id);
    Ok(())
}

/// The body of `POST /api/agent/asks`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(super) struct AgentAsk {
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

impl Named for AgentAsk {
    const NAME: &'static str = "an ask";
}

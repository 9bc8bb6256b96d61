//! The person's answer or cancel on its way to the agent of its ask: checked against the ask's
//! questions, written to the store when the inbox keeps its asks, handed to the agent's held
//! connection, and reported as sent only once the agent confirmed it.

use std::sync::Arc;

use ask_core::{AnswerInput, Outcome, WireState};
use axum::http::StatusCode;
use axum::response::Response;
use serde::Deserialize;
use tokio::sync::oneshot;

use crate::DELIVERY_PATIENCE;
use crate::reply::{Named, error_response, json_response};
use crate::shared::{Confirmed, Delivery, Shared};
use crate::store;

/// The body of `POST /api/asks/{id}/answer`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct AnswerBody {
    answers: Vec<AnswerInput>,
}

impl Named for AnswerBody {
    const NAME: &'static str = "an answer object";
}

/// What the page is told when its answer did not reach the agent: the answer stays on the page.
pub(crate) const NOT_DELIVERED: &str = "your agent stopped waiting: the answers were not delivered, and \
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
pub(crate) const NO_LONGER_WAITING: &str =
    "this ask is no longer waiting: it was answered, cancelled or withdrawn";

/// What the page is told when the store could not keep the answer.
const NOT_STORED: &str = "ask-user could not save the answers: they were not delivered, and \
                          they stay on this page";

/// The questions of the waiting ask `request_id`.
fn questions_of(shared: &Shared, request_id: &str) -> Option<Vec<ask_core::Question>> {
    shared
        .lock()
        .waiting
        .iter()
        .find(|w| w.request_id == request_id)
        .map(|w| w.questions.clone())
}

/// Answers one ask (see [`send_outcome`]); answers that do not fit its questions are refused,
/// and the ask keeps waiting.
///
/// The person is answered `200` only after the outcome's delivery receipt fired (the `--via`
/// agent's `received`, or `present` taking it while its agent is still there); every other end
/// of an outcome that went out is `202` with `"saved": true` when a store keeps the outcome,
/// else `503` with `"kept": true`, and the ask waits again or ends as connection lost, but for
/// an ask that the store finds already ended (`409`).
pub(crate) async fn answer(shared: &Arc<Shared>, request_id: &str, body: AnswerBody) -> Response {
    let Some(questions) = questions_of(shared, request_id) else {
        return if shared.board.knows(request_id) {
            error_response(StatusCode::CONFLICT, NO_LONGER_WAITING)
        } else {
            error_response(StatusCode::NOT_FOUND, "no such ask")
        };
    };
    match ask_core::to_answers(&questions, &body.answers) {
        Ok(answers) => {
            let given = Given {
                questions: Some(questions),
                outcome: Outcome::Answered(answers),
            };
            send_outcome(shared, request_id, given).await
        }
        Err(problem) => error_response(StatusCode::UNPROCESSABLE_ENTITY, &problem.to_string()),
    }
}

/// Cancels one ask (see [`send_outcome`]).
pub(crate) async fn cancel(shared: &Arc<Shared>, request_id: &str) -> Response {
    let given = Given {
        questions: questions_of(shared, request_id),
        outcome: Outcome::Cancelled,
    };
    send_outcome(shared, request_id, given).await
}

/// The person's outcome of one ask, and the ask's questions while it waits.
struct Given {
    questions: Option<Vec<ask_core::Question>>,
    outcome: Outcome,
}

/// Sends the person's outcome of one ask. The
/// reply says the answer was sent only once its agent has it.
/// When the inbox keeps its asks in a store, an outcome that its agent cannot take now is
/// written there first and waits for the agent to come back: the reply is `202` with
/// `"saved": true`. Otherwise it is `503` with `"kept": true`, and the answers stay on the page.
///
/// An ask is answered at most once: under the lock, its sender is taken out of the table and
/// the ask marked as delivering (also when no agent is attached and the outcome goes to the
/// store), so a second outcome is refused while the first is on its way or saved; in the store,
/// [`AskStore::record_first_outcome`](crate::AskStore::record_first_outcome) keeps only the
/// first.
async fn send_outcome(shared: &Arc<Shared>, request_id: &str, given: Given) -> Response {
    let Given { questions, outcome } = given;
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
/// to the person (see [`send_outcome`]).
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
            .record_first_outcome(request_id, store::kept_state(&questions, &outcome))
            .await;
        if !matches!(written, Ok(true)) {
            shared.undeliver(request_id, agent);
            return match written {
                Ok(_) => error_response(StatusCode::CONFLICT, NO_LONGER_WAITING),
                Err(error) => {
                    shared.warn(error);
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
            .delivered(Confirmed {
                request_id,
                attached,
                questions: &questions,
                outcome: &outcome,
            })
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

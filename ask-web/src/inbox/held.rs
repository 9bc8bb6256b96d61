//! The held response of an agent's ask: a heartbeat while it waits, then its outcome as one
//! JSON line.

use std::sync::Arc;

use ask_core::{Answer, Outcome, WireState};
use axum::body::{Body, Bytes};
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use tokio::sync::{oneshot, watch};

use super::KEPT_HEADER;
use crate::HEARTBEAT;
use crate::shared::{Delivery, Shared};

/// What the agent reads at the end of its held request: one JSON line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct AgentOutcome {
    /// `answered`, `cancelled` or `connection_lost`.
    pub state: WireState,
    /// The answers, when answered.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub answers: Vec<Answer>,
}

/// One of the held connections an inbox allows at once ([`crate::Bounds::max_held`]), given
/// back when dropped.
pub(super) struct Slot(Arc<Shared>);

impl Slot {
    /// A slot, unless the held connections already number their most.
    pub(super) fn take(shared: &Arc<Shared>) -> Option<Slot> {
        shared.hold().then(|| Slot(Arc::clone(shared)))
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.unhold();
    }
}

/// Ends the ask as connection lost when the held response is dropped before its outcome was
/// sent (the agent closed the connection).
pub(super) struct Holding {
    _slot: Slot,
    shared: Arc<Shared>,
    request_id: String,
    /// Which attachment to the ask this connection is.
    attached: u64,
    done: bool,
}

impl Holding {
    /// The held connection of attachment `attached` to the ask `request_id`.
    pub(super) fn new(slot: Slot, request_id: String, attached: u64) -> Holding {
        Holding {
            shared: Arc::clone(&slot.0),
            _slot: slot,
            request_id,
            attached,
            done: false,
        }
    }
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
pub(super) fn held(holding: Holding, delivered: oneshot::Receiver<Delivery>) -> Response {
    let stopped = holding.shared.stopped.subscribe();
    let holding_kept = holding.shared.store.is_some();
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
    let mut response = (
        [(header::CONTENT_TYPE, "application/x-ndjson")],
        Body::from_stream(stream),
    )
        .into_response();
    if kept {
        response
            .headers_mut()
            .insert(KEPT_HEADER, HeaderValue::from_static("1"));
    }
    response
}

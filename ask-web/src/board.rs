//! What the pages are told: every ask shown, and each change as one server-sent event,
//! serialised once for every page.
//!
//! A page's stream starts with the whole list (`event: asks`), then gets each change alone
//! (`event: ask`, one ask in its new state; `event: closing`). Each page reads from a bounded
//! queue ([`QUEUE`] changes): a page that falls that far behind is dropped, and opens its
//! stream again to start from the whole list. Finished asks beyond [`RETAIN_FINISHED`] leave
//! the list, oldest first, and the asks still waiting may hold at most [`WAITING_BUDGET`] bytes.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use ask_core::{Question, WireState};
use axum::body::Bytes;
use tokio::sync::broadcast;

use ask_core::{Answer, Prefill};
use serde::{Deserialize, Serialize};

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
pub(crate) struct AskView {
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
pub(crate) struct Snapshot {
    /// Every ask this server has shown, waiting or finished.
    pub asks: Vec<AskView>,
    /// True once the server is about to stop: no more changes follow.
    pub closing: bool,
}

impl AskView {
    /// The view of a new ask of `questions`, waiting for the person, with the answers `given`
    /// before it reached the page (in question order; empty when none were).
    pub(crate) fn waiting(
        request_id: String,
        questions: Vec<Question>,
        given: &[Option<Answer>],
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
            asker: Asker::default(),
            since: ask_core::now_ms(),
        }
    }

    /// The view with `asker` as who asks.
    pub(crate) fn asked_by(mut self, asker: Asker) -> AskView {
        self.asker = asker;
        self
    }
}

/// How many changes a page may fall behind before it is dropped (and reconnects).
pub const QUEUE: usize = 256;

/// How many finished asks the list keeps, for the pages that open after they ended.
pub const RETAIN_FINISHED: usize = 200;

/// The most bytes (as the pages are sent them) of the asks waiting at one time.
pub const WAITING_BUDGET: usize = 64 * 1024 * 1024;

/// The list of asks and the queue of changes.
#[derive(Debug)]
pub(crate) struct Board {
    state: Mutex<State>,
    changes: broadcast::Sender<Bytes>,
    /// The most bytes of the asks waiting: [`WAITING_BUDGET`], or less in a test.
    budget: usize,
}

#[derive(Debug, Default)]
struct State {
    snapshot: Snapshot,
    /// The size of each waiting ask, by request id.
    sizes: HashMap<String, usize>,
    /// The sum of `sizes`.
    waiting_bytes: usize,
}

/// The asks waiting already hold [`WAITING_BUDGET`] bytes.
#[derive(Debug)]
pub(crate) struct Full;

fn frame(event: &str, data: &str) -> Bytes {
    Bytes::from(format!("event: {event}\ndata: {data}\n\n"))
}

fn ask_frame(view: &AskView) -> Bytes {
    frame(
        "ask",
        &serde_json::to_string(view).unwrap_or_else(|_| "{}".to_string()),
    )
}

impl Board {
    pub(crate) fn new() -> Board {
        Board::with_budget(WAITING_BUDGET)
    }

    /// A board whose asks waiting may hold at most `budget` bytes.
    fn with_budget(budget: usize) -> Board {
        Board {
            state: Mutex::new(State::default()),
            changes: broadcast::channel(QUEUE).0,
            budget,
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // Every change below is complete before anything can panic, so a poisoned lock holds
        // consistent data.
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Shows a new ask, unless the asks waiting already fill the budget.
    pub(crate) fn push(&self, view: AskView) -> Result<(), Full> {
        let change = ask_frame(&view);
        let mut state = self.lock();
        if state.waiting_bytes + change.len() > self.budget {
            return Err(Full);
        }
        // The same call asked again after its ask ended takes the place of the ended one.
        state
            .snapshot
            .asks
            .retain(|ask| ask.request_id != view.request_id);
        if let Some(size) = state.sizes.remove(&view.request_id) {
            state.waiting_bytes -= size;
        }
        state.waiting_bytes += change.len();
        state.sizes.insert(view.request_id.clone(), change.len());
        state.snapshot.closing = false;
        state.snapshot.asks.push(view);
        let _ = self.changes.send(change);
        Ok(())
    }

    /// Sets the state of one ask, tells every page, and lets the oldest finished asks go.
    pub(crate) fn set_state(&self, request_id: &str, new: WireState) {
        let mut state = self.lock();
        let Some(ask) = state
            .snapshot
            .asks
            .iter_mut()
            .find(|ask| ask.request_id == request_id)
        else {
            return;
        };
        if ask.state == new {
            return;
        }
        ask.state = new;
        let change = ask_frame(ask);
        if new != WireState::WaitingForUser
            && let Some(size) = state.sizes.remove(request_id)
        {
            state.waiting_bytes -= size;
        }
        let finished = state
            .snapshot
            .asks
            .iter()
            .filter(|ask| ask.state != WireState::WaitingForUser)
            .count();
        if finished > RETAIN_FINISHED {
            let mut excess = finished - RETAIN_FINISHED;
            state.snapshot.asks.retain(|ask| {
                if excess > 0 && ask.state != WireState::WaitingForUser {
                    excess -= 1;
                    false
                } else {
                    true
                }
            });
        }
        let _ = self.changes.send(change);
    }

    /// Tells every page that the server closes: no change follows.
    pub(crate) fn close(&self) {
        let mut state = self.lock();
        state.snapshot.closing = true;
        let _ = self.changes.send(frame("closing", "{}"));
    }

    /// True when the list holds the ask `request_id`.
    pub(crate) fn knows(&self, request_id: &str) -> bool {
        self.lock()
            .snapshot
            .asks
            .iter()
            .any(|ask| ask.request_id == request_id)
    }

    /// The list now.
    pub(crate) fn snapshot(&self) -> Snapshot {
        self.lock().snapshot.clone()
    }

    /// The list now, as the first event of a page's stream, and the queue of the changes that
    /// follow it; `closing` when no change follows.
    pub(crate) fn subscribe(&self) -> (Bytes, broadcast::Receiver<Bytes>, bool) {
        let state = self.lock();
        let first = frame(
            "asks",
            &serde_json::to_string(&state.snapshot).unwrap_or_else(|_| "{}".to_string()),
        );
        (first, self.changes.subscribe(), state.snapshot.closing)
    }
}

/// A page's event stream over `board`: the list, then each change, a comment line every
/// `heartbeat` while nothing changes (a page that went away is found at the next write), until
/// the server closes or the page falls [`QUEUE`] changes behind.
pub(crate) fn stream(
    board: &Arc<Board>,
    heartbeat: std::time::Duration,
) -> impl futures_util::Stream<Item = Result<Bytes, std::convert::Infallible>> + use<> {
    let (first, receiver, closing) = board.subscribe();
    /// Where a stream is.
    enum At {
        First(Bytes, broadcast::Receiver<Bytes>, bool),
        Changes(broadcast::Receiver<Bytes>),
        Done,
    }
    futures_util::stream::unfold(At::First(first, receiver, closing), move |at| async move {
        match at {
            At::First(first, receiver, closing) => {
                let next = if closing {
                    At::Done
                } else {
                    At::Changes(receiver)
                };
                Some((Ok(first), next))
            }
            At::Changes(mut receiver) => {
                tokio::select! {
                    change = receiver.recv() => match change {
                        Ok(change) => {
                            let next = if change.starts_with(b"event: closing") {
                                At::Done
                            } else {
                                At::Changes(receiver)
                            };
                            Some((Ok(change), next))
                        }
                        // Fallen behind, or the server is gone: the page opens its stream
                        // again and starts from the whole list.
                        Err(_) => None,
                    },
                    () = tokio::time::sleep(heartbeat) => {
                        Some((Ok(Bytes::from_static(b": still here\n\n")), At::Changes(receiver)))
                    }
                }
            }
            At::Done => None,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ask_core::Question;
    use futures_util::StreamExt;

    fn view(n: usize, text: &str) -> AskView {
        AskView::waiting(
            format!("ask-{n}"),
            vec![Question::choice(text, ["yes", "no"])],
            &[],
        )
    }

    async fn frames(board: &Arc<Board>, count: usize) -> Vec<String> {
        let stream = stream(board, std::time::Duration::from_secs(3600));
        stream
            .take(count)
            .map(|frame| String::from_utf8(frame.unwrap().to_vec()).unwrap())
            .collect()
            .await
    }

    #[tokio::test]
    async fn a_page_gets_the_list_once_then_each_change_alone() {
        let board = Arc::new(Board::new());
        for n in 1..=3 {
            board.push(view(n, "Deploy?")).unwrap();
        }
        let reading = tokio::spawn({
            let board = Arc::clone(&board);
            async move { frames(&board, 3).await }
        });
        tokio::task::yield_now().await;
        while board.changes.receiver_count() == 0 {
            tokio::task::yield_now().await;
        }
        board.set_state("ask-2", WireState::Answered);
        board.close();
        let frames = reading.await.unwrap();
        assert!(
            frames[0].starts_with("event: asks\ndata: {\"asks\":[{"),
            "{}",
            frames[0]
        );
        assert_eq!(frames[0].matches("\"requestId\"").count(), 3);
        // The change carries the one ask that changed, not the list.
        assert!(
            frames[1]
                .starts_with("event: ask\ndata: {\"requestId\":\"ask-2\",\"state\":\"answered\""),
            "{}",
            frames[1]
        );
        assert_eq!(frames[1].matches("\"requestId\"").count(), 1);
        assert_eq!(frames[2], "event: closing\ndata: {}\n\n");
    }

    #[tokio::test]
    async fn a_page_that_falls_behind_is_dropped_and_starts_again_from_the_list() {
        let board = Arc::new(Board::new());
        let mut stream = Box::pin(stream(&board, std::time::Duration::from_secs(3600)));
        // The page reads nothing while more changes come than its queue holds.
        for n in 0..=QUEUE {
            board.push(view(n, "Deploy?")).unwrap();
        }
        let first = stream.next().await.unwrap().unwrap();
        assert!(first.starts_with(b"event: asks"));
        assert!(stream.next().await.is_none(), "the slow page is dropped");
        // A new stream starts from the whole list.
        let again = frames(&board, 1).await;
        assert_eq!(again[0].matches("\"requestId\"").count(), QUEUE + 1);
    }

    #[test]
    fn finished_asks_beyond_the_retention_leave_the_list_oldest_first() {
        let board = Board::new();
        let asks = RETAIN_FINISHED + 50;
        for n in 0..asks {
            board.push(view(n, "Deploy?")).unwrap();
            board.set_state(&format!("ask-{n}"), WireState::Answered);
        }
        board.push(view(asks, "Still waiting?")).unwrap();
        let snapshot = board.snapshot();
        assert_eq!(snapshot.asks.len(), RETAIN_FINISHED + 1);
        assert_eq!(snapshot.asks[0].request_id, "ask-50");
        assert_eq!(
            snapshot.asks[RETAIN_FINISHED].state,
            WireState::WaitingForUser
        );
        let state = board.lock();
        assert_eq!(state.waiting_bytes, state.sizes.values().sum::<usize>());
        assert_eq!(state.sizes.len(), 1);
    }

    #[test]
    fn the_asks_waiting_hold_at_most_the_budget() {
        // The rule at a budget of 1 MiB: the real one, 64 MiB, takes 64,000 asks to fill.
        let budget = 1024 * 1024;
        let board = Board::with_budget(budget);
        let question = "x".repeat(1000);
        let mut held = 0;
        while board.push(view(held, &question)).is_ok() {
            held += 1;
        }
        let bytes = board.lock().waiting_bytes;
        assert!(bytes <= budget && bytes > budget - 2000, "{bytes}");
        // An answered ask frees its room.
        board.set_state("ask-0", WireState::Answered);
        assert!(board.push(view(held, &question)).is_ok());
    }
}

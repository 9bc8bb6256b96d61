//! What the pages are told: a summary of every ask shown, and each change as one server-sent
//! event, serialised once for every page.
//!
//! A page's stream starts with the list of summaries (`event: asks`: who asks, from which
//! folder, since when, how many questions, in which state), then gets each change alone
//! (`event: ask`, one summary in its new state; `event: closing`). The questions of an ask
//! are fetched alone, when the page opens it ([`Board::view`]). The list is serialised once
//! per change and the same bytes go to every page, so a page that stops reading holds no copy
//! of its own. Each page reads from a bounded queue ([`QUEUE`] changes): a page that falls that
//! far behind is dropped, and is told so (`event: dropped`) when it opens its stream again.
//! Finished asks beyond [`RETAIN_FINISHED`] leave the list, oldest first, and the asks still
//! waiting may hold at most [`WAITING_BUDGET`] bytes.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard};

use ask_core::{Question, WireState};
use axum::body::Bytes;
use tokio::sync::broadcast;

use ask_core::{Answer, Prefill};
use serde::{Deserialize, Serialize};

/// Who asks, as the inbox page shows it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Asker {
    /// The agent's name (`--agent-name`, by default the parent process's name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// The agent's working folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
}

/// One ask as the page sees it once the person opens it.
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
    /// True while its agent has been away longer than it may take to attach again.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub away: bool,
}

/// One ask as the list shows it: no questions, only how many.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
struct Summary<'a> {
    request_id: &'a str,
    state: WireState,
    #[serde(flatten)]
    asker: &'a Asker,
    since: u64,
    /// How many questions the ask holds.
    count: usize,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    away: bool,
}

impl AskView {
    fn summary(&self) -> Summary<'_> {
        Summary {
            request_id: &self.request_id,
            state: self.state,
            asker: &self.asker,
            since: self.since,
            count: self.questions.len(),
            away: self.away,
        }
    }
}

/// The list the page is told: a summary of each ask, in the order they arrived.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct List<'a> {
    asks: Vec<Summary<'a>>,
    /// True once the server is about to stop: no more changes follow.
    closing: bool,
    /// True while the asks waiting fill the budget, so a new ask is refused.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    full: bool,
}

#[derive(Debug, Clone, Default, PartialEq)]
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
            away: false,
        }
    }

    /// The view with `asker` as who asks.
    pub(crate) fn asked_by(mut self, asker: Asker) -> AskView {
        self.asker = asker;
        self
    }

    /// The size the ask counts for in the budget: its bytes as the page is sent them.
    pub(crate) fn size(&self) -> usize {
        serde_json::to_vec(self).map_or(0, |bytes| bytes.len())
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
    /// The most bytes of the asks waiting: [`WAITING_BUDGET`], or another one given.
    budget: std::sync::atomic::AtomicUsize,
}

#[derive(Debug, Default)]
struct State {
    snapshot: Snapshot,
    /// The size of each waiting ask, by request id.
    sizes: HashMap<String, usize>,
    /// The sum of `sizes`.
    waiting_bytes: usize,
    /// True since a new ask was refused for the budget, until room is made.
    full: bool,
    /// The first event of a stream, serialised once since the last change and shared by
    /// every page.
    first: Option<Bytes>,
    /// The pages (by the digest of their credential) dropped for falling behind, told so
    /// when they come back.
    dropped: HashSet<String>,
}

/// The asks waiting already hold [`WAITING_BUDGET`] bytes.
#[derive(Debug)]
pub(crate) struct Full;

fn frame(event: &str, data: &str) -> Bytes {
    Bytes::from(format!("event: {event}\ndata: {data}\n\n"))
}

/// Applies `change` to the listed ask `request_id`, and gives the summary frame that tells the
/// pages of it; `None` when no such ask is listed or `change` changed nothing.
fn changed(
    state: &mut State,
    request_id: &str,
    change: impl FnOnce(&mut AskView) -> bool,
) -> Option<Bytes> {
    let ask = (state.snapshot.asks.iter_mut()).find(|ask| ask.request_id == request_id)?;
    change(ask).then(|| summary_frame(ask))
}

fn summary_frame(view: &AskView) -> Bytes {
    frame(
        "ask",
        &serde_json::to_string(&view.summary()).unwrap_or_else(|_| "{}".to_string()),
    )
}

/// The most pages remembered as dropped, so that pages that never come back cost nothing.
const MAX_DROPPED: usize = 1024;

/// The frame that tells a page it was dropped for falling behind.
pub(crate) const DROPPED: &[u8] = b"event: dropped\ndata: {\"why\":\"behind\"}\n\n";

impl Board {
    pub(crate) fn new() -> Board {
        Board::with_budget(WAITING_BUDGET)
    }

    /// A board whose asks waiting may hold at most `budget` bytes.
    pub(crate) fn with_budget(budget: usize) -> Board {
        Board {
            state: Mutex::new(State::default()),
            changes: broadcast::channel(QUEUE).0,
            budget: std::sync::atomic::AtomicUsize::new(budget),
        }
    }

    /// The most bytes of the asks waiting.
    pub(crate) fn budget(&self) -> usize {
        self.budget.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Holds the asks waiting to at most `budget` bytes from now on.
    pub(crate) fn set_budget(&self, budget: usize) {
        self.budget
            .store(budget, std::sync::atomic::Ordering::Relaxed);
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // Every change below is complete before anything can panic, so a poisoned lock holds
        // consistent data.
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Tells every page of `change`; the shared list is serialised again on next demand.
    fn tell(&self, state: &mut State, change: Bytes) {
        state.first = None;
        let _ = self.changes.send(change);
    }

    /// Shows a new ask of `size` bytes ([`AskView::size`]), unless the asks waiting already
    /// fill the budget (then the pages are told that the inbox is full).
    pub(crate) fn push(&self, view: AskView, size: usize) -> Result<(), Full> {
        let mut state = self.lock();
        let replaced = state.sizes.get(&view.request_id).copied().unwrap_or(0);
        let budget = self.budget();
        if state.waiting_bytes - replaced + size > budget {
            if !state.full {
                state.full = true;
                self.tell(&mut state, frame("full", "{\"full\":true}"));
            }
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
        state.waiting_bytes += size;
        state.sizes.insert(view.request_id.clone(), size);
        state.snapshot.closing = false;
        let change = summary_frame(&view);
        state.snapshot.asks.push(view);
        self.tell(&mut state, change);
        Ok(())
    }

    /// Marks the ask `request_id` as one whose agent is away (or back), and tells every page.
    pub(crate) fn set_away(&self, request_id: &str, away: bool) {
        let mut state = self.lock();
        let Some(change) = changed(&mut state, request_id, |ask| {
            ask.away != away && {
                ask.away = away;
                true
            }
        }) else {
            return;
        };
        self.tell(&mut state, change);
    }

    /// Sets the state of one ask, tells every page, and lets the oldest finished asks go.
    pub(crate) fn set_state(&self, request_id: &str, new: WireState) {
        let mut state = self.lock();
        let Some(change) = changed(&mut state, request_id, |ask| {
            ask.state != new && {
                ask.state = new;
                if new != WireState::WaitingForUser {
                    ask.away = false;
                }
                true
            }
        }) else {
            return;
        };
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
        self.tell(&mut state, change);
        if state.full && new != WireState::WaitingForUser {
            state.full = false;
            self.tell(&mut state, frame("full", "{\"full\":false}"));
        }
    }

    /// Tells every page that the server closes: no change follows.
    pub(crate) fn close(&self) {
        let mut state = self.lock();
        state.snapshot.closing = true;
        self.tell(&mut state, frame("closing", "{}"));
    }

    /// True when the list holds the ask `request_id`.
    pub(crate) fn knows(&self, request_id: &str) -> bool {
        self.lock()
            .snapshot
            .asks
            .iter()
            .any(|ask| ask.request_id == request_id)
    }

    /// The ask `request_id` with its questions, as the page opens it.
    pub(crate) fn view(&self, request_id: &str) -> Option<AskView> {
        self.lock()
            .snapshot
            .asks
            .iter()
            .find(|ask| ask.request_id == request_id)
            .cloned()
    }

    /// The list now, with every ask's questions.
    #[cfg(test)]
    pub(crate) fn snapshot(&self) -> Snapshot {
        self.lock().snapshot.clone()
    }

    /// The list of summaries now, as the first event of a page's stream: the same bytes for
    /// every page until the next change.
    fn first(&self, state: &mut State) -> Bytes {
        if let Some(first) = &state.first {
            return first.clone();
        }
        let list = List {
            asks: state.snapshot.asks.iter().map(AskView::summary).collect(),
            closing: state.snapshot.closing,
            full: state.full,
        };
        let first = frame(
            "asks",
            &serde_json::to_string(&list).unwrap_or_else(|_| "{}".to_string()),
        );
        state.first = Some(first.clone());
        first
    }

    /// The list of summaries now, as JSON (`GET /api/asks`): a view of the shared bytes.
    pub(crate) fn list(&self) -> Bytes {
        let first = self.first(&mut self.lock());
        let start = b"event: asks\ndata: ".len();
        first.slice(start..first.len() - 2)
    }

    /// The list now, as the first event of a page's stream, and the queue of the changes that
    /// follow it; `closing` when no change follows.
    fn subscribe(&self) -> (Bytes, broadcast::Receiver<Bytes>, bool) {
        let mut state = self.lock();
        let first = self.first(&mut state);
        (first, self.changes.subscribe(), state.snapshot.closing)
    }

    /// Remembers that the page of `who` was dropped for falling behind.
    fn dropped(&self, who: String) {
        let mut state = self.lock();
        if state.dropped.len() >= MAX_DROPPED {
            state.dropped.clear();
        }
        state.dropped.insert(who);
    }

    /// True, once, when the page of `who` was dropped for falling behind.
    fn was_dropped(&self, who: &str) -> bool {
        self.lock().dropped.remove(who)
    }
}

/// A page's event stream over `board`: the list, then each change, a comment line every
/// `heartbeat` while nothing changes (a page that went away is found at the next write), until
/// the server closes or the page falls [`QUEUE`] changes behind. `who` names the page (the
/// digest of its credential): dropped for falling behind, it is told so when it comes back.
pub(crate) fn stream(
    board: &Arc<Board>,
    heartbeat: std::time::Duration,
    who: Option<String>,
) -> impl futures_util::Stream<Item = Result<Bytes, std::convert::Infallible>> + use<> {
    let told = who.as_deref().is_some_and(|who| board.was_dropped(who));
    let (first, receiver, closing) = board.subscribe();
    let board = Arc::clone(board);
    /// Where a stream is.
    enum At {
        Told(Bytes, broadcast::Receiver<Bytes>, bool),
        First(Bytes, broadcast::Receiver<Bytes>, bool),
        Changes(broadcast::Receiver<Bytes>),
        Done,
    }
    let start = if told {
        At::Told(first, receiver, closing)
    } else {
        At::First(first, receiver, closing)
    };
    futures_util::stream::unfold(start, move |at| {
        let board = Arc::clone(&board);
        let who = who.clone();
        async move {
            match at {
                At::Told(first, receiver, closing) => Some((
                    Ok(Bytes::from_static(DROPPED)),
                    At::First(first, receiver, closing),
                )),
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
                            // Fallen behind: the page opens its stream again, is told why,
                            // and starts from the whole list.
                            Err(broadcast::error::RecvError::Lagged(_)) => {
                                if let Some(who) = who {
                                    board.dropped(who);
                                }
                                None
                            }
                            Err(broadcast::error::RecvError::Closed) => None,
                        },
                        () = tokio::time::sleep(heartbeat) => {
                            Some((Ok(Bytes::from_static(b": still here\n\n")), At::Changes(receiver)))
                        }
                    }
                }
                At::Done => None,
            }
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

    fn push(board: &Board, view: AskView) -> Result<(), Full> {
        let size = view.size();
        board.push(view, size)
    }

    async fn frames(board: &Arc<Board>, count: usize) -> Vec<String> {
        let stream = stream(board, std::time::Duration::from_secs(3600), None);
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
            push(&board, view(n, "Deploy?")).unwrap();
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
        let hour = std::time::Duration::from_secs(3600);
        let mut stream = Box::pin(stream(&board, hour, Some("page-1".to_string())));
        // The page reads nothing while more changes come than its queue holds.
        for n in 0..=QUEUE {
            push(&board, view(n, "Deploy?")).unwrap();
        }
        let first = stream.next().await.unwrap().unwrap();
        assert!(first.starts_with(b"event: asks"));
        assert!(stream.next().await.is_none(), "the slow page is dropped");
        // The same page, back, is told why, then starts from the whole list.
        let again: Vec<Bytes> = super::stream(&board, hour, Some("page-1".to_string()))
            .take(2)
            .map(Result::unwrap)
            .collect()
            .await;
        assert_eq!(&again[0][..], DROPPED);
        let list = String::from_utf8(again[1].to_vec()).unwrap();
        assert_eq!(list.matches("\"requestId\"").count(), QUEUE + 1);
        // Told once: another stream of the same page starts from the list.
        let third = frames(&board, 1).await;
        assert!(third[0].starts_with("event: asks"), "{}", third[0]);
    }

    #[tokio::test]
    async fn the_list_carries_summaries_and_every_page_shares_its_bytes() {
        let board = Arc::new(Board::new());
        let long = "Which of these very long questions? ".repeat(100);
        push(&board, view(1, &long)).unwrap();
        let hour = std::time::Duration::from_secs(3600);
        let mut one = Box::pin(stream(&board, hour, None));
        let mut two = Box::pin(stream(&board, hour, None));
        let one = one.next().await.unwrap().unwrap();
        let two = two.next().await.unwrap().unwrap();
        // One allocation for every page, and no question in it.
        assert_eq!(one.as_ptr(), two.as_ptr());
        let text = String::from_utf8(one.to_vec()).unwrap();
        assert!(!text.contains("very long"), "{text}");
        assert!(text.contains("\"count\":1"), "{text}");
        assert_eq!(
            board.list().as_ptr(),
            one[b"event: asks\ndata: ".len()..].as_ptr()
        );
        // The questions come with the one ask the page opens.
        let view = board.view("ask-1").unwrap();
        assert_eq!(view.questions[0].question, long);
    }

    #[test]
    fn finished_asks_beyond_the_retention_leave_the_list_oldest_first() {
        let board = Board::new();
        let asks = RETAIN_FINISHED + 50;
        for n in 0..asks {
            push(&board, view(n, "Deploy?")).unwrap();
            board.set_state(&format!("ask-{n}"), WireState::Answered);
        }
        push(&board, view(asks, "Still waiting?")).unwrap();
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
        while push(&board, view(held, &question)).is_ok() {
            held += 1;
        }
        let bytes = board.lock().waiting_bytes;
        assert!(bytes <= budget && bytes > budget - 2000, "{bytes}");
        // An answered ask frees its room.
        board.set_state("ask-0", WireState::Answered);
        assert!(push(&board, view(held, &question)).is_ok());
    }
}

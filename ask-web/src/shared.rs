//! The state of one server (the single-ask page or the inbox): the link token, the people's
//! sessions, the asks waiting for the person and where each one's outcome goes, and the orderly
//! stop. Nothing here reads a request: the routes of `page` and `inbox` change this state.

use std::collections::{HashSet, VecDeque};
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use ask_core::{Outcome, WireState};
use tokio::sync::{Semaphore, mpsc, oneshot, watch};

use crate::address::Dialled;
use crate::board::{self, AskView, Asker};
use crate::store::{self, AskStore, StoreError};
use crate::{BODY_BUDGET, DELIVERY_PATIENCE, InboxTokens, WebError, random_token};

/// An outcome on its way to the agent, with the receipt the agent's side fires once it has it.
#[derive(Debug)]
pub(crate) struct Delivery {
    pub(crate) outcome: Outcome,
    pub(crate) receipt: oneshot::Sender<()>,
}

/// One ask still waiting for the person.
#[derive(Debug)]
pub(crate) struct Waiting {
    pub(crate) request_id: String,
    /// The questions, as the agent asked them.
    pub(crate) questions: Vec<ask_core::Question>,
    /// The SHA-256 ([`crate::auth::digest`]) of the 256-bit capability of this ask alone, given
    /// to the agent that created it (the single-ask page has none).
    pub(crate) capability: Option<String>,
    /// Where the outcome goes: the agent's held connection, or the waiting `present`; `None`
    /// while no agent is attached (its connection ended and the inbox keeps its asks).
    pub(crate) agent: Option<oneshot::Sender<Delivery>>,
    /// Which attachment of an agent holds `agent`: a held connection that ends detaches only
    /// its own.
    pub(crate) attached: u64,
    /// The outcome the person gave while no agent could take it, saved in the store for the
    /// agent that comes back.
    pub(crate) saved: Option<Outcome>,
    /// True while an answer is on its way: a second one is refused.
    pub(crate) delivering: bool,
    /// The receipt of an outcome the held connection carried, fired when the agent confirms.
    pub(crate) receipt: Option<oneshot::Sender<()>>,
    /// Who asks: the agent whose quota the ask counts against, when it came over TCP.
    pub(crate) asker: Asker,
    /// The user id of the process that sent the ask over the Unix socket: then the ask counts
    /// against the quota of that user id, whatever agent it names.
    pub(crate) uid: Option<u32>,
    /// The bytes the ask counts for ([`AskView::size`]).
    pub(crate) size: usize,
    /// True once its agent has been away longer than [`Quota::away_after`]: the ask no longer
    /// counts against its agent's quota (it still counts against the inbox's budget).
    pub(crate) away: bool,
}

/// What one agent may hold waiting at once, and when an agent that went away stops counting.
/// An agent is its name and folder over TCP, and its user id over the Unix socket: the asks of
/// one user id fill only that user id's quota.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quota {
    /// The most asks waiting for one agent.
    pub asks: usize,
    /// The most bytes of the asks waiting for one agent, each counted as the page is sent it.
    pub bytes: usize,
    /// How long an agent may stay away (its held connection ended, in an inbox that keeps its
    /// asks) before its asks leave its quota: the time `--via` keeps trying to attach again.
    pub away_after: Duration,
}

impl Default for Quota {
    fn default() -> Quota {
        Quota {
            asks: 100,
            bytes: board::WAITING_BUDGET / 4,
            away_after: crate::via::REATTACH_PATIENCE,
        }
    }
}

/// Why a new ask is refused for want of room.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NoRoom {
    /// The asks waiting fill the inbox's budget.
    Full,
    /// The asks of this agent (or of this user id, over the socket) fill its quota: how many,
    /// and their bytes.
    Quota {
        asks: usize,
        bytes: usize,
        uid: Option<u32>,
    },
}

/// The most spent links a page remembers for their browsers; the oldest is forgotten first.
pub(crate) const MAX_CLAIMS: usize = 64;

/// A spent link's token and the key of the browser that spent it: that browser, and no other,
/// may spend the same link again for a credential of a new tab.
#[derive(Debug)]
pub(crate) struct Claim {
    pub(crate) token: String,
    pub(crate) key: String,
}

/// The mutable half of the server: the link token, the sessions, the asks in flight.
#[derive(Debug, Default)]
pub(crate) struct Inner {
    /// The link's token, until the first visit spends it.
    pub(crate) token: Option<String>,
    /// The links spent on a page that may be opened again, newest last, each with the key of
    /// the browser that spent it (at most [`MAX_CLAIMS`]); always empty for the inbox.
    pub(crate) claims: VecDeque<Claim>,
    /// The people's credentials handed out for spent links.
    pub(crate) sessions: HashSet<String>,
    /// The asks waiting for the person.
    pub(crate) waiting: Vec<Waiting>,
    /// The number of asks shown so far, for their request ids.
    pub(crate) taken: u64,
    /// The nonces of the inbox handed out by `hello`, each answerable once, oldest first.
    pub(crate) challenges: VecDeque<crate::inbox::Challenge>,
    /// True once the server stops: new answers are refused and kept on the page.
    pub(crate) stopping: bool,
    /// The answers on their way to their agents now.
    pub(crate) in_flight: usize,
    /// The page's language when one was given (`--lang`); else each browser's.
    pub(crate) lang: Option<ask_core::lang::Lang>,
    /// The number of agent attachments so far, for [`Waiting::attached`].
    pub(crate) attachments: u64,
}

impl Inner {
    /// How many asks, and how many bytes, count against the quota of `asker` (over TCP) or of
    /// `uid` (over the socket): its asks still waiting, except those whose agent is away or that
    /// hold an outcome saved for it.
    fn counted_for(&self, asker: &Asker, uid: Option<u32>) -> (usize, usize) {
        self.waiting
            .iter()
            .filter(|w| !w.away && w.saved.is_none() && w.uid == uid)
            .filter(|w| uid.is_some() || &w.asker == asker)
            .fold((0, 0), |(asks, bytes), w| (asks + 1, bytes + w.size))
    }

    /// The waiting ask `request_id`.
    pub(crate) fn waiting_mut(&mut self, request_id: &str) -> Option<&mut Waiting> {
        self.waiting
            .iter_mut()
            .find(|waiting| waiting.request_id == request_id)
    }
}

#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) inner: Mutex<Inner>,
    /// What the pages are told.
    pub(crate) board: Arc<board::Board>,
    /// The token agents prove they hold; `None` for the single-ask page.
    pub(crate) agent_token: Option<String>,
    /// The token that alone mints links for people (`ask-user serve --link`); `None` for the
    /// single-ask page.
    pub(crate) people_token: Option<String>,
    /// The limits an agent's call is checked against.
    pub(crate) limits: ask_core::Limits,
    /// `http://host:port` of the links, and `https://host:port` (chosen by `tls`).
    bases: [String; 2],
    /// Whether the server speaks TLS ([`Shared::secure`]).
    tls: std::sync::atomic::AtomicBool,
    /// Turns true when the server stops: held agent requests end as connection lost.
    pub(crate) stopped: watch::Sender<bool>,
    /// Told when the last answer in flight arrived or failed.
    pub(crate) settled: tokio::sync::Notify,
    /// Where the inbox keeps its asks (`ask-user serve --store`): then an agent whose
    /// connection ends stays attached to nothing, and its ask waits for it to come back.
    pub(crate) store: Option<Arc<dyn AskStore>>,
    /// Where a change the store could not record after the person or the agent was told of it
    /// is sent, once the inbox's host asked for them.
    pub(crate) store_errors: Mutex<Option<mpsc::UnboundedSender<StoreError>>>,
    /// The room of [`BODY_BUDGET`] for the request bodies of this server, in KiB.
    pub(crate) body_room: Semaphore,
    /// Whether a browser that spent a link may spend it again ([`Setup::reopen`]).
    pub(crate) reopen: bool,
    /// What one agent may hold waiting.
    pub(crate) quota: Mutex<Quota>,
    /// The agents' held connections open now.
    pub(crate) held: AtomicUsize,
    /// The most held connections at once ([`crate::Bounds::max_held`]).
    pub(crate) max_held: AtomicUsize,
    /// The addresses an agent may have dialled to reach this server.
    pub(crate) dialled: Mutex<Dialled>,
}

/// An outcome its agent confirmed: which ask, which attachment of it, its questions.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Confirmed<'a> {
    pub(crate) request_id: &'a str,
    pub(crate) attached: u64,
    pub(crate) questions: &'a [ask_core::Question],
    pub(crate) outcome: &'a Outcome,
}

/// What a new ask is opened with besides its view.
#[derive(Debug, Default)]
pub(crate) struct Opening {
    /// The digest of the ask's capability (the single-ask page has none).
    pub(crate) capability: Option<String>,
    /// The user id of the agent that sent it over the Unix socket.
    pub(crate) uid: Option<u32>,
}

/// What a server is made with besides its address.
#[derive(Debug, Default)]
pub(crate) struct Setup {
    /// The inbox's tokens; `None` for the single-ask page.
    pub(crate) tokens: Option<InboxTokens>,
    /// The limits an agent's call is checked against.
    pub(crate) limits: ask_core::Limits,
    /// Where the inbox keeps its asks.
    pub(crate) store: Option<Arc<dyn AskStore>>,
    /// Whether a browser that spent a link may spend it again (the single-ask page).
    pub(crate) reopen: bool,
}

impl Shared {
    pub(crate) fn new(bound: SocketAddr, setup: Setup) -> Result<Shared, WebError> {
        let Setup {
            tokens,
            limits,
            store,
            reopen,
        } = setup;
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
            board: Arc::new(board::Board::new()),
            agent_token,
            people_token,
            limits,
            bases: [format!("http://{host}"), format!("https://{host}")],
            tls: std::sync::atomic::AtomicBool::new(false),
            stopped,
            settled: tokio::sync::Notify::new(),
            store,
            store_errors: Mutex::new(None),
            body_room: Semaphore::new(BODY_BUDGET / 1024),
            reopen,
            quota: Mutex::new(Quota::default()),
            held: AtomicUsize::new(0),
            max_held: AtomicUsize::new(crate::listen::Bounds::default().max_held),
            dialled: Mutex::new(Dialled {
                bound: Some(bound),
                ..Dialled::default()
            }),
        })
    }

    /// `http://host:port` of the links, `https://` once the server speaks TLS.
    pub(crate) fn base(&self) -> &str {
        let tls = self.tls.load(std::sync::atomic::Ordering::Relaxed);
        &self.bases[usize::from(tls)]
    }

    /// Makes the links `https://`: the server speaks TLS.
    pub(crate) fn secure(&self) {
        self.tls.store(true, std::sync::atomic::Ordering::Relaxed);
    }

    /// The link of the current token.
    pub(crate) fn link(&self) -> String {
        let token = self.lock().token.clone().unwrap_or_default();
        format!("{}/#token={token}", self.base())
    }

    /// The current link while no browser spent it, else a fresh one-time link.
    pub(crate) fn unspent_link(&self) -> Result<String, WebError> {
        let token = self.lock().token.clone();
        match token {
            Some(token) => Ok(format!("{}/#token={token}", self.base())),
            None => self.fresh_link(),
        }
    }

    /// A fresh one-time link; any earlier link that was not used stops working.
    pub(crate) fn fresh_link(&self) -> Result<String, WebError> {
        let token = random_token()?;
        self.lock().token = Some(token.clone());
        Ok(format!("{}/#token={token}", self.base()))
    }

    /// The addresses an agent may have dialled to reach this server.
    pub(crate) fn dialled(&self) -> MutexGuard<'_, Dialled> {
        self.dialled
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The quota of one agent.
    pub(crate) fn quota(&self) -> Quota {
        *self
            .quota
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Shows an ask on the page and gives the receiver of its outcome, with the number of this
    /// attachment; `Err` when the asks waiting already fill [`board::WAITING_BUDGET`], or its
    /// agent's [`Quota`].
    pub(crate) fn open(
        &self,
        view: AskView,
        opening: Opening,
    ) -> Result<(oneshot::Receiver<Delivery>, u64), NoRoom> {
        let Opening { capability, uid } = opening;
        let size = view.size();
        let quota = self.quota();
        let (agent, delivered) = oneshot::channel();
        // One lock over the quota, the budget and the list of asks waiting: two asks of one
        // agent at once cannot both take its last place.
        let mut inner = self.lock();
        let (asks, bytes) = inner.counted_for(&view.asker, uid);
        if asks + 1 > quota.asks || bytes + size > quota.bytes {
            return Err(NoRoom::Quota { asks, bytes, uid });
        }
        let waiting = Waiting {
            request_id: view.request_id.clone(),
            questions: view.questions.clone(),
            capability,
            agent: Some(agent),
            attached: 0,
            saved: None,
            delivering: false,
            receipt: None,
            asker: view.asker.clone(),
            uid,
            size,
            away: false,
        };
        self.board.push(view, size).map_err(|_| NoRoom::Full)?;
        inner.attachments += 1;
        let attached = inner.attachments;
        inner.waiting.push(Waiting {
            attached,
            ..waiting
        });
        Ok((delivered, attached))
    }

    /// Counts the ask `request_id` out of its agent's quota once its agent has stayed away
    /// (attachment `attached` ended, and no other came) for [`Quota::away_after`].
    pub(crate) fn away_later(self: &Arc<Shared>, request_id: &str, attached: u64) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        // The wait holds no strong reference: an inbox dropped meanwhile frees its store.
        let shared = Arc::downgrade(self);
        let request_id = request_id.to_string();
        let after = self.quota().away_after;
        runtime.spawn(async move {
            tokio::time::sleep(after).await;
            let Some(shared) = shared.upgrade() else {
                return;
            };
            let away = {
                let mut inner = shared.lock();
                inner.waiting_mut(&request_id).is_some_and(|waiting| {
                    let away = waiting.agent.is_none() && waiting.attached == attached;
                    waiting.away |= away;
                    away
                })
            };
            if away {
                shared.board.set_away(&request_id, true);
            }
        });
    }

    /// The agent of `request_id` attached again: its ask counts against its quota again.
    pub(crate) fn back(&self, request_id: &str) {
        let was_away = self
            .lock()
            .waiting_mut(request_id)
            .is_some_and(|waiting| std::mem::replace(&mut waiting.away, false));
        if was_away {
            self.board.set_away(request_id, false);
        }
    }

    /// Counts a held connection of an agent in, unless they already number
    /// [`crate::Bounds::max_held`]: then `false`.
    pub(crate) fn hold(&self) -> bool {
        let max = self.max_held.load(Ordering::Relaxed);
        self.held
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |held| {
                (held < max).then_some(held + 1)
            })
            .is_ok()
    }

    /// Counts a held connection of an agent out.
    pub(crate) fn unhold(&self) {
        self.held.fetch_sub(1, Ordering::AcqRel);
    }

    /// The held connection of attachment `attached` to the ask `request_id` ended before it
    /// carried an outcome: with a store, the ask waits for its agent to come back; without
    /// one, it ends as connection lost.
    pub(crate) fn detach(self: &Arc<Shared>, request_id: &str, attached: u64) {
        if self.store.is_none() {
            self.lost(request_id);
            return;
        }
        let detached = {
            let mut inner = self.lock();
            inner
                .waiting
                .iter_mut()
                .find(|w| w.request_id == request_id && w.attached == attached)
                .map(|waiting| waiting.agent = None)
                .is_some()
        };
        if detached {
            self.away_later(request_id, attached);
        }
    }

    /// An outcome did not go out: the ask `request_id` waits again, held by `agent` when it
    /// is still attached.
    pub(crate) fn undeliver(&self, request_id: &str, agent: Option<oneshot::Sender<Delivery>>) {
        let mut inner = self.lock();
        if let Some(waiting) = inner.waiting_mut(request_id) {
            waiting.delivering = false;
            waiting.agent = agent.or(waiting.agent.take());
        }
    }

    /// Keeps `outcome` for the agent of `request_id`, which is not attached now: it was written
    /// to the store, and the pages show the ask as ended.
    pub(crate) fn save(self: &Arc<Shared>, request_id: &str, outcome: Outcome) {
        let state = WireState::of(&outcome);
        let attached = {
            let mut inner = self.lock();
            inner.waiting_mut(request_id).is_some_and(|waiting| {
                waiting.delivering = false;
                waiting.saved = Some(outcome.clone());
                // The agent attached again while the outcome was on its way to the connection
                // before: the new one takes it.
                waiting.agent.is_some()
            })
        };
        self.set_state(request_id, state);
        if attached {
            self.hand_saved(request_id, outcome);
        }
    }

    /// Hands the outcome saved for the ask `request_id` to its agent, attached again: the ask
    /// ends once the agent confirms it, or stays saved for the next attachment.
    pub(crate) fn hand_saved(self: &Arc<Shared>, request_id: &str, outcome: Outcome) {
        let agent = {
            let mut inner = self.lock();
            inner
                .waiting_mut(request_id)
                .and_then(|w| Some((w.agent.take()?, w.attached, w.questions.clone())))
        };
        let Some((agent, attached, questions)) = agent else {
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
                    .delivered(Confirmed {
                        request_id: &request_id,
                        attached,
                        questions: &questions,
                        outcome: &outcome,
                    })
                    .await;
            }
        });
    }

    /// The agent of `request_id`, attached as `attached`, confirmed that it has `outcome`: the
    /// store (if any) records that it was delivered, and the ask ends, unless the agent attached
    /// again meanwhile (then the newer attachment, which is handed the same outcome, ends it).
    pub(crate) async fn delivered(&self, confirmed: Confirmed<'_>) {
        let Confirmed {
            request_id,
            attached,
            questions,
            outcome,
        } = confirmed;
        // The store first: until the ask leaves the list, the same call attaching again gets
        // the outcome from memory, and once it left, from the store.
        if let Some(store) = &self.store {
            let state = store::kept_state(questions, outcome).delivered();
            // An ask not marked is offered to its agent again after a restart: at least once.
            if let Err(error) = store.mark_delivered(request_id, state).await {
                self.warn(error);
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
    pub(crate) fn next_id(&self) -> String {
        let mut inner = self.lock();
        inner.taken += 1;
        format!("ask-{}", inner.taken)
    }

    /// Ends a waiting ask as connection lost: its agent went away.
    pub(crate) fn lost(&self, request_id: &str) {
        if self.remove(request_id).is_some() {
            self.set_state(request_id, WireState::ConnectionLost);
        }
    }

    /// Takes a waiting ask off the list.
    pub(crate) fn remove(&self, request_id: &str) -> Option<Waiting> {
        let mut inner = self.lock();
        let at = inner
            .waiting
            .iter()
            .position(|w| w.request_id == request_id);
        at.map(|at| inner.waiting.swap_remove(at))
    }

    /// Sends whoever made the server a change the store could not record; nothing when it
    /// asked for none.
    pub(crate) fn warn(&self, error: StoreError) {
        let errors = self
            .store_errors
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(errors) = errors.as_ref() {
            // A host that stopped reading them has no one to tell.
            let _ = errors.send(error);
        }
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic while the lock is held leaves data that is still consistent (every change is
        // one assignment), so a poisoned lock is taken as it is.
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Sets the state of one ask and tells every open page.
    pub(crate) fn set_state(&self, request_id: &str, state: WireState) {
        self.board.set_state(request_id, state);
    }

    /// Stops the server in order: new answers are refused (and kept on their pages), the
    /// answers in flight reach their agents or fail (at most [`DELIVERY_PATIENCE`]), then the
    /// pages are told that the server closes and the held agent requests end.
    pub(crate) async fn stop(&self) {
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
pub struct Links(pub(crate) Arc<Shared>);

impl Links {
    /// A fresh one-time link; the earlier one stops working if it was not used.
    pub fn fresh(&self) -> Result<String, WebError> {
        self.0.fresh_link()
    }

    /// A link no browser has spent yet: the current one while it is unspent, else a fresh one
    /// (which ends the earlier link that was not used).
    pub fn unspent(&self) -> Result<String, WebError> {
        self.0.unspent_link()
    }

    /// Whether `link` still opens the page for a browser that has not spent it: it is the
    /// current link and no browser spent it yet. Asking changes nothing.
    #[must_use]
    pub fn opens(&self, link: &str) -> bool {
        let token = self.0.lock().token.clone();
        token.is_some_and(|token| {
            crate::auth::same_secret(&format!("{}/#token={token}", self.0.base()), link)
        })
    }
}

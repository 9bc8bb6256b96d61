//! The inbox of `ask-user serve`: one page for the asks of many agents, and the agents' API.

mod asks;
mod checks;
mod guard;
mod held;
mod proof;

use std::net::SocketAddr;
use std::sync::Arc;

use ask_core::{Limits, Outcome, WireState};
use axum::Router;
use axum::middleware::from_fn_with_state;
use axum::routing::{MethodRouter, post};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::board::AskView;
use crate::listen::{self, Bounds, Served};
use crate::reply::no_such_address;
use crate::shared::{Quota, Setup, Shared, Waiting};
use crate::socket::SocketFile;
use crate::store::{AskStore, Kept, KeptState, StoreError};
use crate::tls::TlsIdentity;
use crate::{LINGER, Links, WebError, random_token};

pub use checks::{MAX_AGENT_NAME, MAX_CALL_ID, MAX_FOLDER, fit_asker};
use guard::{AgentChecks, Needs, agents_guard, use_post};
pub(crate) use held::AgentOutcome;
pub(crate) use proof::Challenge;
pub use proof::STALE_CHALLENGE;

/// The header that carries the capability of a new ask, on the held response that creates it.
pub(crate) const CAPABILITY_HEADER: &str = "x-ask-capability";

/// The header of a held response from an inbox that keeps its asks in a store: an agent whose
/// connection ends without an outcome attaches again (`POST /api/agent/wait`).
pub(crate) const KEPT_HEADER: &str = "x-ask-kept";

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
///
/// Writing and showing a new ask, and delivering an outcome, run on tasks of their own that
/// finish even when the request that started them is given up (its connection closed): the
/// store, the list and the agent's connection never disagree half-way. An outcome saved while
/// its agent attached again is handed to that agent.
#[derive(Debug)]
pub struct Inbox {
    listener: std::net::TcpListener,
    addr: SocketAddr,
    shared: Arc<Shared>,
    bounds: Bounds,
    /// The Unix socket for the agents of this machine, when it listens on one.
    socket: Option<SocketFile>,
    /// The TLS of every connection ([`Inbox::with_tls`]).
    tls: Option<TlsIdentity>,
}

/// What an inbox that keeps its asks starts with: its tokens, its store, and what the store
/// gave when it was loaded ([`AskStore::load`]).
#[derive(Debug)]
pub struct Stored {
    /// The tokens, kept from an earlier run or fresh.
    pub tokens: InboxTokens,
    /// Where every ask and outcome is kept.
    pub store: Arc<dyn AskStore>,
    /// The asks the store gave back.
    pub kept: Kept,
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
        Inbox::bind_inner(
            addr,
            Setup {
                tokens: Some(tokens),
                limits,
                store: None,
                reopen: false,
            },
        )
    }

    /// Binds `addr` with the tokens of `stored`, keeping every ask and outcome in its store,
    /// and shows again the asks kept there that still wait for the person or for their agent:
    /// their agents attach again with their call id or their capability.
    pub fn bind_stored(
        addr: SocketAddr,
        limits: Limits,
        stored: Stored,
    ) -> Result<Inbox, WebError> {
        let Stored {
            tokens,
            store,
            kept,
        } = stored;
        let setup = Setup {
            tokens: Some(tokens),
            limits,
            store: Some(store),
            reopen: false,
        };
        let inbox = Inbox::bind_inner(addr, setup)?;
        restore(&inbox.shared, kept);
        Ok(inbox)
    }

    fn bind_inner(addr: SocketAddr, setup: Setup) -> Result<Inbox, WebError> {
        let (listener, bound) = crate::bind_listener(addr)?;
        let shared = Shared::new(bound, setup)?;
        Ok(Inbox {
            listener,
            addr: bound,
            shared: Arc::new(shared),
            bounds: Bounds::default(),
            socket: None,
            tls: None,
        })
    }

    /// Also listens on a Unix socket at `path` (an absolute path in a folder of this user's
    /// alone, made 0700 when missing), for the agents of this machine: the socket is made
    /// readable and writable by this user only, and removed when the inbox is dropped. A socket
    /// left at `path` by an inbox that is gone is replaced; one that an inbox still listens on
    /// is refused. Each user id on the socket has the quota of one agent.
    pub fn with_socket(mut self, path: &std::path::Path) -> Result<Inbox, WebError> {
        let socket = crate::socket::bind(path)?;
        self.shared.dialled().socket = Some(crate::address::unix_address(path));
        self.socket = Some(socket);
        Ok(self)
    }

    /// The path of the Unix socket, when it listens on one.
    pub fn socket_path(&self) -> Option<&std::path::Path> {
        self.socket.as_ref().map(|socket| socket.path.as_path())
    }

    /// Also answers the handshake of agents that dialled one of `urls` (`http://host[:port]` or
    /// `https://host[:port]`): the addresses of a reverse proxy in front of the inbox. Any
    /// other address that is not the inbox's own is refused as a relay's.
    pub fn with_public_urls(self, urls: &[String]) -> Result<Inbox, WebError> {
        let mut public = Vec::with_capacity(urls.len());
        for url in urls {
            match crate::address::url_address(url) {
                Some((_, address)) => public.push(address),
                None => return Err(WebError::PublicUrl(url.clone())),
            }
        }
        self.shared.dialled().public.extend(public);
        Ok(self)
    }

    /// Speaks TLS with `identity` on every connection, the page's and the agents': its links
    /// and [`Inbox::base_url`] are `https://`.
    pub fn with_tls(mut self, identity: TlsIdentity) -> Inbox {
        self.shared.secure();
        self.tls = Some(identity);
        self
    }

    /// Serves its connections within `bounds` instead of [`Bounds::default`].
    pub fn with_bounds(mut self, bounds: Bounds) -> Inbox {
        self.bounds = bounds;
        self.shared
            .max_held
            .store(bounds.max_held, std::sync::atomic::Ordering::Relaxed);
        self
    }

    /// Holds the asks waiting, all agents together, to `bytes` instead of
    /// [`crate::board::WAITING_BUDGET`] (64 MiB).
    pub fn with_budget(self, bytes: usize) -> Inbox {
        self.shared.board.set_budget(bytes);
        self
    }

    /// Holds each agent (a name and a folder) to `quota` instead of [`Quota::default`].
    pub fn with_quota(self, quota: Quota) -> Inbox {
        *self
            .shared
            .quota
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = quota;
        self
    }

    /// Speaks `lang` on the page whatever the browser prefers; `None` (the default) follows each
    /// browser's `Accept-Language`.
    pub fn speaking(self, lang: Option<ask_core::lang::Lang>) -> Inbox {
        self.shared.lock().lang = lang;
        self
    }

    /// Each change its store could not record after the person or the agent was told of it (an
    /// answer saved for its agent, or an outcome its agent confirmed, which is then offered to
    /// the agent again after a restart), sent on the receiver this gives, which replaces any
    /// earlier one; until this is called, they are told to no one.
    pub fn warning_of_store_errors(&self) -> mpsc::UnboundedReceiver<StoreError> {
        let (errors, receiver) = mpsc::unbounded_channel();
        *self
            .shared
            .store_errors
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(errors);
        receiver
    }

    /// How many asks wait, for the person or for their agent to take an outcome saved for it.
    pub fn waiting(&self) -> usize {
        self.shared.lock().waiting.len()
    }

    /// The address the inbox listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://host:port` (`https://` with [`Inbox::with_tls`]), the address agents give to
    /// `--via`.
    pub fn base_url(&self) -> &str {
        self.shared.base()
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
    pub fn links(&self) -> Links {
        Links(Arc::clone(&self.shared))
    }

    /// Every address of the inbox (the page, its API, the agents' API) on its state, with every
    /// check: what [`Inbox::serve`] serves, for a host that serves it on a listener of its own
    /// or drives it in process.
    pub fn router(&self) -> Router {
        crate::router(&self.shared, routes(&self.shared))
    }

    /// Serves until the process ends.
    pub async fn serve(&self) -> Result<(), WebError> {
        self.serve_until(CancellationToken::new()).await
    }

    /// Serves until `stop` is cancelled, then stops in order: answers given from then on are
    /// refused and stay on their pages, the answers in flight reach their agents or fail, the
    /// pages are told that the inbox closes, the held agent requests end as connection lost,
    /// and no connection is accepted any more.
    pub async fn serve_until(&self, stop: CancellationToken) -> Result<(), WebError> {
        let listener = self
            .listener
            .try_clone()
            .and_then(tokio::net::TcpListener::from_std)
            .map_err(WebError::Serve)?;
        let socket = match &self.socket {
            Some(socket) => Some(
                socket
                    .listener
                    .try_clone()
                    .and_then(tokio::net::UnixListener::from_std)
                    .map_err(WebError::Serve)?,
            ),
            None => None,
        };
        let served = Served {
            router: self.router(),
            socket,
            bounds: self.bounds,
            linger: LINGER,
            tls: self.tls.as_ref().map(TlsIdentity::acceptor),
        };
        // The listener keeps accepting while the inbox stops in order (an agent confirms an
        // answer in flight on a connection of its own), and closes once that is done.
        let closed = CancellationToken::new();
        let mut serving = std::pin::pin!(listen::serve(listener, served, closed.clone()));
        tokio::select! {
            served = &mut serving => return served.map_err(WebError::Serve),
            () = stop.cancelled() => {}
        }
        tokio::select! {
            served = &mut serving => return served.map_err(WebError::Serve),
            () = self.shared.stop() => {}
        }
        closed.cancel();
        serving.await.map_err(WebError::Serve)
    }
}

/// The agents' API (`/api/agent/…`) over `shared`: never for a browser, and for `POST` only.
pub(crate) fn routes(shared: &Arc<Shared>) -> Router<Arc<Shared>> {
    let checked = |needs, body, route: MethodRouter<Arc<Shared>>| {
        let checks = AgentChecks { needs, body };
        route
            .route_layer(from_fn_with_state(
                (Arc::clone(shared), checks),
                agents_guard,
            ))
            .fallback(use_post)
    };
    Router::new()
        .route(
            "/api/agent/hello",
            checked(Needs::Nothing, true, post(proof::hello)),
        )
        .route(
            "/api/agent/asks",
            checked(Needs::Agent, true, post(asks::create)),
        )
        .route(
            "/api/agent/wait",
            checked(Needs::Agent, true, post(asks::wait_again)),
        )
        .route(
            "/api/agent/link",
            checked(Needs::People, false, post(proof::fresh_link)),
        )
        .route(
            "/api/agent/received",
            checked(Needs::Capability, false, post(asks::received)),
        )
        .route(
            "/api/agent/cancel",
            checked(Needs::Capability, false, post(asks::withdrawn)),
        )
        .route("/api/agent/", checked(Needs::Nothing, false, post(nowhere)))
        .route(
            "/api/agent/{*elsewhere}",
            checked(Needs::Nothing, false, post(nowhere)),
        )
}

/// `404` for an agents' address that serves nothing.
async fn nowhere() -> axum::response::Response {
    no_such_address()
}

/// Shows again the asks kept in the store that still wait for the person or for their agent,
/// and numbers new asks after the highest kept.
fn restore(shared: &Arc<Shared>, kept: Kept) {
    let highest = kept.taken;
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
        let mut view = AskView::waiting(ask.id.clone(), ask.questions, &given).asked_by(ask.asker);
        view.since = ask.since;
        let questions = view.questions.clone();
        let (asker, size) = (view.asker.clone(), view.size());
        if shared.board.push(view, size).is_err() {
            // Beyond the budget of waiting asks: it stays in the store for a later start.
            continue;
        }
        let state = saved.as_ref().map(WireState::of);
        // No agent is attached yet: its asks leave its quota unless it comes back in time.
        shared.away_later(&ask.id, 0);
        shared.lock().waiting.push(Waiting {
            request_id: ask.id.clone(),
            questions,
            capability: Some(ask.capability),
            agent: None,
            attached: 0,
            saved,
            delivering: false,
            receipt: None,
            asker,
            uid: None,
            size,
            away: false,
        });
        if let Some(state) = state {
            shared.set_state(&ask.id, state);
        }
    }
    shared.lock().taken = highest;
}

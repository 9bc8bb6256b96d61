//! The web presenter: the questions on a local HTTP page, answered in any browser, and the
//! inbox of `ask-user serve` that shows the asks of many agents on one page.
//!
//! [`WebFrontend::bind`] opens the listening socket and makes a one-time link
//! ([`WebFrontend::link`]); [`present`](ask_core::Frontend::present) serves the page until the
//! person answers or cancels, and dropping its future stops the server. [`Inbox`] serves the
//! same page for the agents that send their asks with [`ViaFrontend`] (`ask-user --via URL`).
//! The crate prints nothing and reads no environment: the binary says the links, finds the
//! token files and passes them in.
//!
//! Security (see `SECURITY.md`): the link carries its one-time token in the URL fragment, which
//! no request carries; the page spends it with `POST /api/session` for a credential that it
//! keeps in `sessionStorage` (whose origin includes the port) and sends as
//! `Authorization: Bearer …`. No cookie is ever set. The page of one ask ([`WebFrontend`])
//! also gives the browser that spent a link a key of its own, kept in `localStorage`, with which
//! that browser alone may spend the same link again for a new tab. Every request must carry a `Host` that is
//! an IP literal or `localhost` (no DNS rebinding), and, when it sends one, an `Origin` equal to
//! the page's own (every POST must send one). Responses carry a strict
//! Content-Security-Policy with no inline script, and the page inserts agent text only as text.
//! Agents and the inbox prove to each other that they hold the agents' token by an HMAC
//! challenge-response that names the address the agent dialled (`auth.rs`), so no relay can
//! sit between them; the token never crosses the socket. Agents on the same machine reach the
//! inbox through a Unix socket that only its user may open ([`Inbox::with_socket`]). Beyond this
//! machine's loopback, agents speak only TLS ([`TlsIdentity`], [`ViaFrontend::pinning`]): plain
//! HTTP to another address is refused before it is dialled.
//!
//! Nothing is acknowledged that did not arrive: the person's answer is reported as sent only
//! once the agent confirmed that it received it (`--via`), or once the process that waits for it
//! took it while its agent is still there (`--mode web`); otherwise the page says that the agent
//! cannot be reached and keeps the answer on screen.
//!
//! The HTTP API (`ask-web/WEB.md`): `GET /api/asks` lists the asks with their state, questions,
//! masks and given answers, `GET /api/events` streams the same list as server-sent
//! events on every change, `POST /api/asks/{requestId}/answer` takes
//! `{"answers": [AnswerInput…]}` and `POST /api/asks/{requestId}/cancel` cancels.
//!
//! The page decides nothing about what it shows: the server sends, with each question, the text
//! that stands for its answer on every display when the answer is masked
//! ([`ask_core::answer_mask`]), and the answers given before the page took over as the page
//! pre-fills them ([`ask_core::Prefill`]).

mod address;
mod answer;
mod auth;
mod board;
mod gone;
mod http;
mod inbox;
mod link;
mod listen;
mod page;
mod reply;
mod shared;
mod single;
mod socket;
mod store;
mod tls;
mod trusted;
mod via;
mod words;

pub use board::Asker;
pub use gone::AgentWatch;
pub use inbox::{Inbox, InboxTokens, Stored};
pub use link::{
    NotKept, TokenFile, kept_token, link_token_file, parent_name, qr_text, shows_qr, write_token,
};
pub use listen::{Bounds, raise_descriptor_limit};
pub use shared::{Links, Quota};
pub use single::WebFrontend;
pub use socket::SocketFault;
pub use store::{
    AskStore, Kept, KeptState, SCHEMA_VERSION, SqliteStore, StoreError, StoreFault, StoredAsk,
};
pub use tls::{
    Fingerprint, TlsError, TlsFile, TlsIdentity, TlsProblem, fingerprint_hex, parse_fingerprint,
};
pub use via::ViaFrontend;

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::middleware::map_response;

use shared::Shared;

/// The tuning constants of the servers.
mod tuning {
    use std::time::Duration;

    /// The Content-Security-Policy of every response: scripts, styles and requests from the page's
    /// own origin only, nothing inline, no frames, no forms posted anywhere.
    pub const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
                       connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; \
                       frame-ancestors 'none'";

    /// How often a held agent request gets a blank line while its ask waits: a closed connection
    /// is found at the next one, and ends the ask as connection lost.
    pub const HEARTBEAT: Duration = Duration::from_secs(1);

    /// How long the person's answer waits for its agent to confirm that it received it; past that,
    /// the agent counts as gone, and the page says the answer was not delivered.
    pub const DELIVERY_PATIENCE: Duration = Duration::from_secs(5);

    /// How long the server waits, once the ask is over, for open pages to receive the final state.
    pub(crate) const LINGER: Duration = Duration::from_secs(2);

    /// The most bytes one request body may hold: far above four answers at the limits.
    pub const MAX_BODY: usize = 4 * 1024 * 1024;

    /// The most bytes of request bodies one server holds at once, all requests together.
    pub const BODY_BUDGET: usize = 64 * 1024 * 1024;

    /// How long a client may take to send a request body, and how long a body waits for room in
    /// [`BODY_BUDGET`].
    pub const BODY_TIMEOUT: Duration = Duration::from_secs(10);
}

pub(crate) use tuning::{
    BODY_BUDGET, BODY_TIMEOUT, CSP, DELIVERY_PATIENCE, HEARTBEAT, LINGER, MAX_BODY,
};

/// Why the web presenter could not start.
#[derive(Debug, thiserror::Error)]
pub enum WebError {
    /// The address could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address asked for.
        addr: SocketAddr,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The Unix socket for local agents could not be listened on.
    #[error("cannot listen on the socket {}: {fault}", path.display())]
    Socket {
        /// The socket's path.
        path: std::path::PathBuf,
        /// Why.
        #[source]
        fault: SocketFault,
    },
    /// A `--public-url` is not an `http://` or `https://` URL with a host.
    #[error(
        "--public-url needs the URL agents dial, such as https://ask.example.org or \
         http://192.0.2.7:8080, not `{0}`"
    )]
    PublicUrl(String),
    /// No random bytes for the tokens.
    #[error("cannot read random bytes for the link token from /dev/urandom: {0}")]
    Random(#[source] std::io::Error),
    /// The server failed.
    #[error("the web server failed: {0}")]
    Serve(#[source] std::io::Error),
    /// `--via` names no `https://host:port` or `http://host:port` address.
    #[error(
        "--via needs an address such as https://inbox.example:8765 or http://127.0.0.1:8765, \
         not `{0}`"
    )]
    ViaAddress(String),
    /// `--via` names a plain `http://` address beyond this machine's loopback.
    #[error(
        "--via refuses plain http:// to {0}, beyond this machine: the questions and answers \
         would cross the network unencrypted; use https:// (`ask-user serve --tls-cert \
         --tls-key`, or a TLS proxy in front of it), or an SSH tunnel to 127.0.0.1"
    )]
    ViaPlain(String),
    /// The inbox's TLS certificate was refused: nothing was sent.
    #[error(
        "the ask-user inbox at {addr} was refused before anything was sent: {reason}; check \
         --via, or the token file after `ask-user serve` was given another certificate"
    )]
    ViaCertificate {
        /// The address.
        addr: String,
        /// Why the certificate was refused.
        reason: String,
    },
    /// The inbox could not be reached.
    #[error(
        "cannot reach the ask-user inbox at {addr} ({source}); start one with `ask-user serve`, \
         or check the address given to --via"
    )]
    ViaConnect {
        /// The inbox.
        addr: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The inbox refused the ask.
    #[error("the ask-user inbox refused the questions ({status}): {message}")]
    ViaRefused {
        /// The HTTP status.
        status: u16,
        /// The inbox's sentence.
        message: String,
    },
    /// The inbox had no room for the ask for as long as `--via` waits.
    #[error(
        "the ask-user inbox at {addr} had no room for the questions for {waited} s and `--via` \
         gave up ({status}): {message}"
    )]
    ViaNoRoom {
        /// The inbox.
        addr: String,
        /// How long `--via` tried, in seconds.
        waited: u64,
        /// The HTTP status of the last refusal.
        status: u16,
        /// The inbox's sentence.
        message: String,
    },
    /// What listens at the address could not prove that it holds the token.
    #[error(
        "what listens at {addr} is not the ask-user inbox this token belongs to (it could not \
         prove that it holds the token for the address dialled, and no question was sent): \
         another program listens there, or relays to the inbox under another address; check \
         --via, or the token file after `ask-user serve --rotate-token`"
    )]
    ViaImpostor {
        /// The address.
        addr: String,
    },
    /// The inbox refused the handshake for the address dialled: it does not listen there, so
    /// something between relays the connection.
    #[error(
        "the ask-user inbox reached through {addr} refused the handshake, and no question was \
         sent: {message}"
    )]
    ViaRelayed {
        /// The address dialled.
        addr: String,
        /// The inbox's sentence.
        message: String,
    },
    /// The inbox sent something that is not its protocol.
    #[error("the ask-user inbox at {addr} answered out of protocol: {reason}")]
    ViaProtocol {
        /// The address.
        addr: String,
        /// What was wrong.
        reason: String,
    },
}

impl WebError {
    /// True when the inbox did not prove that it holds the token, or refused the address
    /// dialled: something else listens there, or relays to it.
    pub fn is_impostor(&self) -> bool {
        matches!(
            self,
            WebError::ViaImpostor { .. }
                | WebError::ViaRelayed { .. }
                | WebError::ViaCertificate { .. }
        )
    }
}

/// A non-blocking listener bound to `addr` (port 0: any free port), and the address it got.
fn bind_listener(addr: SocketAddr) -> Result<(std::net::TcpListener, SocketAddr), WebError> {
    let bind = |source| WebError::Bind { addr, source };
    let listener = std::net::TcpListener::bind(addr).map_err(bind)?;
    listener.set_nonblocking(true).map_err(bind)?;
    let bound = listener.local_addr().map_err(bind)?;
    Ok((listener, bound))
}

fn random_token() -> Result<String, WebError> {
    auth::random_token().map_err(WebError::Random)
}

/// Every address of one server over `shared`: the page's ([`page::routes`]) and `more`, which the
/// server that calls this assembled (the agents' [`inbox::routes`], which the single-ask page
/// serves too, where no agent can prove a token), each behind its side's guard, every response
/// with the headers that keep the page to itself, and a plain `404` (after the page's checks)
/// for every other address.
///
/// Every request passes the Host check (an IP literal or `localhost`). Every request of the
/// page's side passes the Origin check (the page's own origin; a POST must send one) and, but
/// for the page, its script, its style, its words and the link's one-time exchange, the
/// person's credential in `Authorization`, never a cookie; the agents' API refuses any request
/// that sends `Origin` or `Sec-Fetch-Site`, and asks for its own proof instead. Every response
/// carries [`CSP`].
fn router(shared: &Arc<Shared>, more: Router<Arc<Shared>>) -> Router {
    Router::new()
        .merge(page::routes(shared))
        .merge(more)
        .fallback(http::elsewhere)
        // The guards read every body within `MAX_BODY`, `BODY_TIMEOUT` and the server's
        // budget; an extractor takes the same cap (axum's own default is 2 MiB), so a body the
        // guards accepted is read whole, and a route that skipped them is still bounded.
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .layer(map_response(http::with_headers))
        .with_state(Arc::clone(shared))
}

/// Aborts a task when dropped.
struct AbortOnDrop(tokio::task::AbortHandle);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// What the tests of this crate reach that is no part of its API: the tuning constants, the
/// secrets of the challenge-response, and the count of closed connections.
#[doc(hidden)]
pub mod testing {
    /// The secrets of the challenge-response.
    pub mod auth {
        pub use crate::auth::*;
    }
    pub use crate::board::{QUEUE, RETAIN_FINISHED, WAITING_BUDGET};
    pub use crate::inbox::{MAX_AGENT_NAME, MAX_CALL_ID, MAX_FOLDER, STALE_CHALLENGE, fit_asker};
    pub use crate::listen::{HEADER_TIMEOUT, evicted};
    pub use crate::page::EVENTS_HEARTBEAT;
    pub use crate::tuning::{
        BODY_BUDGET, BODY_TIMEOUT, CSP, DELIVERY_PATIENCE, HEARTBEAT, MAX_BODY,
    };
    pub use crate::via::{CONNECT_TRIES, MAX_LINE, REATTACH_PATIENCE, ROOM_PATIENCE};

    /// `request` as the inbox's Unix socket hands it on, from a process of user id `uid`.
    pub fn over_socket(
        request: axum::http::request::Builder,
        uid: u32,
    ) -> axum::http::request::Builder {
        request.extension(crate::address::Came::Socket { uid })
    }
}

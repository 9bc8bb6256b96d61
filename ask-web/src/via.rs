//! `ask-user --via URL`: the agent side of the inbox.

mod client;

use ask_core::{BoxError, Frontend, Outcome, PresentError, Presenter, WireState};
use async_trait::async_trait;

use crate::auth;
use crate::inbox::{AgentOutcome, CAPABILITY_HEADER, KEPT_HEADER, STALE_CHALLENGE};
use crate::tls::{Dial, Fingerprint};
use crate::{Asker, WebError};
use client::{Post, Reply, Target};

/// How many times `--via` tries to reach a crowded inbox: 7 tries wait 3.15 s in all.
pub const CONNECT_TRIES: usize = 7;

/// How long `--via` keeps trying to attach again to its ask when the connection to an inbox
/// that keeps its asks ended without an outcome.
pub const REATTACH_PATIENCE: std::time::Duration = std::time::Duration::from_secs(60);

/// How long `--via` keeps asking an inbox that has no room for its ask (`503` or `429` with
/// `Retry-After`: its agents' connections, its budget or this agent's quota are full) before it
/// gives up and says so.
pub const ROOM_PATIENCE: std::time::Duration = std::time::Duration::from_secs(120);

/// The longest wait between two tries for room, whatever `Retry-After` asks.
const MOST_RETRY_AFTER: u64 = 30;

/// The longest line `--via` reads from the inbox, and the longest head of an answer: far above
/// four answers at the limits.
pub const MAX_LINE: usize = 8 * 1024 * 1024;

/// What one POST to the inbox sends besides its path.
struct Sent<'a> {
    /// The `Authorization` header, when one is sent.
    authorization: Option<&'a str>,
    /// The JSON body.
    body: &'a str,
}

/// A held response as the agent reads it: the capability of its ask, and whether the inbox
/// keeps its asks.
#[derive(Clone, Copy)]
struct Holding<'a> {
    capability: Option<&'a str>,
    kept: bool,
}

/// Which token a [`ViaFrontend`] holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Holds {
    Agent,
    People,
}

/// What one held response of the inbox ended with.
enum Held {
    /// The end of the ask: its outcome, confirmed (or needing no confirmation), or connection
    /// lost.
    Done(Outcome),
    /// The outcome, whose confirmation an inbox that keeps its asks did not answer.
    Unconfirmed(Outcome),
    /// The connection ended without an outcome.
    Ended,
}

/// Sends each ask to an inbox (`ask-user serve`) and waits, on the held request, for its
/// outcome: the agent side of `ask-user --via URL`. Before it sends anything, it checks that
/// the inbox holds its token (an HMAC challenge-response; the token never crosses the socket),
/// and it confirms each outcome it received, for the person to be told the answer arrived.
#[derive(Debug, Clone)]
pub struct ViaFrontend {
    /// The address dialled, as both proofs name it: `host:port` of the URL, lowercased, or
    /// `unix:` and the socket's path.
    addr: String,
    /// Where it connects.
    target: Target,
    /// How an `https://` inbox's certificate is checked; `None` for `http://` and the socket.
    tls: Option<Dial>,
    token: String,
    asker: Asker,
    holds: Holds,
    /// How long it waits for room ([`ROOM_PATIENCE`]).
    room_patience: std::time::Duration,
}

impl ViaFrontend {
    /// The inbox at `url` (`https://host:port`, or `http://host:port` on this machine's
    /// loopback), with the agent token and who asks. An `https://` inbox's certificate is
    /// checked against the system's roots and the host name, unless [`ViaFrontend::pinning`]
    /// pins it. Plain `http://` to any other address is refused here, before anything is
    /// dialled: the questions and answers would cross the network readable by anyone on the
    /// way.
    pub fn new(url: &str, token: String, asker: Asker) -> Result<ViaFrontend, WebError> {
        let (scheme, addr) = crate::address::url_address(url)
            .ok_or_else(|| WebError::ViaAddress(url.to_string()))?;
        let host = host_of(&addr);
        let tls = if scheme == "https" {
            let dial = Dial::new(host).ok_or_else(|| WebError::ViaAddress(url.to_string()))?;
            Some(dial)
        } else if is_loopback(host) {
            None
        } else {
            return Err(WebError::ViaPlain(addr));
        };
        // `localhost` is dialled as 127.0.0.1, the address the inbox takes it for: never
        // another loopback address that something else may listen on.
        let dialled = match addr.strip_prefix("localhost:") {
            Some(port) => format!("127.0.0.1:{port}"),
            None => addr.clone(),
        };
        Ok(ViaFrontend {
            addr,
            target: Target::Tcp(dialled),
            tls,
            token,
            asker: crate::inbox::fit_asker(asker),
            holds: Holds::Agent,
            room_patience: ROOM_PATIENCE,
        })
    }

    /// Dials the inbox's Unix socket at `path` instead of TCP when the URL is `http://` on
    /// this machine's loopback (`127.0.0.1`, `::1` or `localhost`); any other URL is dialled
    /// over TCP as before, and an `https://` one always speaks TLS. The proofs then name
    /// `unix:` and the socket's path.
    pub fn through_socket(mut self, path: &std::path::Path) -> ViaFrontend {
        if self.tls.is_none() && is_loopback(host_of(&self.addr)) {
            self.addr = crate::address::unix_address(path);
            self.target = Target::Unix(path.to_path_buf());
        }
        self
    }

    /// The address both proofs name: `host:port`, or `unix:` and the socket's path.
    pub fn dialled(&self) -> &str {
        &self.addr
    }

    /// Takes only an inbox whose own certificate has the SHA-256 `sha256` (the `tls-sha256`
    /// of its token file), whatever its chain, name or dates; nothing for an `http://` inbox.
    pub fn pinning(mut self, sha256: Fingerprint) -> ViaFrontend {
        self.tls = self.tls.map(|dial| dial.pinning(sha256));
        self
    }

    /// Whether the inbox is dialled over TLS, and whether its certificate is pinned.
    pub fn tls(&self) -> Option<bool> {
        self.tls.as_ref().map(Dial::is_pinned)
    }

    /// Waits at most `patience` for room in a full inbox, instead of [`ROOM_PATIENCE`].
    pub fn waiting_for_room(mut self, patience: std::time::Duration) -> ViaFrontend {
        self.room_patience = patience;
        self
    }

    /// The inbox at `url`, with the people's token, which only makes links.
    pub fn for_people(url: &str, token: String) -> Result<ViaFrontend, WebError> {
        let mut via = ViaFrontend::new(url, token, Asker::default())?;
        via.holds = Holds::People;
        Ok(via)
    }

    /// Asks the inbox for a fresh one-time link for people.
    pub async fn fresh_link(&self) -> Result<String, BoxError> {
        let authorization = self.challenge().await?;
        let reply = self
            .post(
                "/api/agent/link",
                Sent {
                    authorization: Some(&authorization),
                    body: "{}",
                },
            )
            .await?;
        let status = reply.status;
        let reply = reply.json().await?;
        if status != 200 {
            return Err(self.refused(status, &reply));
        }
        Ok(reply["link"].as_str().unwrap_or_default().to_string())
    }

    fn refused(&self, status: u16, reply: &serde_json::Value) -> BoxError {
        Box::new(WebError::ViaRefused {
            status,
            message: reply["error"]
                .as_str()
                .unwrap_or("no reason given")
                .to_string(),
        })
    }

    /// The challenge-response: checks that the inbox holds the token, and gives the
    /// `Authorization` of the one request that follows.
    async fn challenge(&self) -> Result<String, BoxError> {
        let nonce = auth::random_token()?;
        let role = match self.holds {
            Holds::Agent => "agent",
            Holds::People => "people",
        };
        let body =
            serde_json::json!({ "nonce": nonce, "as": role, "address": self.addr }).to_string();
        let reply = self
            .post(
                "/api/agent/hello",
                Sent {
                    authorization: None,
                    body: &body,
                },
            )
            .await?;
        let status = reply.status;
        let reply = reply.json().await?;
        let impostor = || {
            Box::new(WebError::ViaImpostor {
                addr: self.addr.clone(),
            }) as BoxError
        };
        if status == 421 {
            // An inbox that does not listen where the agent dialled: a relay forwarded the
            // hello. Its sentence says so, and nothing more is sent.
            return Err(Box::new(WebError::ViaRelayed {
                addr: self.addr.clone(),
                message: reply["error"]
                    .as_str()
                    .unwrap_or("no reason given")
                    .to_string(),
            }));
        }
        if status != 200 {
            return Err(impostor());
        }
        let (Some(inbox_nonce), Some(proof)) = (reply["nonce"].as_str(), reply["proof"].as_str())
        else {
            return Err(impostor());
        };
        let exchange = auth::Exchange {
            client_nonce: &nonce,
            inbox_nonce,
            address: &self.addr,
        };
        // A proof made for another address than the one dialled is a relay's that rewrote it.
        if !auth::same_secret(&auth::inbox_proof(&self.token, exchange), proof) {
            return Err(impostor());
        }
        Ok(auth::authorization(&self.token, exchange))
    }

    /// Sends one POST to the inbox (see [`client::post`]).
    async fn post(&self, path: &str, sent: Sent<'_>) -> Result<Reply, BoxError> {
        let Sent {
            authorization,
            body,
        } = sent;
        client::post(Post {
            addr: &self.addr,
            target: &self.target,
            path,
            authorization,
            body,
            tls: self.tls.as_ref(),
        })
        .await
    }
}

/// The host of `addr` (`host:port`, `[v6]:port`, or a host alone).
fn host_of(addr: &str) -> &str {
    if let Some(rest) = addr.strip_prefix('[') {
        return rest.split(']').next().unwrap_or(rest);
    }
    match addr.rsplit_once(':') {
        Some((host, port)) if !host.contains(':') && port.bytes().all(|b| b.is_ascii_digit()) => {
            host
        }
        _ => addr,
    }
}

/// Whether `host` is this machine's loopback: `localhost`, 127.0.0.0/8 or `::1`.
fn is_loopback(host: &str) -> bool {
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// Withdraws the ask of `capability` from the inbox when the wait for it is dropped before its
/// outcome (the host cancelled the call): an inbox that keeps its asks would otherwise keep it
/// waiting for an agent that no longer wants it.
struct Withdraw {
    via: ViaFrontend,
    capability: Option<String>,
}

impl Drop for Withdraw {
    fn drop(&mut self) {
        let Some(capability) = self.capability.take() else {
            return;
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let via = self.via.clone();
        runtime.spawn(async move {
            let authorization = format!("Bearer {capability}");
            let _ = via
                .post(
                    "/api/agent/cancel",
                    Sent {
                        authorization: Some(&authorization),
                        body: "{}",
                    },
                )
                .await;
        });
    }
}

#[async_trait]
impl Frontend for ViaFrontend {
    fn presenter(&self) -> Presenter {
        Presenter::Web
    }

    async fn present(&self, request: &ask_core::AskRequest) -> Result<Outcome, PresentError> {
        self.ask_inbox(request).await.map_err(PresentError::Failed)
    }
}

impl ViaFrontend {
    /// The challenge, then the ask: again, with a fresh challenge after a pause that doubles
    /// each time, when the connection failed before the inbox answered (a crowded inbox closes
    /// connections that sent nothing yet; such a connection created no ask) or when the inbox
    /// no longer knew the challenge (strangers' challenges pushed it out of its table), at most
    /// [`CONNECT_TRIES`] times. An inbox with no room for the ask (`503` or `429` with
    /// `Retry-After`) is asked again after the pause it names, for up to the patience for room
    /// ([`ROOM_PATIENCE`]). Any other refusal ends at once.
    async fn open_ask(&self, body: &str) -> Result<Reply, BoxError> {
        let started = std::time::Instant::now();
        loop {
            let reply = self.open_ask_once(body).await?;
            let retry_after = reply
                .header("retry-after")
                .and_then(|seconds| seconds.trim().parse::<u64>().ok())
                .filter(|_| matches!(reply.status, 503 | 429));
            let Some(retry_after) = retry_after else {
                return Ok(reply);
            };
            let pause = std::time::Duration::from_secs(retry_after.clamp(1, MOST_RETRY_AFTER));
            if started.elapsed() + pause > self.room_patience {
                let status = reply.status;
                let reply = reply.json().await?;
                return Err(Box::new(WebError::ViaNoRoom {
                    addr: self.addr.clone(),
                    waited: started.elapsed().as_secs(),
                    status,
                    message: reply["error"]
                        .as_str()
                        .unwrap_or("no reason given")
                        .to_string(),
                }));
            }
            drop(reply);
            tokio::time::sleep(pause).await;
        }
    }

    /// One try of [`ViaFrontend::open_ask`] with its own tries for a crowd.
    async fn open_ask_once(&self, body: &str) -> Result<Reply, BoxError> {
        let mut pause = std::time::Duration::from_millis(50);
        let mut tries = 1;
        loop {
            let attempt = async {
                let authorization = self.challenge().await?;
                self.post(
                    "/api/agent/asks",
                    Sent {
                        authorization: Some(&authorization),
                        body,
                    },
                )
                .await
            };
            let done = attempt.await;
            let again = match &done {
                Err(error) => error.downcast_ref::<std::io::Error>().is_some(),
                Ok(reply) => {
                    reply.status == 401 && reply.header("www-authenticate") == Some(STALE_CHALLENGE)
                }
            };
            if !again || tries == CONNECT_TRIES {
                return done;
            }
            tokio::time::sleep(pause).await;
            pause *= 2;
            tries += 1;
        }
    }

    /// Posts the ask of `request` to the inbox and waits for its outcome. When the inbox keeps
    /// its asks and the connection ends without an outcome (the inbox restarted, or the network
    /// failed), it attaches again to the same ask for up to [`REATTACH_PATIENCE`].
    async fn ask_inbox(&self, request: &ask_core::AskRequest) -> Result<Outcome, BoxError> {
        let mut body = serde_json::json!({
            "agent": self.asker.agent,
            "cwd": self.asker.cwd,
            "input": request.input.input(),
        });
        // The same call from the same agent finds its ask again, even from a new process.
        if let Some(call_id) = request.call_id() {
            body["callId"] = call_id.into();
        }
        // The answers given before the inbox took over go with the ask, for the page to show.
        if request.given.iter().any(Option::is_some) {
            body["given"] = serde_json::to_value(&request.given)?;
        }
        let body = body.to_string();
        let mut reply = self.open_ask(&body).await?;
        let mut withdraw = Withdraw {
            via: self.clone(),
            capability: None,
        };
        let mut unconfirmed = None;
        loop {
            if reply.status != 200 {
                let status = reply.status;
                let reply = reply.json().await?;
                return Err(self.refused(status, &reply));
            }
            if let Some(fresh) = reply.header(CAPABILITY_HEADER) {
                withdraw.capability = Some(fresh.to_string());
            }
            let kept = reply.header(KEPT_HEADER).is_some();
            let capability = withdraw.capability.clone();
            let holding = Holding {
                capability: capability.as_deref(),
                kept,
            };
            match self.outcome(&mut reply, holding).await {
                Held::Done(outcome) => {
                    withdraw.capability = None;
                    return Ok(outcome);
                }
                Held::Unconfirmed(outcome) => unconfirmed = Some(outcome),
                Held::Ended => {}
            }
            let Some(capability) = capability.filter(|_| kept) else {
                break;
            };
            match self.attach_again(&capability).await? {
                Some(again) => reply = again,
                None => break,
            }
        }
        // An outcome whose confirmation the inbox may have taken before it went away is the
        // agent's when the inbox no longer has the ask, or never comes back.
        match unconfirmed {
            Some(outcome) => {
                withdraw.capability = None;
                Ok(outcome)
            }
            None => Ok(Outcome::ConnectionLost),
        }
    }

    /// Reads the outcome off a held response and confirms it (the person is told the answer
    /// arrived once this confirmation does). An inbox that keeps its asks (`kept`) and did not
    /// answer the confirmation (it went away, or came back without this outcome in flight)
    /// still has the outcome saved for this ask: attaching again takes it once more.
    async fn outcome(&self, reply: &mut Reply, holding: Holding<'_>) -> Held {
        let Holding { capability, kept } = holding;
        // Blank lines keep the request alive; the one JSON line is the outcome.
        let line = loop {
            match reply.line().await {
                Ok(Some(line)) if line.trim().is_empty() => {}
                Ok(Some(line)) => break line,
                Ok(None) | Err(_) => return Held::Ended,
            }
        };
        let Ok(outcome) = serde_json::from_str::<AgentOutcome>(&line) else {
            return Held::Ended;
        };
        let outcome = match outcome.state {
            WireState::Answered => Outcome::Answered(outcome.answers),
            WireState::Cancelled => Outcome::Cancelled,
            WireState::ConnectionLost | WireState::WaitingForUser => {
                return Held::Done(Outcome::ConnectionLost);
            }
        };
        if let Some(capability) = capability {
            let confirmed = self
                .post(
                    "/api/agent/received",
                    Sent {
                        authorization: Some(&format!("Bearer {capability}")),
                        body: "{}",
                    },
                )
                .await;
            match confirmed.map(|reply| reply.status) {
                Ok(200) => {}
                Err(_) | Ok(409) if kept => return Held::Unconfirmed(outcome),
                _ => return Held::Done(Outcome::ConnectionLost),
            }
        }
        Held::Done(outcome)
    }

    /// Attaches again to the ask of `capability`, trying while the inbox cannot be reached for
    /// up to [`REATTACH_PATIENCE`]; `None` when the inbox no longer has the ask or never came
    /// back. An inbox that does not prove it holds the token is an error at once.
    async fn attach_again(&self, capability: &str) -> Result<Option<Reply>, BoxError> {
        let body = serde_json::json!({ "capability": capability }).to_string();
        let deadline = std::time::Instant::now() + REATTACH_PATIENCE;
        let mut pause = std::time::Duration::from_millis(50);
        loop {
            let attempt = async {
                let authorization = self.challenge().await?;
                self.post(
                    "/api/agent/wait",
                    Sent {
                        authorization: Some(&authorization),
                        body: &body,
                    },
                )
                .await
            };
            match attempt.await {
                Ok(reply) if reply.status == 404 => return Ok(None),
                // No room among the held connections now: again once the inbox says.
                Ok(reply)
                    if reply.status == 503
                        && reply.header("retry-after").is_some()
                        && std::time::Instant::now() < deadline =>
                {
                    let seconds = reply
                        .header("retry-after")
                        .and_then(|seconds| seconds.trim().parse::<u64>().ok())
                        .unwrap_or(1);
                    drop(reply);
                    let pause = std::time::Duration::from_secs(seconds.clamp(1, MOST_RETRY_AFTER));
                    tokio::time::sleep(pause).await;
                }
                Ok(reply) => return Ok(Some(reply)),
                Err(error)
                    if error
                        .downcast_ref::<WebError>()
                        .is_some_and(WebError::is_impostor) =>
                {
                    return Err(error);
                }
                Err(_) if std::time::Instant::now() < deadline => {
                    tokio::time::sleep(pause).await;
                    pause = (pause * 2).min(std::time::Duration::from_secs(1));
                }
                Err(_) => return Ok(None),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn via(url: &str) -> ViaFrontend {
        ViaFrontend::new(url, String::new(), Asker::default()).unwrap()
    }

    #[test]
    fn the_address_dialled_is_the_urls_and_a_loopback_url_takes_the_socket() {
        let socket = std::path::Path::new("/run/user/1000/ask-user/serve-8765.sock");
        let local = via("http://LocalHost:8765/");
        assert_eq!(local.dialled(), "localhost:8765");
        // `localhost` is dialled as 127.0.0.1, what the inbox takes it for.
        assert_eq!(local.target, Target::Tcp("127.0.0.1:8765".into()));
        for url in [
            "http://127.0.0.1:8765",
            "http://[::1]:9",
            "http://localhost:1",
        ] {
            let through = via(url).through_socket(socket);
            assert_eq!(
                through.dialled(),
                format!("unix:{}", socket.display()),
                "{url}"
            );
            assert_eq!(through.target, Target::Unix(socket.to_path_buf()));
        }
        // Another machine, and an `https://` URL on this one, are dialled over TCP, whatever
        // the token file names.
        for (url, addr) in [
            ("https://192.0.2.7:8765", "192.0.2.7:8765"),
            ("https://127.0.0.1:8765", "127.0.0.1:8765"),
        ] {
            let tcp = via(url).through_socket(socket);
            assert_eq!(tcp.dialled(), addr);
            assert_eq!(tcp.target, Target::Tcp(addr.into()));
            assert_eq!(tcp.tls(), Some(false), "{url} speaks TLS");
        }
        for bad in ["127.0.0.1:8765", "http://h:1/api", "ftp://h:1"] {
            assert!(
                ViaFrontend::new(bad, String::new(), Asker::default()).is_err(),
                "{bad}"
            );
        }
    }
}

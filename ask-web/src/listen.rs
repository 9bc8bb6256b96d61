//! The connections of the page and the inbox, over TCP and the inbox's Unix socket alike (each
//! request is told which it came through, and over the socket the peer's user id), with bounds: a header-read timeout (which is also
//! the idle timeout of a kept-alive connection between requests), a cap on connections that
//! have carried no authenticated request (the oldest such that is not serving a request that
//! arrived whole, head and body, is closed to make room; when every one of them is, the newcomer
//! is closed instead, so a flood of connections never cuts off a request already sent, and a
//! request sent slowly holds no place a flood cannot take), a cap on the agents' held
//! connections (half of the descriptors: the rest is for people, links and everything else),
//! and room kept for a client when the process runs out of descriptors.
//!
//! A held agent request and a page's event stream are authenticated and write a line at least
//! every [`crate::HEARTBEAT`] and [`crate::page::EVENTS_HEARTBEAT`]: no timeout ends them.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::{TcpListener, TcpStream, UnixListener, UnixStream};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;
use tower::Layer;

use crate::address::Came;
use crate::trusted::{Arrival, Trusted};
use axum::http;
use hyper::body::{Body as _, Incoming};

/// How long a client may take to send a request's headers, and how long a kept-alive
/// connection may stay idle between requests.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// The limits of the connections.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    /// See [`HEADER_TIMEOUT`].
    pub header_timeout: Duration,
    /// The most connections open at once that have carried no authenticated request; a new
    /// one closes the oldest of them that sent no request yet.
    pub max_unauthenticated: usize,
    /// The most agents' held connections (an ask waiting for its outcome) at once; past it a
    /// new ask is refused with `503` and `Retry-After`.
    pub max_held: usize,
}

impl Default for Bounds {
    fn default() -> Bounds {
        Bounds::for_descriptors(1024)
    }
}

impl Bounds {
    /// The bounds for a process that may open `descriptors` files: a quarter of them (at least
    /// 16, at most 1,024) for unauthenticated connections, half of them (at least 1) for the
    /// agents' held connections, and the rest, which no agent's ask can take, for pages, links
    /// and everything else.
    pub fn for_descriptors(descriptors: u64) -> Bounds {
        let quarter = usize::try_from(descriptors / 4).unwrap_or(usize::MAX);
        let half = usize::try_from(descriptors / 2).unwrap_or(usize::MAX);
        Bounds {
            header_timeout: HEADER_TIMEOUT,
            max_unauthenticated: quarter.clamp(16, 1024),
            max_held: half.max(1),
        }
    }
}

/// How many connections the cap or a shortage of descriptors closed, since the start.
static EVICTED: AtomicU64 = AtomicU64::new(0);

/// How many connections were closed to make room, since the process started.
pub fn evicted() -> u64 {
    EVICTED.load(Ordering::Relaxed)
}

/// One open connection.
struct Open {
    id: u64,
    trusted: Trusted,
    abort: tokio::task::AbortHandle,
}

/// The open connections, oldest first.
#[derive(Default)]
struct Registry(Mutex<VecDeque<Open>>);

impl Registry {
    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<Open>> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Closes the oldest connection that carried no authenticated request and has not sent a
    /// request yet; false when there is none.
    fn evict_oldest_untrusted(list: &mut VecDeque<Open>) -> bool {
        match list
            .iter()
            .position(|open| !open.trusted.is_marked() && !open.trusted.is_serving())
        {
            Some(at) => {
                if let Some(open) = list.remove(at) {
                    open.abort.abort();
                    EVICTED.fetch_add(1, Ordering::Relaxed);
                }
                true
            }
            None => false,
        }
    }
}

/// What a listener serves, and how.
pub(crate) struct Served {
    /// Every address.
    pub(crate) router: axum::Router,
    /// The Unix socket served beside the TCP listener, through the same connections' code and
    /// within the same bounds.
    pub(crate) socket: Option<UnixListener>,
    /// The limits of the connections.
    pub(crate) bounds: Bounds,
    /// How long the open connections may take to finish their responses once the server stops.
    pub(crate) linger: Duration,
    /// The TLS every connection speaks first (`serve --tls-cert`); `None`: plain HTTP.
    pub(crate) tls: Option<tokio_rustls::TlsAcceptor>,
}

/// A connection accepted on one of the listeners.
enum Accepted {
    Tcp(TcpStream),
    Socket(UnixStream, u32),
}

/// The next connection on the Unix socket, with its peer's user id; never, without a socket.
/// A connection whose peer cannot be told is closed.
async fn accept_socket(socket: Option<&UnixListener>) -> std::io::Result<Option<Accepted>> {
    let Some(socket) = socket else {
        return std::future::pending().await;
    };
    let (stream, _) = socket.accept().await?;
    Ok(stream
        .peer_cred()
        .ok()
        .map(|peer| Accepted::Socket(stream, peer.uid())))
}

/// Serves on `listener` (and on [`Served::socket`]) until `stop` is cancelled, then lets the
/// open connections finish their responses (at most [`Served::linger`]).
pub(crate) async fn serve(
    listener: TcpListener,
    served: Served,
    stop: CancellationToken,
) -> std::io::Result<()> {
    let Served {
        router,
        socket,
        bounds,
        linger,
        tls,
    } = served;
    let registry = Arc::new(Registry::default());
    let (closing, closed) = watch::channel(false);
    let mut tasks = tokio::task::JoinSet::new();
    let ids = AtomicU64::new(0);
    let mut stop = std::pin::pin!(stop.cancelled());
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted.map(|(stream, _)| Some(Accepted::Tcp(stream))),
            accepted = accept_socket(socket.as_ref()) => accepted,
            () = &mut stop => break,
            Some(_) = tasks.join_next(), if !tasks.is_empty() => continue,
        };
        let stream = match accepted {
            Ok(Some(stream)) => stream,
            Ok(None) => continue,
            Err(_) => {
                // Out of descriptors (or a connection that failed as it came): make room and
                // try again shortly.
                Registry::evict_oldest_untrusted(&mut registry.lock());
                tokio::time::sleep(Duration::from_millis(20)).await;
                continue;
            }
        };
        let mut list = registry.lock();
        let mut room = true;
        while list.iter().filter(|open| !open.trusted.is_marked()).count()
            >= bounds.max_unauthenticated
        {
            if !Registry::evict_oldest_untrusted(&mut list) {
                room = false;
                break;
            }
        }
        if !room {
            // Every unauthenticated connection is serving a request: the newcomer waits for
            // none of them, and is closed.
            EVICTED.fetch_add(1, Ordering::Relaxed);
            drop(list);
            drop(stream);
            continue;
        }
        let id = ids.fetch_add(1, Ordering::Relaxed);
        let trusted = Trusted::default();
        let mut served = Connection {
            router: router.clone(),
            bounds,
            trusted: trusted.clone(),
            came: Came::Tcp,
            closed: closed.clone(),
            registry: Arc::clone(&registry),
            id,
        };
        let abort = match stream {
            Accepted::Tcp(stream) => tasks.spawn(tcp_connection(stream, tls.clone(), served)),
            // Only this user's processes reach the socket: it speaks plain HTTP.
            Accepted::Socket(stream, uid) => {
                served.came = Came::Socket { uid };
                tasks.spawn(serve_connection(stream, served))
            }
        };
        list.push_back(Open { id, trusted, abort });
    }
    let _ = closing.send(true);
    let _ =
        tokio::time::timeout(linger, async { while tasks.join_next().await.is_some() {} }).await;
    Ok(())
}

/// One accepted connection: what serves it, and its place among the open ones.
struct Connection {
    router: axum::Router,
    bounds: Bounds,
    /// Marked once it carried an authenticated request.
    trusted: Trusted,
    /// Which listener it came through, handed to each request.
    came: Came,
    /// Turns true when the server closes.
    closed: watch::Receiver<bool>,
    registry: Arc<Registry>,
    id: u64,
}

/// Serves one TCP connection until it ends or the server closes: over TLS when the server
/// speaks it, after a handshake that must end within the header timeout, as a request's headers
/// must.
async fn tcp_connection(
    stream: TcpStream,
    tls: Option<tokio_rustls::TlsAcceptor>,
    connection: Connection,
) {
    match tls {
        None => serve_connection(stream, connection).await,
        Some(tls) => {
            let timeout = connection.bounds.header_timeout;
            match tokio::time::timeout(timeout, tls.accept(stream)).await {
                Ok(Ok(stream)) => serve_connection(stream, connection).await,
                _ => {
                    let id = connection.id;
                    connection.registry.lock().retain(|open| open.id != id);
                }
            }
        }
    }
}

/// Serves HTTP on `stream`, over TCP or the Unix socket, until it ends or the server closes.
async fn serve_connection<S>(stream: S, connection: Connection)
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let Connection {
        router,
        bounds,
        trusted,
        came,
        mut closed,
        registry,
        id,
    } = connection;
    // Each request of the connection carries its mark, for the checks to find; from the moment
    // a request arrived whole until its response starts, churn never closes the connection.
    let marks = trusted.clone();
    let service = axum::Extension(trusted).layer(axum::Extension(came).layer(router));
    let service = TowerToHyperService::new(service);
    let service = hyper::service::service_fn(move |request: http::Request<Incoming>| {
        let arrival = marks.arrival();
        let request = request.map(|body| Whole::new(body, arrival.clone()));
        let response = hyper::service::Service::call(&service, request);
        let answered = Answered(arrival);
        async move {
            let response = response.await;
            drop(answered);
            response
        }
    });
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(bounds.header_timeout)
        .keep_alive(true);
    let conn = builder.serve_connection(TokioIo::new(stream), service);
    let mut conn = std::pin::pin!(conn);
    let closing = async move {
        let _ = closed.wait_for(|closed| *closed).await;
    };
    tokio::select! {
        _ = conn.as_mut() => {}
        () = closing => {
            conn.as_mut().graceful_shutdown();
            let _ = conn.await;
        }
    }
    registry.lock().retain(|open| open.id != id);
}

/// The body of a request, which tells its [`Arrival`] once the request arrived whole.
struct Whole {
    body: Incoming,
    arrival: Arrival,
}

impl Whole {
    fn new(body: Incoming, arrival: Arrival) -> Whole {
        if body.is_end_stream() {
            arrival.arrived();
        }
        Whole { body, arrival }
    }
}

impl hyper::body::Body for Whole {
    type Data = axum::body::Bytes;
    type Error = hyper::Error;

    fn poll_frame(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<hyper::body::Frame<Self::Data>, Self::Error>>> {
        let this = self.get_mut();
        let polled = std::pin::Pin::new(&mut this.body).poll_frame(cx);
        if matches!(polled, std::task::Poll::Ready(None)) || this.body.is_end_stream() {
            this.arrival.arrived();
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        self.body.size_hint()
    }
}

/// Tells a request's [`Arrival`] that it was answered (or given up) when dropped.
struct Answered(Arrival);

impl Drop for Answered {
    fn drop(&mut self) {
        self.0.answered();
    }
}

/// Raises this process's soft limit on open descriptors to its hard limit, so that many
/// agents and pages fit; gives the soft limit now in force (`None`: unlimited).
pub fn raise_descriptor_limit() -> Option<u64> {
    use rustix::process::{Resource, getrlimit, setrlimit};
    let mut limit = getrlimit(Resource::Nofile);
    let below = match (limit.current, limit.maximum) {
        (Some(current), Some(maximum)) => current < maximum,
        (Some(_), None) => true,
        (None, _) => false,
    };
    if below {
        limit.current = limit.maximum;
        let _ = setrlimit(Resource::Nofile, limit);
    }
    getrlimit(Resource::Nofile).current
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An open connection that waits forever, with its marks.
    fn open(tasks: &mut tokio::task::JoinSet<()>, id: u64, trusted: &Trusted) -> Open {
        let abort = tasks.spawn(std::future::pending());
        Open {
            id,
            trusted: trusted.clone(),
            abort,
        }
    }

    #[tokio::test]
    async fn room_is_made_from_the_oldest_connection_not_serving_a_whole_request() {
        let mut tasks = tokio::task::JoinSet::new();
        let (served, idle, arriving) = (Trusted::default(), Trusted::default(), Trusted::default());
        // The oldest sent its whole request, which is being served; the next sent nothing;
        // the newest is still sending its request.
        served.arrival().arrived();
        let _still_arriving = arriving.arrival();
        let mut list: VecDeque<Open> = [
            open(&mut tasks, 1, &served),
            open(&mut tasks, 2, &idle),
            open(&mut tasks, 3, &arriving),
        ]
        .into();
        assert!(Registry::evict_oldest_untrusted(&mut list));
        assert!(Registry::evict_oldest_untrusted(&mut list));
        // Only the connection being served is left: no room is made from it.
        assert!(!Registry::evict_oldest_untrusted(&mut list));
        assert_eq!(list.iter().map(|open| open.id).collect::<Vec<_>>(), [1]);
        // Once answered, it may make room like any other.
        let answered = served.arrival();
        answered.arrived();
        answered.answered();
        assert!(
            served.is_serving(),
            "the first request is still being served"
        );
    }

    #[test]
    fn a_request_counts_as_served_from_its_arrival_until_its_answer() {
        let trusted = Trusted::default();
        let arrival = trusted.arrival();
        assert!(!trusted.is_serving());
        arrival.arrived();
        arrival.arrived();
        assert!(trusted.is_serving());
        arrival.answered();
        assert!(!trusted.is_serving());
        // A request given up before it arrived whole never counts.
        let late = trusted.arrival();
        late.answered();
        late.arrived();
        assert!(!trusted.is_serving());
    }
}

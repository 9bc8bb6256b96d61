//! The connections of the page and the inbox, with bounds: a header-read timeout (which is also
//! the idle timeout of a kept-alive connection between requests), a cap on connections that
//! have carried no authenticated request (the oldest such that has not sent a request yet is
//! closed to make room; when every one of them has, the newcomer is closed instead, so a flood
//! of connections never cuts off a request already sent), a cap on the agents' held
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
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;
use tower::Layer;

use crate::trusted::Trusted;

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
    /// The limits of the connections.
    pub(crate) bounds: Bounds,
    /// How long the open connections may take to finish their responses once the server stops.
    pub(crate) linger: Duration,
}

/// Serves on `listener` until `stop` is cancelled, then lets the open connections finish their
/// responses (at most [`Served::linger`]).
pub(crate) async fn serve(
    listener: TcpListener,
    served: Served,
    stop: CancellationToken,
) -> std::io::Result<()> {
    let Served {
        router,
        bounds,
        linger,
    } = served;
    let registry = Arc::new(Registry::default());
    let (closing, closed) = watch::channel(false);
    let mut tasks = tokio::task::JoinSet::new();
    let ids = AtomicU64::new(0);
    let mut stop = std::pin::pin!(stop.cancelled());
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(_) => {
                    // Out of descriptors (or a connection that failed as it came): make room
                    // and try again shortly.
                    Registry::evict_oldest_untrusted(&mut registry.lock());
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    continue;
                }
            },
            () = &mut stop => break,
            Some(_) = tasks.join_next(), if !tasks.is_empty() => continue,
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
        let abort = tasks.spawn(connection(
            stream,
            Connection {
                router: router.clone(),
                bounds,
                trusted: trusted.clone(),
                closed: closed.clone(),
                registry: Arc::clone(&registry),
                id,
            },
        ));
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
    /// Turns true when the server closes.
    closed: watch::Receiver<bool>,
    registry: Arc<Registry>,
    id: u64,
}

/// Serves one connection until it ends or the server closes.
async fn connection(stream: tokio::net::TcpStream, connection: Connection) {
    let Connection {
        router,
        bounds,
        trusted,
        mut closed,
        registry,
        id,
    } = connection;
    // Each request of the connection carries its mark, for the checks to find; while one is
    // served, the connection is one that churn never closes.
    let asked = trusted.clone();
    let service = TowerToHyperService::new(axum::Extension(trusted).layer(router));
    let service = hyper::service::service_fn(move |request| {
        let serving = asked.serving();
        let response = hyper::service::Service::call(&service, request);
        async move {
            let response = response.await;
            drop(serving);
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

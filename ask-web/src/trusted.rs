//! The mark of a connection that carried an authenticated request (a person's credential, an
//! agent's proof, an ask's capability): `listen` puts one in each request's extensions, and the
//! checks in front of the routes mark it.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use axum::http::Extensions;

/// Marks a connection that carried an authenticated request; found in each request's
/// extensions.
#[derive(Debug, Clone, Default)]
pub(crate) struct Trusted(Arc<Marks>);

/// What a connection carried so far.
#[derive(Debug, Default)]
struct Marks {
    /// An authenticated request.
    trusted: AtomicBool,
    /// The requests being served now (their head arrived, their response has not started).
    serving: AtomicUsize,
}

impl Trusted {
    fn mark(&self) {
        self.0.trusted.store(true, Ordering::Relaxed);
    }

    /// True once the connection carried an authenticated request.
    pub(crate) fn is_marked(&self) -> bool {
        self.0.trusted.load(Ordering::Relaxed)
    }

    /// Marks the connection as serving a request until the mark given is dropped.
    pub(crate) fn serving(&self) -> Serving {
        self.0.serving.fetch_add(1, Ordering::Relaxed);
        Serving(Arc::clone(&self.0))
    }

    /// True while a request of the connection is being served.
    pub(crate) fn is_serving(&self) -> bool {
        self.0.serving.load(Ordering::Relaxed) > 0
    }
}

/// A request being served on a connection ([`Trusted::serving`]).
pub(crate) struct Serving(Arc<Marks>);

impl Drop for Serving {
    fn drop(&mut self) {
        self.0.serving.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Marks the connection of a request as one that carried an authenticated request, which the
/// cap on unauthenticated connections never closes.
pub(crate) fn trust(extensions: &Extensions) {
    if let Some(trusted) = extensions.get::<Trusted>() {
        trusted.mark();
    }
}

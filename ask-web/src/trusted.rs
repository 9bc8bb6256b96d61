//! The mark of a connection that carried an authenticated request (a person's credential, an
//! agent's proof, an ask's capability): `listen` puts one in each request's extensions, and the
//! checks in front of the routes mark it.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

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
    /// The requests being served now: each arrived whole (its head and its body), and its
    /// response has not started.
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

    /// One request of the connection, which counts as served once it arrived whole
    /// ([`Arrival::arrived`]) until its response starts ([`Arrival::answered`]).
    pub(crate) fn arrival(&self) -> Arrival {
        Arrival(Arc::new(ArrivalOf {
            marks: Arc::clone(&self.0),
            state: Mutex::new(ArrivalState::default()),
        }))
    }

    /// True while a request of the connection that arrived whole is being served.
    pub(crate) fn is_serving(&self) -> bool {
        self.0.serving.load(Ordering::Relaxed) > 0
    }
}

/// One request on a connection ([`Trusted::arrival`]).
#[derive(Clone)]
pub(crate) struct Arrival(Arc<ArrivalOf>);

struct ArrivalOf {
    marks: Arc<Marks>,
    state: Mutex<ArrivalState>,
}

#[derive(Default)]
struct ArrivalState {
    /// Counted in [`Marks::serving`].
    counted: bool,
    /// Its response started (or it was given up).
    answered: bool,
}

impl Arrival {
    fn state(&self) -> std::sync::MutexGuard<'_, ArrivalState> {
        self.0
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The request arrived whole: until it is answered, no flood closes its connection.
    pub(crate) fn arrived(&self) {
        let mut state = self.state();
        if !state.counted && !state.answered {
            state.counted = true;
            self.0.marks.serving.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// The request's response started, or the request was given up.
    pub(crate) fn answered(&self) {
        let mut state = self.state();
        if !state.answered {
            state.answered = true;
            if state.counted {
                self.0.marks.serving.fetch_sub(1, Ordering::Relaxed);
            }
        }
    }
}

/// Marks the connection of a request as one that carried an authenticated request, which the
/// cap on unauthenticated connections never closes.
pub(crate) fn trust(extensions: &Extensions) {
    if let Some(trusted) = extensions.get::<Trusted>() {
        trusted.mark();
    }
}

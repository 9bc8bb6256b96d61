//! The mark of a connection that carried an authenticated request (a person's credential, an
//! agent's proof, an ask's capability): `listen` puts one in each request's extensions, and the
//! checks in front of the routes mark it.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use axum::http::Extensions;

/// Marks a connection that carried an authenticated request; found in each request's
/// extensions.
#[derive(Debug, Clone, Default)]
pub(crate) struct Trusted(Arc<AtomicBool>);

impl Trusted {
    fn mark(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// True once the connection carried an authenticated request.
    pub(crate) fn is_marked(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// Marks the connection of a request as one that carried an authenticated request, which the
/// cap on unauthenticated connections never closes.
pub(crate) fn trust(extensions: &Extensions) {
    if let Some(trusted) = extensions.get::<Trusted>() {
        trusted.mark();
    }
}

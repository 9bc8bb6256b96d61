//! The `tools/call` requests whose arguments repeat a key: noted by the watched input in the raw
//! message, before the protocol library keeps only the last value, and taken out by the handler
//! when it reads the call.

use std::collections::HashMap;
use std::sync::{Arc, Mutex as StdMutex, PoisonError};

use rmcp::model::RequestId;
use serde_json::Value;

/// A key that a call's arguments repeat: the JSON pointer of its object below the arguments, and
/// the key.
pub(crate) type RepeatedKey = (String, String);

/// The repeated key of each such `tools/call` request, by request id (as JSON text).
#[derive(Debug, Clone, Default)]
pub(crate) struct RepeatedKeys(Arc<StdMutex<HashMap<String, RepeatedKey>>>);

impl RepeatedKeys {
    /// Notes that the arguments of the request `id` (its id as read from the raw message) repeat
    /// `key`.
    pub(crate) fn note(&self, id: &Value, key: RepeatedKey) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(id.to_string(), key);
    }

    /// The key that the arguments of the request `id` repeat, if any (taken out of the table:
    /// each request is looked up once).
    pub(crate) fn take(&self, id: &RequestId) -> Option<RepeatedKey> {
        let id = serde_json::to_string(id).ok()?;
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&id)
    }
}

//! The log level a client asked for, in both eras of the protocol. On the initialize handshake
//! the client sets it for the whole session with `logging/setLevel`; until it does, every log
//! message is sent. On 2026-07-28 and later there is no `logging/setLevel`: each request carries
//! its own level as the `_meta` key `io.modelcontextprotocol/logLevel`, and a request without
//! one gets no log message at all.

// Logging is deprecated in the newest protocol, and still what clients of the earlier ones show.
#![allow(deprecated)]

use std::sync::{Arc, Mutex as StdMutex, PoisonError};

use rmcp::model::{LoggingLevel, ProtocolVersion};
use rmcp::service::{RequestContext, RoleServer};

/// The level set by `logging/setLevel` for the session, shared by the server's requests.
#[derive(Debug, Clone, Default)]
pub(crate) struct SessionLevel(Arc<StdMutex<Option<LoggingLevel>>>);

impl SessionLevel {
    pub(crate) fn set(&self, level: LoggingLevel) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = Some(level);
    }

    fn get(&self) -> Option<LoggingLevel> {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Which log messages the client of one request takes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Logs {
    /// None: a request of 2026-07-28 or later that named no level.
    Off,
    /// Those at this level or above.
    From(LoggingLevel),
}

impl Logs {
    /// The log messages the client of `context` takes: on 2026-07-28 and later, by the
    /// request's own `_meta`; on the handshake, by the session's `logging/setLevel`, every
    /// message until one came.
    pub(crate) fn of(context: &RequestContext<RoleServer>, session: &SessionLevel) -> Logs {
        if per_request(context) {
            return context.meta.log_level().map_or(Logs::Off, Logs::From);
        }
        Logs::From(session.get().unwrap_or(LoggingLevel::Debug))
    }

    /// True when a message at `level` goes to the client.
    pub(crate) fn takes(self, level: LoggingLevel) -> bool {
        match self {
            Logs::Off => false,
            Logs::From(least) => rank(level) >= rank(least),
        }
    }
}

/// True when `context` is a request of 2026-07-28 or later, which has no `logging/setLevel`
/// and names its log level itself.
pub(crate) fn per_request(context: &RequestContext<RoleServer>) -> bool {
    context
        .protocol_version()
        .is_some_and(|version| version >= ProtocolVersion::V_2026_07_28)
}

/// The severity of `level`, from debug (0) to emergency (7), as syslog orders them.
fn rank(level: LoggingLevel) -> u8 {
    match level {
        LoggingLevel::Debug => 0,
        LoggingLevel::Info => 1,
        LoggingLevel::Notice => 2,
        LoggingLevel::Warning => 3,
        LoggingLevel::Error => 4,
        LoggingLevel::Critical => 5,
        LoggingLevel::Alert => 6,
        LoggingLevel::Emergency => 7,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [LoggingLevel; 8] = [
        LoggingLevel::Debug,
        LoggingLevel::Info,
        LoggingLevel::Notice,
        LoggingLevel::Warning,
        LoggingLevel::Error,
        LoggingLevel::Critical,
        LoggingLevel::Alert,
        LoggingLevel::Emergency,
    ];

    #[test]
    fn a_level_takes_itself_and_what_is_more_severe_and_off_takes_nothing() {
        for (i, least) in ALL.iter().enumerate() {
            for (j, level) in ALL.iter().enumerate() {
                assert_eq!(
                    Logs::From(*least).takes(*level),
                    j >= i,
                    "{least:?} {level:?}"
                );
            }
            assert!(!Logs::Off.takes(*least));
        }
    }
}

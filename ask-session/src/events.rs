//! The events file: the state transitions of an ask as JSON lines, for a harness or a notifier to
//! watch that the agent is waiting, in every mode.

use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use ask_core::{AskState, StateObserver, now_ms};
use serde_json::json;

use crate::Warn;

/// Appends one line per transition to a file. The lines name states and questions, never
/// answers, so nothing secret reaches the file.
pub(crate) struct EventLog {
    file: Mutex<File>,
    call_id: Option<String>,
    failed: AtomicBool,
    warn: Warn,
}

impl std::fmt::Debug for EventLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventLog")
            .field("call_id", &self.call_id)
            .finish_non_exhaustive()
    }
}

impl EventLog {
    /// Opens (creating it 0600, and its folder 0700, if needed) the events file at `path` for
    /// appending, never through a symbolic link, and refusing another user's file; a FIFO,
    /// character device or descriptor the person names is written as it is
    /// ([`ask_fs::open_append`]). The first write that fails is told to `warn`.
    pub(crate) fn open(
        path: &Path,
        call_id: Option<String>,
        warn: Warn,
    ) -> std::io::Result<EventLog> {
        let file = ask_fs::open_append(path, ask_fs::Append { read: false })?;
        Ok(EventLog {
            file: Mutex::new(file),
            call_id,
            failed: AtomicBool::new(false),
            warn,
        })
    }
}

/// One transition of an ask, as the events file says it.
struct Event<'a> {
    /// The call's id, when it has one.
    call_id: Option<&'a str>,
    /// The state left.
    from: &'a AskState,
    /// The state entered.
    to: &'a AskState,
    /// When, in milliseconds since the Unix epoch.
    at: u64,
}

/// The event line for entering `event.to`.
fn event_line(event: &Event<'_>) -> String {
    let Event {
        call_id,
        from,
        to,
        at,
    } = *event;
    let mut event = json!({
        "type": "ask_user_state",
        "state": to.name(),
        "previous": from.name(),
        "at": at,
    });
    if let Some(id) = call_id {
        event["callId"] = id.into();
    }
    if let AskState::WaitingForUser { questions } = to {
        event["questions"] = serde_json::to_value(questions).unwrap_or_default();
    }
    let mut line = event.to_string();
    line.push('\n');
    line
}

impl StateObserver for EventLog {
    fn on_transition(&self, from: &AskState, to: &AskState) {
        let line = event_line(&Event {
            call_id: self.call_id.as_deref(),
            from,
            to,
            at: now_ms(),
        });
        let mut file = self
            .file
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        // One write per line, so that readers never see half an event.
        if let Err(error) = file.write_all(line.as_bytes()).and_then(|()| file.flush())
            && !self.failed.swap(true, Ordering::Relaxed)
        {
            (self.warn)(&format!("cannot write an event: {error}"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ask_core::Question;

    #[test]
    fn waiting_carries_the_questions() {
        let line = event_line(&Event {
            call_id: Some("toolu_1"),
            from: &AskState::Idle,
            to: &AskState::WaitingForUser {
                questions: vec![Question::text("Name?")],
            },
            at: 5,
        });
        let value: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(
            value,
            json!({"type": "ask_user_state", "state": "waiting_for_user", "previous": "idle", "at": 5,
                   "callId": "toolu_1", "questions": [{"question": "Name?", "multiSelect": false}]})
        );
        assert!(line.ends_with('\n'));
    }
}

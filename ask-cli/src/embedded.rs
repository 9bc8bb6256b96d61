//! `ask-user --mode embedded INPUT`: the terminal UI drawn inside a host's own terminal UI. The
//! host sends its terminal's bytes and its room as JSON lines on stdin; every change comes back
//! as a `frame` line on stdout, and the last line is `ask_user_result` (`ask-rpc/EMBEDDED.md`).

use std::io::{BufRead, Read};

use ask_core::{AskRequest, BoxError, Frontend, Mode, Outcome};
use ask_tui::{Embedded, Step, Theme, TuiError};
use serde::{Deserialize, Serialize};

use crate::output::emit;

/// The longest line a host may send: 1 MiB, far above any paste a person makes.
const MAX_LINE: u64 = 1024 * 1024;

/// A line from the host.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase", deny_unknown_fields)]
enum HostMessage {
    /// The room the host gives the questions.
    #[serde(rename_all = "camelCase")]
    Size { width: u16, max_height: u16 },
    /// Bytes the host's terminal sent, as text.
    Input { data: String },
    /// The host's colours: SGR parameters by role.
    Theme {
        roles: std::collections::BTreeMap<String, String>,
    },
}

/// A line to the host.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum EmbeddedMessage {
    /// The screen: lines with SGR styling, at most the host's `maxHeight`.
    Frame { lines: Vec<String> },
    /// A line the host got wrong; the ask carries on.
    Error { message: String },
}

/// The frontend of `--mode embedded`: the person answers in the host's UI.
#[derive(Debug, Default)]
pub struct EmbeddedFrontend;

#[async_trait::async_trait]
impl Frontend for EmbeddedFrontend {
    fn mode(&self) -> Mode {
        Mode::Embedded
    }

    async fn present(&self, request: &AskRequest) -> Result<Outcome, BoxError> {
        // The host drives every step; the ask's runtime has nothing else to do meanwhile.
        run(&mut Embedded::new(request.input.input()).with_given(&request.given))
    }
}

fn frame(embedded: &Embedded) -> Result<(), BoxError> {
    emit(&EmbeddedMessage::Frame {
        lines: embedded.frame(),
    })?;
    Ok(())
}

/// Runs the ask over stdin and stdout until it ends.
fn run(embedded: &mut Embedded) -> Result<Outcome, BoxError> {
    let mut stdin = std::io::stdin().lock();
    frame(embedded)?;
    loop {
        let mut line = Vec::new();
        let read = (&mut stdin)
            .take(MAX_LINE + 1)
            .read_until(b'\n', &mut line)?;
        if read == 0 {
            // The host went away before an answer.
            return Ok(Outcome::ConnectionLost);
        }
        if line.len() as u64 > MAX_LINE {
            // Skip the rest of the line without holding it, then say what was wrong.
            if !line.ends_with(b"\n") {
                stdin.skip_until(b'\n')?;
            }
            emit(&EmbeddedMessage::Error {
                message: format!("the line is longer than {MAX_LINE} bytes and was skipped"),
            })?;
            continue;
        }
        let message = match serde_json::from_slice::<HostMessage>(&line) {
            Ok(message) => message,
            Err(error) => {
                let message = ask_core::sanitize_for_display(&error.to_string()).into_owned();
                emit(&EmbeddedMessage::Error {
                    message: format!("the line is not a host message: {message}"),
                })?;
                continue;
            }
        };
        match message {
            HostMessage::Size { width, max_height } => embedded.resize(width, max_height),
            HostMessage::Theme { roles } => {
                match Theme::new(roles.iter().map(|(r, p)| (r.as_str(), p.as_str()))) {
                    Ok(theme) => embedded.set_theme(theme),
                    Err(message) => {
                        emit(&EmbeddedMessage::Error { message })?;
                        continue;
                    }
                }
            }
            HostMessage::Input { data } => match embedded.input(data.as_bytes()) {
                Step::Continue => {}
                Step::Finish(outcome) => return Ok(outcome),
                Step::Abort => return Err(Box::new(TuiError::Aborted)),
            },
        }
        frame(embedded)?;
    }
}

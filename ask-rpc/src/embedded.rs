//! The embedded host protocol: the questions drawn inside a host's own terminal UI. The host
//! sends its terminal's bytes and its room as JSON lines; every change comes back as a `frame`
//! line of SGR-styled text (`ask-rpc/EMBEDDED.md`).
//!
//! The driver talks to an [`EmbeddedScreen`]; which screen draws the questions is the caller's
//! choice (the terminal UI's crate has one), so this crate draws nothing itself.

use std::collections::BTreeMap;

use ask_core::{
    AskRequest, EmbeddedScreen, Frontend, Outcome, PresentError, Presenter, ScreenStep,
    sanitize_for_display,
};
use serde::{Deserialize, Serialize};
use tokio::io::{AsyncBufRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::Mutex;

use crate::framing::LineReader;

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
    Theme { roles: BTreeMap<String, String> },
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

/// Makes the screen that shows one request.
pub type ScreenFactory = Box<dyn Fn(&AskRequest) -> Box<dyn EmbeddedScreen> + Send + Sync>;

type Input = Box<dyn AsyncBufRead + Send + Unpin>;
type Output = Box<dyn AsyncWrite + Send + Unpin>;

/// The frontend of the embedded presenter: the person answers in the host's UI, over the
/// host's lines in and frames out.
pub struct EmbeddedFrontend {
    screen: ScreenFactory,
    io: Mutex<(Input, Output)>,
}

impl std::fmt::Debug for EmbeddedFrontend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmbeddedFrontend").finish_non_exhaustive()
    }
}

impl EmbeddedFrontend {
    /// A frontend whose screens `screen` makes, reading the host's lines from `input` and
    /// writing frames to `output`.
    pub fn new(
        screen: ScreenFactory,
        input: impl AsyncBufRead + Send + Unpin + 'static,
        output: impl AsyncWrite + Send + Unpin + 'static,
    ) -> EmbeddedFrontend {
        EmbeddedFrontend {
            screen,
            io: Mutex::new((Box::new(input), Box::new(output))),
        }
    }
}

#[async_trait::async_trait]
impl Frontend for EmbeddedFrontend {
    fn presenter(&self) -> Presenter {
        Presenter::Embedded
    }

    async fn present(&self, request: &AskRequest) -> Result<Outcome, PresentError> {
        let mut screen = (self.screen)(request);
        let mut io = self.io.lock().await;
        let (input, output) = &mut *io;
        drive(screen.as_mut(), input, output).await
    }
}

/// Runs one ask on `screen` until it ends: a frame first, then one frame after every line the
/// host sends that changed something. The end of the host's input is a lost connection.
async fn drive(
    screen: &mut dyn EmbeddedScreen,
    input: impl AsyncBufRead + Unpin,
    mut output: impl AsyncWrite + Unpin,
) -> Result<Outcome, PresentError> {
    let mut lines = LineReader::new(input);
    send(&mut output, &frame(screen)).await?;
    loop {
        let line = match lines.next_line().await? {
            // The host went away before an answer.
            None => return Ok(Outcome::ConnectionLost),
            Some(Ok(line)) => line,
            Some(Err(error)) => {
                send(&mut output, &error_line(error.to_string())).await?;
                continue;
            }
        };
        let message = match serde_json::from_str::<HostMessage>(&line) {
            Ok(message) => message,
            Err(error) => {
                let message = sanitize_for_display(&error.to_string()).into_owned();
                let line = error_line(format!("the line is not a host message: {message}"));
                send(&mut output, &line).await?;
                continue;
            }
        };
        match message {
            HostMessage::Size { width, max_height } => screen.resize(width, max_height),
            HostMessage::Theme { roles } => {
                let roles: Vec<(&str, &str)> = roles
                    .iter()
                    .map(|(r, p)| (r.as_str(), p.as_str()))
                    .collect();
                if let Err(error) = screen.set_theme(&roles) {
                    send(&mut output, &error_line(error.to_string())).await?;
                    continue;
                }
            }
            HostMessage::Input { data } => match screen.input(data.as_bytes()) {
                ScreenStep::Continue => {}
                ScreenStep::Ended(outcome) => return Ok(outcome),
                ScreenStep::Abort => return Err(PresentError::Interrupted { signal: None }),
            },
        }
        send(&mut output, &frame(screen)).await?;
    }
}

fn frame(screen: &dyn EmbeddedScreen) -> String {
    line(&EmbeddedMessage::Frame {
        lines: screen.frame(),
    })
}

fn error_line(message: String) -> String {
    line(&EmbeddedMessage::Error { message })
}

fn line(message: &EmbeddedMessage) -> String {
    let mut line = serde_json::to_string(message).unwrap_or_default();
    line.push('\n');
    line
}

async fn send(output: &mut (impl AsyncWrite + Unpin), line: &str) -> std::io::Result<()> {
    output.write_all(line.as_bytes()).await?;
    output.flush().await
}

//! `ask-user mcp`: the `ask_user` tool served to a Model Context Protocol client over stdio.
//!
//! The protocol logic is `ask_mcp`; this module is glue: it turns the flags into the list of
//! presenters, hands the library the terminal UI and print mode as fallback frontends, and maps
//! how the server ended to an exit code. stdin and stdout carry only MCP messages; everything for
//! people goes to stderr.

use std::sync::Arc;
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::Duration;

use ask_core::{AskRequest, Capabilities, Frontend, Outcome, PresentError, Presenter};
use ask_mcp::{Ended, McpServer};
use ask_print::PrintFrontend;
use ask_tui::TuiFrontend;
use ask_web::WebFrontend;
use async_trait::async_trait;
use tokio_util::sync::CancellationToken;

use crate::ask::terminal_available;
use crate::cli::{McpArgs, sub_agent_by_env};
use crate::exit::Exit;
use crate::output::say;

/// Runs `ask-user mcp` until the client closes the connection.
pub fn run(args: &McpArgs) -> Exit {
    let signal = Arc::new(AtomicI32::new(0));
    let server = match server(args, &signal) {
        Ok(server) => server,
        Err(error) => {
            say(&error.to_string());
            return match error {
                ask_mcp::McpError::Unsupported(_) => Exit::Invalid,
                _ => Exit::Failure,
            };
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            say(&format!("cannot start the async runtime: {error}"));
            return Exit::Failure;
        }
    };
    let ended = runtime.block_on(server.serve(tokio::io::stdin(), tokio::io::stdout()));
    // Anything still running after the session ended (a client request being answered) is
    // given half a second; a terminal UI has already been withdrawn and the terminal restored.
    runtime.shutdown_timeout(Duration::from_millis(500));
    match ended {
        Ok(Ended::ClientClosed) => Exit::Ok,
        Ok(Ended::Stopped) => Exit::for_signal(signal.load(Ordering::SeqCst)),
        Err(error @ ask_mcp::McpError::MessageTooLarge(_)) => {
            say(&format!(
                "{error} (raise the cap with --max-input-bytes BYTES)"
            ));
            Exit::Invalid
        }
        Err(error) => {
            say(&error.to_string());
            Exit::Failure
        }
    }
}

/// The server with the presenters of `--present` (or `ASK_USER_PRESENT`).
fn server(args: &McpArgs, signal: &Arc<AtomicI32>) -> Result<McpServer, ask_mcp::McpError> {
    let presenters = &args.present.0;
    let mut server = McpServer::new(&args.limits.limits())?
        .presenters(presenters)?
        .sub_agent(args.sub_agent || sub_agent_by_env())
        .max_message_bytes(args.limits.max_input_bytes())
        .log_to(say);
    let stop = server.stopper();
    for presenter in presenters {
        server = match presenter {
            Presenter::Tui => {
                let tui = Interruptible {
                    inner: TuiFrontend::new()
                        .with_notify(!args.no_notify)
                        .with_lang(crate::ask::ui_lang(args.lang)),
                    stop: stop.clone(),
                    signal: Arc::clone(signal),
                };
                server.fallback_when(Presenter::Tui, Box::new(tui), terminal_available)
            }
            Presenter::File => server.fallback(
                Presenter::File,
                Box::new(PrintFrontend::new(&args.pending_file)),
            ),
            _ => server,
        };
    }
    // The page of URL-mode elicitation, for `url`, and for `elicitation` with a client that
    // can only open a page. It listens on 127.0.0.1 only; its link goes to the client, never to
    // stdout or stderr.
    if presenters
        .iter()
        .any(|p| matches!(p, Presenter::Url | Presenter::Elicitation))
    {
        match WebFrontend::bind(std::net::SocketAddr::from(([127, 0, 0, 1], 0))) {
            Ok(web) => {
                let link = web.link().to_string();
                server = server.url_page(Box::new(web), link);
            }
            Err(error) if presenters.contains(&Presenter::Url) => {
                say(&error.to_string());
                return Err(ask_mcp::McpError::Unsupported(Presenter::Url));
            }
            Err(error) => say(&format!("URL elicitation is off: {error}")),
        }
    }
    Ok(server)
}

/// The terminal UI, whose end by a signal (SIGTERM, SIGHUP, SIGINT) stops the server too, with
/// 128 + N, once the terminal is restored; while the UI is up the signals only set a flag.
struct Interruptible {
    inner: TuiFrontend,
    stop: CancellationToken,
    signal: Arc<AtomicI32>,
}

#[async_trait]
impl Frontend for Interruptible {
    fn presenter(&self) -> Presenter {
        self.inner.presenter()
    }

    fn capabilities(&self) -> Capabilities {
        self.inner.capabilities()
    }

    async fn present(&self, request: &AskRequest) -> Result<Outcome, PresentError> {
        let error = match self.inner.present(request).await {
            Ok(outcome) => return Ok(outcome),
            Err(error) => error,
        };
        let text = match &error {
            PresentError::Interrupted {
                signal: Some(signal),
            } => {
                self.signal.store(signal.number, Ordering::SeqCst);
                self.stop.cancel();
                format!(
                    "The user was not asked: the ask-user server was stopped by {}.",
                    signal.name
                )
            }
            PresentError::Interrupted { signal: None } => ask_core::interrupted_text(None),
            _ => return Err(error),
        };
        say(&error.to_string());
        Err(PresentError::Unasked(text))
    }
}

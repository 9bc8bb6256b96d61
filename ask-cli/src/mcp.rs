//! `ask-user mcp`: the `ask_user` tool served to a Model Context Protocol client over stdio.
//!
//! The protocol logic is `ask_mcp`; this module is glue: it turns the flags into the list of
//! presenters, hands the library the terminal UI and print mode as fallback frontends, and maps
//! how the server ended to an exit code (a signal that ended the terminal UI ends the process
//! with 128 + N once the terminal is restored). stdin and stdout carry only MCP messages; everything for
//! people goes to stderr.

use std::time::Duration;

use ask_core::Presenter;
use ask_mcp::{Ended, McpServer};
use ask_print::PrintFrontend;
use ask_tui::TuiFrontend;
use ask_web::WebFrontend;

use crate::ask::terminal_available;
use crate::cli::McpArgs;
use crate::exit::Exit;
use crate::output::say;

/// Runs `ask-user mcp` until the client closes the connection.
pub fn run(args: &McpArgs) -> Exit {
    let server = match server(args) {
        Ok(server) => server,
        Err(error) => {
            say(&error.to_string());
            return match error {
                ask_mcp::McpError::Unsupported(_) | ask_mcp::McpError::ToolName(_) => Exit::Invalid,
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
        Ok(Ended::Stopped { signal }) => Exit::for_signal(signal.map_or(0, |s| s.number)),
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
fn server(args: &McpArgs) -> Result<McpServer, ask_mcp::McpError> {
    let presenters = &args.present.0;
    let mut server = McpServer::new(&args.limits.limits())?
        .presenters(presenters)?
        .tool_name(&args.tool_name)?
        .sub_agent(args.sub_agent)
        .max_message_bytes(args.limits.max_input_bytes())
        .log_to(say);
    for presenter in presenters {
        server = match presenter {
            Presenter::Tui => {
                let tui = TuiFrontend::new()
                    .with_notify(!args.tui.no_notify)
                    .with_lang(crate::ask::ui_lang(args.tui.lang));
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

//! `ask-user mcp`: the `ask_user` tool served to a Model Context Protocol client over stdio.
//!
//! The protocol logic is `ask_mcp`; this module is glue: it turns the flags into the list of
//! presenters, hands the library the terminal UI, the web page and print mode, and maps
//! how the server ended to an exit code (a signal that ended the terminal UI ends the process
//! with 128 + N once the terminal is restored). stdin and stdout carry only MCP messages; everything for
//! people goes to stderr.

use std::time::Duration;

use ask_core::Presenter;
use ask_mcp::{Ended, Fallback, McpServer, Page, PageError};
use ask_print::{PendingCall, PrintFrontend, Terminal};
use ask_tui::TuiFrontend;

use crate::browser::{Redirected, Redirects};
use crate::cli::{McpArgs, ViaArgs};
use crate::exit::Exit;
use crate::output::say;

/// Runs `ask-user mcp` until the client closes the connection.
pub(crate) fn run(args: &McpArgs) -> Exit {
    let redirects = Redirects::default();
    let exit = serve(args, &redirects);
    // A redirect file whose call did not end in order (a task still running at shutdown) goes
    // with the server.
    redirects.clear();
    exit
}

/// [`run`], with the redirect files of the browsers it opens kept in `redirects`.
fn serve(args: &McpArgs, redirects: &Redirects) -> Exit {
    let server = match server(args, redirects) {
        Ok(server) => server,
        Err(error) => {
            say(&error.to_string());
            return match error {
                ask_mcp::McpError::Unsupported(_) | ask_mcp::McpError::ToolName(_) => Exit::Invalid,
                _ => Exit::Failure,
            };
        }
    };
    let runtime = match crate::deliver::runtime(true) {
        Ok(runtime) => runtime,
        Err(exit) => return exit,
    };
    let ended =
        runtime.block_on(server.serve(tokio::io::stdin(), crate::output::protocol_stdout()));
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

/// The server with the presenters of `--present` (or `ASK_USER_PRESENT`): the terminal UI only
/// while it may draw on the terminal, the `--via` inbox or a fresh page on 127.0.0.1 for every
/// call (announced in a browser and on a canonical terminal), and the pending file.
fn server(args: &McpArgs, redirects: &Redirects) -> Result<McpServer, ask_mcp::McpError> {
    let tui = TuiFrontend::new()
        .with_notify(!args.tui.no_notify)
        .with_lang(crate::tui::chosen_lang(args.tui.lang));
    // The inbox's page is already open where the person answers: no browser for its address.
    let (inbox, via) = (args.inbox.clone(), args.inbox.via.is_some());
    let open = !args.no_open && !via;
    let (pages, opened) = (redirects.clone(), redirects.clone());
    let names = crate::print::names(&args.tool_name);
    let file = PrintFrontend::new(&args.pending_file)
        .awaiting_call(true)
        .with_names(names.clone());
    Ok(McpServer::new(&args.limits.limits())?
        .presenters(&args.present.0)?
        .tool_name(&args.tool_name)?
        .sub_agent(args.sub_agent)
        .max_message_bytes(args.limits.max_input_bytes())
        .log_to(say)
        .with_fallback(
            Fallback::new(Presenter::Tui, Box::new(tui))
                .available_while(|| crate::tui::access().can_draw()),
        )
        .fallback(Presenter::File, Box::new(file))
        .pending_instructions(move |client, file, questions| {
            // Only looked at, never used: the terminal tells how the host runs even where
            // ask-user may not draw on it.
            let access = ask_tui::Access::now();
            ask_print::pending_instructions(&PendingCall {
                client,
                terminal: Terminal::of(access.opens, access.canonical),
                file,
                questions,
                names: &names,
            })
        })
        .pages(
            Box::new(move || Box::pin(std::future::ready(page(&inbox, &pages)))),
            move || via || crate::browser::display_available() || crate::tui::access().can_print(),
        )
        .announce_to(move |link| {
            let _ = open && opened.open(link);
            let _ = crate::tui::terminal_allowed()
                && ask_tui::say_on_terminal(&ask_mcp::terminal_lines(link));
        }))
}

/// The page of one call (`web_run::page`): its link goes to the client, the browser and
/// a canonical terminal, never to stdout or stderr. A page of its own removes the redirect file
/// of the browser opened for it once its link is spent, and when the call ends.
fn page(inbox: &ViaArgs, redirects: &Redirects) -> Result<Page, PageError> {
    let (token_file, name) = (inbox.token_file.as_deref(), inbox.agent_name.clone());
    let (page, links) = crate::web_run::page(inbox.via.as_deref(), token_file, name)?;
    let Some(links) = links else {
        return Ok(page);
    };
    Ok(Page {
        frontend: Box::new(Redirected {
            inner: page.frontend,
            link: page.link.clone(),
            links,
            redirects: redirects.clone(),
        }),
        ..page
    })
}

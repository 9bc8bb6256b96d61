//! `ask-user --mode web`, `ask-user --via URL` and `ask-user serve`: glue around
//! `ask_web`, which serves the questions on a page (one ask, or an inbox for many agents).

use std::net::SocketAddr;
use std::path::Path;

use ask_core::Frontend;
use ask_web::{Asker, Inbox, ViaFrontend, WebFrontend};

use crate::cli::{AskArgs, ServeArgs};
use crate::exit::Exit;
use crate::output::{say, say_link, show_on_terminal};

/// The frontend of `--mode web` (a page of its own) or `--via URL` (an inbox's page).
pub fn frontend(args: &AskArgs) -> Result<Box<dyn Frontend>, Exit> {
    if let Some(url) = &args.via {
        return via(url, args).map(|via| Box::new(via) as Box<dyn Frontend>);
    }
    let web = WebFrontend::bind(args.listen).map_err(|error| {
        say(&error.to_string());
        Exit::Failure
    })?;
    warn_if_exposed(args.listen, web.local_addr());
    say_link(
        "answer the questions in a browser (the link works once): ",
        web.link(),
    );
    show_qr(args.listen, web.link());
    Ok(Box::new(web))
}

/// Draws `link` as a QR code on stderr when [`ask_web::shows_qr`] says so.
fn show_qr(listen: SocketAddr, link: &str) {
    if !ask_web::shows_qr(listen, std::io::IsTerminal::is_terminal(&std::io::stderr())) {
        return;
    }
    if let Some(code) = ask_web::qr_text(link) {
        show_on_terminal(&code);
    }
}

/// Warns when `listen` reaches beyond this machine.
fn warn_if_exposed(listen: SocketAddr, bound: SocketAddr) {
    if !listen.ip().is_loopback() {
        say(&format!(
            "warning: the page listens on {bound}, beyond this machine: anyone who can reach it \
             and holds the link can answer for you; prefer the default 127.0.0.1 and an SSH \
             tunnel (see SECURITY.md)"
        ));
    }
}

/// The agent token: `ASK_USER_VIA_TOKEN`, else the token file.
fn agent_token(token_file: Option<&Path>) -> Result<String, Exit> {
    if let Some(token) = std::env::var("ASK_USER_VIA_TOKEN")
        .ok()
        .filter(|t| !t.trim().is_empty())
    {
        return Ok(token.trim().to_string());
    }
    let Some(path) = token_file
        .map(Path::to_path_buf)
        .or_else(ask_web::default_token_file)
    else {
        say("--via needs the agent token: set ASK_USER_VIA_TOKEN or --token-file");
        return Err(Exit::Invalid);
    };
    std::fs::read_to_string(&path)
        .map(|text| text.trim().to_string())
        .map_err(|error| {
            say(&format!(
                "cannot read the agent token `{}` ({error}): start `ask-user serve` first, or set \
                 ASK_USER_VIA_TOKEN",
                path.display()
            ));
            Exit::Failure
        })
}

/// The frontend of `--via URL`.
fn via(url: &str, args: &AskArgs) -> Result<ViaFrontend, Exit> {
    let token = agent_token(args.token_file.as_deref())?;
    let asker = Asker {
        agent: args.agent_name.clone().or_else(ask_web::parent_name),
        cwd: std::env::current_dir()
            .ok()
            .map(|dir| dir.display().to_string()),
    };
    ViaFrontend::new(url, token, asker).map_err(|error| {
        say(&error.to_string());
        Exit::Invalid
    })
}

/// Runs `ask-user serve`.
pub fn serve(args: &ServeArgs) -> Exit {
    if args.link {
        return print_fresh_link(args);
    }
    let inbox = match Inbox::bind(args.listen, args.limits.limits()) {
        Ok(inbox) => inbox,
        Err(error) => {
            say(&error.to_string());
            return Exit::Failure;
        }
    };
    let Some(token_file) = args.token_file.clone().or_else(ask_web::default_token_file) else {
        say("no place for the agent token: give --token-file PATH");
        return Exit::Invalid;
    };
    if let Err(error) = ask_web::write_token(&token_file, inbox.agent_token()) {
        say(&format!(
            "cannot write the agent token to `{}`: {error}",
            token_file.display()
        ));
        return Exit::Failure;
    }
    warn_if_exposed(args.listen, inbox.local_addr());
    say(&format!(
        "inbox at {}: agents ask with `ask-user --via {} CALL`; their token is in {} (readable \
         by you only)",
        inbox.base_url(),
        inbox.base_url(),
        token_file.display()
    ));
    let link = inbox.link();
    say_link("answer in a browser (the link works once): ", &link);
    show_qr(args.listen, &link);
    say("press Enter here, or run `ask-user serve --link`, for a fresh link");
    let runtime = match crate::deliver::runtime() {
        Ok(runtime) => runtime,
        Err(exit) => return exit,
    };
    let inbox = std::sync::Arc::new(inbox);
    // Enter on the terminal prints a fresh link.
    let for_keys = std::sync::Arc::clone(&inbox);
    let listen = args.listen;
    std::thread::spawn(move || {
        let mut line = String::new();
        while std::io::stdin().read_line(&mut line).is_ok_and(|n| n > 0) {
            line.clear();
            match for_keys.fresh_link() {
                Ok(link) => {
                    say_link("a fresh link (the earlier one no longer works): ", &link);
                    show_qr(listen, &link);
                }
                Err(error) => say(&error.to_string()),
            }
        }
    });
    match runtime.block_on(inbox.serve()) {
        Ok(()) => Exit::Ok,
        Err(error) => {
            say(&error.to_string());
            Exit::Failure
        }
    }
}

/// `ask-user serve --link`: a fresh link from the running inbox.
fn print_fresh_link(args: &ServeArgs) -> Exit {
    let token = match agent_token(args.token_file.as_deref()) {
        Ok(token) => token,
        Err(exit) => return exit,
    };
    let via = match ViaFrontend::new(&args.via, token, Asker::default()) {
        Ok(via) => via,
        Err(error) => {
            say(&error.to_string());
            return Exit::Invalid;
        }
    };
    let runtime = match crate::deliver::runtime() {
        Ok(runtime) => runtime,
        Err(exit) => return exit,
    };
    match runtime.block_on(via.fresh_link()) {
        Ok(link) => {
            say_link("answer in a browser (the link works once): ", &link);
            Exit::Ok
        }
        Err(error) => {
            say(&error.to_string());
            Exit::Failure
        }
    }
}

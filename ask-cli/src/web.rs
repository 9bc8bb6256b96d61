//! `--mode web`, `--via URL` and `serve`: `web_run` does the work; this maps its failures.

use crate::web_run::{self as run, Failure, ServeOptions, TlsFiles};
use ask_core::Frontend;

use crate::cli::{AskArgs, ServeArgs};
use crate::exit::Exit;

fn exit(failure: Failure) -> Exit {
    match failure {
        Failure::Invalid => Exit::Invalid,
        Failure::Failed => Exit::Failure,
    }
}

/// The frontend of `--mode web` (a page of its own) or `--via URL` (an inbox's page).
pub(crate) fn frontend(args: &AskArgs) -> Result<Box<dyn Frontend>, Exit> {
    let inbox = &args.inbox;
    match &inbox.via {
        Some(url) => run::via(url, inbox.token_file.as_deref(), inbox.agent_name.clone())
            .map(|via| Box::new(via) as Box<dyn Frontend>),
        None => run::web(args.listen, args.tui.lang).map(|web| Box::new(web) as Box<dyn Frontend>),
    }
    .map_err(exit)
}

/// Runs `ask-user serve`, or with `--link` prints a fresh link from the running inbox.
pub(crate) fn serve(args: &ServeArgs) -> Exit {
    let done = if args.link {
        run::print_fresh_link(&args.via, args.token_file.as_deref())
    } else {
        run::serve(&ServeOptions {
            listen: args.listen,
            token_file: args.token_file.clone(),
            limits: args.limits.limits(),
            store: args.store.clone(),
            retention: args.retention,
            migrate: args.migrate,
            rotate_token: args.rotate_token,
            public_urls: args.public_url.clone(),
            lang: args.lang,
            tls: args
                .tls_cert
                .clone()
                .zip(args.tls_key.clone())
                .map(|(cert, key)| TlsFiles { cert, key }),
        })
    };
    done.map_or_else(exit, |()| Exit::Ok)
}

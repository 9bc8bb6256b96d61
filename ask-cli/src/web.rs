//! `ask-user --mode web`: glue around `ask_rpc::web::WebFrontend`, which serves the questions on
//! a local page; the link goes to stderr.

use std::net::SocketAddr;

use ask_rpc::web::WebFrontend;

use crate::exit::Exit;
use crate::output::{say, say_link};

/// Binds the page's address and tells the person where to answer.
pub fn frontend(listen: SocketAddr) -> Result<WebFrontend, Exit> {
    let web = WebFrontend::bind(listen).map_err(|error| {
        say(&error.to_string());
        Exit::Failure
    })?;
    if !listen.ip().is_loopback() {
        say(&format!(
            "warning: the page listens on {}, beyond this machine: anyone who can reach it and \
             holds the link can answer for you; prefer the default 127.0.0.1 and an SSH tunnel \
             (see SECURITY.md)",
            web.local_addr()
        ));
    }
    say_link(
        "answer the questions in a browser (the link works once): ",
        web.link(),
    );
    Ok(web)
}

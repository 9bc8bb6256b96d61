//! `ask-user --mode web`, `ask-user --via URL` and `ask-user serve`: glue around
//! `ask_web`, which serves the questions on a page (one ask, or an inbox for many agents).

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

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

/// Whether the link is also drawn as a QR code: only for a page reachable from other machines
/// (a phone), and only on a terminal (a log gets the link alone).
fn shows_qr(listen: SocketAddr, stderr_is_terminal: bool) -> bool {
    stderr_is_terminal && !listen.ip().is_loopback()
}

/// Draws `link` as a QR code on stderr when [`shows_qr`] says so.
fn show_qr(listen: SocketAddr, link: &str) {
    if !shows_qr(listen, std::io::IsTerminal::is_terminal(&std::io::stderr())) {
        return;
    }
    if let Some(code) = qr_text(link) {
        show_on_terminal(&code);
    }
}

/// `link` as a QR code in Unicode half blocks (two modules to a character cell), with its
/// quiet zone, each line drawn black on white whatever the terminal's colours, so a camera reads
/// it on dark and light themes alike. `None` when the link is too long for a QR code.
fn qr_text(link: &str) -> Option<String> {
    use qrcode::render::unicode::Dense1x2;
    let code = qrcode::QrCode::new(link.as_bytes()).ok()?;
    let drawn = code
        .render::<Dense1x2>()
        .dark_color(Dense1x2::Dark)
        .light_color(Dense1x2::Light)
        .quiet_zone(true)
        .build();
    let mut text = String::with_capacity(drawn.len() * 2);
    for line in drawn.lines() {
        text.push_str("\x1b[30;107m");
        text.push_str(line);
        text.push_str("\x1b[0m\n");
    }
    Some(text)
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

/// The default file of the agent token: `$XDG_RUNTIME_DIR/ask-user/serve-token`, else
/// `~/.ask-user/serve-token`.
fn default_token_file() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("XDG_RUNTIME_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir).join("ask-user/serve-token"));
    }
    std::env::var_os("HOME")
        .filter(|d| !d.is_empty())
        .map(|home| PathBuf::from(home).join(".ask-user/serve-token"))
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
        .or_else(default_token_file)
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

/// The name of the parent process, from `/proc`.
fn parent_name() -> Option<String> {
    let ppid = std::os::unix::process::parent_id();
    std::fs::read_to_string(format!("/proc/{ppid}/comm"))
        .ok()
        .map(|name| name.trim().to_string())
        .filter(|name| !name.is_empty())
}

/// The frontend of `--via URL`.
fn via(url: &str, args: &AskArgs) -> Result<ViaFrontend, Exit> {
    let token = agent_token(args.token_file.as_deref())?;
    let asker = Asker {
        agent: args.agent_name.clone().or_else(parent_name),
        cwd: std::env::current_dir()
            .ok()
            .map(|dir| dir.display().to_string()),
    };
    ViaFrontend::new(url, token, asker).map_err(|error| {
        say(&error.to_string());
        Exit::Invalid
    })
}

/// Writes `token` to `path`, readable and writable by this user only (a temporary file beside
/// it, then a rename, so a reader never sees half a token).
fn write_token(path: &Path, token: &str) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)?;
    }
    let temporary = path.with_extension(format!("tmp-{}", std::process::id()));
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&temporary)?;
    file.write_all(token.as_bytes())?;
    file.sync_all()?;
    std::fs::rename(&temporary, path)
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
    let Some(token_file) = args.token_file.clone().or_else(default_token_file) else {
        say("no place for the agent token: give --token-file PATH");
        return Exit::Invalid;
    };
    if let Err(error) = write_token(&token_file, inbox.agent_token()) {
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
    let runtime = match crate::ask::runtime() {
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
    let runtime = match crate::ask::runtime() {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_qr_code_is_drawn_only_for_an_exposed_page_on_a_terminal() {
        let exposed: [SocketAddr; 3] = [
            "0.0.0.0:8080".parse().unwrap(),
            "192.168.1.20:0".parse().unwrap(),
            "[::]:0".parse().unwrap(),
        ];
        for listen in exposed {
            assert!(shows_qr(listen, true), "{listen} on a terminal");
            assert!(!shows_qr(listen, false), "{listen} in a log");
        }
        for listen in ["127.0.0.1:0", "127.0.0.2:9000", "[::1]:0"] {
            let listen: SocketAddr = listen.parse().unwrap();
            assert!(!shows_qr(listen, true), "{listen} stays on this machine");
        }
    }

    #[test]
    fn the_qr_code_is_a_square_of_half_blocks_black_on_white() {
        let link = "http://192.168.1.20:8080/?token=Zk3vX9q2LmN8pR4tW6yB1cD5fH7jK0sA";
        let text = qr_text(link).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let mut width = None;
        for line in &lines {
            let body = line
                .strip_prefix("\x1b[30;107m")
                .and_then(|l| l.strip_suffix("\x1b[0m"))
                .unwrap_or_else(|| panic!("not black on white: {line:?}"));
            assert!(
                body.chars().all(|c| " ▀▄█".contains(c)),
                "only half blocks: {body:?}"
            );
            let n = body.chars().count();
            assert_eq!(*width.get_or_insert(n), n, "every line as wide");
        }
        let width = width.unwrap();
        // Modules: 17 + 4 per version, and a quiet zone of 4 on each side; two rows a line.
        assert_eq!((width - 8 - 17) % 4, 0, "{width} modules wide");
        assert_eq!(lines.len(), width.div_ceil(2), "square: {width} wide");
        // The quiet zone: the first line and every line's first cell are light.
        assert!(lines[0].contains(&" ".repeat(width)));
        assert!(lines.iter().all(|l| l.contains("m  ")));
        // A longer link needs a bigger code.
        let longer = qr_text(&format!("{link}{}", "x".repeat(200))).unwrap();
        assert!(longer.lines().count() > lines.len());
    }
}

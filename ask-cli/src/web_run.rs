//! What the command line needs around `ask_web`'s page and inbox: the messages on stderr, the
//! tokens from their variables and files, the frontends of `--mode web` and `--via URL`, and
//! `ask-user serve` itself. `web.rs` maps a [`Failure`] to its exit code.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::output::{say, say_link, show_on_terminal};
use ask_core::Limits;
use ask_core::lang::Lang;

use ask_web::{
    AgentWatch, AskStore, Asker, Bounds, Inbox, InboxTokens, Links, NotKept, SqliteStore,
    StoreError, StoreFault, Stored, TlsFile, TlsIdentity, TokenFile, ViaFrontend, WebError,
    WebFrontend,
};
use tokio::sync::mpsc::UnboundedReceiver;
use tokio_util::sync::CancellationToken;

/// Why a command of the page or the inbox could not run; the reason was already said on
/// stderr.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Failure {
    /// The usage or the input is wrong (exit 2).
    Invalid,
    /// Something failed (exit 1).
    Failed,
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

/// Prints a fresh link each time Enter is pressed on stdin, on a thread of its own, saying what
/// becomes of the earlier one (`earlier`).
fn fresh_link_on_enter(links: Links, listen: SocketAddr, earlier: &'static str) {
    std::thread::spawn(move || {
        let mut line = String::new();
        while std::io::stdin().read_line(&mut line).is_ok_and(|n| n > 0) {
            line.clear();
            match links.fresh() {
                Ok(link) => {
                    say_link(&format!("a fresh link ({earlier}): "), &link);
                    show_qr(listen, &link);
                }
                Err(error) => say(&error.to_string()),
            }
        }
    });
}

/// Says `error` and fails with `failure`.
fn failed(failure: Failure) -> impl FnOnce(ask_web::WebError) -> Failure {
    move |error| {
        say(&error.to_string());
        failure
    }
}

/// The frontend of `--mode web`: a page of its own, on `listen`, whose link is printed (again,
/// fresh, on Enter when stdin is a terminal); the ask ends as connection lost when the agent
/// that waits for it goes away. The page speaks `lang` when given, else each browser's language.
pub(crate) fn web(listen: SocketAddr, lang: Option<Lang>) -> Result<WebFrontend, Failure> {
    let web = WebFrontend::bind(listen)
        .map_err(failed(Failure::Failed))?
        .watching(AgentWatch::this_process())
        .speaking(lang);
    warn_if_exposed(listen, web.local_addr());
    say_link(
        "answer the questions in a browser (the link works in one browser): ",
        web.link(),
    );
    show_qr(listen, web.link());
    if std::io::IsTerminal::is_terminal(&std::io::stdin()) {
        say("press Enter here for a fresh link");
        // A link already opened still opens the page again in the browser that opened it.
        fresh_link_on_enter(
            web.links(),
            listen,
            "the earlier one no longer works, but in the browser that opened it",
        );
    }
    Ok(web)
}

/// The default file of the agent token: `$XDG_RUNTIME_DIR/ask-user/serve-token`, else
/// `~/.ask-user/serve-token`.
#[allow(clippy::disallowed_methods)] // process glue: only the binary does it
pub(crate) fn default_token_file() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("XDG_RUNTIME_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir).join("ask-user/serve-token"));
    }
    std::env::var_os("HOME")
        .filter(|d| !d.is_empty())
        .map(|home| PathBuf::from(home).join(".ask-user/serve-token"))
}

/// A token: `variable` when set, else the token file `file` (by default
/// [`default_token_file`], or the people's file beside it), with the inbox's socket and the
/// fingerprint of the certificate it pins, when the file names them.
#[allow(clippy::disallowed_methods)] // process glue: only the binary does it
fn token(variable: &str, file: Option<&Path>, people: bool) -> Result<TokenFile, Failure> {
    if let Some(token) = std::env::var(variable)
        .ok()
        .filter(|t| !t.trim().is_empty())
    {
        return Ok(TokenFile {
            token: token.trim().to_string(),
            socket: None,
            tls_sha256: None,
        });
    }
    let Some(path) = file.map(Path::to_path_buf).or_else(default_token_file) else {
        say(&format!(
            "--via needs the agent token: set {variable} or --token-file"
        ));
        return Err(Failure::Invalid);
    };
    let path = if people {
        ask_web::link_token_file(&path)
    } else {
        path
    };
    // The token is sent as this agent's credential: a file another user planted is refused.
    let bytes = ask_fs::read_acted_on(&path)
        .and_then(|read| read.ok_or_else(missing))
        .map_err(|error| {
            say(&format!(
                "cannot read the token `{}` ({error}): start `ask-user serve` first, or set \
                 {variable}",
                path.display()
            ));
            Failure::Failed
        })?;
    TokenFile::parse(&String::from_utf8_lossy(&bytes)).ok_or_else(|| {
        say(&format!(
            "the token file `{}` does not hold a token as `ask-user serve` writes them (its \
             first line 64 lowercase hex digits, then lines `KEY VALUE`)",
            path.display()
        ));
        Failure::Invalid
    })
}

/// The error of a file that is not there, as the system words it.
fn missing() -> std::io::Error {
    std::io::Error::from_raw_os_error(rustix::io::Errno::NOENT.raw_os_error())
}

/// `via`, the inbox at `url` with the token of `file`, dialled as `file` says: through the
/// socket it names when `url` is `http://` on this machine (no relay can sit in it), else
/// pinning the certificate it names. An inbox that serves TLS (its file pins a certificate) is
/// refused as `http://` over TCP: it would not understand.
fn dial(via: ViaFrontend, file: &TokenFile, url: &str) -> Result<ViaFrontend, Failure> {
    let via = match &file.socket {
        Some(socket) => via.through_socket(socket),
        None => via,
    };
    let over_socket = via.dialled().starts_with("unix:");
    match (file.tls_sha256, via.tls()) {
        (Some(sha256), Some(_)) => Ok(via.pinning(sha256)),
        (Some(_), None) if !over_socket => {
            say(&format!(
                "the inbox of this token file serves TLS (the file pins its certificate): give \
                 --via {}",
                url.replacen("http://", "https://", 1)
            ));
            Err(Failure::Invalid)
        }
        _ => Ok(via),
    }
}

/// The frontend of `--via URL`: the agent token from `ASK_USER_VIA_TOKEN` or `token_file`, and
/// who asks (`agent_name`, else the parent process's name, and the working folder).
pub(crate) fn via(
    url: &str,
    token_file: Option<&Path>,
    agent_name: Option<String>,
) -> Result<ViaFrontend, Failure> {
    // An address that is refused is refused before any token is looked for.
    ViaFrontend::new(url, String::new(), Asker::default()).map_err(failed(Failure::Invalid))?;
    let file = token("ASK_USER_VIA_TOKEN", token_file, false)?;
    let asker = Asker {
        agent: agent_name.or_else(ask_web::parent_name),
        cwd: std::env::current_dir()
            .ok()
            .map(|dir| dir.display().to_string()),
    };
    let via = ViaFrontend::new(url, file.token.clone(), asker).map_err(failed(Failure::Invalid))?;
    dial(via, &file, url)
}

/// The page of one call of `ask-user mcp`: the inbox at `via` when one is given (the person
/// answers on the inbox's page; its token from `token_file`, the agent named `agent_name`),
/// else a page of its own on 127.0.0.1 with a fresh one-time link, which the browser that spent
/// it may open again, and with fresh links for the progress notifications once it was spent;
/// with the links of a page of its own, which tell when its link was spent.
pub(crate) fn page(
    via: Option<&str>,
    token_file: Option<&Path>,
    agent_name: Option<String>,
) -> Result<(ask_mcp::Page, Option<ask_web::Links>), String> {
    match via {
        Some(url) => {
            let via = self::via(url, token_file, agent_name)
                .map_err(|_| format!("the inbox at {url} cannot take the questions"))?;
            let page = ask_mcp::Page {
                frontend: Box::new(via),
                link: url.to_string(),
                unspent: None,
            };
            Ok((page, None))
        }
        None => {
            let web = WebFrontend::bind(([127, 0, 0, 1], 0).into()).map_err(|e| e.to_string())?;
            let (links, spent) = (web.links(), web.links());
            let page = ask_mcp::Page {
                link: web.link().to_string(),
                frontend: Box::new(web),
                unspent: Some(std::sync::Arc::new(move || links.unspent().ok())),
            };
            Ok((page, Some(spent)))
        }
    }
}

/// The settings of `ask-user serve`.
#[derive(Debug, Clone)]
pub(crate) struct ServeOptions {
    /// Where the inbox listens.
    pub(crate) listen: SocketAddr,
    /// The agents' token file (the people's is beside it), or the default.
    pub(crate) token_file: Option<PathBuf>,
    /// The limits of the agents' calls.
    pub(crate) limits: Limits,
    /// The store the asks and answers are kept in (`--store`); with one, a graceful stop keeps
    /// the token files, so that agents holding the token re-attach to the restarted inbox.
    pub(crate) store: Option<PathBuf>,
    /// How long the store keeps an ask after it ended for good (`--retention`).
    pub(crate) retention: std::time::Duration,
    /// Only bring the store's schema up to date, then exit (`--migrate`).
    pub(crate) migrate: bool,
    /// Fresh tokens even when the files hold usable ones (`--rotate-token`).
    pub(crate) rotate_token: bool,
    /// The page's language when one was given (`--lang`); else each browser's.
    pub(crate) lang: Option<Lang>,
    /// The URLs of reverse proxies in front of the inbox (`--public-url`).
    pub(crate) public_urls: Vec<String>,
    /// The certificate and key files of `--tls-cert` and `--tls-key`: then every connection
    /// speaks TLS.
    pub(crate) tls: Option<TlsFiles>,
}

/// The longest path a Unix socket may have (`sun_path`, less its final NUL byte).
const SOCKET_PATH_MAX: usize = 107;

/// The inbox's Unix socket: in the token file's folder, named after the TCP port,
/// `serve-PORT.sock`.
fn socket_path(token_file: &Path, port: u16) -> PathBuf {
    token_file.with_file_name(format!("serve-{port}.sock"))
}

/// The PEM files of `serve --tls-cert PATH --tls-key PATH`.
#[derive(Debug, Clone)]
pub(crate) struct TlsFiles {
    pub(crate) cert: PathBuf,
    pub(crate) key: PathBuf,
}

/// The certificate and key of `files`, or the sentence that names the file at fault and what
/// is wrong with it (exit 2).
fn tls_identity(files: &TlsFiles) -> Result<TlsIdentity, Failure> {
    let read = |path: &Path, what: &str| {
        // A certificate or key another user could replace is refused: its holder could
        // impersonate the inbox.
        let read = ask_fs::read_acted_on(path).and_then(|read| read.ok_or_else(missing));
        read.map_err(|error| {
            say(&format!(
                "cannot read the TLS {what} `{}`: {error}",
                path.display()
            ));
            Failure::Invalid
        })
    };
    let cert = read(&files.cert, "certificate (--tls-cert)")?;
    let key = read(&files.key, "key (--tls-key)")?;
    TlsIdentity::from_pem(&cert, &key).map_err(|error| {
        let (what, path) = match error.file {
            TlsFile::Certificate => ("certificate (--tls-cert)", &files.cert),
            TlsFile::Key => ("key (--tls-key)", &files.key),
        };
        say(&format!(
            "cannot use the TLS {what} `{}`: {error}",
            path.display()
        ));
        Failure::Invalid
    })
}

/// The tokens of a start: fresh ones with `rotate`, else each one kept from its file when
/// [`ask_web::kept_token`] allows it, else fresh; and the line on stderr that says which.
fn start_tokens(
    token_file: &Path,
    link_file: &Path,
    rotate: bool,
) -> Result<(InboxTokens, String), Failure> {
    let fresh = InboxTokens::fresh().map_err(failed(Failure::Failed))?;
    if rotate {
        let said = "fresh tokens (--rotate-token): an agent still waiting with the old token must \
                    be started again, and `serve --link` reads the new people's token";
        return Ok((fresh, said.to_string()));
    }
    let agent = ask_web::kept_token(token_file);
    let people = ask_web::kept_token(link_file);
    let said = |name: &str, path: &Path, kept: &Result<String, NotKept>| match kept {
        Ok(_) => format!("the {name} token is kept from `{}`", path.display()),
        Err(why) => format!("a fresh {name} token (`{}`: {why})", path.display()),
    };
    let said = format!(
        "{}; {}",
        said("agents'", token_file, &agent),
        said("people's", link_file, &people)
    );
    let tokens = InboxTokens {
        agent: agent.unwrap_or(fresh.agent),
        people: people.unwrap_or(fresh.people),
    };
    Ok((tokens, said))
}

/// A current-thread runtime with every driver.
fn runtime() -> Result<tokio::runtime::Runtime, Failure> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| {
            say(&format!("cannot start the async runtime: {error}"));
            Failure::Failed
        })
}

/// What is cancelled at the first SIGINT or SIGTERM. The handlers are in place once this returns
/// (it must be called within a runtime), so a signal sent at any later instant stops the inbox
/// in order.
fn stop_signal() -> CancellationToken {
    use tokio::signal::unix::{SignalKind, signal};
    let signals = (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
    );
    let stop = CancellationToken::new();
    let cancel = stop.clone();
    tokio::spawn(async move {
        match signals {
            (Ok(mut interrupt), Ok(mut terminate)) => {
                tokio::select! {
                    _ = interrupt.recv() => {}
                    _ = terminate.recv() => {}
                }
            }
            // Without signal handlers the default action ends the process.
            _ => std::future::pending().await,
        }
        cancel.cancel();
    });
    stop
}

/// Opens the store at `path`, saying why it cannot be: a journal of an earlier build is the
/// wrong input (exit 2), anything else a failure.
fn open_store(path: &Path) -> Result<SqliteStore, Failure> {
    SqliteStore::open(path).map_err(|error| {
        say(&error.to_string());
        match error.fault {
            StoreFault::JournalGone => Failure::Invalid,
            _ => Failure::Failed,
        }
    })
}

/// `ask-user serve --store PATH --migrate`: brings the store's schema up to date, and exits.
fn migrate(path: &Path) -> Result<(), Failure> {
    drop(open_store(path)?);
    say(&format!(
        "the store {} is at schema version {}, the newest this build knows",
        path.display(),
        ask_web::SCHEMA_VERSION
    ));
    Ok(())
}

/// How often `serve` deletes the asks that ended longer than `retention` ago: a quarter of it,
/// between a second and an hour.
fn forget_every(retention: std::time::Duration) -> std::time::Duration {
    (retention / 4).clamp(
        std::time::Duration::from_secs(1),
        std::time::Duration::from_secs(3600),
    )
}

/// Deletes from `store`, now and every [`forget_every`], the asks that ended for good longer
/// than `retention` ago, so that the store's size stays bounded; says a failure and goes on.
async fn forget_ended(store: SqliteStore, retention: std::time::Duration) {
    let mut ticks = tokio::time::interval(forget_every(retention));
    loop {
        ticks.tick().await;
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        let before = now.saturating_sub(retention).as_millis();
        if let Err(error) = store
            .forget_ended(u64::try_from(before).unwrap_or(u64::MAX))
            .await
        {
            say(&error.to_string());
        }
    }
}

/// Runs `ask-user serve` until SIGINT or SIGTERM, then stops in order (see
/// [`Inbox::serve_until`]) and removes the token files, unless the asks are kept in a store.
pub(crate) fn serve(options: &ServeOptions) -> Result<(), Failure> {
    if let (Some(path), true) = (&options.store, options.migrate) {
        return migrate(path);
    }
    let identity = options.tls.as_ref().map(tls_identity).transpose()?;
    let runtime = runtime()?;
    let stop = {
        let _entered = runtime.enter();
        stop_signal()
    };
    let descriptors = ask_web::raise_descriptor_limit().unwrap_or(u64::MAX);
    let Some(token_file) = options.token_file.clone().or_else(default_token_file) else {
        say("no place for the agent token: give --token-file PATH");
        return Err(Failure::Invalid);
    };
    let link_file = ask_web::link_token_file(&token_file);
    let (tokens, which) = start_tokens(&token_file, &link_file, options.rotate_token)?;
    let mut kept_in = None;
    let inbox = match &options.store {
        Some(path) => {
            let store = open_store(path)?;
            kept_in = Some(store.clone());
            let kept = runtime.block_on(AskStore::load(&store)).map_err(|error| {
                say(&error.to_string());
                Failure::Failed
            })?;
            let stored = Stored {
                tokens,
                store: Arc::new(store),
                kept,
            };
            Inbox::bind_stored(options.listen, options.limits, stored)
        }
        None => Inbox::bind_with(options.listen, options.limits, tokens),
    }
    .map_err(failed(Failure::Failed))?
    .with_bounds(Bounds::for_descriptors(descriptors))
    .speaking(options.lang)
    .with_public_urls(&options.public_urls)
    .map_err(failed(Failure::Invalid))?;
    let tls_sha256 = identity.as_ref().map(TlsIdentity::fingerprint);
    let inbox = match identity {
        Some(identity) => inbox.with_tls(identity),
        None => inbox,
    };
    let token_file = absolute(&token_file);
    let socket = socket_path(&token_file, inbox.local_addr().port());
    let inbox = if socket.as_os_str().len() > SOCKET_PATH_MAX {
        say(&format!(
            "no socket for the agents of this machine: its path {} is longer than the \
             {SOCKET_PATH_MAX} bytes a socket's may be, so agents dial TCP (a shorter \
             --token-file gives one)",
            socket.display()
        ));
        inbox
    } else {
        inbox
            .with_socket(&socket)
            .map_err(failed(Failure::Failed))?
    };
    let mut store_errors = inbox.warning_of_store_errors();
    let agents = TokenFile {
        token: inbox.agent_token().to_string(),
        socket: inbox.socket_path().map(Path::to_path_buf),
        tls_sha256,
    };
    let people = TokenFile {
        token: inbox.people_token().to_string(),
        socket: None,
        tls_sha256,
    };
    for (path, file) in [(&token_file, agents), (&link_file, people)] {
        if let Err(error) = ask_web::write_token(path, &file.text()) {
            say(&format!(
                "cannot write the token to `{}`: {error}",
                path.display()
            ));
            return Err(Failure::Failed);
        }
    }
    // A restarted inbox with the same store takes its agents back: it keeps their token.
    let removed = RemoveOnDrop(match options.store {
        Some(_) => Vec::new(),
        None => vec![token_file.clone(), link_file],
    });
    warn_if_exposed(options.listen, inbox.local_addr());
    let socket = match inbox.socket_path() {
        Some(socket) => format!(
            ", which names the socket {} that `--via` dials on this machine",
            socket.display()
        ),
        None => String::new(),
    };
    say(&format!(
        "inbox at {}: agents ask with `ask-user --via {} CALL`; their token is in {} (readable \
         by you only){socket}",
        inbox.base_url(),
        inbox.base_url(),
        token_file.display(),
    ));
    say(&which);
    if let Some(sha256) = &tls_sha256 {
        say(&format!(
            "TLS: the certificate's SHA-256 fingerprint is {}; it is in the token files, and \
             `--via` takes only this certificate",
            ask_web::fingerprint_hex(sha256)
        ));
    }
    let link = inbox.link();
    say_link("answer in a browser (the link works once): ", &link);
    show_qr(options.listen, &link);
    say("press Enter here, or run `ask-user serve --link`, for a fresh link");
    if let Some(path) = &options.store {
        let waiting = inbox.waiting();
        say(&format!(
            "the asks are kept in {}; {waiting} of them wait (for the person or for their agent)",
            path.display()
        ));
    }
    let inbox = Arc::new(inbox);
    fresh_link_on_enter(
        inbox.links(),
        options.listen,
        "the earlier one no longer works",
    );
    let forgetting = kept_in.clone().map(|store| {
        let _entered = runtime.enter();
        tokio::spawn(forget_ended(store, options.retention))
    });
    let served = runtime.block_on(Box::pin(serve_saying(&inbox, stop, &mut store_errors)));
    if let Some(forgetting) = forgetting {
        forgetting.abort();
    }
    // The tasks still running end here; a change of the store they started is finished.
    drop(inbox);
    drop(runtime);
    while let Ok(error) = store_errors.try_recv() {
        say(&error.to_string());
    }
    if let Some(store) = kept_in {
        store.finish_writes();
    }
    drop(removed);
    served.map_err(failed(Failure::Failed))?;
    say("the inbox stopped");
    Ok(())
}

/// Serves `inbox` until `stop` is cancelled, and says each change its store could not record as
/// it comes.
async fn serve_saying(
    inbox: &Inbox,
    stop: CancellationToken,
    store_errors: &mut UnboundedReceiver<StoreError>,
) -> Result<(), WebError> {
    let mut serving = std::pin::pin!(inbox.serve_until(stop));
    loop {
        tokio::select! {
            served = &mut serving => return served,
            Some(error) = store_errors.recv() => say(&error.to_string()),
        }
    }
}

/// `path` from the root: the token file names the socket by its absolute path.
fn absolute(path: &Path) -> PathBuf {
    std::env::current_dir()
        .map(|dir| dir.join(path))
        .unwrap_or_else(|_| path.to_path_buf())
}

/// Removes its files when dropped.
struct RemoveOnDrop(Vec<PathBuf>);

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        for path in &self.0 {
            let _ = ask_fs::remove(path);
        }
    }
}

/// `ask-user serve --link`: a fresh link from the running inbox at `url`, made with the
/// people's token (`ASK_USER_LINK_TOKEN`, else the file beside the agents' token file).
pub(crate) fn print_fresh_link(url: &str, token_file: Option<&Path>) -> Result<(), Failure> {
    ViaFrontend::new(url, String::new(), Asker::default()).map_err(failed(Failure::Invalid))?;
    let file = token("ASK_USER_LINK_TOKEN", token_file, true)?;
    let via = ViaFrontend::for_people(url, file.token.clone()).map_err(failed(Failure::Invalid))?;
    let via = dial(via, &file, url)?;
    match runtime()?.block_on(via.fresh_link()) {
        Ok(link) => {
            say_link("answer in a browser (the link works once): ", &link);
            Ok(())
        }
        Err(error) => {
            say(&error.to_string());
            Err(Failure::Failed)
        }
    }
}

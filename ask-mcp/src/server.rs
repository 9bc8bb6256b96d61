//! The server and its settings: [`McpServer`], what the host hands it (the presenter list,
//! fallback presenters, pages, the announcer, the log), and the defaults of each.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex as StdMutex};
use std::time::Duration;

use ask_core::{Frontend, Limits, Presenter, sanitize_for_display};
use rmcp::model::Tool;
use tokio::sync::Mutex;
use tokio_util::sync::CancellationToken;

use crate::McpError;
use crate::logging::SessionLevel;
use crate::repeated_keys::RepeatedKeys;

/// The most bytes one client message may hold by default (16 MiB): a longer one ends the session
/// with [`McpError::MessageTooLarge`] before it is buffered whole.
pub(crate) const DEFAULT_MAX_MESSAGE_BYTES: u64 = 16 * 1024 * 1024;

/// How often a waiting call sends a progress notification (when the client gave a token).
pub(crate) const PROGRESS_EVERY: Duration = Duration::from_secs(2);

/// The presenters used when none are given, in order: the client's form; the terminal UI, when
/// the host lets it draw there (see [`McpServer::with_fallback`]); the web page, when a person
/// can be reached (see [`McpServer::pages`]); the pending file.
pub const DEFAULT_PRESENTERS: [Presenter; 4] = [
    Presenter::Elicitation,
    Presenter::Tui,
    Presenter::Web,
    Presenter::File,
];

/// A form declined or cancelled this soon after it was sent was not the person's answer: the
/// client cannot ask (Codex's `exec` declines every form in about a millisecond), so the call
/// goes on to the next presenter of the list. A later decline is the person's and cancels.
/// [`McpServer::quick_decline`] changes it.
pub(crate) const QUICK_DECLINE: Duration = Duration::from_millis(300);

/// A presenter the host provides, with the check that says whether it can reach the person now.
pub struct Fallback {
    pub(crate) presenter: Presenter,
    pub(crate) frontend: Box<dyn Frontend>,
    pub(crate) available: Box<dyn Fn() -> bool + Send + Sync>,
}

impl Fallback {
    /// `frontend` shows the questions as `presenter` when it is listed, whenever it is reached.
    pub fn new(presenter: Presenter, frontend: Box<dyn Frontend>) -> Fallback {
        Fallback {
            presenter,
            frontend,
            available: Box::new(|| true),
        }
    }

    /// Used only while `available` says it can reach the person (for the terminal UI: while
    /// the controlling terminal opens).
    #[must_use]
    pub fn available_while(
        mut self,
        available: impl Fn() -> bool + Send + Sync + 'static,
    ) -> Fallback {
        self.available = Box::new(available);
        self
    }
}

impl fmt::Debug for Fallback {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Fallback")
            .field("presenter", &self.presenter)
            .finish_non_exhaustive()
    }
}

type Log = Box<dyn Fn(&str) + Send + Sync>;

/// The words of a pending result for the client named (its `clientInfo.name`), the pending file
/// and the number of questions.
type PendingWords = Box<dyn Fn(Option<&str>, &str, usize) -> String + Send + Sync>;

/// What gives, while a call waits, a link to its page that no browser has spent yet: the
/// page's link until a browser spends it, then a fresh one-time link. `None` when it cannot
/// make one.
pub type UnspentLink = Arc<dyn Fn() -> Option<String> + Send + Sync>;

/// A page a person answers on, and its one-time link.
pub struct Page {
    /// The frontend that serves the page until the ask ends.
    pub frontend: Box<dyn Frontend>,
    /// The link that opens it, once.
    pub link: String,
    /// Where the progress notifications of the call take a link no browser has spent, so that
    /// the person can always reach the page again; `None` for a page with no other link than
    /// `link` (an inbox, whose address is its link).
    pub unspent: Option<UnspentLink>,
}

impl fmt::Debug for Page {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Page")
            .field("presenter", &self.frontend.presenter())
            .finish_non_exhaustive()
    }
}

/// What opens a fresh [`Page`] for one call (or says why it cannot).
///
/// A page's link is never written on stdout outside the MCP messages, nor on stderr (a host may
/// show it on a terminal it holds): it goes to the client (a log message, the progress
/// notifications, a URL elicitation) and to the host's announcer ([`McpServer::announce_to`]);
/// the binary's announcer writes it on the terminal only when that is canonical.
/// With [`McpServer::pages`], every call of `web` or `url` gets a fresh page and link; a spent
/// link is never sent again: once a browser spent it, the progress notifications of the call
/// carry the page's fresh links ([`Page::unspent`]). Only the one page a host serves itself ([`McpServer::url_page`])
/// keeps its link for every `url` call.
pub type OpenPage =
    Box<dyn Fn() -> Pin<Box<dyn Future<Output = Result<Page, PageError>> + Send>> + Send + Sync>;

/// Why the host could not open a page, in its own words (shown to the model sanitised).
pub type PageError = Box<dyn std::error::Error + Send + Sync>;

/// Where the pages of the `web` and `url` presenters come from.
pub(crate) enum Pages {
    /// One page for every call, with its link (a host that serves the page itself).
    Fixed(Box<dyn Frontend>, String),
    /// A fresh page and link for every call, and whether a person can be reached on one now.
    Fresh {
        open: OpenPage,
        reachable: Box<dyn Fn() -> bool + Send + Sync>,
    },
}

/// The MCP server: one tool, `ask_user`.
///
/// A call is read only in the canonical schema the server advertises; no other agent's dialect
/// is accepted here.
///
/// ```no_run
/// use ask_core::{Limits, Presenter};
/// use ask_mcp::McpServer;
/// # async fn run(file_frontend: Box<dyn ask_core::Frontend>) -> Result<(), ask_mcp::McpError> {
/// let server = McpServer::new(&Limits::default())?
///     .presenters(&[Presenter::Elicitation, Presenter::File])?
///     .fallback(Presenter::File, file_frontend);
/// server.serve(tokio::io::stdin(), tokio::io::stdout()).await?;
/// # Ok(())
/// # }
/// ```
pub struct McpServer {
    pub(crate) limits: Limits,
    pub(crate) tool: Tool,
    pub(crate) sub_agent: bool,
    pub(crate) presenters: Vec<Presenter>,
    pub(crate) fallbacks: Vec<Fallback>,
    /// The pages of `web` and of URL-mode elicitation.
    pub(crate) pages: Option<Pages>,
    /// Tells the person where a page waits (opens it in a browser, prints it on a terminal).
    pub(crate) announce: Log,
    /// The instructions of a pending result, by client.
    pub(crate) pending_words: Option<PendingWords>,
    pub(crate) quick_decline: Duration,
    pub(crate) progress_every: Duration,
    pub(crate) max_message_bytes: u64,
    pub(crate) log: Log,
    /// Held while a call is shown, so that the person sees one set of questions at a time.
    pub(crate) turn: Arc<Mutex<()>>,
    /// Cancelled when the input ends: the client closed the connection.
    pub(crate) gone: CancellationToken,
    /// Cancelled by the host to stop the server, or when a signal ended a presenter.
    pub(crate) stop: CancellationToken,
    /// The signal that ended a presenter and so stopped the server.
    pub(crate) stopped_by: Arc<StdMutex<Option<ask_core::Signal>>>,
    /// The `tools/call` requests whose arguments repeat a key, by request id (as JSON text): the
    /// repeated key (the JSON pointer of its object below the arguments, and the key), found by
    /// the transport in the raw message before the protocol library keeps only the last value.
    pub(crate) repeated_keys: RepeatedKeys,
    /// The log level the client set for the session (`logging/setLevel`, before 2026-07-28).
    pub(crate) log_level: SessionLevel,
    /// Set once a client of 2026-07-28 or later asked `server/discover`: such a client has no
    /// session to start, and may leave after it.
    pub(crate) discovered: Arc<AtomicBool>,
}

impl fmt::Debug for McpServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let fallbacks: Vec<Presenter> = self.fallbacks.iter().map(|f| f.presenter).collect();
        f.debug_struct("McpServer")
            .field("limits", &self.limits)
            .field("sub_agent", &self.sub_agent)
            .field("presenters", &self.presenters)
            .field("fallbacks", &fallbacks)
            .finish_non_exhaustive()
    }
}

impl McpServer {
    /// A server checking calls against `limits`, with the [`DEFAULT_PRESENTERS`] and no fallback
    /// presenters yet.
    pub fn new(limits: &Limits) -> Result<McpServer, McpError> {
        let descriptor = ask_schema::tool_descriptor(ask_schema::ToolFormat::Mcp, limits);
        let tool = serde_json::from_value(descriptor).map_err(McpError::Descriptor)?;
        Ok(McpServer {
            limits: *limits,
            tool,
            sub_agent: false,
            presenters: DEFAULT_PRESENTERS.to_vec(),
            fallbacks: Vec::new(),
            pages: None,
            announce: Box::new(|_| {}),
            pending_words: None,
            quick_decline: QUICK_DECLINE,
            progress_every: PROGRESS_EVERY,
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
            log: Box::new(|_| {}),
            turn: Arc::new(Mutex::new(())),
            gone: CancellationToken::new(),
            stop: CancellationToken::new(),
            stopped_by: Arc::default(),
            repeated_keys: RepeatedKeys::default(),
            log_level: SessionLevel::default(),
            discovered: Arc::default(),
        })
    }

    /// The presenters to try, in order. Only `elicitation`, `url`, `tui`, `web` and `file` are
    /// available here.
    ///
    /// `tui` is used only when listed (the [`DEFAULT_PRESENTERS`] list it), and only while the
    /// check of its [`Fallback`] says it can reach the person (the binary's: the controlling
    /// terminal opens, this process is in its foreground group, and it is canonical): an MCP
    /// client often draws on the same terminal, and a person must never see two programs
    /// fighting for one terminal.
    pub fn presenters(mut self, list: &[Presenter]) -> Result<McpServer, McpError> {
        if let Some(other) = list.iter().find(|p| {
            !matches!(
                p,
                Presenter::Elicitation
                    | Presenter::Url
                    | Presenter::Tui
                    | Presenter::Web
                    | Presenter::File
            )
        }) {
            return Err(McpError::Unsupported(*other));
        }
        self.presenters = list.to_vec();
        Ok(self)
    }

    /// Serves the tool under `name` instead of `ask_user`, for a host that hides a tool whose
    /// name clashes with one of its own (Gemini CLI has a built-in `ask_user`). The name is 1 to
    /// 64 letters, digits, `_` or `-`.
    pub fn tool_name(mut self, name: &str) -> Result<McpServer, McpError> {
        let valid = (1..=64).contains(&name.len())
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        if !valid {
            return Err(McpError::ToolName(sanitize_for_display(name).into_owned()));
        }
        self.tool.name = name.to_string().into();
        Ok(self)
    }

    /// Every call is refused: the client is a sub-agent.
    #[must_use]
    pub fn sub_agent(mut self, sub_agent: bool) -> McpServer {
        self.sub_agent = sub_agent;
        self
    }

    /// The frontend that shows the questions as `presenter` when it is listed.
    #[must_use]
    pub fn fallback(self, presenter: Presenter, frontend: Box<dyn Frontend>) -> McpServer {
        self.with_fallback(Fallback::new(presenter, frontend))
    }

    /// Like [`McpServer::fallback`], for a fallback that may be usable only some of the time
    /// ([`Fallback::available_while`]; for the terminal UI: while the controlling terminal
    /// opens).
    #[must_use]
    pub fn with_fallback(mut self, fallback: Fallback) -> McpServer {
        self.fallbacks.push(fallback);
        self
    }

    /// The one page that URL-mode elicitation sends the person to, for every call: `frontend`
    /// serves it and `link` is the address sent to the client. It is used for `url` when the
    /// client declares URL elicitation, and for `elicitation` when the client declares URL
    /// elicitation and not form elicitation.
    #[must_use]
    pub fn url_page(mut self, frontend: Box<dyn Frontend>, link: String) -> McpServer {
        self.pages = Some(Pages::Fixed(frontend, link));
        self
    }

    /// A fresh page with a one-time link for every call, for `web` (while `reachable` says a
    /// person can be reached on a page: an inbox is configured, a display exists, or a terminal
    /// shows the link) and for URL-mode elicitation. The `web` presenter announces the link to
    /// the person: in an MCP log message, in every progress notification, and through
    /// [`McpServer::announce_to`].
    #[must_use]
    pub fn pages(
        mut self,
        open: OpenPage,
        reachable: impl Fn() -> bool + Send + Sync + 'static,
    ) -> McpServer {
        self.pages = Some(Pages::Fresh {
            open,
            reachable: Box::new(reachable),
        });
        self
    }

    /// What the host does with the link of a `web` page, besides telling the client: open it
    /// in a browser, print it where the person reads it. The link is the only argument.
    #[must_use]
    pub fn announce_to(mut self, announce: impl Fn(&str) + Send + Sync + 'static) -> McpServer {
        self.announce = Box::new(announce);
        self
    }

    /// The instructions a pending result gives the model, written for the client that called
    /// (by its `clientInfo.name`; who answers the questions and how differs from host to host),
    /// instead of the pending presenter's own.
    #[must_use]
    pub fn pending_instructions(
        mut self,
        words: impl Fn(Option<&str>, &str, usize) -> String + Send + Sync + 'static,
    ) -> McpServer {
        self.pending_words = Some(Box::new(words));
        self
    }

    /// How soon a declined or cancelled form counts as the client's (default 300 ms): the chain goes on past `elicitation` instead of cancelling.
    #[must_use]
    pub fn quick_decline(mut self, within: Duration) -> McpServer {
        self.quick_decline = within;
        self
    }

    /// How often a waiting call sends progress (default every 2 s).
    #[must_use]
    pub fn progress_every(mut self, every: Duration) -> McpServer {
        self.progress_every = every;
        self
    }

    /// The most bytes one client message may hold (default 16 MiB); a
    /// longer one ends the session with [`McpError::MessageTooLarge`].
    ///
    /// The transport counts each message's bytes as its line arrives, and ends the session as
    /// soon as one passes the cap, before the message is buffered whole.
    #[must_use]
    pub fn max_message_bytes(mut self, max: u64) -> McpServer {
        self.max_message_bytes = max;
        self
    }

    /// Where the lines for people go (the host's stderr, say); nowhere by default. Each line
    /// comes sanitised for display.
    #[must_use]
    pub fn log_to(mut self, log: impl Fn(&str) + Send + Sync + 'static) -> McpServer {
        self.log = Box::new(log);
        self
    }

    /// Cancel this token to stop the server: calls that arrive afterwards are refused, and
    /// [`McpServer::serve`] returns [`Ended::Stopped`](crate::Ended::Stopped) once the call being shown has ended.
    pub fn stopper(&self) -> CancellationToken {
        self.stop.clone()
    }

    /// Logs `line` for people; it may quote the client's or the model's text, so it goes out
    /// only sanitised.
    pub(crate) fn say(&self, line: &str) {
        for line in line.lines() {
            (self.log)(&sanitize_for_display(line));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presenters_outside_mcp_are_refused() {
        let server = McpServer::new(&Limits::default()).unwrap();
        let error = server
            .presenters(&[Presenter::Elicitation, Presenter::Embedded])
            .unwrap_err();
        assert_eq!(
            error.to_string(),
            "the presenter `embedded` is not available in the MCP server; use elicitation, url, tui, \
             web or file"
        );
    }
}

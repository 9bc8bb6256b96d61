//! The `ask_user` tool served to a Model Context Protocol client.
//!
//! A call is validated, refused for a sub-agent, and then shown to the person by the first
//! presenter of the server's list that can reach them: `elicitation` (a form in the client, when
//! the client declared form elicitation), or one of the fallback presenters the caller gave as
//! [`Frontend`] values (`tui`, `file`), each used only when listed. A form that comes back with a
//! question left open is shown again with the answers given so far as its fields' defaults; after
//! [`MAX_INCOMPLETE_ROUNDS`] incomplete forms the call goes to the next presenter of the list,
//! with those answers pre-filled, so nothing the person gave is lost and nothing partial reaches
//! the model.
//! On the stateless protocol (2026-07-28 and later) the form travels in an input-required result;
//! the answers so far and the round count travel in its `requestState`, which is read back like a
//! form reply (never trusted further).
//! While a call waits for the person, a client that gave a progress token receives a progress
//! notification every few seconds, so that a request timeout reset by progress does not cut a
//! person who answers slowly.
//!
//! The crate takes no terminal or file presenter of its own: the host passes them in, so that a
//! Rust agent can embed this server with the presenters it has.

mod announce;

pub use announce::terminal_lines;

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex as StdMutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use ask_core::{
    Answer, AnswerValue, AskCall, AskRequest, Capabilities, Frontend, Limits, Outcome,
    PresentError, Presenter, Problem, ProblemKind, Question, Record, Status, ToolOutput,
    ValidatedInput, now_ms, sanitize_for_display,
};
use ask_session::{Ask, AskFailure, Finished};
use async_trait::async_trait;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientCapabilities, ContentBlock,
    ElicitRequest, ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationSchema,
    Implementation, InputRequest, InputRequests, InputRequiredResult, ListToolsResult,
    PaginatedRequestParams, ProgressNotificationParam, ProgressToken, ProtocolVersion,
    ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer, ServiceError};
use rmcp::{ErrorData, Peer, ServerHandler, ServiceExt};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::Mutex;
use tokio_util::sync::CancellationToken;

/// How many forms may come back with a question left open before the call goes to the next
/// presenter of the list.
pub const MAX_INCOMPLETE_ROUNDS: usize = 3;

/// The most bytes one client message may hold by default (16 MiB): a longer one ends the session
/// with [`McpError::MessageTooLarge`] before it is buffered whole.
pub const DEFAULT_MAX_MESSAGE_BYTES: u64 = 16 * 1024 * 1024;

/// How often a waiting call sends a progress notification (when the client gave a token).
pub const PROGRESS_EVERY: Duration = Duration::from_secs(2);

/// The presenters used when none are given, in order: the client's form; the terminal UI, when
/// the host lets it draw there (see [`McpServer::fallback_when`]); the web page, when a person
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
pub const QUICK_DECLINE: Duration = Duration::from_millis(300);

/// The key of the form in the input requests of a stateless round.
const FORM_REQUEST: &str = "ask_user";

/// A problem with how the server was set up or served.
#[derive(Debug, thiserror::Error)]
pub enum McpError {
    /// A presenter in the list that this server cannot use.
    #[error(
        "the presenter `{0}` is not available in the MCP server; use elicitation, url, tui, web \
         or file"
    )]
    Unsupported(Presenter),
    /// The tool descriptor could not be built.
    #[error("cannot build the ask_user tool descriptor: {0}")]
    Descriptor(#[source] serde_json::Error),
    /// A tool name a client could not call.
    #[error(
        "the tool name `{0}` cannot be used; give 1 to 64 letters, digits, `_` or `-` (such as \
         ask_person)"
    )]
    ToolName(String),
    /// The client did not open a session.
    #[error("the MCP client did not start a session: {0}")]
    Start(String),
    /// The session ended with an error.
    #[error("the MCP session failed: {0}")]
    Session(String),
    /// A client message was longer than the cap; the session was ended.
    #[error(
        "a message from the MCP client is longer than {0} bytes, the most one message may hold; \
         the session was ended"
    )]
    MessageTooLarge(u64),
}

/// How [`McpServer::serve`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// The client closed the connection.
    ClientClosed,
    /// The server was stopped: by the host through [`McpServer::stopper`] (`signal` is
    /// `None`), or because a signal ended the presenter showing a call (the terminal UI
    /// restores the terminal first), which stops the whole server with that signal.
    Stopped {
        /// The signal that ended a presenter, if one did.
        signal: Option<ask_core::Signal>,
    },
}

/// A presenter the host provides, with the check that says whether it can reach the person now.
struct Fallback {
    presenter: Presenter,
    frontend: Box<dyn Frontend>,
    available: Box<dyn Fn() -> bool + Send + Sync>,
}

type Log = Box<dyn Fn(&str) + Send + Sync>;

/// The words of a pending result for the client named (its `clientInfo.name`), the pending file
/// and the number of questions.
type PendingWords = Box<dyn Fn(Option<&str>, &str, usize) -> String + Send + Sync>;

/// A page a person answers on, and its one-time link.
pub struct Page {
    /// The frontend that serves the page until the ask ends.
    pub frontend: Box<dyn Frontend>,
    /// The link that opens it, once.
    pub link: String,
}

impl fmt::Debug for Page {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Page")
            .field("presenter", &self.frontend.presenter())
            .finish_non_exhaustive()
    }
}

/// What opens a fresh [`Page`] for one call (or says why it cannot).
pub type OpenPage =
    Box<dyn Fn() -> Pin<Box<dyn Future<Output = Result<Page, String>> + Send>> + Send + Sync>;

/// Where the pages of the `web` and `url` presenters come from.
enum Pages {
    /// One page for every call, with its link (a host that serves the page itself).
    Fixed(Box<dyn Frontend>, String),
    /// A fresh page and link for every call, and whether a person can be reached on one now.
    Fresh {
        open: OpenPage,
        reachable: Box<dyn Fn() -> bool + Send + Sync>,
    },
}

/// A page for one call: the fixed one, borrowed, or a fresh one.
enum HeldPage<'a> {
    Borrowed(&'a dyn Frontend, String),
    Owned(Page),
}

impl HeldPage<'_> {
    fn frontend(&self) -> &dyn Frontend {
        match self {
            HeldPage::Borrowed(frontend, _) => *frontend,
            HeldPage::Owned(page) => page.frontend.as_ref(),
        }
    }

    fn link(&self) -> &str {
        match self {
            HeldPage::Borrowed(_, link) => link,
            HeldPage::Owned(page) => &page.link,
        }
    }
}

/// The MCP server: one tool, `ask_user`.
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
    limits: Limits,
    tool: Tool,
    sub_agent: bool,
    presenters: Vec<Presenter>,
    fallbacks: Vec<Fallback>,
    /// The pages of `web` and of URL-mode elicitation.
    pages: Option<Pages>,
    /// Tells the person where a page waits (opens it in a browser, prints it on a terminal).
    announce: Log,
    /// The instructions of a pending result, by client.
    pending_words: Option<PendingWords>,
    quick_decline: Duration,
    progress_every: Duration,
    max_message_bytes: u64,
    log: Log,
    /// Held while a call is shown, so that the person sees one set of questions at a time.
    turn: Arc<Mutex<()>>,
    /// Cancelled when the input ends: the client closed the connection.
    gone: CancellationToken,
    /// Cancelled by the host to stop the server, or when a signal ended a presenter.
    stop: CancellationToken,
    /// The signal that ended a presenter and so stopped the server.
    stopped_by: Arc<StdMutex<Option<ask_core::Signal>>>,
    /// The `tools/call` requests whose arguments repeat a key, by request id (as JSON text): the
    /// repeated key (the JSON pointer of its object below the arguments, and the key), found by
    /// [`WatchedInput`] in the raw message before the protocol library keeps only the last value.
    repeated_keys: RepeatedKeys,
}

/// See [`McpServer`]'s `repeated_keys`.
type RepeatedKeys = Arc<StdMutex<HashMap<String, (String, String)>>>;

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
        })
    }

    /// The presenters to try, in order. Only `elicitation`, `url`, `tui`, `web` and `file` are
    /// available here.
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
        self.fallback_when(presenter, frontend, || true)
    }

    /// Like [`McpServer::fallback`], used only while `available` says it can reach the person
    /// (for the terminal UI: while the controlling terminal opens).
    #[must_use]
    pub fn fallback_when(
        mut self,
        presenter: Presenter,
        frontend: Box<dyn Frontend>,
        available: impl Fn() -> bool + Send + Sync + 'static,
    ) -> McpServer {
        self.fallbacks.push(Fallback {
            presenter,
            frontend,
            available: Box::new(available),
        });
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

    /// How soon a declined or cancelled form counts as the client's (default
    /// [`QUICK_DECLINE`]): the chain goes on past `elicitation` instead of cancelling.
    #[must_use]
    pub fn quick_decline(mut self, within: Duration) -> McpServer {
        self.quick_decline = within;
        self
    }

    /// How often a waiting call sends progress (default [`PROGRESS_EVERY`]).
    #[must_use]
    pub fn progress_every(mut self, every: Duration) -> McpServer {
        self.progress_every = every;
        self
    }

    /// The most bytes one client message may hold (default [`DEFAULT_MAX_MESSAGE_BYTES`]); a
    /// longer one ends the session with [`McpError::MessageTooLarge`].
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
    /// [`McpServer::serve`] returns [`Ended::Stopped`] once the call being shown has ended.
    pub fn stopper(&self) -> CancellationToken {
        self.stop.clone()
    }

    /// Serves one client on `read` and `write` until it closes the connection or the host stops
    /// the server.
    pub async fn serve<R, W>(self, read: R, write: W) -> Result<Ended, McpError>
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        let turn = Arc::clone(&self.turn);
        let stop = self.stop.clone();
        let stopped_by = Arc::clone(&self.stopped_by);
        let max = self.max_message_bytes;
        let too_large = Arc::new(AtomicBool::new(false));
        let read = WatchedInput {
            inner: read,
            closed: self.gone.clone(),
            line: Vec::new(),
            max,
            too_large: Arc::clone(&too_large),
            repeated_keys: Arc::clone(&self.repeated_keys),
        };
        // The handshake's future holds the whole server: boxed, so that it does not sit on the
        // stack of whoever awaits this one (the binary's `main`, for every command).
        let service = match Box::pin(ServiceExt::serve(self, (read, write))).await {
            Ok(service) => service,
            Err(_) if too_large.load(Ordering::SeqCst) => {
                return Err(McpError::MessageTooLarge(max));
            }
            Err(error) => {
                return Err(McpError::Start(
                    sanitize_for_display(&error.to_string()).into_owned(),
                ));
            }
        };
        let quit = tokio::select! {
            quit = service.waiting() => quit,
            () = stop.cancelled() => {
                // No call takes a presenter after this (see `call`); wait for the one showing the
                // questions to end, so that a terminal is restored before the host exits.
                let _ = tokio::time::timeout(Duration::from_secs(2), turn.lock()).await;
                let signal = *stopped_by.lock().unwrap_or_else(PoisonError::into_inner);
                return Ok(Ended::Stopped { signal });
            }
        };
        // A call still being shown has been told that its client left; give it a moment to end
        // as connection lost (which also withdraws a terminal UI).
        let _ = tokio::time::timeout(Duration::from_secs(2), turn.lock()).await;
        if too_large.load(Ordering::SeqCst) {
            return Err(McpError::MessageTooLarge(max));
        }
        match quit {
            Ok(_) => Ok(Ended::ClientClosed),
            Err(error) => Err(McpError::Session(
                sanitize_for_display(&error.to_string()).into_owned(),
            )),
        }
    }

    /// Logs `line` for people; it may quote the client's or the model's text, so it goes out
    /// only sanitised.
    fn say(&self, line: &str) {
        for line in line.lines() {
            (self.log)(&sanitize_for_display(line));
        }
    }

    /// The fallback for `presenter`, when it can reach the person now.
    fn usable(&self, presenter: Presenter) -> Option<&dyn Frontend> {
        self.fallbacks
            .iter()
            .find(|fallback| fallback.presenter == presenter && (fallback.available)())
            .map(|fallback| fallback.frontend.as_ref())
    }

    /// True when `web` can reach a person now on a fresh page.
    fn web_reachable(&self) -> bool {
        matches!(&self.pages, Some(Pages::Fresh { reachable, .. }) if reachable())
    }

    /// The first presenter of `list` that can reach the person now: the client's form when it
    /// draws one (`form`), its page by URL elicitation (`url`), a fresh page when a person can be
    /// reached there, or a fallback the host gave. A secret question never goes into a form (the
    /// MCP specification forbids sensitive data in form elicitation) nor into the pending file
    /// (a secret never reaches the disk).
    fn route(&self, list: &[Presenter], form: bool, url: bool, secret: bool) -> Option<Route<'_>> {
        list.iter().find_map(|presenter| match presenter {
            Presenter::Elicitation if form && !secret => Some(Route::Form),
            Presenter::Elicitation | Presenter::Url => url.then_some(Route::Url),
            Presenter::File if secret => None,
            Presenter::Web if self.web_reachable() => Some(Route::Web),
            other => self.usable(*other).map(Route::Fallback),
        })
    }

    /// The presenter that takes a call past the client's form (a form the client declined at
    /// once, or left incomplete too often): the first that can reach the person of those
    /// listed after `elicitation`.
    fn after_form<'a>(
        &'a self,
        web: &dyn Fn() -> WebRoute<'a>,
        secret: bool,
    ) -> Option<Chosen<'a>> {
        let start = self
            .presenters
            .iter()
            .position(|p| *p == Presenter::Elicitation)
            .map_or(0, |at| at + 1);
        match self.route(&self.presenters[start..], false, false, secret)? {
            Route::Fallback(frontend) => Some(Chosen::Fallback(frontend)),
            Route::Web => Some(Chosen::Web(web())),
            Route::Form | Route::Url => None,
        }
    }

    /// The page of one call: the fixed one, or a fresh one with a new one-time link.
    async fn open_page(&self) -> Result<HeldPage<'_>, String> {
        match &self.pages {
            None => Err("no web page was configured".to_string()),
            Some(Pages::Fixed(frontend, link)) => {
                Ok(HeldPage::Borrowed(frontend.as_ref(), link.clone()))
            }
            Some(Pages::Fresh { open, .. }) => open().await.map(HeldPage::Owned),
        }
    }

    /// The key that the arguments of the `tools/call` request `id` repeat, if any (taken out of
    /// the table: each request is looked up once).
    fn repeated_key(&self, id: &rmcp::model::RequestId) -> Option<(String, String)> {
        let id = serde_json::to_string(id).ok()?;
        self.repeated_keys
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&id)
    }

    /// Answers one `tools/call` of `ask_user`.
    async fn call(
        &self,
        request: CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> CallToolResponse {
        if self.sub_agent {
            self.say("refused a call: the server was started for a sub-agent");
            return error_result(ToolOutput::refused().content).into();
        }
        let arguments = Value::Object(request.arguments.clone().unwrap_or_default());
        let parsed = match self.repeated_key(&context.id) {
            Some((path, key)) => Err(Problem::new(path, ProblemKind::DuplicateKey { key }).into()),
            None => ask_schema::parse(&arguments, &self.limits),
        };
        let input = match parsed {
            Ok(input) => input,
            Err(problems) => {
                self.say(&problems.heading());
                for problem in &problems {
                    self.say(&format!("  {problem}"));
                }
                return error_result(ToolOutput::invalid(&problems).content).into();
            }
        };
        let form = context
            .client_capabilities()
            .is_some_and(|capabilities| form_elicitation(&capabilities));
        let stateless = context
            .protocol_version()
            .is_some_and(|version| version >= ProtocolVersion::V_2026_07_28);
        // URL mode needs the server to send a request of its own, so not on the stateless
        // protocol.
        let url = self.pages.is_some()
            && !stateless
            && context
                .client_capabilities()
                .is_some_and(|capabilities| url_elicitation(&capabilities));
        let progress = context.meta.get_progress_token();
        let _turn = self.turn.lock().await;
        if self.stop.is_cancelled() {
            return error_result(
                "The user was not asked: the ask-user server is stopping.".to_string(),
            )
            .into();
        }
        let secret = ask_core::any_secret(&input.input().questions);
        let link = Link::default();
        let web = || WebRoute {
            server: self,
            peer: context.peer.clone(),
            progress: progress.clone(),
            link: Arc::clone(&link),
        };
        let page;
        let (elicitation, url_frontend, web_route);
        let frontend: &dyn Frontend = match self.route(&self.presenters, form, url, secret) {
            None if secret => return error_result(self.unreachable_secret()).into(),
            None => return error_result(self.unreachable()).into(),
            Some(Route::Fallback(fallback)) => fallback,
            Some(Route::Form) if stateless => {
                return self.in_rounds(input, &request, context, progress).await;
            }
            Some(Route::Form) => {
                elicitation = ElicitationFrontend {
                    server: self,
                    client: context.client_info().map(|info| info.name),
                    peer: context.peer.clone(),
                    next: self.after_form(&web, secret),
                };
                &elicitation
            }
            Some(Route::Url) => {
                page = match self.open_page().await {
                    Ok(page) => page,
                    Err(error) => return error_result(page_failed(&error)).into(),
                };
                url_frontend = UrlFrontend {
                    peer: context.peer.clone(),
                    page: page.frontend(),
                    link: page.link().to_string(),
                };
                &url_frontend
            }
            Some(Route::Web) => {
                web_route = web();
                &web_route
            }
        };
        let frontend = UntilDisconnect {
            inner: frontend,
            withdrawn: context.ct.clone(),
            gone: self.gone.clone(),
        };
        self.settle_with_progress(&frontend, input, context, progress, &link)
            .await
            .into()
    }

    /// The tool error when a call with a secret question finds no presenter that may ask it.
    fn unreachable_secret(&self) -> String {
        let names: Vec<&str> = self.presenters.iter().map(|p| p.as_str()).collect();
        self.say(&format!(
            "refused a call with a secret question: none of `{}` may ask it (a form or the \
             pending file cannot carry a secret; list tui, and have a terminal)",
            names.join(",")
        ));
        format!(
            "The questions were not shown to the user: a question is secret, and a secret cannot \
             go through an MCP form (the MCP specification forbids sensitive data there) or a \
             pending file; only the terminal UI can ask it, and this server ({}) has none that \
             can reach the user. Proceed without these answers; do not ask for the secret in a \
             question that is not secret.",
            names.join(", ")
        )
    }

    /// The tool error when no listed presenter can reach the person.
    fn unreachable(&self) -> String {
        let names: Vec<&str> = self.presenters.iter().map(|p| p.as_str()).collect();
        self.say(&format!(
            "no presenter of `{}` can reach the user (no form elicitation in the client, no \
             terminal)",
            names.join(",")
        ));
        format!(
            "The questions could not be shown to the user: none of the presenters this server \
             was given ({}) can reach the user here. Proceed without these answers.",
            names.join(", ")
        )
    }

    /// Asks through the client's form on a protocol where the server sends no requests of its
    /// own (2026-07-28 and later): the result asks the client for input, and the client calls
    /// again with the person's reply and the echoed state.
    async fn in_rounds(
        &self,
        input: ValidatedInput,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
        progress: Option<ProgressToken>,
    ) -> CallToolResponse {
        let questions = input.questions.clone();
        let client = context.client_info().map(|info| info.name);
        let form = Form::for_client(&questions, client.as_deref());
        let mut rounds = request
            .request_state
            .as_deref()
            .map(RoundState::read)
            .unwrap_or_default();
        let reply = request
            .input_responses
            .as_ref()
            .and_then(|responses| responses.get(FORM_REQUEST));
        let message = match reply {
            None if rounds.incomplete == 0 => {
                // The first form's time of sending travels with it, so that a decline can be
                // told from the person's.
                rounds.sent_ms = Some(now_ms());
                form.message()
            }
            None => form.again(&form.missing(&rounds.given)),
            Some(reply) => match serde_json::from_value::<ElicitResult>(reply.clone()) {
                Ok(reply) if rounds.declined_at_once(&reply, self.quick_decline) => {
                    self.say(CANNOT_ASK);
                    return self.past_form(input, Vec::new(), context, progress).await;
                }
                Ok(reply) => match form.step(&mut rounds, reply) {
                    Step::Done(outcome) => {
                        let link = Link::default();
                        return self
                            .settle_with_progress(
                                &Settled(outcome),
                                input,
                                context,
                                progress,
                                &link,
                            )
                            .await
                            .into();
                    }
                    Step::Again(message) => message,
                    Step::GiveUp(given) => {
                        self.say(&format!(
                            "the form came back with questions left open \
                             {MAX_INCOMPLETE_ROUNDS} times"
                        ));
                        return self.past_form(input, given, context, progress).await;
                    }
                },
                Err(error) => {
                    return error_result(format!(
                        "The client's reply to the questions form could not be read: {error}"
                    ))
                    .into();
                }
            },
        };
        match form.request(message, &rounds.given) {
            Ok(params) => {
                let request = InputRequest::Elicitation(ElicitRequest::new(params));
                let requests = InputRequests::from([(FORM_REQUEST.to_string(), request)]);
                InputRequiredResult::new(Some(requests), Some(rounds.write())).into()
            }
            Err(error) => error_result(format!(
                "The questions form could not be built for the client: {error}"
            ))
            .into(),
        }
    }

    /// Ends a stateless call past the client's form (declined at once, or incomplete too
    /// often): the next presenter shows the questions with the answers given so far.
    async fn past_form(
        &self,
        input: ValidatedInput,
        given: Vec<Option<Answer>>,
        context: &RequestContext<RoleServer>,
        progress: Option<ProgressToken>,
    ) -> CallToolResponse {
        let link = Link::default();
        let web = || WebRoute {
            server: self,
            peer: context.peer.clone(),
            progress: progress.clone(),
            link: Arc::clone(&link),
        };
        let Some(next) = self.after_form(&web, false) else {
            return error_result(if given.iter().any(Option::is_some) {
                gave_up_text()
            } else {
                self.unreachable()
            })
            .into();
        };
        let frontend = UntilDisconnect {
            inner: &ask_core::Given {
                inner: &next,
                given,
            },
            withdrawn: context.ct.clone(),
            gone: self.gone.clone(),
        };
        self.settle_with_progress(&frontend, input, context, progress, &link)
            .await
            .into()
    }

    /// Runs one ask through `frontend`, sending progress every few seconds while it waits when
    /// the client gave a progress token.
    async fn settle_with_progress(
        &self,
        frontend: &dyn Frontend,
        input: ValidatedInput,
        context: &RequestContext<RoleServer>,
        progress: Option<ProgressToken>,
        link: &Link,
    ) -> CallToolResult {
        let client = context.client_info().map(|info| info.name);
        let ask = self.settle(frontend, input, client.as_deref());
        let Some(token) = progress else {
            return ask.await;
        };
        tokio::pin!(ask);
        let start = tokio::time::Instant::now() + self.progress_every;
        let mut ticks = tokio::time::interval_at(start, self.progress_every);
        let mut sent: u32 = 0;
        loop {
            tokio::select! {
                result = &mut ask => return result,
                _ = ticks.tick() => {
                    sent = sent.saturating_add(1);
                    let message = waiting_message(lock(link).as_deref());
                    let note = ProgressNotificationParam::new(token.clone(), f64::from(sent))
                        .with_message(message);
                    // A client that cannot take the notification still gets its result.
                    let _ = context.peer.notify_progress(note).await;
                }
            }
        }
    }

    /// Runs one ask through `frontend`, logs how it ended and gives the tool result; a
    /// pending result speaks to the model of `client`.
    async fn settle(
        &self,
        frontend: &dyn Frontend,
        input: ValidatedInput,
        client: Option<&str>,
    ) -> CallToolResult {
        match Ask::new(AskCall::new(input)).run(frontend).await {
            Ok(Finished { mut record, .. }) => {
                if let (Some(words), Some(file)) = (&self.pending_words, &record.pending_file) {
                    record.pending_instructions = Some(words(client, file, record.questions.len()));
                }
                match record.status {
                    Status::ConnectionLost => self.say("the client went away before an answer"),
                    Status::Cancelled => self.say("the questions were cancelled"),
                    Status::Pending => self.say(&format!(
                        "the questions wait in {}",
                        record.pending_file.as_deref().unwrap_or("the pending file")
                    )),
                    Status::Answered => {}
                }
                finished(record)
            }
            Err(error) => {
                self.say(&error.to_string());
                match error {
                    AskFailure::Present {
                        error: PresentError::Unasked(text),
                        ..
                    } => error_result(text),
                    // A signal that ends a presenter (the terminal UI restored the terminal
                    // first) stops the whole server with that signal.
                    AskFailure::Present {
                        error:
                            PresentError::Interrupted {
                                signal: Some(signal),
                            },
                        ..
                    } => {
                        *self
                            .stopped_by
                            .lock()
                            .unwrap_or_else(PoisonError::into_inner) = Some(signal);
                        self.stop.cancel();
                        error_result(format!(
                            "The user was not asked: the ask-user server was stopped by {}.",
                            signal.name
                        ))
                    }
                    AskFailure::Present {
                        error: PresentError::Interrupted { signal: None },
                        ..
                    } => error_result(ask_core::interrupted_text(None)),
                    error => error_result(format!(
                        "The questions could not be shown to the user: {error}"
                    )),
                }
            }
        }
    }
}

/// The tool error when the form came back incomplete too often and no presenter follows it.
fn gave_up_text() -> String {
    format!(
        "The user left questions open in the form {MAX_INCOMPLETE_ROUNDS} times, and no other \
         presenter was configured; nothing was answered. Proceed without these answers."
    )
}

/// The line for people when the client declined its form at once.
const CANNOT_ASK: &str = "the client declined the form at once, so it cannot ask; the next \
                          presenter takes the call";

/// The message of a progress notification while the person has not answered; it carries the
/// link of the page that waits for them, if one does.
fn waiting_message(link: Option<&str>) -> String {
    match link {
        Some(link) => format!("Waiting for the user to answer on the page {link}"),
        None => "Waiting for the user to answer".to_string(),
    }
}

/// The tool error when no page could be opened for the person.
fn page_failed(error: &str) -> String {
    format!(
        "The questions could not be shown to the user: the web page could not be opened: {}",
        sanitize_for_display(error)
    )
}

/// The link of the page a call waits on, once one was announced.
type Link = Arc<StdMutex<Option<String>>>;

fn lock<T>(mutex: &StdMutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Where a call goes: the client's form, its page by URL elicitation, a fresh page, or a
/// presenter the host gave.
enum Route<'a> {
    Form,
    Url,
    Web,
    Fallback(&'a dyn Frontend),
}

/// The presenter that takes a call past the client's form.
enum Chosen<'a> {
    Fallback(&'a dyn Frontend),
    Web(WebRoute<'a>),
}

#[async_trait]
impl Frontend for Chosen<'_> {
    fn presenter(&self) -> Presenter {
        match self {
            Chosen::Fallback(frontend) => frontend.presenter(),
            Chosen::Web(web) => web.presenter(),
        }
    }

    fn capabilities(&self) -> Capabilities {
        match self {
            Chosen::Fallback(frontend) => frontend.capabilities(),
            Chosen::Web(web) => web.capabilities(),
        }
    }

    async fn present(&self, request: &AskRequest) -> Result<Outcome, PresentError> {
        match self {
            Chosen::Fallback(frontend) => frontend.present(request).await,
            Chosen::Web(web) => web.present(request).await,
        }
    }
}

/// The `web` presenter: a fresh page with a one-time link for the call, announced to the
/// person without touching a terminal another program holds: in an MCP log message to the
/// client, through the host's announcer (a browser, a canonical terminal), and in every
/// progress notification; the call waits until the page is answered or cancelled.
struct WebRoute<'a> {
    server: &'a McpServer,
    peer: Peer<RoleServer>,
    progress: Option<ProgressToken>,
    link: Link,
}

#[async_trait]
impl Frontend for WebRoute<'_> {
    fn presenter(&self) -> Presenter {
        Presenter::Web
    }

    async fn present(&self, request: &AskRequest) -> Result<Outcome, PresentError> {
        let page = self
            .server
            .open_page()
            .await
            .map_err(|error| PresentError::Unasked(page_failed(&error)))?;
        let link = page.link().to_string();
        let count = request.input.questions.len();
        let text = format!(
            "The agent asks you {count} {}: open {link} to answer (the link works once).",
            if count == 1 { "question" } else { "questions" }
        );
        self.server
            .say("the questions wait on a web page; its link went to the client");
        log_to_client(&self.peer, text).await;
        (self.server.announce)(&link);
        *lock(&self.link) = Some(link.clone());
        if let Some(token) = &self.progress {
            let note = ProgressNotificationParam::new(token.clone(), 0.0)
                .with_message(waiting_message(Some(&link)));
            let _ = self.peer.notify_progress(note).await;
        }
        page.frontend().present(request).await
    }
}

/// Sends `text` to the client as an MCP log message. Logging is deprecated in the newest
/// protocol and still what clients of the earlier ones show; a client that does not take it
/// still gets the progress messages.
#[allow(deprecated)]
async fn log_to_client(peer: &Peer<RoleServer>, text: String) {
    use rmcp::model::{LoggingLevel, LoggingMessageNotificationParam};
    let message = LoggingMessageNotificationParam::new(LoggingLevel::Notice, Value::String(text))
        .with_logger("ask-user");
    let _ = peer.notify_logging_message(message).await;
}

/// True when the client can show a form: it declared form elicitation, or elicitation without
/// naming a mode (which the protocol reads as form).
fn form_elicitation(capabilities: &ClientCapabilities) -> bool {
    capabilities
        .elicitation
        .as_ref()
        .is_some_and(|elicitation| elicitation.form.is_some() || elicitation.url.is_none())
}

/// True when the client can send the person to a page (URL-mode elicitation).
fn url_elicitation(capabilities: &ClientCapabilities) -> bool {
    capabilities
        .elicitation
        .as_ref()
        .is_some_and(|elicitation| elicitation.url.is_some())
}

/// Sends the person to a page by URL-mode elicitation while `page` serves it: the page's
/// outcome is the call's; a client that declines or cancels the elicitation cancels the call.
struct UrlFrontend<'a> {
    peer: Peer<RoleServer>,
    page: &'a dyn Frontend,
    link: String,
}

#[async_trait]
impl Frontend for UrlFrontend<'_> {
    fn presenter(&self) -> Presenter {
        Presenter::Url
    }

    fn capabilities(&self) -> Capabilities {
        self.page.capabilities()
    }

    async fn present(&self, request: &AskRequest) -> Result<Outcome, PresentError> {
        let count = request.input.questions.len();
        let params = ElicitRequestParams::UrlElicitationParams {
            meta: None,
            message: format!(
                "The agent asks you {count} {}: open the page to answer.",
                if count == 1 { "question" } else { "questions" }
            ),
            url: self.link.clone(),
            elicitation_id: request.request_id.clone(),
        };
        let page = self.page.present(request);
        tokio::pin!(page);
        tokio::select! {
            outcome = &mut page => return outcome,
            reply = self.peer.create_elicitation(params) => match reply {
                // The client opened the page (or showed the link): the page answers.
                Ok(reply) if reply.action == ElicitationAction::Accept => {}
                Ok(_) => return Ok(Outcome::Cancelled),
                Err(ServiceError::TransportClosed | ServiceError::TransportSend(_)
                    | ServiceError::Cancelled { .. }) => return Ok(Outcome::ConnectionLost),
                Err(error) => return Err(PresentError::failed(error)),
            },
        }
        page.await
    }
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        let mut info = Implementation::new("ask-user", env!("CARGO_PKG_VERSION"));
        info.title = Some("Ask the user".to_string());
        // Logging carries the link of a page the person answers on.
        #[allow(deprecated)]
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_logging()
            .build();
        ServerConfig::new(capabilities)
            .with_server_info(info)
            .with_instructions(format!(
                "Call {} when you need the user's decision or clarification; the user answers \
                 structured questions and the answers come back as the tool result.",
                self.tool.name
            ))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(vec![self.tool.clone()]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if request.name != self.tool.name {
            return Err(ErrorData::invalid_params(
                format!(
                    "unknown tool `{}`; this server has only `{}`",
                    request.name, self.tool.name
                ),
                None,
            ));
        }
        Ok(self.call(request, &context).await)
    }
}

/// The result of a finished ask: the text for the model and the structured result, whose
/// `message` repeats the text's guidance for clients that show the model only structured content.
fn finished(record: Record) -> CallToolResult {
    let structured = serde_json::to_value(record.result()).unwrap_or(Value::Null);
    let output = ToolOutput::from_record(record);
    let mut result = CallToolResult::success(vec![ContentBlock::text(output.content)]);
    result.structured_content = Some(structured);
    result
}

/// A tool error whose text the model reads.
fn error_result(text: String) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(text)])
}

/// A frontend whose ask ends as connection lost when the client goes away or withdraws the call.
///
/// Dropping the inner frontend's future is what tells it to stop; the terminal UI restores the
/// terminal when that happens.
struct UntilDisconnect<'a> {
    inner: &'a dyn Frontend,
    /// Cancelled when the client withdraws the call, or once the session has ended.
    withdrawn: CancellationToken,
    /// Cancelled as soon as the input ends.
    gone: CancellationToken,
}

#[async_trait]
impl Frontend for UntilDisconnect<'_> {
    fn presenter(&self) -> Presenter {
        self.inner.presenter()
    }

    fn capabilities(&self) -> Capabilities {
        self.inner.capabilities()
    }

    async fn present(&self, request: &AskRequest) -> Result<Outcome, PresentError> {
        tokio::select! {
            outcome = self.inner.present(request) => outcome,
            () = self.withdrawn.cancelled() => Ok(Outcome::ConnectionLost),
            () = self.gone.cancelled() => Ok(Outcome::ConnectionLost),
        }
    }
}

/// The input, watched for its end, which tells a question being shown that nobody will read the
/// answer: the session itself only ends after in-flight calls have had a while to finish.
struct WatchedInput<R> {
    inner: R,
    closed: CancellationToken,
    /// The bytes of the current message (line) read so far.
    line: Vec<u8>,
    /// The most bytes one message may hold; one more ends the input with an error.
    max: u64,
    /// Set when a message passed `max`.
    too_large: Arc<AtomicBool>,
    /// Where a `tools/call` whose arguments repeat a key is noted, before the message is passed on.
    repeated_keys: RepeatedKeys,
}

impl<R> WatchedInput<R> {
    /// Notes the request in `line` when it is a `tools/call` whose arguments repeat a key: the
    /// protocol library reads the arguments into a map, which keeps the last of two equal keys
    /// without a word, while every other way in refuses such a call.
    fn check_repeated_keys(&self, line: &[u8]) {
        let Ok(text) = std::str::from_utf8(line) else {
            return;
        };
        let Some((path, key)) = ask_core::duplicate_key(text) else {
            return;
        };
        let Some(path) = path.strip_prefix("/params/arguments") else {
            return;
        };
        let Ok(message) = serde_json::from_str::<Value>(text) else {
            return;
        };
        if message.get("method").and_then(Value::as_str) != Some("tools/call") {
            return;
        }
        if let Some(id) = message.get("id") {
            self.repeated_keys
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(id.to_string(), (path.to_string(), key));
        }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for WatchedInput<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let poll = Pin::new(&mut self.inner).poll_read(cx, buf);
        if let Poll::Ready(result) = &poll {
            let ended = buf.filled().len() == before && buf.remaining() > 0;
            if result.is_err() || ended {
                self.closed.cancel();
            }
            // A message is one line: keep its bytes, refuse one past the cap before it is
            // buffered whole, and check a whole one for repeated keys before the protocol
            // library, which reads what this returns, parses it.
            let this = &mut *self;
            for byte in &buf.filled()[before..] {
                if *byte == b'\n' {
                    let line = std::mem::take(&mut this.line);
                    this.check_repeated_keys(&line);
                    continue;
                }
                this.line.push(*byte);
                if this.line.len() as u64 > this.max {
                    this.too_large.store(true, Ordering::SeqCst);
                    this.closed.cancel();
                    return Poll::Ready(Err(std::io::Error::new(
                        std::io::ErrorKind::InvalidData,
                        "a message is longer than the input cap",
                    )));
                }
            }
        }
        poll
    }
}

/// A frontend whose outcome is already known: the reply to a form sent in an earlier round.
struct Settled(Outcome);

#[async_trait]
impl Frontend for Settled {
    fn presenter(&self) -> Presenter {
        Presenter::Elicitation
    }

    async fn present(&self, _request: &AskRequest) -> Result<Outcome, PresentError> {
        Ok(self.0.clone())
    }
}

/// Shows the questions as a form in the MCP client (elicitation in form mode), round after
/// round, until every question is answered, the person declines or cancels, or
/// [`MAX_INCOMPLETE_ROUNDS`] forms came back incomplete (then `next` takes over).
struct ElicitationFrontend<'a> {
    server: &'a McpServer,
    /// The client's `clientInfo.name`.
    client: Option<String>,
    peer: Peer<RoleServer>,
    next: Option<Chosen<'a>>,
}

#[async_trait]
impl Frontend for ElicitationFrontend<'_> {
    fn presenter(&self) -> Presenter {
        Presenter::Elicitation
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            // The protocol forbids sensitive data in form elicitation.
            carries_secrets: false,
            // The first form starts empty: only the fields of its own earlier rounds come back
            // as defaults.
            shows_given: false,
            ..Capabilities::default()
        }
    }

    async fn present(&self, request: &AskRequest) -> Result<Outcome, PresentError> {
        let form = Form::for_client(&request.input.questions, self.client.as_deref());
        let mut rounds = RoundState::default();
        let mut message = form.message();
        loop {
            let params = form
                .request(message, &rounds.given)
                .map_err(PresentError::failed)?;
            let sent = tokio::time::Instant::now();
            let reply = match self.peer.create_elicitation(params).await {
                Ok(reply) => reply,
                Err(ServiceError::TransportClosed | ServiceError::TransportSend(_)) => {
                    return Ok(Outcome::ConnectionLost);
                }
                Err(ServiceError::Cancelled { .. }) => return Ok(Outcome::ConnectionLost),
                Err(error) => return Err(PresentError::failed(error)),
            };
            // A first form declined or cancelled at once was the client's doing, not the
            // person's: the chain goes on.
            if rounds.incomplete == 0
                && reply.action != ElicitationAction::Accept
                && sent.elapsed() < self.server.quick_decline
            {
                self.server.say(CANNOT_ASK);
                let Some(next) = &self.next else {
                    return Err(PresentError::Unasked(self.server.unreachable()));
                };
                return next.present(request).await;
            }
            match form.step(&mut rounds, reply) {
                Step::Done(outcome) => return Ok(outcome),
                Step::Again(again) => message = again,
                Step::GiveUp(given) => {
                    let Some(next) = &self.next else {
                        return Err(PresentError::Unasked(gave_up_text()));
                    };
                    let mut request = request.clone();
                    request.given = given;
                    return next.present(&request).await;
                }
            }
        }
    }
}

/// What the rounds of one call have gathered: the form fields the person filled in so far and
/// how many forms came back incomplete. On the stateless protocol it travels as `requestState`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
struct RoundState {
    /// Incomplete forms so far.
    incomplete: usize,
    /// When the first form was sent (milliseconds since the Unix epoch), to tell a decline the
    /// client made at once from the person's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    sent_ms: Option<u64>,
    /// The filled fields, by field name (`q1`, `q1_other`, …).
    given: Map<String, Value>,
}

impl RoundState {
    /// The state echoed by a client; anything unreadable starts afresh. The fields are only
    /// ever read back like a form reply.
    fn read(text: &str) -> RoundState {
        serde_json::from_str(text).unwrap_or_default()
    }

    fn write(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// True when `reply` declines or cancels the first form within `quick` of its sending.
    fn declined_at_once(&self, reply: &ElicitResult, quick: Duration) -> bool {
        let Some(sent) = self.sent_ms else {
            return false;
        };
        self.incomplete == 0
            && reply.action != ElicitationAction::Accept
            && u128::from(now_ms().saturating_sub(sent)) < quick.as_millis()
    }
}

/// What one form reply does to the call.
#[derive(Debug, PartialEq)]
enum Step {
    /// The ask is over.
    Done(Outcome),
    /// Show the form again with this message.
    Again(String),
    /// Too many incomplete forms: hand over to the next presenter with these answers.
    GiveUp(Vec<Option<Answer>>),
}

/// The clients (by `clientInfo.name`) known to draw a multi-select question as one field, a
/// list of choices (the array-of-enum form of the 2025-11-25 protocol). Every other client gets
/// a check box (a boolean field) per option, which every form can draw: interactive Codex draws
/// no form at all for a field it does not know.
pub const LIST_DRAWING_CLIENTS: [&str; 1] = ["claude-code"];

/// The clients (by `clientInfo.name`) that submit a form only from its last field and take Enter
/// in an empty text field as nothing (interactive Codex): their forms end on a choice.
pub const LAST_FIELD_CLIENTS: [&str; 1] = ["codex-mcp-client"];

/// The elicitation form for a call: one field per question (for a multi-select question, one
/// boolean field per option, unless the client draws a list of choices), plus an optional
/// "Other" text field for each question with options. No field but a free-text question's is
/// required, so a form submits from any field.
#[derive(Debug)]
struct Form<'a> {
    questions: &'a [Question],
    /// The client draws a multi-select question as a list of choices.
    lists: bool,
    /// The client submits a form only from its last field and takes Enter in an empty text
    /// field as nothing (interactive Codex): the form ends on a choice, not on an "Other".
    ends_on_choice: bool,
}

impl<'a> Form<'a> {
    #[cfg(test)]
    fn new(questions: &'a [Question]) -> Form<'a> {
        Form {
            questions,
            lists: false,
            ends_on_choice: false,
        }
    }

    /// The form for the client named `client` (its `clientInfo.name`).
    fn for_client(questions: &'a [Question], client: Option<&str>) -> Form<'a> {
        Form {
            questions,
            lists: client.is_some_and(|name| LIST_DRAWING_CLIENTS.contains(&name)),
            ends_on_choice: client.is_some_and(|name| LAST_FIELD_CLIENTS.contains(&name)),
        }
    }

    /// True when question `question` is drawn as a check box per option.
    fn boxes(&self, question: &Question) -> bool {
        question.multi_select && !self.lists
    }

    /// The field of question `index` (counted from 0). In the layout that ends on a choice,
    /// the last question's is `qN_pick`, which sorts after its `qN_other`: clients see the
    /// fields in the order of their names (the wire keeps no other order).
    fn key(&self, index: usize) -> String {
        if self.ends_on_choice && index + 1 == self.questions.len() {
            format!("q{}_pick", index + 1)
        } else {
            format!("q{}", index + 1)
        }
    }

    /// The check box of option `option` of question `index` (both counted from 0), numbered
    /// with as many digits as the last option needs, so that the names sort in option order.
    fn box_key(&self, index: usize, option: usize) -> String {
        let count = self.questions.get(index).map_or(0, |q| q.options().len());
        let width = count.to_string().len();
        format!("{}_{:0width$}", self.key(index), option + 1)
    }

    /// The "Other" field of question `index`.
    fn other_key(&self, index: usize) -> String {
        format!("q{}_other", index + 1)
    }

    /// The field names in the order the person reads them: each question's choices, then its
    /// "Other" field; in the layout that ends on a choice, the last question's "Other" comes
    /// before its choices. The names sort in this order, which is the order clients show.
    fn order(&self) -> Vec<String> {
        let mut order = Vec::new();
        let last = self.questions.len().saturating_sub(1);
        for (index, question) in self.questions.iter().enumerate() {
            let other_first = self.ends_on_choice && index == last && !question.is_free_text();
            if other_first {
                order.push(self.other_key(index));
            }
            if self.boxes(question) {
                order.extend((0..question.options().len()).map(|at| self.box_key(index, at)));
            } else {
                order.push(self.key(index));
            }
            if !question.is_free_text() && !other_first {
                order.push(self.other_key(index));
            }
        }
        order
    }

    /// The fields a reply is read from: those of the form, and the list of choices of a
    /// multi-select question drawn as check boxes, for a client that answers with a list anyway.
    fn reply_keys(&self) -> Vec<String> {
        let mut keys = self.order();
        for (index, question) in self.questions.iter().enumerate() {
            if self.boxes(question) {
                keys.push(self.key(index));
            }
        }
        keys
    }

    /// The requested schema: a flat object of primitive fields, as elicitation requires, with
    /// the answers in `given` as the fields' defaults.
    fn schema(&self, given: &Map<String, Value>) -> Value {
        let mut properties = Map::new();
        let mut required = Vec::new();
        for (index, question) in self.questions.iter().enumerate() {
            let title = question
                .header
                .clone()
                .unwrap_or_else(|| format!("Question {}", index + 1));
            let answer = self.read_one(question, &Value::Object(given.clone()), index);
            let (default, other_default) = defaults(answer.as_ref());
            if question.is_free_text() {
                let mut field =
                    json!({"type": "string", "title": title, "description": question.question});
                if let Some(text) = other_default {
                    field["default"] = Value::String(text);
                }
                properties.insert(self.key(index), field);
                required.push(Value::String(self.key(index)));
                continue;
            }
            let choices: Vec<Value> = question
                .options()
                .iter()
                .map(|option| {
                    let title = match &option.description {
                        Some(description) => format!("{} — {description}", option.label),
                        None => option.label.clone(),
                    };
                    json!({"const": option.label, "title": title})
                })
                .collect();
            let mut field = if self.boxes(question) {
                let chosen = default.as_ref().and_then(Value::as_array);
                for (at, option) in question.options().iter().enumerate() {
                    let ticked = chosen.is_some_and(|labels| {
                        labels
                            .iter()
                            .any(|label| label.as_str() == Some(&option.label))
                    });
                    let description = match &option.description {
                        Some(description) => format!("{} — {description}", question.question),
                        None => question.question.clone(),
                    };
                    properties.insert(
                        self.box_key(index, at),
                        json!({"type": "boolean", "title": format!("{title}: {}", option.label),
                               "description": description, "default": ticked}),
                    );
                }
                Value::Null
            } else if question.multi_select {
                json!({"type": "array", "title": title, "description": question.question,
                       "items": {"anyOf": choices}})
            } else {
                json!({"type": "string", "title": title, "description": question.question,
                       "oneOf": choices})
            };
            if !field.is_null() {
                if let Some(default) = default {
                    field["default"] = default;
                }
                properties.insert(self.key(index), field);
            }
            let mut other = json!({"type": "string",
                "title": format!("{title}: Other (type your answer)"),
                "description": format!("Type your own answer instead of choosing: {}",
                                       question.question)});
            if let Some(text) = other_default {
                other["default"] = Value::String(text);
            }
            properties.insert(self.other_key(index), other);
        }
        let mut schema = json!({"type": "object", "properties": properties});
        if !required.is_empty() {
            schema["required"] = Value::Array(required);
        }
        schema
    }

    /// The elicitation request showing this form under `message`.
    fn request(
        &self,
        message: String,
        given: &Map<String, Value>,
    ) -> Result<ElicitRequestParams, serde_json::Error> {
        let mut schema: ElicitationSchema = serde_json::from_value(self.schema(given))?;
        schema.property_order = Some(self.order());
        Ok(ElicitRequestParams::FormElicitationParams {
            meta: None,
            message,
            requested_schema: schema,
        })
    }

    /// Takes one reply into the rounds: the answers in it join those given before (a field left
    /// blank keeps its earlier answer), and the call ends, goes another round or gives up.
    fn step(&self, rounds: &mut RoundState, reply: ElicitResult) -> Step {
        match reply.action {
            ElicitationAction::Accept => {
                let content = reply.content.unwrap_or(Value::Null);
                for key in self.reply_keys() {
                    let filled = content.get(&key).filter(|value| !blank(value));
                    if let Some(value) = filled {
                        rounds.given.insert(key, value.clone());
                    }
                }
                let given = Value::Object(rounds.given.clone());
                match self.read(&given) {
                    Ok(answers) => Step::Done(Outcome::Answered(answers)),
                    Err(missing) => {
                        rounds.incomplete += 1;
                        if rounds.incomplete >= MAX_INCOMPLETE_ROUNDS {
                            Step::GiveUp(self.partial(&given))
                        } else {
                            Step::Again(self.again(&missing))
                        }
                    }
                }
            }
            // Decline and cancel, and any answer a later protocol adds, discard everything.
            _ => Step::Done(Outcome::Cancelled),
        }
    }

    /// The message shown above the first form.
    fn message(&self) -> String {
        match self.questions {
            [one] => one.question.clone(),
            many => format!("Please answer these {} questions.", many.len()),
        }
    }

    /// The message when the form came back with questions left unanswered.
    fn again(&self, missing: &[usize]) -> String {
        let list: Vec<String> = missing
            .iter()
            .filter_map(|index| self.questions.get(*index))
            .map(|question| format!("\"{}\"", question.question))
            .collect();
        format!(
            "Please answer every question; choose an option or type an answer for: {}",
            list.join(", ")
        )
    }

    /// The questions still open in `given`.
    fn missing(&self, given: &Map<String, Value>) -> Vec<usize> {
        self.read(&Value::Object(given.clone()))
            .err()
            .unwrap_or_default()
    }

    /// The answers in a form, or the indices of the questions left unanswered.
    fn read(&self, content: &Value) -> Result<Vec<Answer>, Vec<usize>> {
        let mut answers = Vec::new();
        let mut missing = Vec::new();
        for (index, question) in self.questions.iter().enumerate() {
            match self.read_one(question, content, index) {
                Some(answer) => answers.push(answer),
                None => missing.push(index),
            }
        }
        if missing.is_empty() {
            Ok(answers)
        } else {
            Err(missing)
        }
    }

    /// The answers in a form, question by question, `None` where a question is open.
    fn partial(&self, content: &Value) -> Vec<Option<Answer>> {
        self.questions
            .iter()
            .enumerate()
            .map(|(index, question)| self.read_one(question, content, index))
            .collect()
    }
}

/// True for a field value that answers nothing: blank text or an empty list.
fn blank(value: &Value) -> bool {
    match value {
        Value::String(text) => text.trim().is_empty(),
        Value::Array(items) => items.is_empty(),
        Value::Null => true,
        _ => false,
    }
}

/// The defaults that show `answer` in the form: the value of the question's field (a label or a
/// list of labels) and the text of its "Other" field (for a free-text question: its one field).
fn defaults(answer: Option<&Answer>) -> (Option<Value>, Option<String>) {
    let Some(answer) = answer else {
        return (None, None);
    };
    match &answer.answer {
        AnswerValue::Text(text) => match &answer.selected_option {
            Some(label) => (Some(Value::String(label.clone())), None),
            None => (None, Some(text.clone())),
        },
        AnswerValue::Choices(choices) => {
            let mut labels = choices.clone();
            let typed = if answer.was_custom {
                labels.pop()
            } else {
                None
            };
            let labels = (!labels.is_empty())
                .then(|| Value::Array(labels.into_iter().map(Value::String).collect()));
            (labels, typed)
        }
    }
}

impl Form<'_> {
    /// The answer to `question` in the form `content`, if the person gave one.
    fn read_one(&self, question: &Question, content: &Value, index: usize) -> Option<Answer> {
        let text = |key: String| {
            content
                .get(key)
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|text| !text.is_empty())
                .map(str::to_string)
        };
        let other = text(self.other_key(index));
        if question.is_free_text() {
            return text(self.key(index)).map(|typed| Answer::from_text(question, &typed));
        }
        if question.multi_select {
            // A list of labels, or a check box per option: either way the reply carries them.
            let mut chosen: Vec<bool> = (0..question.options().len())
                .map(|at| content.get(self.box_key(index, at)) == Some(&Value::Bool(true)))
                .collect();
            let picked = content.get(self.key(index)).and_then(Value::as_array);
            for label in picked.into_iter().flatten().filter_map(Value::as_str) {
                if let Some(found) = question.find_option(label) {
                    chosen[found] = true;
                }
            }
            let labels = question.chosen_labels(&chosen);
            if labels.is_empty() && other.is_none() {
                return None;
            }
            return Some(Answer::multi(&question.question, labels, other));
        }
        // Typed text wins over a chosen option: the person went out of their way to write it.
        if let Some(typed) = other {
            return Some(Answer::custom(&question.question, typed));
        }
        text(self.key(index)).map(|chosen| Answer::from_text(question, &chosen))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn questions() -> Vec<Question> {
        vec![
            Question::choice("Which database?", ["PostgreSQL (Recommended)", "SQLite"]),
            Question::choice("Which features?", ["Auth", "API", "Admin"]).multi(),
            Question::text("Project name?"),
        ]
    }

    fn accept(content: Value) -> ElicitResult {
        serde_json::from_value(json!({"action": "accept", "content": content})).unwrap()
    }

    #[track_caller]
    fn check(content: Value, expected: Result<Vec<Answer>, Vec<usize>>) {
        let questions = questions();
        assert_eq!(Form::new(&questions).read(&content), expected);
    }

    #[test]
    fn options_and_text_are_read_in_question_order() {
        check(
            json!({"q1": "SQLite", "q2": ["Admin", "Auth"], "q3": "Falcon"}),
            Ok(vec![
                Answer::selected("Which database?", "SQLite"),
                Answer::multi("Which features?", vec!["Auth".into(), "Admin".into()], None),
                Answer::custom("Project name?", "Falcon"),
            ]),
        );
    }

    #[test]
    fn ticked_boxes_are_the_chosen_options_in_option_order() {
        check(
            json!({"q1": "SQLite", "q2_3": true, "q2_1": true, "q2_2": false, "q3": "x"}),
            Ok(vec![
                Answer::selected("Which database?", "SQLite"),
                Answer::multi("Which features?", vec!["Auth".into(), "Admin".into()], None),
                Answer::custom("Project name?", "x"),
            ]),
        );
        // No box ticked and no "Other": the question is open.
        check(
            json!({"q1": "SQLite", "q2_1": false, "q3": "x"}),
            Err(vec![1]),
        );
    }

    #[test]
    fn other_text_is_a_custom_answer() {
        check(
            json!({"q1": "SQLite", "q1_other": " MariaDB ", "q2_other": "Search", "q3": "x"}),
            Ok(vec![
                Answer::custom("Which database?", "MariaDB"),
                Answer::multi("Which features?", Vec::new(), Some("Search".into())),
                Answer::custom("Project name?", "x"),
            ]),
        );
    }

    #[test]
    fn blank_and_missing_fields_leave_the_question_open() {
        check(
            json!({"q1_other": "  ", "q2": [], "q3": ""}),
            Err(vec![0, 1, 2]),
        );
        check(Value::Null, Err(vec![0, 1, 2]));
    }

    #[test]
    fn declined_and_cancelled_replies_cancel() {
        let questions = questions();
        let form = Form::new(&questions);
        for action in ["decline", "cancel"] {
            let reply = serde_json::from_value(json!({"action": action})).unwrap();
            let mut rounds = RoundState::default();
            assert_eq!(
                form.step(&mut rounds, reply),
                Step::Done(Outcome::Cancelled),
                "{action}"
            );
        }
    }

    #[test]
    fn answers_of_earlier_rounds_are_kept_and_become_defaults() {
        let questions = questions();
        let form = Form::new(&questions);
        let mut rounds = RoundState::default();
        assert_eq!(
            form.step(&mut rounds, accept(json!({"q1": "SQLite", "q2": []}))),
            Step::Again(
                "Please answer every question; choose an option or type an answer for: \
                 \"Which features?\", \"Project name?\""
                    .to_string()
            )
        );
        // The second form shows the first answer as its field's default.
        let schema = form.schema(&rounds.given);
        assert_eq!(schema["properties"]["q1"]["default"], "SQLite");
        assert_eq!(schema["properties"]["q2_1"]["default"], false);
        // Answering only what was open completes the call; the first answer is not asked again.
        assert_eq!(
            form.step(
                &mut rounds,
                accept(json!({"q2": ["API"], "q2_other": "Search"}))
            ),
            Step::Again(
                "Please answer every question; choose an option or type an answer for: \
                 \"Project name?\""
                    .to_string()
            )
        );
        let schema = form.schema(&rounds.given);
        let ticked: Vec<&Value> = (1..=3)
            .map(|at| &schema["properties"][format!("q2_{at}")]["default"])
            .collect();
        assert_eq!(ticked, [&json!(false), &json!(true), &json!(false)]);
        assert_eq!(schema["properties"]["q2_other"]["default"], "Search");
        assert_eq!(
            form.step(&mut rounds, accept(json!({"q3": "Falcon"}))),
            Step::Done(Outcome::Answered(vec![
                Answer::selected("Which database?", "SQLite"),
                Answer::multi("Which features?", vec!["API".into()], Some("Search".into())),
                Answer::custom("Project name?", "Falcon"),
            ]))
        );
    }

    #[test]
    fn the_third_incomplete_form_gives_up_with_the_answers_so_far() {
        let questions = questions();
        let form = Form::new(&questions);
        let mut rounds = RoundState::default();
        let partial = json!({"q1_other": "MariaDB"});
        assert!(matches!(
            form.step(&mut rounds, accept(partial)),
            Step::Again(_)
        ));
        assert!(matches!(
            form.step(&mut rounds, accept(json!({}))),
            Step::Again(_)
        ));
        assert_eq!(
            form.step(&mut rounds, accept(json!({}))),
            Step::GiveUp(vec![
                Some(Answer::custom("Which database?", "MariaDB")),
                None,
                None
            ])
        );
        assert_eq!(rounds.incomplete, MAX_INCOMPLETE_ROUNDS);
    }

    #[test]
    fn request_state_round_trips_and_junk_starts_afresh() {
        let state = RoundState {
            incomplete: 2,
            sent_ms: Some(1_700_000_000_000),
            given: json!({"q1": "SQLite"}).as_object().unwrap().clone(),
        };
        assert_eq!(RoundState::read(&state.write()), state);
        assert_eq!(RoundState::read("not json"), RoundState::default());
    }

    #[test]
    fn only_a_first_form_declined_within_the_window_is_the_clients() {
        let decline: ElicitResult = serde_json::from_value(json!({"action": "decline"})).unwrap();
        let accept = accept(json!({}));
        let window = Duration::from_secs(60);
        let sent = RoundState {
            sent_ms: Some(now_ms()),
            ..RoundState::default()
        };
        assert!(sent.declined_at_once(&decline, window));
        assert!(!sent.declined_at_once(&accept, window));
        // Long ago, after an incomplete form, or with no time of sending: the person's.
        let long_ago = RoundState {
            sent_ms: Some(now_ms() - 120_000),
            ..RoundState::default()
        };
        assert!(!long_ago.declined_at_once(&decline, window));
        let later = RoundState {
            incomplete: 1,
            ..sent
        };
        assert!(!later.declined_at_once(&decline, window));
        assert!(!RoundState::default().declined_at_once(&decline, window));
    }

    #[test]
    fn fields_are_ordered_as_the_questions() {
        let questions = questions();
        assert_eq!(
            Form::new(&questions).order(),
            ["q1", "q1_other", "q2_1", "q2_2", "q2_3", "q2_other", "q3"]
        );
        assert_eq!(
            Form::for_client(&questions, Some("claude-code")).order(),
            ["q1", "q1_other", "q2", "q2_other", "q3"]
        );
        // For Codex the form ends on a choice, never on an optional text field.
        let codex = |questions| Form::for_client(questions, Some("codex-mcp-client")).order();
        assert_eq!(
            codex(&questions[..2]),
            [
                "q1",
                "q1_other",
                "q2_other",
                "q2_pick_1",
                "q2_pick_2",
                "q2_pick_3"
            ]
        );
        assert_eq!(codex(&questions[..1]), ["q1_other", "q1_pick"]);
        // Clients show the fields sorted by name (the wire keeps no other order): the names
        // sort in the order meant, also past nine options.
        let many: Vec<String> = (1..=12).map(|n| format!("Option {n}")).collect();
        let long = vec![
            Question::choice("Which?", many).multi(),
            questions[0].clone(),
        ];
        for order in [
            Form::new(&questions).order(),
            codex(&questions),
            codex(&questions[..2]),
            codex(&long),
            Form::new(&long).order(),
        ] {
            let mut sorted = order.clone();
            sorted.sort();
            assert_eq!(order, sorted);
        }
    }

    #[test]
    fn form_schema_with_defaults_is_accepted_as_an_elicitation_schema() {
        let questions = questions();
        let given = json!({"q1": "sqlite", "q2_3": true, "q3": "Falcon"});
        let schema: ElicitationSchema =
            serde_json::from_value(Form::new(&questions).schema(given.as_object().unwrap()))
                .unwrap();
        assert_eq!(schema.properties.len(), 7);
        // Only a free-text question's field is required; "Other" never is.
        assert_eq!(schema.required, Some(vec!["q3".to_string()]));
        let back = serde_json::to_value(&schema).unwrap();
        // The default is the label as written, whatever the case of the earlier reply.
        assert_eq!(back["properties"]["q1"]["default"], "SQLite");
        // A check box per option, titled with the question's header and the option's label.
        assert_eq!(
            back["properties"]["q2_3"],
            json!({"type": "boolean", "title": "Question 2: Admin",
                   "description": "Which features?", "default": true})
        );
        assert_eq!(back["properties"]["q2_1"]["default"], false);
        assert_eq!(back["properties"]["q3"]["default"], "Falcon");
        // A client known to draw a list of choices gets one.
        let given = json!({"q2": ["Admin"]});
        let lists = Form::for_client(&questions, Some("claude-code"));
        let schema: ElicitationSchema =
            serde_json::from_value(lists.schema(given.as_object().unwrap())).unwrap();
        let back = serde_json::to_value(&schema).unwrap();
        assert_eq!(back["properties"]["q2"]["type"], "array");
        assert_eq!(back["properties"]["q2"]["default"], json!(["Admin"]));
    }

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

//! The presenter chain: where a call goes (the client's form, its page by URL elicitation, a
//! fresh page, or a fallback the host gave), what takes it past the client's form, the tool
//! errors when nothing can reach the person, and the frontends of the routes that are the
//! server's own (`web` and `url`).

use std::sync::{Arc, Mutex as StdMutex, PoisonError};

use ask_core::{
    AskRequest, Capabilities, Frontend, Outcome, PresentError, Presenter, sanitize_for_display,
};
use async_trait::async_trait;
use rmcp::Peer;
use rmcp::model::{
    ClientCapabilities, ElicitRequestParams, ElicitationAction, ProgressNotificationParam,
    ProgressToken,
};
use rmcp::service::{RoleServer, ServiceError};
use serde_json::Value;

use crate::logging::Logs;
use crate::server::{McpServer, Page, PageError, Pages, UnspentLink};

/// What a call can reach besides the host's fallbacks.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Reach {
    /// The client draws a form (form elicitation).
    pub(crate) form: bool,
    /// The client sends the person to a page (URL elicitation), and the server has pages.
    pub(crate) url: bool,
    /// A question is secret.
    pub(crate) secret: bool,
}

/// A page for one call: the fixed one, borrowed, or a fresh one.
pub(crate) enum HeldPage<'a> {
    Borrowed(&'a dyn Frontend, String),
    Owned(Page),
}

impl HeldPage<'_> {
    pub(crate) fn frontend(&self) -> &dyn Frontend {
        match self {
            HeldPage::Borrowed(frontend, _) => *frontend,
            HeldPage::Owned(page) => page.frontend.as_ref(),
        }
    }

    pub(crate) fn link(&self) -> &str {
        match self {
            HeldPage::Borrowed(_, link) => link,
            HeldPage::Owned(page) => &page.link,
        }
    }

    /// What gives a link of this page that no browser has spent, when the page has one.
    pub(crate) fn unspent(&self) -> Option<UnspentLink> {
        match self {
            HeldPage::Borrowed(..) => None,
            HeldPage::Owned(page) => page.unspent.clone(),
        }
    }
}

impl McpServer {
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
    /// draws one (`reach.form`), its page by URL elicitation (`reach.url`), a fresh page when a person can be
    /// reached there, or a fallback the host gave. A secret question never goes into a form (the
    /// MCP specification forbids sensitive data in form elicitation) nor into the pending file
    /// (a secret never reaches the disk).
    pub(crate) fn route(&self, list: &[Presenter], reach: Reach) -> Option<Route<'_>> {
        list.iter().find_map(|presenter| match presenter {
            Presenter::Elicitation if reach.form && !reach.secret => Some(Route::Form),
            Presenter::Elicitation | Presenter::Url => reach.url.then_some(Route::Url),
            Presenter::File if reach.secret => None,
            Presenter::Web if self.web_reachable() => Some(Route::Web),
            other => self.usable(*other).map(Route::Fallback),
        })
    }

    /// The presenter that takes a call past the client's form (a form the client declined at
    /// once, or left incomplete too often): the first that can reach the person of those
    /// listed after `elicitation`; `web` is the call's `web` route, taken when that is the one.
    /// The form is only taken by a call without a secret question.
    pub(crate) fn after_form<'a>(&'a self, web: WebRoute<'a>) -> Option<Chosen<'a>> {
        let start = self
            .presenters
            .iter()
            .position(|p| *p == Presenter::Elicitation)
            .map_or(0, |at| at + 1);
        let reach = Reach {
            form: false,
            url: false,
            secret: false,
        };
        match self.route(&self.presenters[start..], reach)? {
            Route::Fallback(frontend) => Some(Chosen::Fallback(frontend)),
            Route::Web => Some(Chosen::Web(web)),
            Route::Form | Route::Url => None,
        }
    }

    /// The page of one call: the fixed one, or a fresh one with a new one-time link.
    pub(crate) async fn open_page(&self) -> Result<HeldPage<'_>, PageError> {
        match &self.pages {
            None => Err("no web page was configured".into()),
            Some(Pages::Fixed(frontend, link)) => {
                Ok(HeldPage::Borrowed(frontend.as_ref(), link.clone()))
            }
            Some(Pages::Fresh { open, .. }) => open().await.map(HeldPage::Owned),
        }
    }

    /// The tool error when a call with a secret question finds no presenter that may ask it.
    pub(crate) fn unreachable_secret(&self) -> String {
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
    pub(crate) fn unreachable(&self) -> String {
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
}

/// Where a call goes: the client's form, its page by URL elicitation, a fresh page, or a
/// presenter the host gave.
pub(crate) enum Route<'a> {
    Form,
    Url,
    Web,
    Fallback(&'a dyn Frontend),
}

/// The presenter that takes a call past the client's form.
pub(crate) enum Chosen<'a> {
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
#[derive(Clone)]
pub(crate) struct WebRoute<'a> {
    pub(crate) server: &'a McpServer,
    pub(crate) peer: Peer<RoleServer>,
    pub(crate) progress: Option<ProgressToken>,
    pub(crate) link: Link,
    /// The log messages the client of the call takes.
    pub(crate) logs: Logs,
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
            .map_err(|error| PresentError::Unasked(page_failed(&*error)))?;
        let link = page.link().to_string();
        let count = request.input.questions.len();
        let text = format!(
            "The agent asks you {count} {}: open {link} to answer (the link works in one browser).",
            if count == 1 { "question" } else { "questions" }
        );
        self.server
            .say("the questions wait on a web page; its link went to the client");
        log_to_client(&self.peer, self.logs, text).await;
        (self.server.announce)(&link);
        self.link.set(Announced {
            first: link.clone(),
            unspent: page.unspent(),
            with_first: true,
        });
        if let Some(token) = &self.progress {
            let note = ProgressNotificationParam::new(token.clone(), 0.0)
                .with_message(waiting_message(Some(&link)));
            let _ = self.peer.notify_progress(note).await;
        }
        page.frontend().present(request).await
    }
}

/// The link of the page a call waits on, once one was announced: set by the `web` and `url`
/// routes, read by the progress notifications of the call.
#[derive(Clone, Default)]
pub(crate) struct Link(Arc<StdMutex<Option<Announced>>>);

/// The page a call waits on, as its progress notifications give it to the person.
#[derive(Clone)]
pub(crate) struct Announced {
    /// The link the person was first sent.
    pub(crate) first: String,
    /// What gives a link no browser has spent: once a browser spent `first`, a fresh one, so
    /// that the person can always open the page again.
    pub(crate) unspent: Option<UnspentLink>,
    /// Whether the notifications carry `first` too (`web`, which has no other way to reach the
    /// person), or only the fresh links after it (`url`, whose client was sent `first`).
    pub(crate) with_first: bool,
}

impl Link {
    pub(crate) fn set(&self, announced: Announced) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = Some(announced);
    }

    /// The link for the next progress notification, if it carries one.
    pub(crate) fn get(&self) -> Option<String> {
        let announced = self
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()?;
        let link = match &announced.unspent {
            Some(unspent) => unspent()?,
            None => announced.first.clone(),
        };
        (announced.with_first || link != announced.first).then_some(link)
    }
}

/// The message of a progress notification while the person has not answered; it carries the
/// link of the page that waits for them, if one does.
pub(crate) fn waiting_message(link: Option<&str>) -> String {
    match link {
        Some(link) => format!("Waiting for the user to answer on the page {link}"),
        None => "Waiting for the user to answer".to_string(),
    }
}

/// Sends `text` to the client as an MCP log message at the level notice, when the client takes
/// that level (`logs`). Logging is deprecated in the newest protocol and still what clients of
/// the earlier ones show; a client that does not take it still gets the progress messages.
#[allow(deprecated)]
async fn log_to_client(peer: &Peer<RoleServer>, logs: Logs, text: String) {
    use rmcp::model::{LoggingLevel, LoggingMessageNotificationParam};
    if !logs.takes(LoggingLevel::Notice) {
        return;
    }
    let message = LoggingMessageNotificationParam::new(LoggingLevel::Notice, Value::String(text))
        .with_logger("ask-user");
    let _ = peer.notify_logging_message(message).await;
}

/// True when the client can show a form: it declared form elicitation, or elicitation without
/// naming a mode (which the protocol reads as form).
pub(crate) fn form_elicitation(capabilities: &ClientCapabilities) -> bool {
    capabilities
        .elicitation
        .as_ref()
        .is_some_and(|elicitation| elicitation.form.is_some() || elicitation.url.is_none())
}

/// True when the client can send the person to a page (URL-mode elicitation).
pub(crate) fn url_elicitation(capabilities: &ClientCapabilities) -> bool {
    capabilities
        .elicitation
        .as_ref()
        .is_some_and(|elicitation| elicitation.url.is_some())
}

/// Sends the person to a page by URL-mode elicitation while `page` serves it: the page's
/// outcome is the call's; a client that declines or cancels the elicitation cancels the call.
pub(crate) struct UrlFrontend<'a> {
    pub(crate) peer: Peer<RoleServer>,
    pub(crate) page: &'a dyn Frontend,
    pub(crate) link: String,
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

/// The tool error when no page could be opened for the person.
pub(crate) fn page_failed(error: &(dyn std::error::Error + Send + Sync)) -> String {
    format!(
        "The questions could not be shown to the user: the web page could not be opened: {}",
        sanitize_for_display(&error.to_string())
    )
}

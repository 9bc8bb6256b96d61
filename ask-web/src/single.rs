//! `ask-user --mode web`: one page for the asks of one process.

use std::net::SocketAddr;
use std::sync::Arc;

use ask_core::{BoxError, Frontend, Outcome, PresentError, Presenter};
use async_trait::async_trait;
use tokio_util::sync::CancellationToken;

use crate::board::AskView;
use crate::listen::{self, Bounds, Served};
use crate::shared::{Setup, Shared};
use crate::{AbortOnDrop, AgentWatch, LINGER, Links, WebError};

/// The web presenter: one local page that shows each ask it is given.
#[derive(Debug)]
pub struct WebFrontend {
    listener: std::net::TcpListener,
    addr: SocketAddr,
    shared: Arc<Shared>,
    link: String,
    watch: Option<AgentWatch>,
}

impl WebFrontend {
    /// Binds `addr` (use port 0 for any free port) and makes the one-time link.
    pub fn bind(addr: SocketAddr) -> Result<WebFrontend, WebError> {
        let (listener, bound) = crate::bind_listener(addr)?;
        // A browser that spent the link may open it again, in a new tab, while the ask waits.
        let setup = Setup {
            reopen: true,
            ..Setup::default()
        };
        let shared = Shared::new(bound, setup)?;
        let link = shared.link();
        Ok(WebFrontend {
            listener,
            addr: bound,
            shared: Arc::new(shared),
            link,
            watch: None,
        })
    }

    /// Ends each ask as connection lost as soon as `watch` finds the agent gone (and refuses
    /// an answer given after that), instead of telling the person that it was sent.
    pub fn watching(mut self, watch: AgentWatch) -> WebFrontend {
        self.watch = Some(watch);
        self
    }

    /// Speaks `lang` on the page whatever the browser prefers; `None` (the default) follows each
    /// browser's `Accept-Language`.
    pub fn speaking(self, lang: Option<ask_core::lang::Lang>) -> WebFrontend {
        self.shared.lock().lang = lang;
        self
    }

    /// The one-time link to the page, to give the person.
    pub fn link(&self) -> &str {
        &self.link
    }

    /// What makes fresh one-time links for this page.
    pub fn links(&self) -> Links {
        Links(Arc::clone(&self.shared))
    }

    /// The address the page listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Every address of the page (the page, its API, the link) on this presenter's state, with
    /// every check: what [`Frontend::present`] serves, for a host that serves it on a listener
    /// of its own or drives it in process.
    pub fn router(&self) -> axum::Router {
        crate::router(&self.shared, crate::inbox::routes(&self.shared))
    }
}

#[async_trait]
impl Frontend for WebFrontend {
    fn presenter(&self) -> Presenter {
        Presenter::Web
    }

    async fn present(&self, request: &ask_core::AskRequest) -> Result<Outcome, PresentError> {
        self.serve_one(request).await.map_err(PresentError::Failed)
    }
}

impl WebFrontend {
    /// Serves the page until the person answers or cancels the one ask of `request`, or its
    /// agent goes away.
    async fn serve_one(&self, request: &ask_core::AskRequest) -> Result<Outcome, BoxError> {
        let listener = tokio::net::TcpListener::from_std(self.listener.try_clone()?)?;
        // The page names asks `ask-1`, `ask-2`, … in the order they came: an MCP session that
        // asks again gets a new id, never one of an earlier ask.
        let request_id = self.shared.next_id();
        let (delivered, _) = self
            .shared
            .open(
                AskView::waiting(
                    request_id.clone(),
                    request.input.questions.clone(),
                    &request.given,
                ),
                crate::shared::Opening::default(),
            )
            .map_err(|_| "the questions are larger than the page can hold")?;
        let app = self.router();
        let stop = CancellationToken::new();
        let served = Served {
            router: app,
            socket: None,
            bounds: Bounds::default(),
            linger: LINGER,
            tls: None,
        };
        let mut server = tokio::spawn(listen::serve(listener, served, stop.clone()));
        // Stops the server when this future ends or is dropped.
        let _guard = AbortOnDrop(server.abort_handle());
        let gone = async {
            match &self.watch {
                Some(watch) => watch.gone().await,
                None => std::future::pending().await,
            }
        };
        let outcome = tokio::select! {
            delivery = delivered => match delivery {
                // The answer counts as sent only while the agent is still there to take it.
                Ok(delivery) if self.watch.as_ref().is_none_or(AgentWatch::is_there) => {
                    // The pages see the ask end before they see the server close.
                    let state = ask_core::WireState::of(&delivery.outcome);
                    self.shared.remove(&request_id);
                    self.shared.set_state(&request_id, state);
                    let _ = delivery.receipt.send(());
                    delivery.outcome
                }
                _ => {
                    self.shared.lost(&request_id);
                    Outcome::ConnectionLost
                }
            },
            () = gone => {
                self.shared.lost(&request_id);
                Outcome::ConnectionLost
            }
            served = &mut server => {
                return Err(Box::new(WebError::Serve(match served {
                    Ok(Err(error)) => error,
                    Ok(Ok(())) => std::io::Error::other("the server stopped"),
                    Err(join) => std::io::Error::other(join),
                })));
            }
        };
        // Open pages see the final state and their streams end; the server then stops,
        // waiting at most `LINGER` for them.
        self.shared.board.close();
        stop.cancel();
        let _ = tokio::time::timeout(LINGER, &mut server).await;
        Ok(outcome)
    }
}

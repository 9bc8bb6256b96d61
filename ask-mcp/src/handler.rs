//! The handler: a `tools/call` in, a tool result out. [`McpServer`]'s `ServerHandler`
//! validates a call, refuses it for a sub-agent, picks its route in the presenter chain, and runs
//! the ask through the route's frontend ([`Call::run`]), sending progress while it waits; the
//! record becomes the tool result. A call answered by the client's form goes through the one form
//! stepper (`rounds`), wired to the client in `elicit`.

use std::sync::PoisonError;
use std::sync::atomic::Ordering;

use ask_core::{
    AskCall, Frontend, PresentError, Problem, ProblemKind, Record, Status, ToolOutput,
    ValidatedInput,
};
use ask_session::{Ask, AskFailure, Finished};
#[allow(deprecated)]
use rmcp::model::SetLevelRequestParams;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, DiscoverResult,
    Implementation, ListToolsResult, PaginatedRequestParams, ProgressNotificationParam,
    ProgressToken, ProtocolVersion, ServerCapabilities, ServerConfig, SetLevelRequestMethod,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler};
use serde_json::Value;

use crate::disconnect::UntilDisconnect;
use crate::elicit::{ElicitationFrontend, InRounds};
use crate::logging::{Logs, per_request};
use crate::route::{
    Announced, Link, Reach, Route, UrlFrontend, WebRoute, form_elicitation, page_failed,
    url_elicitation, waiting_message,
};
use crate::server::McpServer;

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

    /// `server/discover` (2026-07-28 and later): what the server is, as `get_info` says, noted
    /// so that a client that leaves after it has closed the connection rather than failed to
    /// start a session.
    async fn discover(
        &self,
        _context: RequestContext<RoleServer>,
    ) -> Result<DiscoverResult, ErrorData> {
        self.discovered.store(true, Ordering::SeqCst);
        Ok(DiscoverResult::from_server_info(
            self.supported_protocol_versions().into_owned(),
            self.get_info(),
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
        Ok(self.answer(request, &context).await)
    }

    /// `logging/setLevel`, which exists only before 2026-07-28: the level holds for the rest of
    /// the session. A later request names its level in its own `_meta` instead.
    #[allow(deprecated)]
    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        if per_request(&context) {
            return Err(ErrorData::method_not_found::<SetLevelRequestMethod>());
        }
        self.log_level.set(request.level);
        Ok(())
    }
}

/// The result of a finished ask: the text for the model and the structured result, whose
/// `message` repeats the text's guidance for clients that show the model only structured content.
fn tool_result(record: Record) -> CallToolResult {
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

impl McpServer {
    /// A sentence for the model that names the tool `ask_user`, naming it as served instead
    /// (`--tool-name`), so that the model never looks for another tool of that name.
    fn as_served(&self, text: &str) -> String {
        text.replacen("ask_user", &self.tool.name, 1)
    }

    /// Answers one `tools/call` of `ask_user`.
    ///
    /// Every call shown to the person ends through [`ask_session::Ask`], a form's last round
    /// too (its outcome already known), so its record and its tool result are made as on every
    /// other way in. A sub-agent's call is refused here before it is read, with the same
    /// [`ToolOutput::refused`] that `Ask` gives; a call that is invalid, or that no presenter
    /// can reach, ends in a tool error and leaves no record.
    async fn answer(
        &self,
        request: CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> CallToolResponse {
        if self.sub_agent {
            self.say("refused a call: the server was started for a sub-agent");
            return error_result(self.as_served(&ToolOutput::refused().content)).into();
        }
        let arguments = Value::Object(request.arguments.clone().unwrap_or_default());
        let parsed = match self.repeated_keys.take(&context.id) {
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
                return error_result(self.as_served(&ToolOutput::invalid(&problems).content))
                    .into();
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
        let call = Call {
            server: self,
            context,
            progress,
            link: Link::default(),
        };
        let reach = Reach { form, url, secret };
        let page;
        let (elicitation, url_frontend, web_route);
        let frontend: &dyn Frontend = match self.route(&self.presenters, reach) {
            None if secret => return error_result(self.unreachable_secret()).into(),
            None => return error_result(self.unreachable()).into(),
            Some(Route::Fallback(fallback)) => fallback,
            Some(Route::Form) if stateless => return call.in_rounds(input, &request).await,
            Some(Route::Form) => {
                elicitation = call.form();
                &elicitation
            }
            Some(Route::Url) => {
                page = match self.open_page().await {
                    Ok(page) => page,
                    Err(error) => return error_result(page_failed(&*error)).into(),
                };
                url_frontend = UrlFrontend {
                    peer: context.peer.clone(),
                    page: page.frontend(),
                    link: page.link().to_string(),
                };
                call.link.set(Announced {
                    first: page.link().to_string(),
                    unspent: page.unspent(),
                    with_first: false,
                });
                &url_frontend
            }
            Some(Route::Web) => {
                web_route = call.web();
                &web_route
            }
        };
        call.run(&call.until_disconnect(frontend), input)
            .await
            .into()
    }
}

/// One `tools/call` being answered: what each of its steps needs. The presenters of the call get
/// what they need of it as values when they are built, so that none calls back into the handler.
struct Call<'a> {
    server: &'a McpServer,
    context: &'a RequestContext<RoleServer>,
    /// The client's progress token, when it gave one.
    progress: Option<ProgressToken>,
    /// The link of the page the call waits on, once one was announced.
    link: Link,
}

impl<'a> Call<'a> {
    /// The client's `clientInfo.name`.
    fn client(&self) -> Option<String> {
        self.context.client_info().map(|info| info.name)
    }

    /// The `web` presenter of this call.
    fn web(&self) -> WebRoute<'a> {
        WebRoute {
            server: self.server,
            peer: self.context.peer.clone(),
            progress: self.progress.clone(),
            link: self.link.clone(),
            logs: Logs::of(self.context, &self.server.log_level),
        }
    }

    /// The client's form for this call, with all it needs of the call.
    fn form(&self) -> ElicitationFrontend<'a> {
        ElicitationFrontend {
            server: self.server,
            client: self.client(),
            peer: self.context.peer.clone(),
            web: self.web(),
        }
    }

    /// Answers a call through the client's form on a protocol where the server sends no
    /// requests of its own (2026-07-28 and later): the form's stateless driver says whether
    /// the client is asked for input again or the ask ends, and how.
    async fn in_rounds(
        &self,
        input: ValidatedInput,
        request: &CallToolRequestParams,
    ) -> CallToolResponse {
        let form = self.form();
        match form.in_rounds(&input.input().questions, request) {
            InRounds::Ask(result) => result.into(),
            InRounds::Replied(replied) => self.run(&replied, input).await.into(),
            InRounds::PastForm(next, given) => {
                let next = ask_core::Given {
                    inner: &next,
                    given,
                };
                self.run(&self.until_disconnect(&next), input).await.into()
            }
            InRounds::Failed(text) => error_result(text).into(),
        }
    }

    /// `inner`, ending as connection lost when the client withdraws the call or goes away.
    fn until_disconnect<'f>(&self, inner: &'f dyn Frontend) -> UntilDisconnect<'f> {
        UntilDisconnect {
            inner,
            withdrawn: self.context.ct.clone(),
            gone: self.server.gone.clone(),
        }
    }

    /// Runs one ask through `frontend`, sending progress every few seconds while it waits when
    /// the client gave a progress token.
    async fn run(&self, frontend: &dyn Frontend, input: ValidatedInput) -> CallToolResult {
        let ask = self.result_of(frontend, input);
        let Some(token) = &self.progress else {
            return ask.await;
        };
        tokio::pin!(ask);
        let every = self.server.progress_every;
        let start = tokio::time::Instant::now() + every;
        let mut ticks = tokio::time::interval_at(start, every);
        let mut sent: u32 = 0;
        loop {
            tokio::select! {
                result = &mut ask => return result,
                _ = ticks.tick() => {
                    sent = sent.saturating_add(1);
                    let message = waiting_message(self.link.get().as_deref());
                    let note = ProgressNotificationParam::new(token.clone(), f64::from(sent))
                        .with_message(message);
                    // A client that cannot take the notification still gets its result.
                    let _ = self.context.peer.notify_progress(note).await;
                }
            }
        }
    }

    /// Runs one ask through `frontend`, logs how it ended and gives the tool result; a
    /// pending result speaks to the model of the client that called.
    async fn result_of(&self, frontend: &dyn Frontend, input: ValidatedInput) -> CallToolResult {
        let server = self.server;
        match Ask::new(AskCall::new(input)).run(frontend).await {
            Ok(Finished { mut record, .. }) => {
                if let (Some(words), Some(file)) = (&server.pending_words, &record.pending_file) {
                    let client = self.client();
                    let count = record.questions.len();
                    record.pending_instructions = Some(words(client.as_deref(), file, count));
                }
                match record.status {
                    Status::ConnectionLost => server.say("the client went away before an answer"),
                    Status::Cancelled => server.say("the questions were cancelled"),
                    Status::Pending => server.say(&format!(
                        "the questions wait in {}",
                        record.pending_file.as_deref().unwrap_or("the pending file")
                    )),
                    Status::Answered => {}
                }
                tool_result(record)
            }
            Err(error) => {
                server.say(&error.to_string());
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
                        *server
                            .stopped_by
                            .lock()
                            .unwrap_or_else(PoisonError::into_inner) = Some(signal);
                        server.stop.cancel();
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

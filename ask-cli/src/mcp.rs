//! `ask-user mcp`: the `ask_user` tool served to a Model Context Protocol client over stdio.
//!
//! A call is validated like the ask command's input, refused for a sub-agent, and then shown to
//! the person in the first way that works: an elicitation form in the client when the client
//! declared form elicitation, else the terminal UI on the controlling terminal, else the pending
//! file, whose instructions the model relays.
//! On the stateless protocol (2026-07-28 and later) the form goes back to the client as an
//! input-required result, and the retried call carries the person's reply.
//! stdin and stdout carry only MCP messages; everything for people goes to stderr.

use std::ffi::OsString;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicI32, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use ask_core::{
    Answer, AnswerValue, AskCall, AskError, AskRequest, BoxError, Caller, Frontend,
    Mode as RecordMode, Outcome, Question, Record, StateMachine, Status, ToolOutput,
    ValidatedInput,
};
use ask_tui::TuiError;
use async_trait::async_trait;
use clap::{Args, FromArgMatches};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientCapabilities, ContentBlock,
    ElicitRequest, ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationSchema,
    Implementation, InputRequest, InputRequests, InputRequiredResult, InputResponses,
    ListToolsResult, PaginatedRequestParams, ProtocolVersion, ServerCapabilities, ServerConfig,
    Tool,
};
use rmcp::service::{RequestContext, RoleServer, ServiceError};
use rmcp::{ErrorData as McpError, Peer, ServerHandler, ServiceExt};
use serde_json::{Map, Value, json};
use tokio::io::{AsyncRead, ReadBuf};
use tokio::sync::Mutex;
use tokio_util::sync::CancellationToken;

use crate::ask::{frontend_for, resolve_mode};
use crate::cli::{AskArgs, McpArgs, ModeArg};
use crate::exit::Exit;
use crate::output::say;

/// Runs `ask-user mcp` until the client closes the connection.
pub fn run(args: &McpArgs) -> Exit {
    let ask_args = match ask_args(args) {
        Ok(ask_args) => ask_args,
        Err(error) => {
            say(&format!("cannot prepare the ask settings: {error}"));
            return Exit::Failure;
        }
    };
    let server = match AskServer::new(ask_args) {
        Ok(server) => server,
        Err(error) => {
            say(&format!(
                "cannot build the ask_user tool descriptor: {error}"
            ));
            return Exit::Failure;
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            say(&format!("cannot start the async runtime: {error}"));
            return Exit::Failure;
        }
    };
    let exit = runtime.block_on(serve(server));
    // Anything still running after the session ended (a client request being answered) is
    // given half a second; a terminal UI has already been withdrawn and the terminal restored.
    runtime.shutdown_timeout(Duration::from_millis(500));
    exit
}

/// Serves one client on stdin and stdout.
async fn serve(server: AskServer) -> Exit {
    let turn = Arc::clone(&server.turn);
    let signalled = server.signalled.clone();
    let stdin = WatchedInput {
        inner: tokio::io::stdin(),
        closed: server.gone.clone(),
    };
    let service = match server.serve((stdin, tokio::io::stdout())).await {
        Ok(service) => service,
        Err(error) => {
            say(&format!("the MCP client did not start a session: {error}"));
            return Exit::Failure;
        }
    };
    let quit = tokio::select! {
        quit = service.waiting() => quit,
        // The terminal UI was ended by a signal and has restored the terminal: the server ends
        // as the signal asked, and the session with it.
        () = signalled.token.cancelled() => {
            // No call takes the terminal after this (see `call`); wait for the one showing it to
            // end, so that the terminal is restored before the process exits.
            let _ = tokio::time::timeout(Duration::from_secs(2), turn.lock()).await;
            return signalled.exit();
        }
    };
    // A call still being shown has been told that its client left; give it a moment to end as
    // connection lost, which also restores the terminal, before the process exits.
    let _ = tokio::time::timeout(Duration::from_secs(2), turn.lock()).await;
    match quit {
        Ok(_) => Exit::Ok,
        Err(error) => {
            say(&format!("the MCP session failed: {error}"));
            Exit::Failure
        }
    }
}

/// The ask flags the terminal UI and print mode are built from: their defaults, with the pending
/// file, the sub-agent flag and the limits of `ask-user mcp`.
fn ask_args(args: &McpArgs) -> Result<AskArgs, clap::Error> {
    let mut argv: Vec<OsString> = vec![
        "ask-user".into(),
        "--pending-file".into(),
        args.pending_file.clone().into_os_string(),
    ];
    if args.sub_agent {
        argv.push("--sub-agent".into());
    }
    if args.no_notify {
        argv.push("--no-notify".into());
    }
    if let Some(n) = args.limits.max_questions {
        argv.extend(["--max-questions".into(), n.to_string().into()]);
    }
    if let Some(n) = args.limits.max_options {
        argv.extend(["--max-options".into(), n.to_string().into()]);
    }
    let command = AskArgs::augment_args(clap::Command::new("ask-user"));
    AskArgs::from_arg_matches(&command.try_get_matches_from(argv)?)
}

/// The MCP server: one tool, `ask_user`.
#[derive(Debug)]
struct AskServer {
    /// The settings of the terminal UI and print mode.
    ask_args: AskArgs,
    /// The tool as `tools/list` gives it.
    tool: Tool,
    /// Held while a call is shown, so that the person sees one set of questions at a time.
    turn: Arc<Mutex<()>>,
    /// Cancelled when stdin ends: the client closed the connection.
    gone: CancellationToken,
    /// Set when a signal (SIGTERM, SIGHUP, SIGINT) ended the terminal UI.
    signalled: Signalled,
}

/// The signal that ended the terminal UI, which ends the server too: while the UI is up the
/// signals only set a flag, so that the terminal is restored first.
#[derive(Debug, Clone, Default)]
struct Signalled {
    token: CancellationToken,
    number: Arc<AtomicI32>,
}

impl Signalled {
    fn set(&self, number: i32) {
        self.number.store(number, Ordering::SeqCst);
        self.token.cancel();
    }

    fn exit(&self) -> Exit {
        Exit::for_signal(self.number.load(Ordering::SeqCst))
    }
}

impl AskServer {
    fn new(ask_args: AskArgs) -> Result<AskServer, serde_json::Error> {
        let limits = ask_args.limits.limits();
        let descriptor = ask_schema::tool_descriptor(ask_schema::ToolFormat::Mcp, &limits);
        let tool = serde_json::from_value(descriptor)?;
        Ok(AskServer {
            ask_args,
            tool,
            turn: Arc::new(Mutex::new(())),
            gone: CancellationToken::new(),
            signalled: Signalled::default(),
        })
    }

    /// Answers one `tools/call` of `ask_user`.
    async fn call(
        &self,
        request: CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> CallToolResponse {
        if self.ask_args.is_sub_agent() {
            say("refused a call: the server was started for a sub-agent");
            return error_result(ToolOutput::refused().content).into();
        }
        let limits = self.ask_args.limits.limits();
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        let input = match ask_schema::parse(&arguments, &limits) {
            Ok(input) => input,
            Err(problems) => {
                crate::say_invalid(&problems);
                return error_result(ToolOutput::invalid(&problems).content).into();
            }
        };
        let form = context
            .client_capabilities()
            .is_some_and(|capabilities| form_elicitation(&capabilities));
        let stateless = context
            .protocol_version()
            .is_some_and(|version| version >= ProtocolVersion::V_2026_07_28);
        if form && stateless {
            return self
                .in_rounds(input, request.input_responses.as_ref())
                .await;
        }
        let _turn = self.turn.lock().await;
        if self.signalled.token.is_cancelled() {
            return error_result(
                "The user was not asked: the ask-user server is stopping.".to_string(),
            )
            .into();
        }
        let frontend: Box<dyn Frontend> = if form {
            Box::new(ElicitationFrontend {
                peer: context.peer.clone(),
            })
        } else {
            match frontend_for(resolve_mode(ModeArg::Auto), &self.ask_args, None) {
                Ok(frontend) => frontend,
                Err(_) => {
                    return error_result(
                        "The questions could not be shown to the user: no way to reach the user \
                         works on this machine. The server's log says why."
                            .to_string(),
                    )
                    .into();
                }
            }
        };
        let frontend = UntilDisconnect {
            inner: frontend,
            withdrawn: context.ct.clone(),
            gone: self.gone.clone(),
        };
        settle(&frontend, input, &self.signalled).await.into()
    }

    /// Asks through the client's form on a protocol where the server sends no requests of its
    /// own (2026-07-28 and later): the result asks the client for input, and the client calls
    /// again with the person's reply to the form.
    async fn in_rounds(
        &self,
        input: ValidatedInput,
        responses: Option<&InputResponses>,
    ) -> CallToolResponse {
        let questions = input.questions.clone();
        let form = Form::new(&questions);
        let message = match responses.and_then(|responses| responses.get(FORM_REQUEST)) {
            None => form.message(),
            Some(reply) => match serde_json::from_value::<ElicitResult>(reply.clone()) {
                Ok(reply) => match form.reply(reply) {
                    Ok(outcome) => {
                        return settle(&Settled(outcome), input, &self.signalled)
                            .await
                            .into();
                    }
                    Err(again) => again,
                },
                Err(error) => {
                    return error_result(format!(
                        "The client's reply to the questions form could not be read: {error}"
                    ))
                    .into();
                }
            },
        };
        match form.request(message) {
            Ok(params) => {
                let request = InputRequest::Elicitation(ElicitRequest::new(params));
                let requests = InputRequests::from([(FORM_REQUEST.to_string(), request)]);
                InputRequiredResult::from_input_requests(requests).into()
            }
            Err(error) => error_result(format!(
                "The questions form could not be built for the client: {error}"
            ))
            .into(),
        }
    }
}

/// The key of the form in the input requests of a stateless round.
const FORM_REQUEST: &str = "ask_user";

/// True when the client can show a form: it declared form elicitation, or elicitation without
/// naming a mode (which the protocol reads as form).
fn form_elicitation(capabilities: &ClientCapabilities) -> bool {
    capabilities
        .elicitation
        .as_ref()
        .is_some_and(|elicitation| elicitation.form.is_some() || elicitation.url.is_none())
}

/// Runs one ask through `frontend`, logs how it ended and gives the tool result.
async fn settle(
    frontend: &dyn Frontend,
    input: ValidatedInput,
    signalled: &Signalled,
) -> CallToolResult {
    let call = AskCall {
        call_id: None,
        caller: Caller::Parent,
        input,
    };
    let mut machine = StateMachine::new();
    match ask_core::ask(frontend, call, &mut machine).await {
        Ok(record) => {
            match record.status {
                Status::ConnectionLost => say("the client went away before an answer"),
                Status::Cancelled => say("the questions were cancelled"),
                Status::Pending => say(&format!(
                    "the questions wait in {}",
                    record.pending_file.as_deref().unwrap_or("the pending file")
                )),
                Status::Answered => {}
            }
            finished(record)
        }
        Err(error) => {
            say(&error.to_string());
            let tui = match &error {
                AskError::Frontend { source, .. } => source.downcast_ref::<TuiError>(),
                _ => None,
            };
            match tui {
                Some(TuiError::Signal { number, name }) => {
                    signalled.set(*number);
                    error_result(format!(
                        "The user was not asked: the ask-user server was stopped by {name}."
                    ))
                }
                Some(TuiError::Aborted) => error_result(
                    "The user interrupted the questions with Ctrl+C twice; nothing was answered."
                        .to_string(),
                ),
                _ => error_result(format!(
                    "The questions could not be shown to the user: {error}"
                )),
            }
        }
    }
}

impl ServerHandler for AskServer {
    fn get_info(&self) -> ServerConfig {
        let mut info = Implementation::new("ask-user", env!("CARGO_PKG_VERSION"));
        info.title = Some("Ask the user".to_string());
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(info)
            .with_instructions(
                "Call ask_user when you need the user's decision or clarification; the user \
                 answers structured questions and the answers come back as the tool result.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(vec![self.tool.clone()]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        if request.name != ask_schema::TOOL_NAME {
            return Err(McpError::invalid_params(
                format!(
                    "unknown tool `{}`; this server has only `{}`",
                    request.name,
                    ask_schema::TOOL_NAME
                ),
                None,
            ));
        }
        Ok(self.call(request, &context).await)
    }
}

/// The result of a finished ask: the text for the model and the structured result.
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
struct UntilDisconnect {
    inner: Box<dyn Frontend>,
    /// Cancelled when the client withdraws the call, or once the session has ended.
    withdrawn: CancellationToken,
    /// Cancelled as soon as stdin ends.
    gone: CancellationToken,
}

#[async_trait]
impl Frontend for UntilDisconnect {
    fn mode(&self) -> RecordMode {
        self.inner.mode()
    }

    async fn present(&self, request: &AskRequest) -> Result<Outcome, BoxError> {
        tokio::select! {
            outcome = self.inner.present(request) => outcome,
            () = self.withdrawn.cancelled() => Ok(Outcome::ConnectionLost),
            () = self.gone.cancelled() => Ok(Outcome::ConnectionLost),
        }
    }
}

/// stdin, watched for its end, which tells a question being shown that nobody will read the
/// answer: the session itself only ends after in-flight calls have had a while to finish.
struct WatchedInput<R> {
    inner: R,
    closed: CancellationToken,
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
        }
        poll
    }
}

/// A frontend whose outcome is already known: the reply to a form sent in an earlier round.
struct Settled(Outcome);

#[async_trait]
impl Frontend for Settled {
    fn mode(&self) -> RecordMode {
        RecordMode::Rpc
    }

    async fn present(&self, _request: &AskRequest) -> Result<Outcome, BoxError> {
        Ok(self.0.clone())
    }
}

/// Shows the questions as a form in the MCP client (elicitation in form mode).
struct ElicitationFrontend {
    peer: Peer<RoleServer>,
}

#[async_trait]
impl Frontend for ElicitationFrontend {
    fn mode(&self) -> RecordMode {
        RecordMode::Rpc
    }

    async fn present(&self, request: &AskRequest) -> Result<Outcome, BoxError> {
        let form = Form::new(&request.input.questions);
        let mut message = form.message();
        loop {
            let reply = match self.peer.create_elicitation(form.request(message)?).await {
                Ok(reply) => reply,
                Err(ServiceError::TransportClosed | ServiceError::TransportSend(_)) => {
                    return Ok(Outcome::ConnectionLost);
                }
                Err(ServiceError::Cancelled { .. }) => return Ok(Outcome::ConnectionLost),
                Err(error) => return Err(Box::new(error)),
            };
            match form.reply(reply) {
                Ok(outcome) => return Ok(outcome),
                Err(again) => message = again,
            }
        }
    }
}

/// The elicitation form for a call: one field per question, plus an "Other" text field for each
/// question with options.
#[derive(Debug)]
struct Form<'a> {
    questions: &'a [Question],
}

impl<'a> Form<'a> {
    fn new(questions: &'a [Question]) -> Form<'a> {
        Form { questions }
    }

    /// The field of question `index` (counted from 0).
    fn key(index: usize) -> String {
        format!("q{}", index + 1)
    }

    /// The "Other" field of question `index`.
    fn other_key(index: usize) -> String {
        format!("q{}_other", index + 1)
    }

    /// The field names in the order the person reads them.
    fn order(&self) -> Vec<String> {
        let mut order = Vec::new();
        for (index, question) in self.questions.iter().enumerate() {
            order.push(Form::key(index));
            if !question.is_free_text() {
                order.push(Form::other_key(index));
            }
        }
        order
    }

    /// The requested schema: a flat object of primitive fields, as elicitation requires.
    fn schema(&self) -> Value {
        let mut properties = Map::new();
        let mut required = Vec::new();
        for (index, question) in self.questions.iter().enumerate() {
            let title = question
                .header
                .clone()
                .unwrap_or_else(|| format!("Question {}", index + 1));
            if question.is_free_text() {
                properties.insert(
                    Form::key(index),
                    json!({"type": "string", "title": title, "description": question.question}),
                );
                required.push(Value::String(Form::key(index)));
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
            let field = if question.multi_select {
                json!({"type": "array", "title": title, "description": question.question,
                       "items": {"anyOf": choices}})
            } else {
                json!({"type": "string", "title": title, "description": question.question,
                       "oneOf": choices})
            };
            properties.insert(Form::key(index), field);
            properties.insert(
                Form::other_key(index),
                json!({"type": "string", "title": format!("{title}: Other (type your answer)"),
                       "description": format!("Type your own answer instead of choosing: {}",
                                              question.question)}),
            );
        }
        let mut schema = json!({"type": "object", "properties": properties});
        if !required.is_empty() {
            schema["required"] = Value::Array(required);
        }
        schema
    }

    /// The elicitation request showing this form under `message`.
    fn request(&self, message: String) -> Result<ElicitRequestParams, serde_json::Error> {
        let mut schema: ElicitationSchema = serde_json::from_value(self.schema())?;
        schema.property_order = Some(self.order());
        Ok(ElicitRequestParams::FormElicitationParams {
            meta: None,
            message,
            requested_schema: schema,
        })
    }

    /// How the person's reply ends the ask, or the message to show the form again with when a
    /// question was left open.
    fn reply(&self, reply: ElicitResult) -> Result<Outcome, String> {
        match reply.action {
            ElicitationAction::Accept => {
                let content = reply.content.unwrap_or(Value::Null);
                match self.read(&content) {
                    Ok(answers) => Ok(Outcome::Answered(answers)),
                    Err(missing) => Err(self.again(&missing)),
                }
            }
            // Decline and cancel, and any answer a later protocol adds, discard everything.
            _ => Ok(Outcome::Cancelled),
        }
    }

    /// The message shown above the form.
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

    /// The answers in an accepted form, or the indices of the questions left unanswered.
    fn read(&self, content: &Value) -> Result<Vec<Answer>, Vec<usize>> {
        let mut answers = Vec::new();
        let mut missing = Vec::new();
        for (index, question) in self.questions.iter().enumerate() {
            match read_one(question, content, index) {
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
}

/// The answer to `question` in the form `content`, if the person gave one. An empty field is no
/// answer, as in every mode (`AnswerValue::is_empty`).
fn read_one(question: &Question, content: &Value, index: usize) -> Option<Answer> {
    let given = |text: String| Answer::from_value(question, &AnswerValue::Text(text));
    let text = |key: String| {
        content
            .get(key)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|text| !text.is_empty())
            .map(str::to_string)
    };
    let other = text(Form::other_key(index));
    if question.is_free_text() {
        return text(Form::key(index)).and_then(given);
    }
    if question.multi_select {
        let mut chosen = vec![false; question.options().len()];
        let picked = content.get(Form::key(index)).and_then(Value::as_array);
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
    text(Form::key(index)).and_then(given)
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
    fn declined_and_cancelled_replies_cancel_and_an_open_question_asks_again() {
        let questions = questions();
        let form = Form::new(&questions);
        for action in ["decline", "cancel"] {
            let reply = serde_json::from_value(json!({"action": action})).unwrap();
            assert_eq!(form.reply(reply), Ok(Outcome::Cancelled), "{action}");
        }
        let reply =
            serde_json::from_value(json!({"action": "accept", "content": {"q1": "SQLite"}}))
                .unwrap();
        assert_eq!(
            form.reply(reply),
            Err(
                "Please answer every question; choose an option or type an answer for: \
                 \"Which features?\", \"Project name?\""
                    .to_string()
            )
        );
    }

    #[test]
    fn fields_are_ordered_as_the_questions() {
        let questions = questions();
        assert_eq!(
            Form::new(&questions).order(),
            ["q1", "q1_other", "q2", "q2_other", "q3"]
        );
    }

    #[test]
    fn form_schema_is_accepted_as_an_elicitation_schema() {
        let questions = questions();
        let schema: ElicitationSchema =
            serde_json::from_value(Form::new(&questions).schema()).unwrap();
        assert_eq!(schema.properties.len(), 5);
        assert_eq!(schema.required, Some(vec!["q3".to_string()]));
    }
}

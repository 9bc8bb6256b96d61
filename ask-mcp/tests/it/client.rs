//! The MCP server as a client sees it: rmcp's client role drives [`McpServer`] over an in-memory
//! pipe (`tokio::io::duplex`), on the initialize handshake (2025-11-25) and on the stateless
//! protocol (2026-07-28). Scripted presenters stand in for the terminal UI, the pending file and
//! the web page, and the person's actions wait for events (a form received, a progress
//! notification), never for the clock. Nothing here needs more than the Rust toolchain.

#![allow(clippy::unwrap_used, clippy::expect_used)]
// Logging is deprecated in the newest protocol, and still what clients of the earlier ones show.
#![allow(deprecated)]

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ask_core::{
    Answer, AskRequest, Capabilities, Frontend, Limits, Outcome, PresentError, Presenter, Signal,
    ToolOutput,
};
use ask_mcp::testing::MAX_INCOMPLETE_ROUNDS;
use ask_mcp::{Ended, Fallback, McpError, McpServer};
use async_trait::async_trait;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, ClientCapabilities, ClientRequest, ElicitRequestParams,
    ElicitResult, ElicitationAction, Implementation, InitializeRequestParams,
    ProgressNotificationParam, ProtocolVersion, RequestMetaObject, ServerResult,
};
#[allow(deprecated)]
use rmcp::model::{LoggingLevel, SetLevelRequest, SetLevelRequestParams};
use rmcp::service::{
    ClientLifecycleMode, ClientServiceExt, NotificationContext, PeerRequestOptions, RequestContext,
    RoleClient, RunningService,
};
use rmcp::{ClientHandler, ErrorData, ServiceError, ServiceExt};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::watch;
use tokio::task::JoinHandle;

const CANCELLED: &str = "The user cancelled the questions without answering. Proceed without \
                         these answers; do not ask the same questions again unless the user asks \
                         you to.";

/// How long a test waits for an event before it fails: a bound, never a pace.
const PATIENCE: Duration = Duration::from_secs(20);

fn database() -> Value {
    json!({"question": "Which database should we use?", "header": "Database", "options": [
        {"label": "PostgreSQL (Recommended)", "description": "Battle-tested relational DB"},
        {"label": "SQLite", "description": "File-based, zero configuration"}]})
}

fn features() -> Value {
    json!({"question": "Which features should we include?", "header": "Features",
           "multiSelect": true,
           "options": [{"label": "Authentication"}, {"label": "REST API"},
                       {"label": "Admin Dashboard"}]})
}

fn name() -> Value {
    json!({"question": "What should the project be called?", "header": "Name"})
}

fn questions(list: &[Value]) -> Value {
    json!({ "questions": list })
}

/// The two ways a client talks to the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Era {
    /// The initialize handshake: the server sends each form as a request of its own.
    Handshake,
    /// `server/discover` on 2026-07-28: each form travels in an input-required result, and the
    /// client calls again with the reply.
    Stateless,
}

const ERAS: [Era; 2] = [Era::Handshake, Era::Stateless];

/// What the client has received so far; the person and the scripted presenters act on it.
#[derive(Debug, Clone, Default)]
struct Seen {
    /// Every elicitation request, as wire JSON.
    elicitations: Vec<Value>,
    /// Every progress notification, as wire JSON.
    progress: Vec<Value>,
    /// The data of every log message, as wire JSON.
    logs: Vec<Value>,
}

/// The MCP client and the person in front of it: it declares `elicitation` and answers each
/// form with the next reply of its script.
#[derive(Clone)]
struct Person {
    /// The elicitation capability the client declares, if any.
    elicitation: Option<Value>,
    /// What the person does with each form, in order.
    replies: Arc<Mutex<VecDeque<ElicitResult>>>,
    /// How long the person takes over each form.
    takes: Duration,
    /// The client's `clientInfo.name`.
    name: &'static str,
    seen: Arc<watch::Sender<Seen>>,
}

impl Person {
    fn new(elicitation: Option<Value>) -> Person {
        Person {
            elicitation,
            replies: Arc::default(),
            takes: Duration::ZERO,
            name: "person",
            seen: Arc::new(watch::Sender::new(Seen::default())),
        }
    }

    /// The client introduces itself as `name`.
    fn named(mut self, name: &'static str) -> Person {
        self.name = name;
        self
    }

    /// The person takes `time` over each form.
    fn taking(mut self, time: Duration) -> Person {
        self.takes = time;
        self
    }

    /// A client that shows forms.
    fn with_forms() -> Person {
        Person::new(Some(json!({"form": {}})))
    }

    /// A client that declares no elicitation.
    fn without_forms() -> Person {
        Person::new(None)
    }

    /// The person accepts the next form with `content`.
    fn accepts(self, content: Value) -> Person {
        self.replies
            .lock()
            .unwrap()
            .push_back(ElicitResult::new(ElicitationAction::Accept).with_content(content));
        self
    }

    /// The person answers the next elicitation with `action` and no content.
    fn does(self, action: ElicitationAction) -> Person {
        self.replies
            .lock()
            .unwrap()
            .push_back(ElicitResult::new(action));
        self
    }

    fn seen(&self) -> Seen {
        self.seen.borrow().clone()
    }

    fn elicitations(&self) -> Vec<Value> {
        self.seen().elicitations
    }
}

impl ClientHandler for Person {
    fn get_info(&self) -> InitializeRequestParams {
        let mut capabilities = json!({});
        if let Some(elicitation) = &self.elicitation {
            capabilities["elicitation"] = elicitation.clone();
        }
        let capabilities: ClientCapabilities = serde_json::from_value(capabilities).unwrap();
        InitializeRequestParams::new(capabilities, Implementation::new(self.name, "1.0.0"))
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let wire = serde_json::to_value(&request).unwrap();
        self.seen
            .send_modify(|seen| seen.elicitations.push(wire.clone()));
        tokio::time::sleep(self.takes).await;
        let reply = self.replies.lock().unwrap().pop_front();
        reply.ok_or_else(|| {
            ErrorData::internal_error(format!("the script has no reply for {wire}"), None)
        })
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let wire = serde_json::to_value(&params).unwrap();
        self.seen.send_modify(|seen| seen.progress.push(wire));
    }

    #[allow(deprecated)]
    async fn on_logging_message(
        &self,
        params: rmcp::model::LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.seen.send_modify(|seen| seen.logs.push(params.data));
    }
}

type Reply = Box<dyn Fn(&AskRequest) -> Result<Outcome, PresentError> + Send + Sync>;
type Until = Box<dyn Fn(&Seen) -> bool + Send + Sync>;

/// A presenter the host passes in (the terminal UI, the pending file, the web page), scripted:
/// it notes each request it is shown, waits until the client has seen what `until` asks for, and
/// gives `reply`.
struct Scripted {
    presenter: Presenter,
    shown: Arc<watch::Sender<Vec<AskRequest>>>,
    until: Option<(watch::Receiver<Seen>, Until)>,
    /// How long the person takes, on the test's clock (paused: the runtime skips ahead).
    takes: Option<Duration>,
    reply: Reply,
}

impl Scripted {
    fn new(
        presenter: Presenter,
        reply: impl Fn(&AskRequest) -> Result<Outcome, PresentError> + Send + Sync + 'static,
    ) -> Scripted {
        Scripted {
            presenter,
            shown: Arc::new(watch::Sender::new(Vec::new())),
            until: None,
            takes: None,
            reply: Box::new(reply),
        }
    }

    /// A presenter whose person never answers.
    fn silent(presenter: Presenter) -> Scripted {
        let never = watch::Sender::new(Seen::default()).subscribe();
        Scripted::new(presenter, |_| Ok(Outcome::Cancelled)).after(never, |_| false)
    }

    /// Replies only once what the client has `seen` is what `until` waits for.
    fn after(
        mut self,
        seen: watch::Receiver<Seen>,
        until: impl Fn(&Seen) -> bool + Send + Sync + 'static,
    ) -> Scripted {
        self.until = Some((seen, Box::new(until)));
        self
    }

    /// Replies only after `time` has passed on the runtime's clock.
    fn taking(mut self, time: Duration) -> Scripted {
        self.takes = Some(time);
        self
    }

    /// The requests this presenter was shown, readable after it was handed to the server.
    fn shown(&self) -> watch::Receiver<Vec<AskRequest>> {
        self.shown.subscribe()
    }
}

#[async_trait]
impl Frontend for Scripted {
    fn presenter(&self) -> Presenter {
        self.presenter
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            carries_secrets: self.presenter != Presenter::File,
            ..Capabilities::default()
        }
    }

    async fn present(&self, request: &AskRequest) -> Result<Outcome, PresentError> {
        self.shown.send_modify(|shown| shown.push(request.clone()));
        if let Some(time) = self.takes {
            tokio::time::sleep(time).await;
        }
        if let Some((seen, until)) = &self.until {
            let mut seen = seen.clone();
            // A receiver whose sender is gone never sees a change: a person who never acts
            // waits until the ask is withdrawn.
            if seen.wait_for(|seen| until(seen)).await.is_err() {
                std::future::pending::<()>().await;
            }
        }
        (self.reply)(request)
    }
}

/// The scripted answer to each question: its first option, or "typed" for free text.
fn first_options(request: &AskRequest) -> Result<Outcome, PresentError> {
    let answers = request
        .input
        .questions
        .iter()
        .map(|question| match question.options().first() {
            Some(option) => Answer::selected(&question.question, &option.label),
            None => Answer::custom(&question.question, "typed"),
        })
        .collect();
    Ok(Outcome::Answered(answers))
}

/// The lines the server wrote for people.
type Lines = Arc<Mutex<Vec<String>>>;

/// One client connected to one server.
struct Session {
    client: RunningService<RoleClient, Person>,
    person: Person,
    served: JoinHandle<Result<Ended, McpError>>,
    lines: Lines,
}

/// `server`, with the lines it writes for people kept.
fn logged(server: McpServer) -> (McpServer, Lines) {
    let lines = Lines::default();
    let log = Arc::clone(&lines);
    let server = server.log_to(move |line| log.lock().unwrap().push(line.to_string()));
    (server, lines)
}

/// Serves `server` to `person` over an in-memory pipe in `era`.
async fn connect(server: McpServer, person: Person, era: Era) -> Session {
    let (server, lines) = logged(server);
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    let (read, write) = tokio::io::split(server_end);
    let served = tokio::spawn(server.serve(read, write));
    let client = match era {
        Era::Handshake => person.clone().serve(client_end).await,
        Era::Stateless => {
            let lifecycle = ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            };
            person
                .clone()
                .serve_with_lifecycle(client_end, lifecycle)
                .await
        }
    }
    .expect("the client connects");
    Session {
        client,
        person,
        served,
        lines,
    }
}

/// A server with `presenters` and the `fallbacks` given.
fn server(presenters: &[Presenter], fallbacks: Vec<Scripted>) -> McpServer {
    let mut server = McpServer::new(&Limits::default())
        .unwrap()
        .presenters(presenters)
        .unwrap();
    for fallback in fallbacks {
        server = server.fallback(fallback.presenter, Box::new(fallback));
    }
    server
}

impl Session {
    /// Calls `ask_user` with `arguments` and gives the result as wire JSON (the rounds of the
    /// stateless protocol are driven by the client).
    async fn call(&self, arguments: Value) -> Value {
        self.try_call(arguments).await.expect("the call ends")
    }

    async fn try_call(&self, arguments: Value) -> Result<Value, ServiceError> {
        let call = self.client.call_tool(params(arguments));
        let result = tokio::time::timeout(PATIENCE, call)
            .await
            .expect("the call ends in time")?;
        Ok(serde_json::to_value(result).unwrap())
    }

    /// Calls `ask_user` once (no rounds), with the request options of a client that gives up
    /// after a timeout.
    async fn call_with(
        &self,
        arguments: Value,
        options: PeerRequestOptions,
    ) -> Result<Value, ServiceError> {
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params(arguments)));
        let handle = self
            .client
            .send_request_with_option(request, options)
            .await?;
        match handle.await_response().await? {
            ServerResult::CallToolResult(result) => Ok(serde_json::to_value(result).unwrap()),
            other => panic!("not a tool result: {other:?}"),
        }
    }

    /// The client goes away; how the server ended.
    async fn close(self) -> Result<Ended, McpError> {
        self.client.cancel().await.unwrap();
        tokio::time::timeout(PATIENCE, self.served)
            .await
            .expect("the server ends in time")
            .unwrap()
    }

    fn lines(&self) -> Vec<String> {
        self.lines.lock().unwrap().clone()
    }
}

/// The parameters of a call of `ask_user` with `arguments`.
/// The client takes every log message: on 2026-07-28, which has no `logging/setLevel`, it says so
/// on each request, as the official Inspector does.
fn params(arguments: Value) -> CallToolRequestParams {
    let mut params = params_at(arguments, None);
    let mut meta = RequestMetaObject::new();
    meta.set_log_level(LoggingLevel::Debug);
    params.meta = Some(meta);
    params
}

/// The parameters of a call of `ask_user` with `arguments`, naming the log level `level` in
/// `_meta`, or none.
fn params_at(arguments: Value, level: Option<LoggingLevel>) -> CallToolRequestParams {
    let Value::Object(arguments) = arguments else {
        panic!("arguments are an object");
    };
    let mut params = CallToolRequestParams::new("ask_user").with_arguments(arguments);
    if let Some(level) = level {
        let mut meta = RequestMetaObject::new();
        meta.set_log_level(level);
        params.meta = Some(meta);
    }
    params
}

/// The text the model reads.
fn text(result: &Value) -> &str {
    assert_eq!(result["content"][0]["type"], "text", "{result}");
    result["content"][0]["text"].as_str().unwrap()
}

fn is_error(result: &Value) -> bool {
    result["isError"] == true
}

#[tokio::test]
async fn tools_list_has_only_ask_user_with_the_published_schemas_and_annotations() {
    let descriptor = ask_schema::tool_descriptor(ask_schema::ToolFormat::Mcp, &Limits::default());
    for era in ERAS {
        let session = connect(server(&[], Vec::new()), Person::with_forms(), era).await;
        let info = session
            .client
            .peer_info()
            .expect("the server introduced itself");
        let name = info.server_info.as_ref().map(|server| server.name.as_str());
        assert_eq!(name, Some("ask-user"), "{era:?}");
        let tools = session.client.list_all_tools().await.unwrap();
        assert_eq!(tools.len(), 1, "{era:?}: {tools:?}");
        let tool = serde_json::to_value(&tools[0]).unwrap();
        for field in [
            "name",
            "title",
            "description",
            "inputSchema",
            "outputSchema",
            "annotations",
        ] {
            assert_eq!(tool[field], descriptor[field], "{era:?}: {field}");
        }
        // The tool only asks: it changes nothing and reaches nothing beyond the person.
        assert_eq!(
            tool["annotations"],
            json!({"title": "Ask User", "readOnlyHint": true, "destructiveHint": false,
                   "idempotentHint": false, "openWorldHint": false}),
            "{era:?}"
        );
        assert_eq!(session.close().await.unwrap(), Ended::ClientClosed);
    }
}

#[tokio::test]
async fn the_tool_can_be_served_under_another_name() {
    let error = McpServer::new(&Limits::default())
        .unwrap()
        .tool_name("ask user")
        .unwrap_err();
    assert!(matches!(error, McpError::ToolName(_)), "{error:?}");
    let file = Scripted::new(Presenter::File, first_options);
    let server = server(&[Presenter::File], vec![file])
        .tool_name("ask_person")
        .unwrap();
    let session = connect(server, Person::without_forms(), Era::Handshake).await;
    let tools = session.client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_ref()).collect();
    assert_eq!(names, ["ask_person"]);
    let mut params = params(questions(&[database()]));
    params.name = "ask_person".into();
    let result = session.client.call_tool(params).await.unwrap();
    assert_eq!(result.is_error, Some(false), "{result:?}");
    // Its own name is now another tool's.
    let error = session
        .client
        .call_tool(self::params(questions(&[database()])))
        .await
        .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("unknown tool `ask_user`; this server has only `ask_person`"),
        "{error}"
    );
    session.close().await.unwrap();
}

#[tokio::test]
async fn a_form_answers_the_call_with_the_answer_map_and_the_structured_result() {
    for era in ERAS {
        // Claude Code draws a list of choices for a multi-select question.
        let person = Person::with_forms()
            .named("claude-code")
            .accepts(json!({"q1": "SQLite", "q2": ["Admin Dashboard", "Authentication"]}));
        let session = connect(server(&[Presenter::Elicitation], Vec::new()), person, era).await;
        let result = session.call(questions(&[database(), features()])).await;
        assert!(!is_error(&result), "{era:?}: {result}");
        assert_eq!(
            text(&result),
            "{\"answers\":{\"Which database should we use?\":\"SQLite\",\
             \"Which features should we include?\":\"Authentication, Admin Dashboard\"}}\n\
             Multi-select answers: {\"Which features should we include?\":\
             {\"picked\":[\"Authentication\",\"Admin Dashboard\"]}}",
            "{era:?}"
        );
        assert_eq!(
            result["structuredContent"],
            json!({"answered": true, "answers": [
                {"question": "Which database should we use?", "answer": "SQLite",
                 "selectedOption": "SQLite", "wasCustom": false},
                {"question": "Which features should we include?",
                 "answer": ["Authentication", "Admin Dashboard"], "wasCustom": false}]}),
            "{era:?}"
        );
        // The form: a titled choice, a list of choices and an "Other" field for each.
        let forms = session.person.elicitations();
        assert_eq!(forms.len(), 1, "{era:?}");
        assert_eq!(forms[0]["mode"], "form", "{era:?}");
        assert_eq!(forms[0]["message"], "Please answer these 2 questions.");
        let fields = &forms[0]["requestedSchema"]["properties"];
        assert_eq!(
            fields["q1"]["oneOf"],
            json!([
                {"const": "PostgreSQL (Recommended)",
                 "title": "PostgreSQL (Recommended) — Battle-tested relational DB"},
                {"const": "SQLite", "title": "SQLite — File-based, zero configuration"}]),
            "{era:?}"
        );
        assert_eq!(fields["q2"]["type"], "array", "{era:?}");
        assert_eq!(
            fields["q1_other"]["title"],
            "Database: Other (type your answer)"
        );
        assert_eq!(fields["q2_other"]["type"], "string", "{era:?}");
        assert_eq!(fields["q2_none"]["type"], "boolean", "{era:?}");
        assert_eq!(session.close().await.unwrap(), Ended::ClientClosed);
    }
}

#[tokio::test]
async fn a_multi_select_question_is_a_check_box_per_option_unless_the_client_draws_lists() {
    for era in ERAS {
        let person =
            Person::with_forms().accepts(json!({"q1_1": true, "q1_2": false, "q1_3": true}));
        let session = connect(server(&[Presenter::Elicitation], Vec::new()), person, era).await;
        let result = session.call(questions(&[features()])).await;
        assert_eq!(
            text(&result),
            "{\"answers\":{\"Which features should we include?\":\"Authentication, Admin Dashboard\"}}\n\
             Multi-select answers: {\"Which features should we include?\":\
             {\"picked\":[\"Authentication\",\"Admin Dashboard\"]}}",
            "{era:?}"
        );
        let form = &session.person.elicitations()[0]["requestedSchema"];
        // Every field is one a form without lists can draw, each titled with its label; none
        // is required, so the form submits from any of them.
        assert_eq!(
            form["properties"],
            json!({
                "q1_1": {"type": "boolean", "title": "Features: Authentication",
                         "description": "Which features should we include?", "default": false},
                "q1_2": {"type": "boolean", "title": "Features: REST API",
                         "description": "Which features should we include?", "default": false},
                "q1_3": {"type": "boolean", "title": "Features: Admin Dashboard",
                         "description": "Which features should we include?", "default": false},
                "q1_none": {"type": "boolean", "title": "Features: None of these",
                            "description": "Tick to answer with none of the options (an option \
                                            ticked or an answer typed counts instead): Which \
                                            features should we include?", "default": false},
                "q1_other": {"type": "string", "title": "Features: Other (added to your picks)",
                             "description": "Type an answer of your own; it is added to the \
                                             options you pick: Which features should we \
                                             include?"}}),
            "{era:?}"
        );
        assert!(form.get("required").is_none(), "{era:?}: {form}");
        session.close().await.unwrap();
    }
}

#[tokio::test]
async fn none_of_these_answers_a_multi_select_and_nothing_ticked_asks_again() {
    for era in ERAS {
        // Nothing ticked with "None of these" unset is no answer; ticked, it is one.
        let person = Person::with_forms()
            .accepts(json!({"q1_1": false, "q1_2": false, "q1_3": false, "q1_none": false}))
            .accepts(json!({"q1_none": true}));
        let session = connect(server(&[Presenter::Elicitation], Vec::new()), person, era).await;
        let result = session.call(questions(&[features()])).await;
        assert!(!is_error(&result), "{era:?}: {result}");
        let forms = session.person.elicitations();
        assert_eq!(forms.len(), 2, "{era:?}");
        assert_eq!(
            text(&result),
            "{\"answers\":{\"Which features should we include?\":\"\"}}\n\
             Multi-select answers: {\"Which features should we include?\":{\"picked\":[]}}",
            "{era:?}"
        );
        assert_eq!(
            result["structuredContent"]["answers"],
            json!([{"question": "Which features should we include?", "answer": [],
                    "wasCustom": false}]),
            "{era:?}"
        );
        session.close().await.unwrap();
        // A box ticked beside "None of these" is the answer, as its field says.
        let person = Person::with_forms().accepts(json!({"q1_2": true, "q1_none": true}));
        let session = connect(server(&[Presenter::Elicitation], Vec::new()), person, era).await;
        let result = session.call(questions(&[features()])).await;
        assert_eq!(
            result["structuredContent"]["answers"][0]["answer"],
            json!(["REST API"]),
            "{era:?}"
        );
        session.close().await.unwrap();
    }
}

#[tokio::test]
async fn a_form_with_a_question_left_open_is_shown_again_with_the_answers_so_far() {
    for era in ERAS {
        let person = Person::with_forms()
            .accepts(json!({"q1": "SQLite"}))
            .accepts(json!({"q2": "  Falcon  "}));
        let session = connect(server(&[Presenter::Elicitation], Vec::new()), person, era).await;
        let result = session.call(questions(&[database(), name()])).await;
        let forms = session.person.elicitations();
        assert_eq!(forms.len(), 2, "{era:?}");
        assert_eq!(
            forms[1]["message"],
            "Please answer every question; choose an option or type an answer for: \"What \
             should the project be called?\"",
            "{era:?}"
        );
        let fields = &forms[1]["requestedSchema"]["properties"];
        assert_eq!(fields["q1"]["default"], "SQLite", "{era:?}");
        assert!(fields["q2"].get("default").is_none(), "{era:?}");
        // Answering only the open question completes the call: the first answer was kept.
        assert_eq!(
            text(&result),
            r#"{"answers":{"Which database should we use?":"SQLite","What should the project be called?":"Falcon"}}"#,
            "{era:?}"
        );
        session.close().await.unwrap();
    }
}

#[tokio::test]
async fn declined_and_cancelled_forms_cancel_the_call() {
    for era in ERAS {
        for action in [ElicitationAction::Decline, ElicitationAction::Cancel] {
            // The person takes longer than a client that cannot ask would: the decline is theirs.
            let person = Person::with_forms()
                .taking(Duration::from_millis(100))
                .does(action.clone());
            let file = Scripted::new(Presenter::File, first_options);
            let shown = file.shown();
            let server = server(&[Presenter::Elicitation, Presenter::File], vec![file])
                .quick_decline(Duration::from_millis(50));
            let session = connect(server, person, era).await;
            let result = session.call(questions(&[database()])).await;
            assert!(
                shown.borrow().is_empty(),
                "{era:?} {action:?}: the chain ended"
            );
            assert!(!is_error(&result), "{era:?} {action:?}: {result}");
            assert_eq!(text(&result), CANCELLED, "{era:?} {action:?}");
            assert_eq!(
                result["structuredContent"],
                json!({"answered": false, "cancelled": true, "answers": [],
                       "message": CANCELLED}),
                "{era:?} {action:?}"
            );
            let lines = session.lines();
            assert!(
                lines
                    .iter()
                    .any(|line| line == "the questions were cancelled"),
                "{era:?}: {lines:?}"
            );
            session.close().await.unwrap();
        }
    }
}

#[tokio::test]
async fn a_form_declined_at_once_is_the_client_that_cannot_ask_and_the_chain_goes_on() {
    for era in ERAS {
        for action in [ElicitationAction::Decline, ElicitationAction::Cancel] {
            // Codex's exec declines every form within a millisecond; here the window is wide,
            // so that a slow machine still replies inside it.
            let person = Person::with_forms().does(action.clone());
            let file = Scripted::new(Presenter::File, |_| {
                Ok(Outcome::Pending {
                    file: "/tmp/pending-questions.json".to_string(),
                    instructions: PENDING_INSTRUCTIONS.to_string(),
                })
            });
            let shown = file.shown();
            let server = server(&[Presenter::Elicitation, Presenter::File], vec![file])
                .quick_decline(Duration::from_secs(10));
            let session = connect(server, person, era).await;
            let result = session.call(questions(&[database()])).await;
            assert_eq!(session.person.elicitations().len(), 1, "{era:?} {action:?}");
            assert_eq!(shown.borrow().len(), 1, "{era:?} {action:?}");
            assert_eq!(text(&result), PENDING_INSTRUCTIONS, "{era:?} {action:?}");
            let lines = session.lines();
            assert!(
                lines.iter().any(|line| line
                    .starts_with("the client declined the form at once, so it cannot ask")),
                "{era:?}: {lines:?}"
            );
            session.close().await.unwrap();
        }
        // With nothing after the form, the model learns that nobody could be asked.
        let person = Person::with_forms().does(ElicitationAction::Decline);
        let server = server(&[Presenter::Elicitation], Vec::new());
        let session = connect(server, person, era).await;
        let result = session.call(questions(&[database()])).await;
        assert!(is_error(&result), "{era:?}: {result}");
        assert!(
            text(&result).starts_with("The questions could not be shown to the user: none of"),
            "{era:?}: {result}"
        );
        session.close().await.unwrap();
    }
}

/// A server whose `web` presenter opens a fresh scripted page for every call, with the links
/// `LINK-1`, `LINK-2`, …; the person answers a page once the client got a log message with its
/// link. The links the host was given to announce are kept.
fn with_pages(server: McpServer, person: &Person, reachable: bool) -> (McpServer, Lines) {
    let opened = Arc::new(Mutex::new(0));
    let seen = person.seen.subscribe();
    let announced = Lines::default();
    let kept = Arc::clone(&announced);
    let open: ask_mcp::OpenPage = Box::new(move || {
        let mut count = opened.lock().unwrap();
        *count += 1;
        let link = format!("{LINK}-{count}");
        let wanted = link.clone();
        let page = Scripted::new(Presenter::Web, first_options).after(seen.clone(), move |seen| {
            seen.logs
                .iter()
                .any(|log| log.as_str().is_some_and(|text| text.contains(&wanted)))
        });
        Box::pin(async move {
            Ok(ask_mcp::Page {
                frontend: Box::new(page),
                link,
                unspent: None,
            })
        })
    });
    let server = server
        .pages(open, move || reachable)
        .announce_to(move |link| kept.lock().unwrap().push(link.to_string()));
    (server, announced)
}

#[tokio::test]
async fn web_gives_every_call_a_fresh_link_announced_to_the_client_and_the_host() {
    for era in ERAS {
        let person = Person::without_forms();
        let file = Scripted::new(Presenter::File, first_options);
        let file_shown = file.shown();
        let (server, announced) = with_pages(
            server(
                &[Presenter::Elicitation, Presenter::Web, Presenter::File],
                vec![file],
            )
            .progress_every(Duration::from_millis(5)),
            &person,
            true,
        );
        let session = connect(server, person, era).await;
        for n in 1..=2 {
            let result = session.call(questions(&[database()])).await;
            assert_eq!(
                result["structuredContent"]["answers"][0]["answer"], "PostgreSQL (Recommended)",
                "{era:?}: {result}"
            );
            let link = format!("{LINK}-{n}");
            let seen = session.person.seen();
            assert_eq!(
                seen.logs.last().unwrap(),
                &json!(format!(
                    "The agent asks you 1 question: open {link} to answer (the link works in one browser)."
                )),
                "{era:?}"
            );
            // The first progress notification of the call carries the link at once.
            assert!(
                seen.progress.iter().any(|note| note["message"]
                    == format!("Waiting for the user to answer on the page {link}").as_str()),
                "{era:?}: {:?}",
                seen.progress
            );
        }
        assert_eq!(
            *announced.lock().unwrap(),
            [format!("{LINK}-1"), format!("{LINK}-2")],
            "{era:?}"
        );
        assert!(file_shown.borrow().is_empty(), "{era:?}");
        session.close().await.unwrap();
    }
}

/// A page whose link a browser spends once the client has seen what `spends` waits for; from
/// then on its unspent link is a fresh one, `{LINK}-fresh`, and the person answers once a
/// progress notification carries it. Gives the page's opener and the fresh link.
fn spent_by_a_browser(
    person: &Person,
    spends: impl Fn(&Seen, &str) -> bool + Send + Sync + 'static,
) -> (ask_mcp::OpenPage, String) {
    let seen = person.seen.subscribe();
    let first = format!("{LINK}-1");
    let fresh = format!("{LINK}-fresh");
    let spends = Arc::new(spends);
    let given = fresh.clone();
    let open: ask_mcp::OpenPage = Box::new(move || {
        let spent = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (first, fresh, spends) = (first.clone(), fresh.clone(), Arc::clone(&spends));
        let (marked, wanted) = (Arc::clone(&spent), fresh.clone());
        let page = Scripted::new(Presenter::Web, first_options).after(seen.clone(), {
            let first = first.clone();
            move |seen| {
                if spends(seen, &first) {
                    marked.store(true, std::sync::atomic::Ordering::SeqCst);
                }
                carried(seen).iter().any(|m| m.ends_with(&wanted))
            }
        });
        let unspent: ask_mcp::UnspentLink = {
            let first = first.clone();
            Arc::new(move || {
                let spent = spent.load(std::sync::atomic::Ordering::SeqCst);
                Some(if spent { fresh.clone() } else { first.clone() })
            })
        };
        Box::pin(async move {
            Ok(ask_mcp::Page {
                frontend: Box::new(page),
                link: first,
                unspent: Some(unspent),
            })
        })
    });
    (open, given)
}

/// The messages of the progress notifications the client received, in order.
fn carried(seen: &Seen) -> Vec<String> {
    seen.progress
        .iter()
        .filter_map(|note| note["message"].as_str().map(str::to_string))
        .collect()
}

#[tokio::test]
async fn once_a_page_link_is_spent_every_progress_notification_carries_a_fresh_one() {
    for era in ERAS {
        // `web`: the notifications carry the page's link, then, once a browser spent it, only
        // fresh ones.
        let person = Person::without_forms();
        let (open, fresh) = spent_by_a_browser(&person, |seen, first| {
            carried(seen).iter().any(|m| m.ends_with(first))
        });
        let server = server(&[Presenter::Web], Vec::new())
            .progress_every(Duration::from_millis(5))
            .pages(open, || true);
        let session = connect(server, person, era).await;
        // The person answers only on a fresh link: without one the call would wait forever.
        let result = tokio::time::timeout(PATIENCE, session.call(questions(&[database()])))
            .await
            .expect("a fresh link reached the person");
        assert_eq!(
            result["structuredContent"]["answers"][0]["answer"], "PostgreSQL (Recommended)",
            "{era:?}: {result}"
        );
        let messages = carried(&session.person.seen());
        let at = messages.iter().position(|m| m.ends_with(&fresh)).unwrap();
        let first = format!("Waiting for the user to answer on the page {LINK}-1");
        assert!(
            messages[..at].iter().all(|m| *m == first),
            "{era:?}: {messages:?}"
        );
        let again = format!("Waiting for the user to answer on the page {fresh}");
        assert!(
            messages[at..].iter().all(|m| *m == again),
            "{era:?}: {messages:?}"
        );
        // What the model reads carries no link.
        assert!(!result.to_string().contains(LINK), "{era:?}: {result}");
        session.close().await.unwrap();
    }
    // `url`: the client was sent the link; the notifications carry none until a browser spent
    // it, then the fresh ones.
    let person = Person::new(Some(json!({"url": {}}))).does(ElicitationAction::Accept);
    let (open, fresh) = spent_by_a_browser(&person, |seen, _| {
        seen.elicitations.iter().any(|e| e["mode"] == "url")
    });
    let server = server(&[Presenter::Url], Vec::new())
        .progress_every(Duration::from_millis(5))
        .pages(open, || true);
    let session = connect(server, person, Era::Handshake).await;
    // The person answers only on a fresh link: without one the call would wait forever.
    let result = tokio::time::timeout(PATIENCE, session.call(questions(&[database()])))
        .await
        .expect("a fresh link reached the person");
    assert_eq!(
        result["structuredContent"]["answers"][0]["answer"], "PostgreSQL (Recommended)",
        "{result}"
    );
    assert_eq!(session.person.elicitations()[0]["url"], format!("{LINK}-1"));
    let messages = carried(&session.person.seen());
    let at = messages.iter().position(|m| m.ends_with(&fresh)).unwrap();
    assert!(
        messages[..at]
            .iter()
            .all(|m| m == "Waiting for the user to answer"),
        "{messages:?}"
    );
    let again = format!("Waiting for the user to answer on the page {fresh}");
    assert!(messages[at..].iter().all(|m| *m == again), "{messages:?}");
    assert!(!result.to_string().contains(LINK), "{result}");
    session.close().await.unwrap();
}

#[tokio::test]
async fn web_is_skipped_when_no_person_can_be_reached_and_follows_a_form_declined_at_once() {
    // Nobody at a page: the pending file.
    let person = Person::without_forms();
    let file = Scripted::new(Presenter::File, first_options);
    let file_shown = file.shown();
    let (served, announced) = with_pages(
        server(
            &[Presenter::Elicitation, Presenter::Web, Presenter::File],
            vec![file],
        ),
        &person,
        false,
    );
    let session = connect(served, person, Era::Handshake).await;
    session.call(questions(&[database()])).await;
    assert_eq!(file_shown.borrow().len(), 1);
    assert!(announced.lock().unwrap().is_empty());
    session.close().await.unwrap();
    // A client that declines its form at once: the page takes the call.
    for era in ERAS {
        let person = Person::with_forms().does(ElicitationAction::Decline);
        let (served, announced) = with_pages(
            server(&[Presenter::Elicitation, Presenter::Web], Vec::new())
                .quick_decline(Duration::from_secs(10)),
            &person,
            true,
        );
        let session = connect(served, person, era).await;
        let result = session.call(questions(&[database()])).await;
        assert_eq!(
            result["structuredContent"]["answers"][0]["answer"], "PostgreSQL (Recommended)",
            "{era:?}: {result}"
        );
        assert_eq!(announced.lock().unwrap().len(), 1, "{era:?}");
        session.close().await.unwrap();
    }
}

/// What the stand-in for the pending file tells the model.
const PENDING_INSTRUCTIONS: &str = "Questions pending. Answer them in the pending file.";

#[tokio::test]
async fn after_three_incomplete_forms_the_next_presenter_gets_the_answers_given() {
    for era in ERAS {
        let person = Person::with_forms()
            .accepts(json!({"q1_other": "MariaDB"}))
            .accepts(json!({}))
            .accepts(json!({"q2": "   "}));
        // The presenter that leaves the questions pending writes the instructions.
        let file = Scripted::new(Presenter::File, |_| {
            Ok(Outcome::Pending {
                file: "/tmp/pending-questions.json".to_string(),
                instructions: PENDING_INSTRUCTIONS.to_string(),
            })
        });
        let shown = file.shown();
        let session = connect(
            server(&[Presenter::Elicitation, Presenter::File], vec![file]),
            person,
            era,
        )
        .await;
        let result = session.call(questions(&[database(), name()])).await;
        assert_eq!(
            session.person.elicitations().len(),
            MAX_INCOMPLETE_ROUNDS,
            "{era:?}"
        );
        // The next presenter shows the questions with what the person gave in the forms.
        let shown = shown.borrow().clone();
        assert_eq!(shown.len(), 1, "{era:?}");
        assert_eq!(
            shown[0].given,
            vec![
                Some(Answer::custom("Which database should we use?", "MariaDB")),
                None
            ],
            "{era:?}"
        );
        // Nothing partial reaches the model: the questions wait in the file, and the model
        // reads the instructions of the presenter that wrote it.
        let instructions = PENDING_INSTRUCTIONS;
        assert_eq!(text(&result), instructions, "{era:?}");
        assert_eq!(
            result["structuredContent"],
            json!({"answered": false, "answers": [],
                   "pendingFile": "/tmp/pending-questions.json", "message": instructions}),
            "{era:?}"
        );
        let lines = session.lines();
        assert!(
            lines
                .iter()
                .any(|line| line == "the questions wait in /tmp/pending-questions.json"),
            "{era:?}: {lines:?}"
        );
        session.close().await.unwrap();
    }
}

#[tokio::test]
async fn after_three_incomplete_forms_and_no_next_presenter_nothing_is_answered() {
    for era in ERAS {
        let person = Person::with_forms()
            .accepts(json!({"q1": "SQLite"}))
            .accepts(json!({}))
            .accepts(json!({}));
        let session = connect(server(&[Presenter::Elicitation], Vec::new()), person, era).await;
        let result = session.call(questions(&[database(), name()])).await;
        assert!(is_error(&result), "{era:?}: {result}");
        assert_eq!(
            text(&result),
            "The user left questions open in the form 3 times, and no other presenter was \
             configured; nothing was answered. Proceed without these answers.",
            "{era:?}"
        );
        session.close().await.unwrap();
    }
}

const LINK: &str = "http://127.0.0.1:9/?token=0123456789abcdef";

/// A page for URL-mode elicitation whose person answers once the client received its link.
fn page(person: &Person) -> Scripted {
    Scripted::new(Presenter::Web, first_options).after(person.seen.subscribe(), |seen| {
        seen.elicitations.iter().any(|e| e["mode"] == "url")
    })
}

#[tokio::test]
async fn a_client_with_only_url_elicitation_is_sent_to_the_page() {
    let person = Person::new(Some(json!({"url": {}}))).does(ElicitationAction::Accept);
    let page = page(&person);
    let shown = page.shown();
    // The default presenters: a client that can open a page and shows no form gets the page.
    let server = McpServer::new(&Limits::default())
        .unwrap()
        .url_page(Box::new(page), LINK.to_string());
    let session = connect(server, person, Era::Handshake).await;
    let result = session.call(questions(&[database()])).await;
    let forms = session.person.elicitations();
    assert_eq!(forms.len(), 1, "{forms:?}");
    assert_eq!(forms[0]["mode"], "url");
    assert_eq!(forms[0]["url"], LINK);
    assert_eq!(
        forms[0]["message"],
        "The agent asks you 1 question: open the page to answer."
    );
    let request_id = shown.borrow()[0].request_id.clone();
    assert_eq!(forms[0]["elicitationId"], request_id.as_str());
    // The page's answer is the call's.
    assert_eq!(
        result["structuredContent"]["answers"][0],
        json!({"question": "Which database should we use?", "answer": "PostgreSQL (Recommended)",
               "selectedOption": "PostgreSQL (Recommended)", "wasCustom": false}),
        "{result}"
    );
    session.close().await.unwrap();
}

#[tokio::test]
async fn on_the_stateless_protocol_a_url_only_client_gets_the_next_presenter() {
    // URL mode needs a request from the server, which the stateless protocol has not.
    let person = Person::new(Some(json!({"url": {}})));
    let file = Scripted::new(Presenter::File, |_| {
        Ok(Outcome::Pending {
            file: "/tmp/p.json".to_string(),
            instructions: PENDING_INSTRUCTIONS.to_string(),
        })
    });
    let server = server(&[Presenter::Elicitation, Presenter::File], vec![file])
        .url_page(Box::new(page(&person)), LINK.to_string());
    let session = connect(server, person, Era::Stateless).await;
    let result = session.call(questions(&[database()])).await;
    assert!(session.person.elicitations().is_empty());
    assert_eq!(result["structuredContent"]["pendingFile"], "/tmp/p.json");
    session.close().await.unwrap();
}

#[tokio::test]
async fn present_url_sends_the_page_even_to_a_client_with_forms_and_a_decline_cancels() {
    let person = Person::new(Some(json!({"form": {}, "url": {}}))).does(ElicitationAction::Decline);
    let page = Scripted::silent(Presenter::Web);
    let shown = page.shown();
    let server = server(&[Presenter::Url, Presenter::File], Vec::new())
        .url_page(Box::new(page), LINK.to_string());
    let session = connect(server, person, Era::Handshake).await;
    let result = session.call(questions(&[database()])).await;
    assert_eq!(session.person.elicitations()[0]["mode"], "url");
    assert_eq!(shown.borrow().len(), 1, "the page showed the ask");
    assert_eq!(result["structuredContent"]["cancelled"], true, "{result}");
    assert_eq!(text(&result), CANCELLED);
    session.close().await.unwrap();
}

#[tokio::test]
async fn a_secret_question_skips_the_form_and_the_pending_file() {
    let secret = json!({"question": "What is the deploy token?", "secret": true});
    let file = Scripted::new(Presenter::File, first_options);
    let file_shown = file.shown();
    let tui = Scripted::new(Presenter::Tui, |request| {
        Ok(Outcome::Answered(vec![Answer::custom(
            &request.input.questions[0].question,
            "hunter2",
        )]))
    });
    let tui_shown = tui.shown();
    let session = connect(
        server(
            &[Presenter::Elicitation, Presenter::File, Presenter::Tui],
            vec![file, tui],
        ),
        Person::with_forms(),
        Era::Handshake,
    )
    .await;
    let result = session.call(questions(std::slice::from_ref(&secret))).await;
    assert!(session.person.elicitations().is_empty(), "no form was sent");
    assert!(file_shown.borrow().is_empty(), "no file was written");
    assert_eq!(tui_shown.borrow().len(), 1);
    // The answer reaches the model, and only the model.
    assert_eq!(
        text(&result),
        r#"{"answers":{"What is the deploy token?":"hunter2"}}"#
    );
    session.close().await.unwrap();

    // With only a form and the file listed, nothing may ask it.
    let session = connect(
        server(
            &[Presenter::Elicitation, Presenter::File],
            vec![Scripted::new(Presenter::File, first_options)],
        ),
        Person::with_forms(),
        Era::Handshake,
    )
    .await;
    let result = session.call(questions(&[secret])).await;
    assert!(is_error(&result), "{result}");
    assert!(
        text(&result).starts_with(
            "The questions were not shown to the user: a question is secret, and a secret \
             cannot go through an MCP form"
        ),
        "{result}"
    );
    assert!(session.person.elicitations().is_empty());
    session.close().await.unwrap();
}

#[tokio::test]
async fn a_sub_agent_is_refused_before_anything_is_shown() {
    let tui = Scripted::new(Presenter::Tui, first_options);
    let shown = tui.shown();
    let server = server(&[Presenter::Elicitation, Presenter::Tui], vec![tui]).sub_agent(true);
    let session = connect(server, Person::with_forms(), Era::Handshake).await;
    let result = session.call(questions(&[database()])).await;
    assert!(is_error(&result), "{result}");
    assert_eq!(text(&result), ask_core::SUBAGENT_REFUSAL);
    assert!(session.person.elicitations().is_empty());
    assert!(shown.borrow().is_empty());
    session.close().await.unwrap();
}

#[tokio::test]
async fn an_invalid_call_is_a_tool_error_listing_every_problem() {
    let call = json!({"questions": [{"question": "Which?", "options": [{"label": "Only one"}]}],
                      "extra": 1});
    let problems = ask_schema::parse(&call, &Limits::default()).unwrap_err();
    assert_eq!(problems.len(), 2);
    for era in ERAS {
        let session = connect(
            server(&[Presenter::Elicitation], Vec::new()),
            Person::with_forms(),
            era,
        )
        .await;
        let result = session.call(call.clone()).await;
        assert!(is_error(&result), "{era:?}");
        assert!(
            result.get("structuredContent").is_none(),
            "{era:?}: {result}"
        );
        assert_eq!(
            text(&result),
            ToolOutput::invalid(&problems).content,
            "{era:?}"
        );
        assert!(session.person.elicitations().is_empty(), "{era:?}");
        let lines = session.lines();
        assert_eq!(lines[0], "the call is invalid (2 problems):", "{lines:?}");
        session.close().await.unwrap();
    }
}

#[tokio::test]
async fn another_tool_name_is_a_protocol_error() {
    let session = connect(
        server(&[Presenter::Elicitation], Vec::new()),
        Person::with_forms(),
        Era::Handshake,
    )
    .await;
    let params = CallToolRequestParams::new("ask_someone");
    let error = session.client.call_tool(params).await.unwrap_err();
    let message = error.to_string();
    assert!(
        message.contains("unknown tool `ask_someone`; this server has only `ask_user`"),
        "{message}"
    );
    session.close().await.unwrap();
}

/// A client that speaks JSON lines by hand, for what no client library can write.
struct RawClient {
    write: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    lines: tokio::io::Lines<BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>,
}

impl RawClient {
    /// Serves `server` to a raw client and does the initialize handshake.
    async fn connect(server: McpServer) -> (RawClient, JoinHandle<Result<Ended, McpError>>) {
        let (client_end, server_end) = tokio::io::duplex(1 << 16);
        let (read, write) = tokio::io::split(server_end);
        let served = tokio::spawn(server.serve(read, write));
        let (read, write) = tokio::io::split(client_end);
        let mut client = RawClient {
            write,
            lines: BufReader::new(read).lines(),
        };
        client
            .send(
                &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "raw", "version": "1"}}}),
            )
            .await;
        let init = client.read().await;
        assert_eq!(init["result"]["serverInfo"]["name"], "ask-user", "{init}");
        client
            .send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        (client, served)
    }

    async fn send(&mut self, message: &Value) {
        self.send_text(&message.to_string()).await;
    }

    async fn send_text(&mut self, line: &str) {
        self.write.write_all(line.as_bytes()).await.unwrap();
        self.write.write_all(b"\n").await.unwrap();
        self.write.flush().await.unwrap();
    }

    async fn read(&mut self) -> Value {
        let line = tokio::time::timeout(PATIENCE, self.lines.next_line())
            .await
            .expect("a message in time")
            .unwrap()
            .expect("a message");
        serde_json::from_str(&line).unwrap()
    }
}

#[tokio::test]
async fn a_call_whose_arguments_repeat_a_key_is_refused() {
    let file = Scripted::new(Presenter::File, first_options);
    let shown = file.shown();
    let (mut client, served) = RawClient::connect(server(&[Presenter::File], vec![file])).await;
    // serde_json cannot write a repeated key: the line is written by hand. The second
    // `question` would silently win if the server read only the parsed arguments.
    client
        .send_text(
            r#"{"jsonrpc": "2.0", "id": "call-7", "method": "tools/call", "params": {"name": "ask_user", "arguments": {"questions": [{"question": "Deploy to staging?", "question": "Drop the database?", "options": [{"label": "Yes"}, {"label": "No"}]}]}}}"#,
        )
        .await;
    let reply = client.read().await;
    assert_eq!(reply["id"], "call-7", "{reply}");
    assert_eq!(reply["result"]["isError"], true, "{reply}");
    assert_eq!(
        reply["result"]["content"][0]["text"],
        "The ask_user call is invalid:\n/questions/0: the key `question` appears twice; give each \
         field once",
        "{reply}"
    );
    assert!(shown.borrow().is_empty());
    // A well-formed call on the same connection is not affected.
    client
        .send(
            &json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {
            "name": "ask_user", "arguments": {"questions": [{"question": "Ship it?",
            "options": [{"label": "Yes"}, {"label": "No"}]}]}}}),
        )
        .await;
    let reply = client.read().await;
    assert_eq!(reply["id"], 8, "{reply}");
    assert_eq!(reply["result"]["isError"], false, "{reply}");
    assert_eq!(
        reply["result"]["structuredContent"]["answers"][0]["answer"], "Yes",
        "{reply}"
    );
    drop(client);
    assert_eq!(served.await.unwrap().unwrap(), Ended::ClientClosed);
}

#[tokio::test]
async fn a_message_over_the_cap_ends_the_session() {
    let file = Scripted::new(Presenter::File, first_options);
    let shown = file.shown();
    let server = server(&[Presenter::File], vec![file]).max_message_bytes(4096);
    let session = connect(server, Person::without_forms(), Era::Handshake).await;
    // A message under the cap is served.
    let result = session.call(questions(&[database()])).await;
    assert!(!is_error(&result), "{result}");
    // One over it ends the session before it is read whole.
    let long = json!({"question": format!("{}?", "Why ".repeat(1200))});
    let refused = session.try_call(questions(&[long])).await;
    assert!(refused.is_err(), "{refused:?}");
    assert_eq!(shown.borrow().len(), 1);
    let ended = tokio::time::timeout(PATIENCE, session.served)
        .await
        .unwrap()
        .unwrap();
    let error = ended.unwrap_err();
    assert!(
        matches!(error, McpError::MessageTooLarge(4096)),
        "{error:?}"
    );
    assert_eq!(
        error.to_string(),
        "a message from the MCP client is longer than 4096 bytes, the most one message may \
         hold; the session was ended"
    );
}

#[tokio::test]
async fn a_waiting_call_sends_progress_until_the_person_answers() {
    for era in ERAS {
        let person = Person::without_forms();
        // The person answers once the client has had three progress notifications.
        let tui = Scripted::new(Presenter::Tui, first_options)
            .after(person.seen.subscribe(), |seen| seen.progress.len() >= 3);
        let server = server(&[Presenter::Tui], vec![tui]).progress_every(Duration::from_millis(5));
        let session = connect(server, person, era).await;
        let result = session.call(questions(&[database()])).await;
        assert_eq!(
            text(&result),
            r#"{"answers":{"Which database should we use?":"PostgreSQL (Recommended)"}}"#,
            "{era:?}"
        );
        let progress = session.person.seen().progress;
        assert!(progress.len() >= 3, "{era:?}: {progress:?}");
        for (n, note) in progress.iter().enumerate() {
            // The token the client gave its call.
            assert_eq!(
                note["progressToken"], progress[0]["progressToken"],
                "{era:?}: {note}"
            );
            // Each notification counts one more interval waited.
            assert_eq!(
                note["progress"].as_f64(),
                Some((n + 1) as f64),
                "{era:?}: {note}"
            );
            assert_eq!(note["message"], "Waiting for the user to answer", "{era:?}");
        }
        session.close().await.unwrap();
    }
}

// The clock is paused in the tests below: the runtime skips ahead to the next timer whenever
// every task waits, so a person's seconds pass at once and every count is exact.

#[tokio::test(start_paused = true)]
async fn progress_keeps_a_slow_answer_alive_when_the_client_resets_its_timeout() {
    for reset in [true, false] {
        let person = Person::without_forms();
        // The person answers after twice the client's timeout; progress comes at the default
        // interval.
        let timeout = Duration::from_secs(3);
        let tui = Scripted::new(Presenter::Tui, first_options).taking(2 * timeout);
        assert!(ask_mcp::testing::PROGRESS_EVERY < timeout);
        let session = connect(server(&[Presenter::Tui], vec![tui]), person, Era::Handshake).await;
        let mut options = PeerRequestOptions::with_timeout(timeout);
        if reset {
            options = options.reset_timeout_on_progress();
        }
        let result = session.call_with(questions(&[database()]), options).await;
        if reset {
            let result = result.unwrap();
            assert_eq!(
                result["structuredContent"]["answers"][0]["answer"],
                "PostgreSQL (Recommended)"
            );
            // At 2 s and 4 s, and at 6 s unless the answer came first.
            let sent = session.person.seen().progress.len();
            assert!((2..=3).contains(&sent), "{sent}");
        } else {
            // Without the reset the same call is cut at the timeout: progress is what kept it.
            let error = result.unwrap_err();
            assert!(matches!(error, ServiceError::Timeout { .. }), "{error:?}");
        }
        session.close().await.unwrap();
    }
}

#[tokio::test(start_paused = true)]
async fn progress_goes_only_to_a_call_that_gave_a_token() {
    let tui = Scripted::new(Presenter::Tui, first_options).taking(Duration::from_secs(10));
    let server = server(&[Presenter::Tui], vec![tui]).progress_every(Duration::from_secs(1));
    let (mut client, served) = RawClient::connect(server).await;
    let call = |id: u32, meta: Value| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "_meta": meta, "name": "ask_user", "arguments": questions(&[database()])}})
    };
    // A call with a token: one notification a second while the person takes ten (the tenth
    // second's may come after the answer), then the result.
    client
        .send(&call(2, json!({"progressToken": "slow"})))
        .await;
    let mut progress = Vec::new();
    let result = loop {
        let message = client.read().await;
        if message["method"] == "notifications/progress" {
            assert_eq!(message["params"]["progressToken"], "slow", "{message}");
            progress.push(message["params"]["progress"].as_f64().unwrap());
        } else {
            break message;
        }
    };
    assert_eq!(result["id"], 2, "{result}");
    assert!((9..=10).contains(&progress.len()), "{progress:?}");
    // The same wait without a token: the next message is the result.
    client.send(&call(3, json!({}))).await;
    let result = client.read().await;
    assert_eq!(result["id"], 3, "{result}");
    assert_eq!(result["result"]["isError"], false, "{result}");
    drop(client);
    assert_eq!(served.await.unwrap().unwrap(), Ended::ClientClosed);
}

#[tokio::test]
async fn a_presenter_that_did_not_ask_gives_the_model_its_reason() {
    let tui = Scripted::new(Presenter::Tui, |_| {
        Err(PresentError::Unasked(
            "The terminal is in use by another program; proceed without these answers.".to_string(),
        ))
    });
    let session = connect(
        server(&[Presenter::Tui], vec![tui]),
        Person::without_forms(),
        Era::Handshake,
    )
    .await;
    let result = session.call(questions(&[database()])).await;
    assert!(is_error(&result), "{result}");
    assert_eq!(
        text(&result),
        "The terminal is in use by another program; proceed without these answers."
    );
    // The server goes on: the next call is served, and the session ends with the client.
    let again = session.call(questions(&[database()])).await;
    assert!(is_error(&again), "{again}");
    assert_eq!(session.close().await.unwrap(), Ended::ClientClosed);
}

#[tokio::test]
async fn ctrl_c_twice_in_a_presenter_is_a_tool_error_and_the_server_goes_on() {
    let tui = Scripted::new(Presenter::Tui, |_| {
        Err(PresentError::Interrupted { signal: None })
    });
    let session = connect(
        server(&[Presenter::Tui], vec![tui]),
        Person::without_forms(),
        Era::Handshake,
    )
    .await;
    let result = session.call(questions(&[database()])).await;
    assert!(is_error(&result), "{result}");
    assert_eq!(text(&result), ask_core::interrupted_text(None));
    assert_eq!(session.close().await.unwrap(), Ended::ClientClosed);
}

#[tokio::test]
async fn a_signal_that_ends_a_presenter_stops_the_server_with_that_signal() {
    const SIGTERM: Signal = Signal {
        number: 15,
        name: "SIGTERM",
    };
    let tui = Scripted::new(Presenter::Tui, |_| {
        Err(PresentError::Interrupted {
            signal: Some(SIGTERM),
        })
    });
    let session = connect(
        server(&[Presenter::Tui], vec![tui]),
        Person::without_forms(),
        Era::Handshake,
    )
    .await;
    // The server stops while it answers the call: the client gets the reason or sees the
    // connection close, and the host learns the signal.
    let result = session.try_call(questions(&[database()])).await;
    if let Ok(result) = &result {
        assert!(is_error(result), "{result}");
        assert_eq!(
            text(result),
            "The user was not asked: the ask-user server was stopped by SIGTERM."
        );
    }
    let ended = tokio::time::timeout(PATIENCE, session.served)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        ended.unwrap(),
        Ended::Stopped {
            signal: Some(SIGTERM)
        }
    );
    let lines = session.lines.lock().unwrap().clone();
    assert!(
        lines.iter().any(|line| line == "interrupted by SIGTERM"),
        "{lines:?}"
    );
}

#[tokio::test]
async fn the_host_stops_the_server_with_its_stopper() {
    let server = server(&[Presenter::Elicitation], Vec::new());
    let stopper = server.stopper();
    let session = connect(server, Person::with_forms(), Era::Handshake).await;
    stopper.cancel();
    let ended = tokio::time::timeout(PATIENCE, session.served)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(ended.unwrap(), Ended::Stopped { signal: None });
}

#[tokio::test]
async fn without_a_presenter_that_can_reach_the_person_the_call_is_a_tool_error() {
    // The terminal UI is listed, but there is no terminal; the client shows no form.
    let tui = Scripted::new(Presenter::Tui, first_options);
    let shown = tui.shown();
    let server = McpServer::new(&Limits::default())
        .unwrap()
        .presenters(&[Presenter::Elicitation, Presenter::Tui])
        .unwrap()
        .with_fallback(Fallback::new(Presenter::Tui, Box::new(tui)).available_while(|| false));
    let session = connect(server, Person::without_forms(), Era::Handshake).await;
    let result = session.call(questions(&[database()])).await;
    assert!(is_error(&result), "{result}");
    assert_eq!(
        text(&result),
        "The questions could not be shown to the user: none of the presenters this server was \
         given (elicitation, tui) can reach the user here. Proceed without these answers."
    );
    assert!(shown.borrow().is_empty());
    session.close().await.unwrap();
}

#[tokio::test]
async fn a_client_that_goes_away_mid_question_ends_the_ask_as_connection_lost() {
    let tui = Scripted::silent(Presenter::Tui);
    let mut shown = tui.shown();
    let (server, lines) = logged(server(&[Presenter::Tui], vec![tui]));
    let (mut client, served) = RawClient::connect(server).await;
    client
        .send(
            &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "ask_user", "arguments": questions(&[database()])}}),
        )
        .await;
    // The call reaches the presenter; then the client goes away without a word.
    shown.wait_for(|shown| !shown.is_empty()).await.unwrap();
    drop(client);
    assert_eq!(served.await.unwrap().unwrap(), Ended::ClientClosed);
    let lines = lines.lock().unwrap().clone();
    assert_eq!(lines, ["the client went away before an answer"]);
}

/// A server whose `web` presenter opens a page that the person answers at once, without waiting
/// for its link to reach the client.
fn with_quick_pages(server: McpServer) -> McpServer {
    let open: ask_mcp::OpenPage = Box::new(move || {
        Box::pin(async move {
            Ok(ask_mcp::Page {
                frontend: Box::new(Scripted::new(Presenter::Web, first_options)),
                link: LINK.to_string(),
                unspent: None,
            })
        })
    });
    server.pages(open, || true)
}

/// Sends `logging/setLevel` with `level`.
async fn set_level(session: &Session, level: LoggingLevel) -> Result<ServerResult, ServiceError> {
    let request = SetLevelRequest::new(SetLevelRequestParams::new(level));
    session
        .client
        .send_request(ClientRequest::SetLevelRequest(request))
        .await
}

/// The number of log messages the client has received.
fn log_count(session: &Session) -> usize {
    session.person.seen().logs.len()
}

#[tokio::test]
async fn every_declared_capability_answers_its_requests_in_both_eras() {
    for era in ERAS {
        let session = connect(server(&[], Vec::new()), Person::without_forms(), era).await;
        let info = session
            .client
            .peer_info()
            .expect("the server introduced itself");
        let declared = serde_json::to_value(&info.capabilities).unwrap();
        let declared = declared.as_object().expect("capabilities are an object");
        assert!(!declared.is_empty(), "{era:?}");
        for capability in declared.keys() {
            match capability.as_str() {
                "tools" => {
                    let tools = session.client.list_all_tools().await.unwrap();
                    assert_eq!(tools.len(), 1, "{era:?}");
                    // A call with no questions is the model's mistake, told in the tool result.
                    let result = session.call(json!({})).await;
                    assert!(is_error(&result), "{era:?}: {result}");
                }
                "logging" if era == Era::Handshake => {
                    let answer = set_level(&session, LoggingLevel::Info).await;
                    assert!(
                        matches!(answer, Ok(ServerResult::EmptyResult(_))),
                        "{answer:?}"
                    );
                }
                // 2026-07-28 has no `logging/setLevel`: each request names its level in `_meta`
                // (the test below).
                "logging" => {
                    let answer = set_level(&session, LoggingLevel::Info).await;
                    let Err(ServiceError::McpError(error)) = answer else {
                        panic!("{era:?}: logging/setLevel answered {answer:?}");
                    };
                    assert_eq!(error.code, rmcp::model::ErrorCode::METHOD_NOT_FOUND);
                }
                other => panic!(
                    "{era:?}: the server declares `{other}`, and no request of it is walked here"
                ),
            }
        }
        session.close().await.unwrap();
    }
}

#[tokio::test]
async fn log_messages_follow_the_level_the_client_asked_for_in_each_era() {
    let web = || with_quick_pages(server(&[Presenter::Web], Vec::new()));
    // The handshake: every message until `logging/setLevel`, then those at its level or above.
    let session = connect(web(), Person::without_forms(), Era::Handshake).await;
    session.call(questions(&[database()])).await;
    assert_eq!(log_count(&session), 1);
    set_level(&session, LoggingLevel::Warning).await.unwrap();
    session.call(questions(&[database()])).await;
    assert_eq!(log_count(&session), 1, "a notice went out above warning");
    set_level(&session, LoggingLevel::Notice).await.unwrap();
    session.call(questions(&[database()])).await;
    assert_eq!(log_count(&session), 2);
    session.close().await.unwrap();
    // 2026-07-28: each request's own `_meta`, and none without it.
    let session = connect(web(), Person::without_forms(), Era::Stateless).await;
    let at = |level| params_at(questions(&[database()]), level);
    for (level, logged) in [
        (None, 0),
        (Some(LoggingLevel::Error), 0),
        (Some(LoggingLevel::Notice), 1),
        (None, 1),
        (Some(LoggingLevel::Debug), 2),
    ] {
        let result = tokio::time::timeout(PATIENCE, session.client.call_tool(at(level)))
            .await
            .expect("the call ends in time")
            .unwrap();
        assert_eq!(result.is_error, Some(false), "{level:?}: {result:?}");
        assert_eq!(log_count(&session), logged, "{level:?}");
    }
    session.close().await.unwrap();
}

#[tokio::test]
async fn a_client_that_only_discovers_the_server_closes_it_as_a_client_that_left() {
    // 2026-07-28 has no session to start: a client may ask `server/discover` and leave.
    let session = connect(
        server(&[], Vec::new()),
        Person::without_forms(),
        Era::Stateless,
    )
    .await;
    let info = session
        .client
        .peer_info()
        .expect("the server introduced itself");
    assert_eq!(
        info.server_info.as_ref().map(|server| server.name.as_str()),
        Some("ask-user")
    );
    assert_eq!(session.close().await.unwrap(), Ended::ClientClosed);
    // On the handshake, a client that leaves before `initialize` never started one.
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    let (read, write) = tokio::io::split(server_end);
    let served = tokio::spawn(server(&[], Vec::new()).serve(read, write));
    drop(client_end);
    let ended = tokio::time::timeout(PATIENCE, served)
        .await
        .unwrap()
        .unwrap();
    assert!(matches!(ended, Err(McpError::Start(_))), "{ended:?}");
}

/// A form's typed answer one byte over the 64 KiB cap counts as declining the form: it never
/// reaches the model, and the next presenter takes the call from nothing; one at exactly the cap
/// answers the call.
#[tokio::test]
async fn a_form_answer_over_the_cap_counts_as_declined_and_the_chain_goes_on() {
    let at_cap = "ж".repeat(ask_core::MAX_ANSWER_BYTES / 2);
    for era in ERAS {
        let person = Person::with_forms().accepts(json!({"q1_other": format!("{at_cap}!")}));
        let file = Scripted::new(Presenter::File, |_| {
            Ok(Outcome::Pending {
                file: "/tmp/pending-questions.json".to_string(),
                instructions: PENDING_INSTRUCTIONS.to_string(),
            })
        });
        let shown = file.shown();
        let server = server(&[Presenter::Elicitation, Presenter::File], vec![file]);
        let session = connect(server, person, era).await;
        let result = session.call(questions(&[database()])).await;
        assert_eq!(session.person.elicitations().len(), 1, "{era:?}");
        let shown = shown.borrow().clone();
        assert_eq!(shown.len(), 1, "{era:?}");
        assert_eq!(shown[0].given, Vec::<Option<Answer>>::new(), "{era:?}");
        assert_eq!(text(&result), PENDING_INSTRUCTIONS, "{era:?}");
        let lines = session.lines();
        assert!(
            lines.iter().any(|line| line
                == "the form's answer to question 1 is 65537 bytes of UTF-8, over the cap of \
                    65536 bytes (64 KiB) per question, so the form counts as declined; the \
                    next presenter takes the call"),
            "{era:?}: {lines:?}"
        );
        session.close().await.unwrap();

        // With nothing after the form, the model is told that nothing was answered.
        let person = Person::with_forms().accepts(json!({"q1_other": format!("{at_cap}!")}));
        let session = connect(server_alone(), person, era).await;
        let result = session.call(questions(&[database()])).await;
        assert!(is_error(&result), "{era:?}: {result}");
        assert!(
            text(&result).contains("over the cap of 65536 bytes (64 KiB) per question"),
            "{era:?}: {result}"
        );
        assert!(
            !text(&result).contains("жж"),
            "{era:?}: the answer is not echoed"
        );
        session.close().await.unwrap();

        let person = Person::with_forms().accepts(json!({"q1_other": at_cap}));
        let session = connect(server_alone(), person, era).await;
        let result = session.call(questions(&[database()])).await;
        assert!(!is_error(&result), "{era:?}: {result}");
        let content: Value = serde_json::from_str(text(&result)).unwrap();
        assert!(
            content["answers"]["Which database should we use?"] == json!(at_cap),
            "{era:?}: the answer at the cap reaches the model whole"
        );
        session.close().await.unwrap();
    }
}

fn server_alone() -> McpServer {
    server(&[Presenter::Elicitation], Vec::new())
}

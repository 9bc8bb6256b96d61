//! The inbox's store (`ask-user serve --store`): what it keeps, that the first outcome wins on
//! the disk, that a secret never reaches it, and that agents attach again — by call id, or by
//! their capability after the inbox restarted on the same store. Agents are `ViaFrontend`s
//! and the person a plain HTTP client, over real connections to 127.0.0.1.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ask_core::{Answer, AskRequest, Frontend, Limits, Outcome, Question, ValidatedInput};
use ask_web::{
    AskStore, Asker, Inbox, InboxTokens, KeptState, SqliteStore, Stored, StoredAsk, ViaFrontend,
};
use common::{http, visit};
use serde_json::{Value, json};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// How long a test waits for something before it fails: a bound, never a pace.
const PATIENCE: Duration = Duration::from_secs(20);

/// A plain choice and a free-text question.
fn call() -> ValidatedInput {
    let input = ask_core::AskUserInput {
        questions: vec![
            Question::choice("Deploy where?", ["staging", "production"]),
            Question::text("Release name?"),
        ],
        metadata: None,
    };
    ask_core::validate(input, &Limits::default()).unwrap()
}

/// A plain choice and a secret free-text question.
fn secret_call() -> ValidatedInput {
    let input = ask_core::AskUserInput {
        questions: vec![
            Question::choice("Deploy where?", ["staging", "production"]),
            Question::text("Deploy key?").secret(),
        ],
        metadata: None,
    };
    ask_core::validate(input, &Limits::default()).unwrap()
}

fn request(call_id: &str, input: ValidatedInput) -> AskRequest {
    AskRequest {
        request_id: call_id.to_string(),
        input,
        given: Vec::new(),
    }
}

/// An inbox on `addr` keeping its asks in the store at `path`, served on a task of its own.
struct Served {
    inbox: Arc<Inbox>,
    stop: Option<CancellationToken>,
    serving: JoinHandle<()>,
}

impl Served {
    /// Opens the store (waiting while an inbox stopped a moment ago still holds it), shows what
    /// it kept, and serves.
    async fn start(path: &Path, addr: SocketAddr, tokens: InboxTokens) -> Served {
        let deadline = Instant::now() + PATIENCE;
        let store = loop {
            match SqliteStore::open(path) {
                Ok(store) => break store,
                Err(error) => {
                    assert!(Instant::now() < deadline, "{error}");
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            }
        };
        let kept = store.load().await.unwrap();
        let inbox = Arc::new(
            Inbox::bind_stored(
                addr,
                Limits::default(),
                Stored {
                    tokens,
                    store: Arc::new(store),
                    kept,
                },
            )
            .unwrap(),
        );
        let stop = CancellationToken::new();
        let serving = tokio::spawn({
            let inbox = Arc::clone(&inbox);
            let stop = stop.clone();
            async move {
                inbox.serve_until(stop).await.unwrap();
            }
        });
        Served {
            inbox,
            stop: Some(stop),
            serving,
        }
    }

    /// An agent of this inbox, named `name`.
    fn agent(&self, name: &str) -> ViaFrontend {
        ViaFrontend::new(
            self.inbox.base_url(),
            self.inbox.agent_token().to_string(),
            Asker {
                agent: Some(name.to_string()),
                cwd: Some("/work/app".to_string()),
            },
        )
        .unwrap()
    }

    /// The person's page: the address and the credential of a fresh link.
    async fn person(&self) -> (String, String) {
        let link = self.inbox.fresh_link().unwrap();
        tokio::task::spawn_blocking(move || visit(&link))
            .await
            .unwrap()
    }

    /// Stops the inbox in order and lets go of its store.
    async fn stop(mut self) {
        self.stop.take().unwrap().cancel();
        tokio::time::timeout(PATIENCE, &mut self.serving)
            .await
            .expect("the inbox stops in time")
            .unwrap();
    }
}

/// The page's list of asks, once `until` holds for it.
async fn asks_until(addr: &str, credential: &str, until: fn(&Value) -> bool) -> Value {
    let (addr, credential) = (addr.to_string(), credential.to_string());
    tokio::task::spawn_blocking(move || {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let (status, _, body) = http(
                &addr,
                "GET",
                "/api/asks",
                &[("Authorization", &credential)],
                "",
            );
            assert_eq!(status, 200, "{body}");
            let snapshot: Value = serde_json::from_str(&body).unwrap();
            if until(&snapshot) {
                return snapshot;
            }
            assert!(Instant::now() < deadline, "{snapshot}");
            std::thread::sleep(Duration::from_millis(20));
        }
    })
    .await
    .unwrap()
}

fn one_waiting(snapshot: &Value) -> bool {
    snapshot["asks"]
        .as_array()
        .is_some_and(|asks| asks.iter().any(|a| a["state"] == "waiting_for_user"))
}

/// The person answers the ask `id` with `answers`: the status and the reply.
async fn answer(addr: &str, credential: &str, id: &str, answers: Value) -> (u16, Value) {
    let (addr, credential, id) = (addr.to_string(), credential.to_string(), id.to_string());
    tokio::task::spawn_blocking(move || {
        let origin = format!("http://{addr}");
        let (status, _, body) = http(
            &addr,
            "POST",
            &format!("/api/asks/{id}/answer"),
            &[
                ("Authorization", &credential),
                ("Origin", &origin),
                ("Content-Type", "application/json"),
            ],
            &json!({ "answers": answers }).to_string(),
        );
        (status, serde_json::from_str(&body).unwrap())
    })
    .await
    .unwrap()
}

fn waiting_id(snapshot: &Value) -> String {
    snapshot["asks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["state"] == "waiting_for_user")
        .unwrap()["requestId"]
        .as_str()
        .unwrap()
        .to_string()
}

fn answered(name: &str) -> Vec<Answer> {
    vec![
        Answer::selected("Deploy where?", "staging"),
        Answer::custom("Release name?", name),
    ]
}

/// An agent process that asks `input` as `agent` with `call_id`, then dies before the person
/// answers: its connection is closed once the inbox holds its ask, and nothing withdraws it.
fn ask_then_die(served: &Served, agent: &str, call_id: &str, input: &ValidatedInput) {
    let addr = served.inbox.local_addr().to_string();
    let authorization = common::prove(&addr, served.inbox.agent_token());
    let body = json!({
        "agent": agent, "cwd": "/work/app", "callId": call_id, "input": input.input(),
    })
    .to_string();
    let mut stream = std::net::TcpStream::connect(&addr).unwrap();
    let request = format!(
        "POST /api/agent/asks HTTP/1.0\r\nHost: {addr}\r\nAuthorization: {authorization}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    std::io::Write::write_all(&mut stream, request.as_bytes()).unwrap();
    let mut head = [0u8; 12];
    std::io::Read::read_exact(&mut stream, &mut head).unwrap();
    assert_eq!(&head, b"HTTP/1.0 200", "the ask is held");
}

/// `agent` asks `input` with `call_id`, on a task of its own.
fn asking(
    agent: &ViaFrontend,
    call_id: &'static str,
    input: ValidatedInput,
) -> JoinHandle<Result<Outcome, ask_core::PresentError>> {
    let agent = agent.clone();
    tokio::spawn(async move { agent.present(&request(call_id, input)).await })
}

/// A store in a fresh folder, an address and tokens kept across restarts, and an inbox on them.
async fn fresh() -> (
    tempfile::TempDir,
    std::path::PathBuf,
    SocketAddr,
    InboxTokens,
    Served,
) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("asks.db");
    let addr = free_addr();
    let tokens = InboxTokens::fresh().unwrap();
    let served = Served::start(&path, addr, tokens.clone()).await;
    (dir, path, addr, tokens, served)
}

fn free_addr() -> SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap()
}

fn kept_ask(id: &str) -> StoredAsk {
    StoredAsk {
        id: id.to_string(),
        capability: ask_web::testing::auth::digest(&["capability"]),
        asker: Asker::default(),
        questions: call().questions.clone(),
        given: Vec::new(),
        since: 1,
        state: KeptState::Waiting,
    }
}

#[tokio::test]
async fn the_store_keeps_asks_across_a_reopen_and_the_first_outcome_wins() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("inbox/asks.db");
    let store = SqliteStore::open(&path).unwrap();
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&path).unwrap().permissions().mode();
    assert_eq!(
        mode & 0o777,
        0o600,
        "the person's answers are this user's alone"
    );
    // One inbox per store.
    let second = SqliteStore::open(&path).unwrap_err().to_string();
    assert!(second.contains("another process has it open"), "{second}");
    for id in ["ask-1", "ask-2", "ask-3"] {
        store.put(&kept_ask(id)).await.unwrap();
    }
    let answered_state = KeptState::Answered {
        answers: answered("first"),
        delivered: false,
    };
    assert!(
        store
            .record_first_outcome("ask-2", answered_state.clone())
            .await
            .unwrap()
    );
    // A later outcome loses, whichever it is.
    let later = KeptState::Answered {
        answers: answered("second"),
        delivered: false,
    };
    assert!(!store.record_first_outcome("ask-2", later).await.unwrap());
    let cancel = KeptState::Cancelled { delivered: false };
    assert!(!store.record_first_outcome("ask-2", cancel).await.unwrap());
    assert!(
        !store
            .record_first_outcome("ask-9", KeptState::Withdrawn)
            .await
            .unwrap()
    );
    drop(store);
    let store = SqliteStore::open(&path).unwrap();
    let kept = store.load().await.unwrap().open;
    let ids: Vec<&str> = kept.iter().map(|a| a.id.as_str()).collect();
    assert_eq!(
        ids,
        ["ask-1", "ask-2", "ask-3"],
        "in the order they arrived"
    );
    assert_eq!(kept[1].state, answered_state);
    assert_eq!(kept[0].state, KeptState::Waiting);
}

/// The store at `path`, opened anew once the inbox that had it let it go: tasks of a stopped
/// inbox that were still finishing (an ask written on a task of its own) hold its store, and
/// with it the store's lock, a moment after the inbox itself is dropped.
async fn released(path: &Path) -> SqliteStore {
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        match SqliteStore::open(path) {
            Ok(store) => return store,
            Err(error)
                if matches!(error.fault, ask_web::StoreFault::Locked)
                    && tokio::time::Instant::now() < deadline =>
            {
                tokio::time::sleep(std::time::Duration::from_millis(10)).await;
            }
            Err(error) => panic!("{error}"),
        }
    }
}

/// The ids and states of the asks `ask-N` of the store at `path`, opened anew, by number.
async fn reopened(path: &Path) -> Vec<(String, KeptState)> {
    let store = SqliteStore::open(path).unwrap();
    let kept = store.load().await.unwrap();
    let mut states = Vec::new();
    for n in 0..=kept.taken {
        let id = format!("ask-{n}");
        if let Some(ask) = store.get(&id).await.unwrap() {
            states.push((id, ask.state));
        }
    }
    states
}

/// `serve` stops by ending its tasks, some of them waiting for a change of the store, then
/// exits: `finish_writes` returns only once every change asked for before it has ended.
#[test]
fn finish_writes_waits_for_the_changes_of_tasks_that_were_given_up() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("asks.db");
    let store = SqliteStore::open(&path).unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    runtime.block_on(async {
        let asked = Arc::new(AtomicUsize::new(0));
        for n in 0..200 {
            let (store, asked) = (store.clone(), Arc::clone(&asked));
            tokio::spawn(async move {
                let ask = kept_ask(&format!("ask-{n}"));
                let put = store.put(&ask);
                tokio::pin!(put);
                // The change is asked for at the first poll of `put`; then the count.
                tokio::select! {
                    biased;
                    _ = &mut put => {}
                    () = async {
                        asked.fetch_add(1, Ordering::SeqCst);
                        std::future::pending::<()>().await;
                    } => {}
                }
            });
        }
        while asked.load(Ordering::SeqCst) < 200 {
            tokio::task::yield_now().await;
        }
    });
    // The tasks are given up, their changes still on the way.
    drop(runtime);
    store.finish_writes();
    drop(store);
    let kept = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(reopened(&path));
    assert_eq!(kept.len(), 200, "every change asked for was written");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_given_while_its_agent_is_away_is_saved_and_reaches_it_when_it_asks_again() {
    let (_dir, _, _, _, served) = fresh().await;
    let agent = served.agent("builder");
    let (addr, credential) = served.person().await;
    // The agent asks, then its process goes away before the person answers.
    ask_then_die(&served, "builder", "toolu_01", &call());
    let snapshot = asks_until(&addr, &credential, one_waiting).await;
    let id = waiting_id(&snapshot);
    assert!(id.starts_with("ask-") && id.len() == 36, "derived: {id}");
    // The held connection is gone (or about to be found gone); the ask waits for its agent.
    let (status, reply) = answer(
        &addr,
        &credential,
        &id,
        json!([{"answer": "staging"}, {"answer": "v2"}]),
    )
    .await;
    assert_eq!(status, 202, "{reply}");
    assert_eq!(reply, json!({"state": "answered", "saved": true}));
    // A second answer is refused: the first one is on its way.
    let (status, _) = answer(
        &addr,
        &credential,
        &id,
        json!([{"answer": "production"}, {"answer": "v3"}]),
    )
    .await;
    assert_eq!(status, 409);
    // The same call, asked again, gets the saved answers at once.
    let same = request("toolu_01", call());
    let again = agent.present(&same);
    let outcome = tokio::time::timeout(PATIENCE, again)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(outcome, Outcome::Answered(answered("v2")));
    // And once more, from the store: one record per call id, the same answers.
    let replay = agent.present(&same);
    let outcome = tokio::time::timeout(PATIENCE, replay)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(outcome, Outcome::Answered(answered("v2")));
    // Another agent with the same call id asks its own question.
    let other = served.agent("reviewer");
    let other = tokio::spawn(async move { other.present(&request("toolu_01", call())).await });
    let snapshot = asks_until(&addr, &credential, one_waiting).await;
    assert_ne!(waiting_id(&snapshot), id);
    other.abort();
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_call_id_with_other_questions_is_refused() {
    let (_dir, _, _, _, served) = fresh().await;
    let agent = served.agent("builder");
    let (addr, credential) = served.person().await;
    let first = asking(&agent, "toolu_02", call());
    asks_until(&addr, &credential, one_waiting).await;
    let error = agent
        .present(&request("toolu_02", secret_call()))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("this call id already asked other questions"),
        "{error}"
    );
    first.abort();
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restarted_inbox_shows_the_same_waiting_ask_and_its_agent_attaches_again() {
    let (_dir, path, addr, tokens, served) = fresh().await;
    let agent = served.agent("builder");
    let (page, credential) = served.person().await;
    // No call id: the agent attaches again with its capability.
    let waiting = asking(&agent, ask_core::testing::NO_CALL_ID, call());
    let before = asks_until(&page, &credential, one_waiting).await;
    let id = waiting_id(&before);
    served.stop().await;
    assert!(
        !waiting.is_finished(),
        "the agent waits for the inbox to come back"
    );
    let served = Served::start(&path, addr, tokens).await;
    let (page, credential) = served.person().await;
    let after = asks_until(&page, &credential, one_waiting).await;
    assert_eq!(waiting_id(&after), id);
    assert_eq!(after["asks"][0]["agent"], "builder");
    assert_eq!(after["asks"][0]["since"], before["asks"][0]["since"]);
    // The agent re-attaches in the background; the answer waits for it if it is not back yet.
    let (status, reply) = answer(
        &page,
        &credential,
        &id,
        json!([{"answer": "staging"}, {"answer": "after"}]),
    )
    .await;
    assert!(status == 200 || status == 202, "{status} {reply}");
    let outcome = tokio::time::timeout(PATIENCE, waiting)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(outcome, Outcome::Answered(answered("after")));
    // A new ask after the restart is numbered after the kept ones.
    let next = asking(&agent, ask_core::testing::NO_CALL_ID, call());
    let snapshot = asks_until(&page, &credential, one_waiting).await;
    assert_eq!(waiting_id(&snapshot), "ask-2");
    next.abort();
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_secret_answer_is_never_written_to_the_store() {
    let (_dir, path, addr, tokens, served) = fresh().await;
    let agent = served.agent("builder");
    let (page, credential) = served.person().await;
    // Answered while the agent waits: delivered, and only the plain answer is kept.
    let waiting = asking(&agent, "toolu_03", secret_call());
    let snapshot = asks_until(&page, &credential, one_waiting).await;
    let id = waiting_id(&snapshot);
    let answers = json!([{"answer": "staging"}, {"answer": "hunter2-the-deploy-key"}]);
    let (status, reply) = answer(&page, &credential, &id, answers.clone()).await;
    assert_eq!(status, 200, "{reply}");
    let outcome = waiting.await.unwrap().unwrap();
    let Outcome::Answered(got) = outcome else {
        panic!("{outcome:?}")
    };
    assert_eq!(
        got[1].answer,
        ask_core::AnswerValue::Text("hunter2-the-deploy-key".into())
    );
    // Asked by an agent that is away: the secret cannot be saved, so the page keeps it.
    ask_then_die(&served, "builder", "toolu_04", &secret_call());
    let snapshot = asks_until(&page, &credential, one_waiting).await;
    let id = waiting_id(&snapshot);
    let answers = json!([{"answer": "production"}, {"answer": "swordfish-the-other-key"}]);
    let (status, reply) = answer(&page, &credential, &id, answers).await;
    assert_eq!(status, 503, "{reply}");
    assert_eq!(reply["kept"], true);
    served.stop().await;
    let bytes = std::fs::read(&path).unwrap();
    let holds = |text: &str| bytes.windows(text.len()).any(|w| w == text.as_bytes());
    assert!(holds("staging"), "the plain answer is kept");
    assert!(
        !holds("hunter2"),
        "the delivered secret is not in the store"
    );
    assert!(
        !holds("swordfish"),
        "the undelivered secret is not in the store"
    );
    // After a restart the second ask waits again.
    let served = Served::start(&path, addr, tokens).await;
    let (page, credential) = served.person().await;
    let snapshot = asks_until(&page, &credential, one_waiting).await;
    assert_eq!(waiting_id(&snapshot), id);
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wait_the_host_cancels_withdraws_its_ask_from_an_inbox_that_keeps_asks() {
    let (_dir, _, _, _, served) = fresh().await;
    let agent = served.agent("builder");
    let (addr, credential) = served.person().await;
    let cancelled = asking(&agent, "toolu_05", call());
    let snapshot = asks_until(&addr, &credential, one_waiting).await;
    let id = waiting_id(&snapshot);
    // The host drops the call (an MCP client's cancel): the ask leaves the person's list.
    cancelled.abort();
    let _ = cancelled.await;
    let snapshot = asks_until(&addr, &credential, |s| {
        s["asks"][0]["state"] == "connection_lost"
    })
    .await;
    assert_eq!(snapshot["asks"][0]["requestId"], id);
    let (status, _) = answer(
        &addr,
        &credential,
        &id,
        json!([{"answer": "staging"}, {"answer": "late"}]),
    )
    .await;
    assert_eq!(status, 409);
    served.stop().await;
}

/// A [`SqliteStore`] whose writes of new asks wait until the test lets them go. As in the
/// [`SqliteStore`], a write once started goes on when its caller gives up.
#[derive(Debug)]
struct HeldWrites {
    store: SqliteStore,
    /// Told when a write of a new ask starts waiting.
    started: tokio::sync::Notify,
    /// Lets the waiting writes go on.
    go: Arc<tokio::sync::Semaphore>,
}

#[async_trait::async_trait]
impl AskStore for HeldWrites {
    async fn load(&self) -> Result<ask_web::Kept, ask_web::StoreError> {
        self.store.load().await
    }
    async fn get(&self, id: &str) -> Result<Option<StoredAsk>, ask_web::StoreError> {
        self.store.get(id).await
    }
    async fn put(&self, ask: &StoredAsk) -> Result<(), ask_web::StoreError> {
        self.started.notify_one();
        let (go, store, ask) = (Arc::clone(&self.go), self.store.clone(), ask.clone());
        let write = tokio::spawn(async move {
            go.acquire().await.unwrap().forget();
            store.put(&ask).await
        });
        write.await.unwrap()
    }
    async fn set_capability(&self, id: &str, cap: &str) -> Result<bool, ask_web::StoreError> {
        self.store.set_capability(id, cap).await
    }
    async fn mark_delivered(&self, id: &str, s: KeptState) -> Result<bool, ask_web::StoreError> {
        self.store.mark_delivered(id, s).await
    }
    async fn record_first_outcome(
        &self,
        id: &str,
        state: KeptState,
    ) -> Result<bool, ask_web::StoreError> {
        self.store.record_first_outcome(id, state).await
    }
    async fn forget_ended(&self, before: u64) -> Result<u64, ask_web::StoreError> {
        self.store.forget_ended(before).await
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_ask_whose_agent_left_while_it_was_written_is_withdrawn_not_left_waiting() {
    use tower::ServiceExt;
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(HeldWrites {
        store: SqliteStore::open(&dir.path().join("asks.db")).unwrap(),
        started: tokio::sync::Notify::new(),
        go: Arc::new(tokio::sync::Semaphore::new(0)),
    });
    let inbox = Inbox::bind_stored(
        free_addr(),
        Limits::default(),
        Stored {
            tokens: InboxTokens::fresh().unwrap(),
            store: Arc::clone(&store) as Arc<dyn AskStore>,
            kept: ask_web::Kept::default(),
        },
    )
    .unwrap();
    let stop = CancellationToken::new();
    let inbox = Arc::new(inbox);
    let serving = tokio::spawn({
        let inbox = Arc::clone(&inbox);
        let stop = stop.clone();
        async move { inbox.serve_until(stop).await }
    });
    let addr = inbox.local_addr().to_string();
    let token = inbox.agent_token().to_string();
    let proof = tokio::task::spawn_blocking({
        let addr = addr.clone();
        move || common::prove(&addr, &token)
    })
    .await
    .unwrap();
    let body = json!({"agent": "alpha", "cwd": "/work", "input": call().input()});
    let request = axum::http::Request::post("/api/agent/asks")
        .header("host", &addr)
        .header("authorization", proof)
        .header("content-type", "application/json")
        .body(axum::body::Body::from(body.to_string()))
        .unwrap();
    // The agent's request, given up (its connection closed) while the ask is being written.
    let asking = tokio::spawn(inbox.router().oneshot(request));
    tokio::time::timeout(PATIENCE, store.started.notified())
        .await
        .expect("the write starts");
    asking.abort();
    assert!(asking.await.unwrap_err().is_cancelled());
    store.go.add_permits(1);
    // Its agent never got the capability and has no call id to find it by: the ask is
    // withdrawn, on the page and in the store, instead of waiting for nobody.
    let link = inbox.fresh_link().unwrap();
    let (addr, credential) = tokio::task::spawn_blocking(move || visit(&link))
        .await
        .unwrap();
    let listed = asks_until(&addr, &credential, |list| {
        list["asks"][0]["state"] == "connection_lost"
    })
    .await;
    let id = listed["asks"][0]["requestId"].as_str().unwrap();
    let deadline = Instant::now() + PATIENCE;
    let kept = loop {
        let kept = store.load().await.unwrap();
        if kept.open.is_empty() || Instant::now() > deadline {
            break kept;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert!(kept.open.is_empty(), "{:?}", kept.open);
    let withdrawn = store.get(id).await.unwrap().unwrap();
    assert_eq!(withdrawn.state, KeptState::Withdrawn);
    stop.cancel();
    serving.await.unwrap().unwrap();
}

/// An agent's request to `inbox`, proven with its token, on the inbox's router.
async fn agent_request(inbox: &Inbox, path: &str, body: Value) -> axum::response::Response {
    use tower::ServiceExt;
    let addr = inbox.local_addr().to_string();
    let token = inbox.agent_token().to_string();
    let proof = tokio::task::spawn_blocking({
        let addr = addr.clone();
        move || common::prove(&addr, &token)
    })
    .await
    .unwrap();
    let request = axum::http::Request::post(path)
        .header("host", &addr)
        .header("authorization", proof)
        .header("content-type", "application/json")
        .body(axum::body::Body::from(body.to_string()))
        .unwrap();
    inbox.router().oneshot(request).await.unwrap()
}

/// The capability on a held response.
fn capability_of(response: &axum::response::Response) -> String {
    let header = &response.headers()["x-ask-capability"];
    header.to_str().unwrap().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_that_attaches_again_keeps_its_capability_so_a_kill_meanwhile_strands_nothing() {
    let (_dir, path, addr, tokens, served) = fresh().await;
    let body =
        json!({"agent": "alpha", "cwd": "/work", "callId": "call-1", "input": call().input()});
    let asked = agent_request(&served.inbox, "/api/agent/asks", body).await;
    assert_eq!(asked.status(), 200);
    let capability = capability_of(&asked);
    // The agent's connection ends; it attaches again, twice, with the capability it holds.
    drop(asked);
    for _ in 0..2 {
        let wait = json!({"capability": capability});
        let again = agent_request(&served.inbox, "/api/agent/wait", wait).await;
        assert_eq!(again.status(), 200);
        assert_eq!(
            capability_of(&again),
            capability,
            "the agent keeps its capability"
        );
    }
    served.stop().await;
    // Whenever `serve` is killed during those re-attachments, its store holds the capability
    // the agent has: never one the agent did not receive yet.
    let store = SqliteStore::open(&path).unwrap();
    let kept = store.load().await.unwrap();
    assert_eq!(
        kept.open[0].capability,
        ask_web::testing::auth::digest(&[&capability])
    );
    drop(store);
    let served = Served::start(&path, addr, tokens).await;
    let wait = json!({"capability": capability});
    let again = agent_request(&served.inbox, "/api/agent/wait", wait).await;
    assert_eq!(again.status(), 200);
    drop(again);
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_ask_refused_because_the_waiting_asks_fill_their_budget_is_not_kept_waiting() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("asks.db");
    let limits = Limits {
        max_preview_chars: 1_000_000,
        ..Limits::default()
    };
    let bind = |store: SqliteStore, kept| {
        Inbox::bind_stored(
            free_addr(),
            limits,
            Stored {
                tokens: InboxTokens::fresh().unwrap(),
                store: Arc::new(store),
                kept,
            },
        )
        .unwrap()
    };
    let inbox = Arc::new(bind(
        SqliteStore::open(&path).unwrap(),
        ask_web::Kept::default(),
    ));
    let stop = CancellationToken::new();
    let serving = tokio::spawn({
        let (inbox, stop) = (Arc::clone(&inbox), stop.clone());
        async move { inbox.serve_until(stop).await }
    });
    // Asks of about 3 MB each, until one is refused: the budget of 64 MiB is full.
    let preview = "p".repeat(1_000_000);
    let option = |label: &str| json!({"label": label, "description": "d", "preview": preview});
    // Each from an agent of its own, so that no agent's quota stops them first.
    let large = |agent: usize| {
        json!({"agent": format!("agent-{agent}"), "cwd": "/work", "input": {"questions": [{
            "question": "Which layout?", "header": "Layout",
            "options": [option("A"), option("B"), option("C")]}]}})
    };
    let mut shown = 0;
    let refused = loop {
        let asked = agent_request(&inbox, "/api/agent/asks", large(shown)).await;
        if asked.status() == 503 {
            break asked;
        }
        assert_eq!(asked.status(), 200);
        shown += 1;
        assert!(shown < 40, "the budget never filled");
    };
    drop(refused);
    assert!(shown >= 15, "{shown}");
    stop.cancel();
    serving.await.unwrap().unwrap();
    // The refused ask ended in the store; only the shown ones wait there, and after a restart
    // the budget counts those alone.
    drop(inbox);
    let store = released(&path).await;
    let kept = store.load().await.unwrap();
    assert_eq!(kept.open.len(), shown);
    let refused = store
        .get(&format!("ask-{}", shown + 1))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(refused.state, KeptState::Withdrawn);
    let inbox = bind(store, kept);
    assert_eq!(inbox.waiting(), shown);
}

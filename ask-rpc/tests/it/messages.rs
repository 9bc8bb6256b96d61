//! The protocol at the message level: lines in, lines out, snapshotted as transcripts.
//! `>` marks a line the client sends, `<` a line the agent side writes.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use ask_core::{Answer, AskUserInput, Outcome};
use ask_rpc::{Connection, LineReader};
use tokio::io::{AsyncWriteExt, BufReader, DuplexStream, ReadHalf, WriteHalf};
use tokio::task::JoinHandle;

type Lines = LineReader<BufReader<ReadHalf<DuplexStream>>>;

struct Harness {
    connection: Connection,
    to_agent: Option<WriteHalf<DuplexStream>>,
    from_agent: Lines,
    transcript: String,
    asks: Vec<JoinHandle<Outcome>>,
}

fn call(json: &str) -> AskUserInput {
    serde_json::from_str(json).unwrap()
}

fn database() -> AskUserInput {
    call(
        r#"{"questions": [{"question": "Which database?", "header": "Database",
        "options": [{"label": "PostgreSQL (Recommended)", "description": "Relational"}, {"label": "SQLite"}]}],
        "metadata": {"source": "test"}}"#,
    )
}

fn two_questions() -> AskUserInput {
    call(
        r#"{"questions": [{"question": "Which database?", "options": [{"label": "PostgreSQL"}, {"label": "SQLite"}]},
        {"question": "Which features?", "multiSelect": true, "options": [{"label": "Auth"}, {"label": "API"}]}]}"#,
    )
}

impl Harness {
    fn new() -> Harness {
        let (agent, client) = tokio::io::duplex(4 << 20);
        let (agent_read, agent_write) = tokio::io::split(agent);
        let (client_read, client_write) = tokio::io::split(client);
        Harness {
            connection: Connection::new(agent_read, agent_write),
            to_agent: Some(client_write),
            from_agent: LineReader::new(BufReader::new(client_read)),
            transcript: String::new(),
            asks: Vec::new(),
        }
    }

    async fn read(&mut self) -> String {
        let line = tokio::time::timeout(Duration::from_secs(10), self.from_agent.next_line())
            .await
            .expect("the agent side answers within 10 s")
            .unwrap()
            .expect("the agent side is still connected")
            .unwrap();
        self.transcript.push_str(&format!("< {line}\n"));
        line
    }

    /// Starts an ask and records its request and waiting-state lines.
    async fn ask(&mut self, id: &str, input: AskUserInput) {
        let connection = self.connection.clone();
        let id_owned = id.to_string();
        self.asks.push(tokio::spawn(async move {
            connection.ask(&id_owned, &input).await.unwrap()
        }));
        self.read().await;
        self.read().await;
    }

    /// Sends raw bytes as one line and records the one line the agent side writes in reply.
    async fn send(&mut self, line: &[u8]) -> String {
        let shown = String::from_utf8_lossy(line);
        let shown = if shown.len() > 120 {
            format!("{}… ({} bytes)", &shown[..60], line.len())
        } else {
            shown.into_owned()
        };
        self.transcript.push_str(&format!("> {shown}\n"));
        let writer = self.to_agent.as_mut().unwrap();
        writer.write_all(line).await.unwrap();
        writer.write_all(b"\n").await.unwrap();
        writer.flush().await.unwrap();
        self.read().await
    }

    /// Closes the client's side and records the lines that follow, sorted for a stable order.
    async fn hang_up(&mut self, expected: usize) {
        self.transcript.push_str("> (end of input)\n");
        let mut writer = self.to_agent.take().unwrap();
        writer.shutdown().await.unwrap();
        let mut lines = Vec::new();
        for _ in 0..expected {
            let line = tokio::time::timeout(Duration::from_secs(10), self.from_agent.next_line())
                .await
                .unwrap()
                .unwrap()
                .unwrap()
                .unwrap();
            lines.push(line);
        }
        lines.sort();
        for line in lines {
            self.transcript.push_str(&format!("< {line}\n"));
        }
    }
}

fn run<F: std::future::Future<Output = String>>(test: F) -> String {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(test)
}

#[test]
fn answer_with_derived_fields() {
    let transcript = run(async {
        let mut h = Harness::new();
        h.ask("req-1", database()).await;
        h.send(br#"{"type": "ask_user_response", "requestId": "req-1", "answers": [{"question": "Which database?", "answer": "sqlite"}]}"#).await;
        let outcome = h.asks.pop().unwrap().await.unwrap();
        let Outcome::Answered(answers) = outcome else {
            panic!("answered")
        };
        assert_eq!(answers[0].selected_option.as_deref(), Some("SQLite"));
        h.transcript
    });
    assert_snapshot!("answer", transcript);
}

#[test]
fn custom_and_multi_select_answers_by_position() {
    let transcript = run(async {
        let mut h = Harness::new();
        h.ask("req-2", two_questions()).await;
        h.send(br#"{"type": "ask_user_response", "requestId": "req-2", "answers": [{"answer": "DynamoDB"}, {"answer": ["API", "auth", "GraphQL"]}]}"#).await;
        let Outcome::Answered(answers) = h.asks.pop().unwrap().await.unwrap() else {
            panic!()
        };
        assert!(answers[0].was_custom);
        assert_eq!(answers[1].answer.joined(), "Auth, API, GraphQL");
        h.transcript
    });
    assert_snapshot!("custom_and_multi", transcript);
}

#[test]
fn cancel() {
    let transcript = run(async {
        let mut h = Harness::new();
        h.ask("req-3", database()).await;
        h.send(br#"{"type": "ask_user_cancel", "requestId": "req-3"}"#)
            .await;
        assert_eq!(h.asks.pop().unwrap().await.unwrap(), Outcome::Cancelled);
        h.transcript
    });
    assert_snapshot!("cancel", transcript);
}

#[test]
fn bad_lines_are_errors_and_the_connection_carries_on() {
    let transcript = run(async {
        let mut h = Harness::new();
        h.ask("req-4", two_questions()).await;
        h.send(b"this is not json").await;
        h.send(&[0xff, 0xfe, b'{', b'}']).await;
        h.send(br#"{"type": "ask_user_ping", "requestId": "req-4"}"#)
            .await;
        h.send(br#"{"requestId": "req-4"}"#).await;
        h.send(br#"{"type": "ask_user_response", "requestId": "req-4"}"#)
            .await;
        h.send(br#"{"type": "ask_user_response", "requestId": "nobody", "answers": []}"#)
            .await;
        h.send(br#"{"type": "ask_user_response", "requestId": "req-4", "answers": [{"answer": "SQLite"}]}"#).await;
        h.send(br#"{"type": "ask_user_response", "requestId": "req-4", "answers": [{"answer": ["SQLite"]}, {"answer": "Auth"}]}"#).await;
        h.send(br#"{"type": "ask_user_response", "requestId": "req-4", "answers": [{"question": "Which cloud?", "answer": "x"}, {"answer": "Auth"}]}"#).await;
        h.send(br#"{"type": "ask_user_response", "requestId": "req-4", "answers": [{"answer": "Auth", "answer": "SQLite"}, {"answer": "Auth"}]}"#).await;
        h.send(br#"{"type": "ask_user_response", "requestId": "req-4", "answers": [{"answer": "SQLite", "selectedOption": "PostgreSQL"}, {"answer": "Auth"}]}"#).await;
        let mut long = br#"{"type": "ask_user_cancel", "requestId": "req-4", "pad": ""#.to_vec();
        long.extend(std::iter::repeat_n(b'x', ask_rpc::MAX_LINE));
        long.extend(br#""}"#);
        h.send(&long).await;
        // After all of that, the ask is still open and takes a good answer.
        h.send(br#"{"type": "ask_user_response", "requestId": "req-4", "answers": [{"answer": "SQLite"}, {"answer": "Auth"}]}"#).await;
        h.send(br#"{"type": "ask_user_cancel", "requestId": "req-4"}"#)
            .await;
        assert!(matches!(
            h.asks.pop().unwrap().await.unwrap(),
            Outcome::Answered(_)
        ));
        h.transcript
    });
    assert_snapshot!("bad_lines", transcript);
}

#[test]
fn many_asks_in_flight_and_end_of_input() {
    let transcript = run(async {
        let mut h = Harness::new();
        h.ask("a", database()).await;
        h.ask("b", database()).await;
        h.ask("c", two_questions()).await;
        h.send(br#"{"type": "ask_user_response", "requestId": "b", "answers": [{"answer": "PostgreSQL (Recommended)"}]}"#).await;
        h.hang_up(2).await;
        let outcomes: Vec<Outcome> = futures_outcomes(std::mem::take(&mut h.asks)).await;
        assert_eq!(outcomes[0], Outcome::ConnectionLost);
        assert!(matches!(outcomes[1], Outcome::Answered(_)));
        assert_eq!(outcomes[2], Outcome::ConnectionLost);
        // An ask after the end of the input ends at once.
        let late = h.connection.ask("d", &database()).await.unwrap();
        assert_eq!(late, Outcome::ConnectionLost);
        h.transcript
    });
    assert_snapshot!("many_in_flight", transcript);
}

async fn futures_outcomes(tasks: Vec<JoinHandle<Outcome>>) -> Vec<Outcome> {
    let mut outcomes = Vec::new();
    for task in tasks {
        outcomes.push(task.await.unwrap());
    }
    outcomes
}

#[test]
fn a_duplicate_request_id_is_refused() {
    run(async {
        let mut h = Harness::new();
        h.ask("same", database()).await;
        let err = h.connection.ask("same", &database()).await.unwrap_err();
        assert_eq!(
            err.to_string(),
            "an ask with requestId `same` is already waiting on this connection"
        );
        String::new()
    });
}

#[test]
fn a_broken_pipe_ends_every_ask_as_connection_lost() {
    run(async {
        let (agent, client) = tokio::io::duplex(64);
        let (agent_read, agent_write) = tokio::io::split(agent);
        let connection = Connection::new(agent_read, agent_write);
        // The client goes away entirely: writes fail and reads end.
        drop(client);
        let outcome = connection.ask("x", &database()).await.unwrap();
        assert_eq!(outcome, Outcome::ConnectionLost);
        String::new()
    });
}

#[test]
fn an_answer_and_a_late_cancel_in_one_write_keep_their_order() {
    run(async {
        let mut h = Harness::new();
        h.ask("req-9", database()).await;
        let writer = h.to_agent.as_mut().unwrap();
        writer
            .write_all(
                b"{\"type\": \"ask_user_response\", \"requestId\": \"req-9\", \"answers\": [{\"answer\": \"SQLite\"}]}\n\
                  {\"type\": \"ask_user_cancel\", \"requestId\": \"req-9\"}\n",
            )
            .await
            .unwrap();
        writer.flush().await.unwrap();
        let first: serde_json::Value = serde_json::from_str(&h.read().await).unwrap();
        let second: serde_json::Value = serde_json::from_str(&h.read().await).unwrap();
        assert_eq!(first["type"], "ask_user_state", "{first}");
        assert_eq!(first["state"], "answered");
        assert_eq!(second["code"], "duplicate_response", "{second}");
        String::new()
    });
}

#[test]
fn error_messages_never_echo_control_or_bidi_characters() {
    run(async {
        let mut h = Harness::new();
        h.ask("req-1", database()).await;
        // An unknown request id and a malformed message, both quoting hostile bytes.
        for line in [
            r#"{"type": "ask_user_cancel", "requestId": "\u001b]0;pwned\u0007\u202eevil"}"#,
            r#"{"type": "ask_user_response", "requestId": "req-1", "answers": "\u001b[2J\u202e"}"#,
        ] {
            let reply = h.send(line.as_bytes()).await;
            let error: serde_json::Value = serde_json::from_str(&reply).unwrap();
            assert_eq!(error["type"], "error", "{reply}");
            let message = error["message"].as_str().unwrap();
            assert!(
                !message
                    .chars()
                    .any(|c| c.is_control() || matches!(c, '\u{202a}'..='\u{202e}')),
                "{message:?}"
            );
        }
        h.transcript
    });
}

/// A response of the wrong shape, or with an empty answer, is named in the protocol's own terms
/// (never a Rust type), and the ask stays open.
#[test]
fn wrong_and_empty_answers_are_named_in_wire_terms() {
    let transcript = run(async {
        let mut h = Harness::new();
        h.ask("req-9", two_questions()).await;
        h.send(br#"{"type": "ask_user_response", "requestId": "req-9", "answers": [1, 2]}"#)
            .await;
        h.send(br#"{"type": "ask_user_response", "requestId": "req-9", "answers": [{"answer": 7}, {"answer": "Auth"}]}"#).await;
        h.send(br#"{"type": "ask_user_response", "requestId": "req-9", "answers": [{"answer": ""}, {"answer": "Auth"}]}"#).await;
        h.send(br#"{"type": "ask_user_response", "requestId": "req-9", "answers": [{"answer": "SQLite"}, {"answer": [""]}]}"#).await;
        h.send(br#"{"type": "ask_user_response", "requestId": "req-9", "answers": [{"answer": "SQLite"}, {"answer": null}]}"#).await;
        h.send(br#"{"type": "ask_user_response", "requestId": "req-9", "answers": [{"answer": "SQLite"}, {"answer": ""}]}"#).await;
        h.send(br#"{"type": "ask_user_response", "requestId": "req-9", "answers": [{"answer": "SQLite"}, {"answer": "Auth"}]}"#).await;
        assert!(matches!(
            h.asks.pop().unwrap().await.unwrap(),
            Outcome::Answered(_)
        ));
        h.transcript
    });
    for internal in ["struct", "AnswerInput", "untagged", "AnswerValue"] {
        assert!(!transcript.contains(internal), "{internal}:\n{transcript}");
    }
    for said in [
        r#"expected an answer object: {\"question\", \"answer\"}"#,
        "a string, or a list of strings",
        r#"question 1 (\"Which database?\") has an empty answer, which is no answer"#,
        r#"question 2 (\"Which features?\") has an empty answer"#,
        r#"or [] for \"None of these\""#,
    ] {
        assert!(transcript.contains(said), "{said}:\n{transcript}");
    }
    // `[""]`, `null` and `""` for the multi-select question are each refused, naming it.
    assert_eq!(
        transcript
            .matches(r#"question 2 (\"Which features?\") has an empty answer"#)
            .count(),
        3,
        "{transcript}"
    );
}

/// `[]` given to a multi-select question is the answer "None of these".
#[test]
fn an_empty_list_answers_a_multi_select_with_none_of_these() {
    run(async {
        let mut h = Harness::new();
        h.ask("req-10", two_questions()).await;
        h.send(br#"{"type": "ask_user_response", "requestId": "req-10", "answers": [{"answer": "SQLite"}, {"answer": []}]}"#).await;
        let Outcome::Answered(answers) = h.asks.pop().unwrap().await.unwrap() else {
            panic!("not answered")
        };
        assert_eq!(answers[1], Answer::none_of_these("Which features?"));
        h.transcript
    });
}

/// An answer one byte over the 64 KiB cap is refused with a sentence naming the cap, and the
/// ask keeps waiting; one at exactly the cap is taken.
#[test]
fn an_answer_over_the_cap_is_refused_and_the_ask_keeps_waiting() {
    run(async {
        let mut h = Harness::new();
        h.ask("req-11", database()).await;
        let response = |text: &str| {
            serde_json::json!({"type": "ask_user_response", "requestId": "req-11",
                "answers": [{"answer": text}]})
            .to_string()
        };
        let at_cap = "a".repeat(ask_core::MAX_ANSWER_BYTES);
        let refused = h.send(response(&format!("{at_cap}b")).as_bytes()).await;
        assert!(
            refused.contains(
                "the answer is 65537 bytes of UTF-8, over the cap of 65536 bytes (64 KiB) per question"
            ),
            "{refused}"
        );
        assert!(
            !refused.contains("aaaaaaaaaa"),
            "the answer is not echoed: {refused}"
        );
        h.send(response(&at_cap).as_bytes()).await;
        let Outcome::Answered(answers) = h.asks.pop().unwrap().await.unwrap() else {
            panic!("not answered")
        };
        assert_eq!(answers[0].answer.joined(), at_cap);
        h.transcript
    });
}

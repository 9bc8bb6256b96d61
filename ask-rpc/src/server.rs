//! The agent side of a connection: many asks in flight, matched by requestId; one writer task
//! owns the output, one reader task reads the client's lines.

use std::collections::{HashMap, HashSet, VecDeque};
use std::convert::Infallible;
use std::fmt::Display;
use std::sync::{Arc, Mutex, MutexGuard};

use ask_core::{
    Answer, AskRequest, AskUserInput, Frontend, Outcome, PresentError, Presenter, Question,
};
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, BufWriter};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc, oneshot};

use ask_core::{WireState, to_answers};

use crate::error::RpcError;
use crate::framing::{FrameError, LineReader};
use crate::message::{
    AskUserRequest, AskUserStateNotification, ClientMessage, ErrorCode, ErrorNotification,
    ServerMessage,
};

/// How many ended requestIds are remembered, to tell a late duplicate from an unknown id.
const REMEMBERED: usize = 4096;

/// How many replies to the client's lines may wait to be written. When they all wait, the
/// reader stops reading until the writer catches up: a flood of bad lines is answered line by
/// line, every reply is written, and memory stays bounded however fast the client writes.
const MAX_QUEUED_REPLIES: usize = 64;

/// One connection to a client.
#[derive(Debug, Clone)]
pub struct Connection {
    shared: Arc<Shared>,
}

#[derive(Debug)]
struct Shared {
    out: mpsc::UnboundedSender<Outgoing>,
    table: Mutex<Table>,
    /// One permit per reply to a client line that waits to be written.
    replies: Arc<Semaphore>,
}

#[derive(Debug, Default)]
struct Table {
    closed: bool,
    pending: HashMap<String, Pending>,
    ended: HashSet<String>,
    ended_order: VecDeque<String>,
}

#[derive(Debug)]
struct Pending {
    questions: Vec<Question>,
    reply: oneshot::Sender<Outcome>,
}

/// How a pending ask ends: its outcome, and for an end that answers a client's line, the permit
/// that line's reply holds until it is written.
struct Ending {
    pending: Pending,
    outcome: Outcome,
    permit: Option<OwnedSemaphorePermit>,
}

/// A client's line about the ask `request_id`, whose reply holds `permit` until it is written.
struct About<'a> {
    request_id: &'a str,
    permit: OwnedSemaphorePermit,
}

/// One ask to send: its requestId, its questions and the answers already given elsewhere (in
/// question order, `None` for an open question), which the request carries for the client to
/// show pre-filled.
struct Asking<'a> {
    request_id: &'a str,
    input: &'a AskUserInput,
    given: &'a [Option<Answer>],
}

#[derive(Debug)]
enum Outgoing {
    /// A line, and for a reply to a client's line the permit it holds until it is written.
    Line(String, Option<OwnedSemaphorePermit>),
    Flush(oneshot::Sender<()>),
}

impl Connection {
    /// Serves a client reading from `reader` and writing to `writer`. Spawns the reader and
    /// writer tasks, so it must be called inside a tokio runtime.
    pub fn new<R, W>(reader: R, writer: W) -> Connection
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (out, rx) = mpsc::unbounded_channel();
        let shared = Arc::new(Shared {
            out,
            table: Mutex::new(Table::default()),
            replies: Arc::new(Semaphore::new(MAX_QUEUED_REPLIES)),
        });
        tokio::spawn(write_loop(BufWriter::new(writer), rx, Arc::clone(&shared)));
        tokio::spawn(read_loop(reader, Arc::clone(&shared)));
        Connection { shared }
    }

    /// Asks `input` as `request_id` and waits, without a timeout, for the client's answer, its
    /// cancellation, or the end of the connection.
    ///
    /// The client sees `ask_user_request`, then `ask_user_state` `waiting_for_user` with the
    /// questions, and, at the end, `ask_user_state` with the final state.
    pub async fn ask(&self, request_id: &str, input: &AskUserInput) -> Result<Outcome, RpcError> {
        let asking = Asking {
            request_id,
            input,
            given: &[],
        };
        self.ask_given(asking).await
    }

    /// [`Connection::ask`], with the answers the person already gave elsewhere sent in the
    /// request's `given`.
    async fn ask_given(&self, asking: Asking<'_>) -> Result<Outcome, RpcError> {
        let Asking {
            request_id,
            input,
            given,
        } = asking;
        let (reply, answer) = oneshot::channel();
        // The lines are built before the table's lock is taken, so the reader waits for the
        // lock no longer than it takes to queue them.
        let request = ServerMessage::AskUserRequest(AskUserRequest {
            request_id: request_id.to_string(),
            questions: input.questions.clone(),
            metadata: input.metadata.clone(),
            given: given_for_wire(given),
        })
        .to_line();
        let waiting = state_line(
            request_id,
            WireState::WaitingForUser,
            Some(input.questions.clone()),
        );
        {
            // The request and the waiting state are queued under the table's lock, and whoever
            // ends the ask queues its final state under the same lock, so the client always
            // sees them in this order, and before any line about a later message.
            let mut table = self.shared.lock();
            if table.closed {
                return Ok(Outcome::ConnectionLost);
            }
            if table.pending.contains_key(request_id) {
                return Err(RpcError::DuplicateRequestId(request_id.to_string()));
            }
            let pending = Pending {
                questions: input.questions.clone(),
                reply,
            };
            table.pending.insert(request_id.to_string(), pending);
            let _ = self.shared.out.send(Outgoing::Line(request, None));
            let _ = self.shared.out.send(Outgoing::Line(waiting, None));
        }
        Ok(answer.await.unwrap_or(Outcome::ConnectionLost))
    }

    /// Queues a message for the client. Messages go out whole and in order.
    pub fn send(&self, message: &ServerMessage) {
        let _ = self
            .shared
            .out
            .send(Outgoing::Line(message.to_line(), None));
    }

    /// Waits until everything queued so far is written and flushed.
    pub async fn flush(&self) {
        let (done, flushed) = oneshot::channel();
        if self.shared.out.send(Outgoing::Flush(done)).is_ok() {
            let _ = flushed.await;
        }
    }

    /// How many asks are waiting for the client.
    pub fn in_flight(&self) -> usize {
        self.shared.lock().pending.len()
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Table> {
        self.table
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Ends a pending ask as `ending` says and queues its final state. The caller holds the
    /// table's lock.
    fn end(&self, request_id: &str, ending: Ending) {
        let Ending {
            pending,
            outcome,
            permit,
        } = ending;
        let state = WireState::of(&outcome);
        // The state line is queued before the ask is woken, so that nothing the woken ask
        // sends (such as a result line) can go out ahead of it.
        let _ = self
            .out
            .send(Outgoing::Line(state_line(request_id, state, None), permit));
        let _ = pending.reply.send(outcome);
    }

    /// Queues the `error` line `error` answering a client's line; it holds `permit` until
    /// written. The message often quotes the client's bytes (a request id, a parser's
    /// description), and clients show it to people: it is sanitised like all text for people.
    fn error(&self, error: ErrorNotification, permit: OwnedSemaphorePermit) {
        let line = ServerMessage::Error(ErrorNotification {
            message: ask_core::sanitize_for_display(&error.message).into_owned(),
            ..error
        })
        .to_line();
        let _ = self.out.send(Outgoing::Line(line, Some(permit)));
    }

    /// The connection is gone: every ask in flight ends as connection lost.
    fn close(&self) {
        let mut table = self.lock();
        table.closed = true;
        for (request_id, pending) in std::mem::take(&mut table.pending) {
            let ending = Ending {
                pending,
                outcome: Outcome::ConnectionLost,
                permit: None,
            };
            self.end(&request_id, ending);
        }
    }

    /// Ends the ask the line is `about` with `outcome`, computed from its questions; an error
    /// from `outcome` is reported and leaves the ask open.
    fn resolve<E: Display>(
        &self,
        about: About<'_>,
        outcome: impl FnOnce(&[Question]) -> Result<Outcome, E>,
    ) {
        let About { request_id, permit } = about;
        let mut table = self.lock();
        let Some(pending) = table.pending.get(request_id) else {
            let (code, message) = if table.ended.contains(request_id) {
                (
                    ErrorCode::DuplicateResponse,
                    format!("the ask `{request_id}` has already ended"),
                )
            } else {
                (
                    ErrorCode::UnknownRequest,
                    format!("no ask `{request_id}` is waiting for an answer"),
                )
            };
            drop(table);
            let error = ErrorNotification {
                code,
                message,
                request_id: Some(request_id.to_string()),
            };
            self.error(error, permit);
            return;
        };
        match outcome(&pending.questions) {
            Ok(outcome) => {
                if let Some(pending) = table.pending.remove(request_id) {
                    let ending = Ending {
                        pending,
                        outcome,
                        permit: Some(permit),
                    };
                    self.end(request_id, ending);
                }
                table.ended.insert(request_id.to_string());
                table.ended_order.push_back(request_id.to_string());
                if table.ended_order.len() > REMEMBERED
                    && let Some(old) = table.ended_order.pop_front()
                {
                    table.ended.remove(&old);
                }
            }
            Err(error) => {
                drop(table);
                let error = ErrorNotification {
                    code: ErrorCode::InvalidAnswers,
                    message: error.to_string(),
                    request_id: Some(request_id.to_string()),
                };
                self.error(error, permit);
            }
        }
    }

    /// Handles one client line; `permit` goes with the reply it gets.
    fn handle(&self, line: &str, permit: OwnedSemaphorePermit) {
        let value: Value = match serde_json::from_str(line) {
            Ok(value) => value,
            Err(error) => {
                let error = ErrorNotification {
                    code: ErrorCode::InvalidJson,
                    message: format!("the line is not JSON: {error}"),
                    request_id: None,
                };
                self.error(error, permit);
                return;
            }
        };
        let request_id = value
            .get("requestId")
            .and_then(Value::as_str)
            .map(str::to_string);
        // The value kept only the last of two equal keys; a message that repeats one is
        // refused, as a call that does is.
        if let Some((path, key)) = ask_core::duplicate_key(line) {
            let at = if path.is_empty() { "(root)" } else { &path };
            let message = format!("the key `{key}` appears twice in {at}; give each field once");
            let error = ErrorNotification {
                code: ErrorCode::InvalidMessage,
                message,
                request_id,
            };
            self.error(error, permit);
            return;
        }
        match value.get("type").and_then(Value::as_str) {
            Some("ask_user_response" | "ask_user_cancel") => {}
            Some(other) => {
                let message = format!(
                    "unknown message type `{other}`; a client sends ask_user_response or ask_user_cancel"
                );
                let error = ErrorNotification {
                    code: ErrorCode::UnknownType,
                    message,
                    request_id,
                };
                self.error(error, permit);
                return;
            }
            None => {
                let message = "the message has no `type`; a client sends ask_user_response or ask_user_cancel";
                let error = ErrorNotification {
                    code: ErrorCode::UnknownType,
                    message: message.to_string(),
                    request_id,
                };
                self.error(error, permit);
                return;
            }
        }
        match serde_json::from_value::<ClientMessage>(value) {
            Ok(ClientMessage::AskUserResponse(response)) => {
                let about = About {
                    request_id: &response.request_id,
                    permit,
                };
                self.resolve(about, |questions| {
                    to_answers(questions, &response.answers).map(Outcome::Answered)
                });
            }
            Ok(ClientMessage::AskUserCancel(cancel)) => {
                let about = About {
                    request_id: &cancel.request_id,
                    permit,
                };
                self.resolve(about, |_| Ok::<_, Infallible>(Outcome::Cancelled));
            }
            Err(error) => {
                let error = ErrorNotification {
                    code: ErrorCode::InvalidMessage,
                    message: format!("the message is malformed: {error}"),
                    request_id,
                };
                self.error(error, permit);
            }
        }
    }
}

/// An `ask_user_state` line.
fn state_line(request_id: &str, state: WireState, questions: Option<Vec<Question>>) -> String {
    ServerMessage::AskUserState(AskUserStateNotification {
        request_id: request_id.to_string(),
        state,
        questions,
    })
    .to_line()
}

async fn read_loop<R: AsyncRead + Unpin>(reader: R, shared: Arc<Shared>) {
    let mut lines = LineReader::new(BufReader::new(reader));
    loop {
        // Backpressure: no line is read while every reply permit waits to be written.
        let Ok(permit) = Arc::clone(&shared.replies).acquire_owned().await else {
            break;
        };
        match lines.next_line().await {
            Ok(None) | Err(_) => break,
            Ok(Some(Err(frame))) => {
                let code = match frame {
                    FrameError::TooLong { .. } => ErrorCode::LineTooLong,
                    FrameError::NotUtf8 { .. } => ErrorCode::InvalidUtf8,
                };
                let error = ErrorNotification {
                    code,
                    message: frame.to_string(),
                    request_id: None,
                };
                shared.error(error, permit);
            }
            Ok(Some(Ok(line))) if line.trim().is_empty() => {}
            Ok(Some(Ok(line))) => shared.handle(&line, permit),
        }
    }
    shared.close();
}

async fn write_loop<W: AsyncWrite + Unpin>(
    mut writer: BufWriter<W>,
    mut queue: mpsc::UnboundedReceiver<Outgoing>,
    shared: Arc<Shared>,
) {
    while let Some(item) = queue.recv().await {
        let written = match item {
            Outgoing::Line(line, permit) => {
                let mut result = writer.write_all(line.as_bytes()).await;
                // Flush once the queue is drained, so bursts go out in few writes.
                if result.is_ok() && queue.is_empty() {
                    result = writer.flush().await;
                }
                // The reply is in the writer's buffer (bounded) or written: the reader may go on.
                drop(permit);
                result
            }
            Outgoing::Flush(done) => {
                let result = writer.flush().await;
                let _ = done.send(());
                result
            }
        };
        if written.is_err() {
            // A broken pipe: the client is gone.
            shared.close();
            break;
        }
    }
}

/// The RPC frontend: each ask becomes a request on the connection.
#[derive(Debug, Clone)]
pub struct RpcFrontend {
    connection: Connection,
}

impl RpcFrontend {
    /// A frontend over `connection`.
    pub fn new(connection: Connection) -> RpcFrontend {
        RpcFrontend { connection }
    }

    /// The connection, to send the final result line or flush.
    pub fn connection(&self) -> &Connection {
        &self.connection
    }
}

#[async_trait::async_trait]
impl Frontend for RpcFrontend {
    fn presenter(&self) -> Presenter {
        Presenter::Rpc
    }

    async fn present(&self, request: &AskRequest) -> Result<Outcome, PresentError> {
        let asking = Asking {
            request_id: &request.request_id,
            input: request.input.input(),
            given: &request.given,
        };
        self.connection
            .ask_given(asking)
            .await
            .map_err(PresentError::failed)
    }

    async fn flush_queued_lines(&self) {
        self.connection.flush().await;
    }
}

/// The answers given elsewhere as the request carries them: nothing when none was given, else
/// one entry per question (`null` for an open one).
fn given_for_wire(given: &[Option<Answer>]) -> Vec<Option<Answer>> {
    if given.iter().all(Option::is_none) {
        Vec::new()
    } else {
        given.to_vec()
    }
}

//! The JSON-lines protocol of `ask_user` for external clients: an IDE, a web app or a chat
//! bridge presents the questions, and the agent process talks to it over a pair of streams.
//!
//! One JSON object per line, LF-delimited, camelCase fields and a snake_case `type` tag (see
//! `PROTOCOL.md`). [`Connection`] is the agent side, with many asks in flight matched by
//! requestId, and [`RpcFrontend`] plugs it into the one ask path (`ask_session::Ask`); [`Client`] is the side that
//! presents the questions.
//!
//! The crate holds no product rules beyond the wire: answers are checked against the questions
//! with `ask-core`, a line that cannot be used becomes an `error` message and the connection
//! carries on, and the end of the input ends every ask in flight as connection lost. Nothing
//! here panics on what a client sends.
//!
//! ```
//! use ask_core::{AnswerValue, AskUserInput, Outcome, Question};
//! use ask_rpc::{Client, Connection, ServerMessage};
//!
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! let (agent_end, client_end) = tokio::io::duplex(64 * 1024);
//! let (agent_read, agent_write) = tokio::io::split(agent_end);
//! let (client_read, client_write) = tokio::io::split(client_end);
//! let connection = Connection::new(agent_read, agent_write);
//! let mut client = Client::new(client_read, client_write);
//!
//! let input = AskUserInput { questions: vec![Question::choice("Which database?", ["PostgreSQL", "SQLite"])], metadata: None };
//! let ask = tokio::spawn(async move { connection.ask("req-1", &input).await });
//! while let Some(message) = client.next_message().await.unwrap() {
//!     if let ServerMessage::AskUserRequest(request) = message {
//!         client.answer(&request.request_id, vec![AnswerValue::Text("sqlite".into())]).await.unwrap();
//!         break;
//!     }
//! }
//! let Outcome::Answered(answers) = ask.await.unwrap().unwrap() else { panic!() };
//! assert_eq!(answers[0].selected_option.as_deref(), Some("SQLite"));
//! # });
//! ```

mod client;
pub mod embedded;
mod error;
mod framing;
mod message;
mod server;

pub use ask_core::{AnswerInput, WireState, to_answers};
pub use client::Client;
pub use error::{ClientError, RpcError};
pub use framing::{FrameError, LineReader, MAX_LINE};
pub use message::{
    AskUserCancel, AskUserRequest, AskUserResponse, AskUserResultNotification,
    AskUserStateNotification, ClientMessage, ErrorCode, ErrorNotification, ServerMessage,
};
pub use server::{Connection, RpcFrontend};

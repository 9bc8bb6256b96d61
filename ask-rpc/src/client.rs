//! The client side, for Rust applications that present the questions: read requests and state
//! notifications, send answers and cancellations.

use ask_core::AnswerValue;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};

use crate::error::ClientError;
use crate::framing::LineReader;
use crate::message::{AskUserCancel, AskUserResponse, ClientMessage, ServerMessage};
use ask_core::AnswerInput;

/// A client of one connection.
#[derive(Debug)]
pub struct Client<R, W> {
    lines: LineReader<BufReader<R>>,
    writer: W,
}

impl<R: AsyncRead + Unpin, W: AsyncWrite + Unpin> Client<R, W> {
    /// A client reading the agent's lines from `reader` and writing to `writer`.
    pub fn new(reader: R, writer: W) -> Client<R, W> {
        Client {
            lines: LineReader::new(BufReader::new(reader)),
            writer,
        }
    }

    /// The next message from the agent side, or `None` when the connection ends.
    pub async fn next_message(&mut self) -> Result<Option<ServerMessage>, ClientError> {
        loop {
            match self.lines.next_line().await? {
                None => return Ok(None),
                Some(Ok(line)) if line.trim().is_empty() => {}
                Some(Ok(line)) => return Ok(Some(serde_json::from_str(&line)?)),
                Some(Err(frame)) => return Err(frame.into()),
            }
        }
    }

    /// Sends a message.
    pub async fn send(&mut self, message: &ClientMessage) -> Result<(), ClientError> {
        self.writer.write_all(message.to_line().as_bytes()).await?;
        self.writer.flush().await?;
        Ok(())
    }

    /// Answers `request_id` with one value per question, in question order; labels and typed
    /// text are told apart on the agent side.
    pub async fn answer(
        &mut self,
        request_id: &str,
        values: Vec<AnswerValue>,
    ) -> Result<(), ClientError> {
        let answers = values
            .into_iter()
            .map(|answer| AnswerInput {
                question: None,
                answer,
                selected_option: None,
                was_custom: None,
                notes: None,
            })
            .collect();
        self.send(&ClientMessage::AskUserResponse(AskUserResponse {
            request_id: request_id.to_string(),
            answers,
        }))
        .await
    }

    /// Cancels `request_id`.
    pub async fn cancel(&mut self, request_id: &str) -> Result<(), ClientError> {
        self.send(&ClientMessage::AskUserCancel(AskUserCancel {
            request_id: request_id.to_string(),
        }))
        .await
    }
}

//! Errors of the RPC layer.

/// What can go wrong on the agent side of a connection.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RpcError {
    /// An ask with this requestId is already in flight on the connection.
    #[error("an ask with requestId `{0}` is already waiting on this connection")]
    DuplicateRequestId(String),
}

/// What can go wrong on the client side.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// Reading or writing failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// A line could not be read as text.
    #[error(transparent)]
    Frame(#[from] crate::framing::FrameError),
    /// A line is not a message.
    #[error("the agent sent a line that is not a message: {0}")]
    Json(#[from] serde_json::Error),
}

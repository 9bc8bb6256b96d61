//! One request of `--via` to the inbox, on hyper's HTTP/1 client: an HTTP/1.0 POST, whose
//! answer is delimited by the end of the connection, and the answer's body read line by line.
//!
//! hyper reads the head of the answer with at most [`MAX_HEADERS`] headers in at most
//! [`MAX_LINE`] bytes (`max_headers`, `max_buf_size`); the body's lines are capped here, as they
//! stream in.

use std::io;

use ask_core::BoxError;
use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::client::conn::http1;
use hyper::header::{AUTHORIZATION, CONTENT_TYPE, HOST};
use hyper::{HeaderMap, Request, Version};
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpStream, UnixStream};

use super::MAX_LINE;
use crate::WebError;
use crate::tls::Dial;

/// The most headers `--via` reads in one answer of the inbox.
const MAX_HEADERS: usize = 100;

/// Where `--via` connects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Target {
    /// A TCP address, `host:port`.
    Tcp(String),
    /// The inbox's Unix socket.
    Unix(std::path::PathBuf),
}

/// One POST to the inbox.
pub(super) struct Post<'a> {
    /// The inbox's address as the proofs name it, `host:port` or `unix:PATH`.
    pub(super) addr: &'a str,
    /// Where to connect.
    pub(super) target: &'a Target,
    /// The path.
    pub(super) path: &'a str,
    /// The `Authorization` header, when one is sent.
    pub(super) authorization: Option<&'a str>,
    /// The JSON body.
    pub(super) body: &'a str,
    /// How the TLS of an `https://` inbox is checked; `None`: plain HTTP.
    pub(super) tls: Option<&'a Dial>,
}

/// One answer: the status, the headers and the body. The connection is served on a task of
/// its own, which ends, closing the socket, when the answer is dropped.
pub(super) struct Reply {
    pub(super) status: u16,
    headers: HeaderMap,
    body: Lines,
    _connection: Connection,
}

/// The task that serves one connection, and the sender of its one request: both end with it.
struct Connection {
    task: tokio::task::JoinHandle<()>,
    sender: http1::SendRequest<Full<Bytes>>,
}

impl Drop for Connection {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// The body of an answer, read in lines of at most [`MAX_LINE`] bytes.
struct Lines {
    /// `None` once the body ended (or for an answer without one).
    body: Option<Incoming>,
    /// What arrived and is not read yet.
    buffer: Vec<u8>,
    /// How much of `buffer` is known to hold no line feed.
    scanned: usize,
}

impl Reply {
    /// The value of the header `name`, when it is text.
    pub(super) fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|value| value.to_str().ok())
    }

    /// The next line of the body, at most [`MAX_LINE`] bytes; `None` at its end.
    pub(super) async fn line(&mut self) -> Result<Option<String>, BoxError> {
        self.body.line().await
    }

    /// The body as JSON (the whole of it, up to [`MAX_LINE`] bytes; `null` when it is not).
    pub(super) async fn json(mut self) -> Result<serde_json::Value, BoxError> {
        let mut bytes = std::mem::take(&mut self.body.buffer);
        while bytes.len() < MAX_LINE {
            let Some(data) = self.body.data().await? else {
                break;
            };
            bytes.extend_from_slice(&data);
        }
        bytes.truncate(MAX_LINE);
        let text =
            String::from_utf8(bytes).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
        Ok(serde_json::from_str(&text).unwrap_or(serde_json::Value::Null))
    }
}

impl Lines {
    async fn line(&mut self) -> Result<Option<String>, BoxError> {
        loop {
            if let Some(at) = self.buffer[self.scanned..].iter().position(|&b| b == b'\n') {
                let end = self.scanned + at + 1;
                if end > MAX_LINE {
                    return Err(too_long());
                }
                let line: Vec<u8> = self.buffer.drain(..end).collect();
                self.scanned = 0;
                return Ok(Some(trimmed(&line)));
            }
            self.scanned = self.buffer.len();
            if self.buffer.len() > MAX_LINE {
                return Err(too_long());
            }
            match self.data().await? {
                Some(data) => self.buffer.extend_from_slice(&data),
                None if self.buffer.is_empty() => return Ok(None),
                None => {
                    let line = std::mem::take(&mut self.buffer);
                    self.scanned = 0;
                    return Ok(Some(trimmed(&line)));
                }
            }
        }
    }

    /// The next bytes of the body; `None` at its end.
    async fn data(&mut self) -> Result<Option<Bytes>, io::Error> {
        while let Some(body) = &mut self.body {
            match body.frame().await {
                Some(Ok(frame)) => {
                    if let Ok(data) = frame.into_data() {
                        return Ok(Some(data));
                    }
                }
                Some(Err(error)) => return Err(broken(error)),
                None => self.body = None,
            }
        }
        Ok(None)
    }
}

fn trimmed(line: &[u8]) -> String {
    String::from_utf8_lossy(line).trim_end().to_string()
}

fn too_long() -> BoxError {
    format!("the inbox sent a line longer than {MAX_LINE} bytes").into()
}

/// A failure of the connection as the [`io::Error`] it stands for (an answer cut short is
/// the end of the file): the error on which `--via` tries a crowded inbox again.
fn broken(error: hyper::Error) -> io::Error {
    if error.is_incomplete_message() {
        return io::ErrorKind::UnexpectedEof.into();
    }
    match std::error::Error::source(&error).and_then(|source| source.downcast_ref::<io::Error>()) {
        Some(source) => io::Error::new(source.kind(), source.to_string()),
        None => io::Error::other(error),
    }
}

/// The HTTP/1 client over `stream`, its connection served on a task of its own.
async fn handshake<S>(stream: S) -> Result<Connection, io::Error>
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let (sender, connection) = http1::Builder::new()
        .max_headers(MAX_HEADERS)
        .max_buf_size(MAX_LINE)
        .handshake(TokioIo::new(stream))
        .await
        .map_err(broken)?;
    Ok(Connection {
        task: tokio::spawn(async move {
            let _ = connection.await;
        }),
        sender,
    })
}

/// A failed TLS handshake: a certificate refused, or a handshake that is not TLS's, ends the
/// call with the reason; a connection that ended (a crowded inbox closes connections) is the
/// [`io::Error`] on which `--via` tries again.
fn tls_failure(error: io::Error, addr: &str) -> BoxError {
    if let Some(reason) = crate::tls::refused_certificate(&error) {
        return Box::new(WebError::ViaCertificate {
            addr: addr.to_string(),
            reason,
        });
    }
    match error
        .get_ref()
        .and_then(|e| e.downcast_ref::<rustls::Error>())
    {
        Some(problem) => Box::new(WebError::ViaProtocol {
            addr: addr.to_string(),
            reason: format!(
                "the TLS handshake failed ({problem}); is it an inbox with --tls-cert?"
            ),
        }),
        None => Box::new(error),
    }
}

/// Sends one HTTP/1.0 POST and gives the status, the headers and the body's reader. An answer
/// that is not HTTP is one without a status (`0`), headers or body.
pub(super) async fn post(post: Post<'_>) -> Result<Reply, BoxError> {
    let Post {
        addr,
        target,
        path,
        authorization,
        body,
        tls,
    } = post;
    // Over the socket, the host is this machine.
    let host = match target {
        Target::Tcp(_) => addr,
        Target::Unix(_) => "localhost",
    };
    let mut request = Request::post(path)
        .version(Version::HTTP_10)
        .header(HOST, host)
        .header(CONTENT_TYPE, "application/json");
    if let Some(authorization) = authorization {
        request = request.header(AUTHORIZATION, authorization);
    }
    let request = request.body(Full::new(Bytes::copy_from_slice(body.as_bytes())))?;
    let unreachable = |source| WebError::ViaConnect {
        addr: addr.to_string(),
        source,
    };
    let mut connection = match (target, tls) {
        (Target::Tcp(dialled), None) => {
            handshake(TcpStream::connect(dialled).await.map_err(unreachable)?).await?
        }
        (Target::Tcp(dialled), Some(dial)) => {
            let stream = TcpStream::connect(dialled).await.map_err(unreachable)?;
            let stream = dial
                .connect(stream)
                .await
                .map_err(|error| tls_failure(error, addr))?;
            handshake(stream).await?
        }
        (Target::Unix(socket), _) => {
            handshake(UnixStream::connect(socket).await.map_err(unreachable)?).await?
        }
    };
    let sent = connection.sender.send_request(request).await;
    let (status, headers, body) = match sent {
        Ok(response) => {
            let (head, body) = response.into_parts();
            (head.status.as_u16(), head.headers, Some(body))
        }
        Err(error) if error.is_parse_too_large() => {
            return Err(Box::new(WebError::ViaProtocol {
                addr: addr.to_string(),
                reason: format!(
                    "a head with more than {MAX_HEADERS} headers, or with a line longer than \
                     {MAX_LINE} bytes or more than {MAX_LINE} bytes in all"
                ),
            }));
        }
        Err(error) if error.is_parse() => (0, HeaderMap::new(), None),
        Err(error) => return Err(Box::new(broken(error))),
    };
    Ok(Reply {
        status,
        headers,
        body: Lines {
            body,
            buffer: Vec::new(),
            scanned: 0,
        },
        _connection: connection,
    })
}

#[cfg(test)]
mod tests {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpListener;

    use super::*;

    /// A server that reads one request and writes `reply`, ending the answer by closing its
    /// side of the connection when `close`, then gives back what it read of the request once
    /// the client closed the connection.
    async fn answering(reply: Vec<u8>, close: bool) -> (String, tokio::task::JoinHandle<Vec<u8>>) {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        let served = tokio::spawn(async move {
            let (mut stream, _) = listener.accept().await.unwrap();
            let mut seen = Vec::new();
            let mut buffer = [0u8; 4096];
            while !seen.ends_with(b"{}") {
                let n = stream.read(&mut buffer).await.unwrap();
                assert!(n > 0, "the request ended early");
                seen.extend_from_slice(&buffer[..n]);
            }
            let _ = stream.write_all(&reply).await;
            if close {
                let _ = stream.shutdown().await;
            }
            let mut rest = Vec::new();
            let _ = stream.read_to_end(&mut rest).await;
            seen.extend_from_slice(&rest);
            seen
        });
        (addr, served)
    }

    async fn post_to(addr: &str) -> Result<Reply, BoxError> {
        post(Post {
            addr,
            target: &Target::Tcp(addr.to_string()),
            path: "/api/agent/asks",
            authorization: Some("Bearer abc"),
            body: "{}",
            tls: None,
        })
        .await
    }

    #[tokio::test]
    async fn the_request_is_one_http_1_0_post_with_its_host_and_length() {
        let (addr, served) = answering(b"HTTP/1.0 200 OK\r\n\r\n".to_vec(), true).await;
        let reply = post_to(&addr).await.unwrap();
        assert_eq!(reply.status, 200);
        drop(reply);
        let seen = String::from_utf8(served.await.unwrap())
            .unwrap()
            .to_lowercase();
        assert!(
            seen.starts_with("post /api/agent/asks http/1.0\r\n"),
            "{seen}"
        );
        for header in [
            format!("host: {addr}\r\n"),
            "authorization: bearer abc\r\n".to_string(),
            "content-type: application/json\r\n".to_string(),
            "content-length: 2\r\n".to_string(),
        ] {
            assert!(seen.contains(&header), "{header} in {seen}");
        }
        assert!(seen.ends_with("\r\n\r\n{}"), "{seen}");
    }

    #[tokio::test]
    async fn the_body_is_read_in_lines_of_at_most_max_line_bytes() {
        let mut reply =
            b"HTTP/1.1 200 OK\r\nX-Ask-Kept: 1\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec();
        let mut body = b"\n\n{\"a\":".to_vec();
        body.extend(std::iter::repeat_n(b'x', MAX_LINE - 6));
        body.extend_from_slice(b"\n");
        body.extend(std::iter::repeat_n(b'y', MAX_LINE + 1));
        for chunk in body.chunks(100_000) {
            reply.extend_from_slice(format!("{:x}\r\n", chunk.len()).as_bytes());
            reply.extend_from_slice(chunk);
            reply.extend_from_slice(b"\r\n");
        }
        reply.extend_from_slice(b"0\r\n\r\n");
        let (addr, _served) = answering(reply, true).await;
        let mut reply = post_to(&addr).await.unwrap();
        assert_eq!(reply.header("x-ask-kept"), Some("1"));
        assert_eq!(reply.line().await.unwrap().as_deref(), Some(""));
        assert_eq!(reply.line().await.unwrap().as_deref(), Some(""));
        // A line of exactly the cap, line feed included, is read.
        let line = reply.line().await.unwrap().unwrap();
        assert_eq!(line.len(), MAX_LINE - 1);
        let error = reply.line().await.unwrap_err().to_string();
        assert_eq!(
            error,
            format!("the inbox sent a line longer than {MAX_LINE} bytes")
        );
    }

    #[tokio::test]
    async fn the_last_line_needs_no_line_feed_and_the_end_is_none() {
        let (addr, _served) = answering(b"HTTP/1.0 200 OK\r\n\r\n\nlast".to_vec(), true).await;
        let mut reply = post_to(&addr).await.unwrap();
        assert_eq!(reply.line().await.unwrap().as_deref(), Some(""));
        assert_eq!(reply.line().await.unwrap().as_deref(), Some("last"));
        assert_eq!(reply.line().await.unwrap(), None);
    }

    #[tokio::test]
    async fn a_connection_closed_before_an_answer_is_an_end_of_file() {
        let (addr, _served) = answering(Vec::new(), true).await;
        let error = post_to(&addr).await.err().unwrap();
        let error = error.downcast_ref::<io::Error>().unwrap();
        assert_eq!(error.kind(), io::ErrorKind::UnexpectedEof);
    }

    #[tokio::test]
    async fn an_answer_that_is_not_http_has_no_status() {
        let (addr, _served) = answering(b"SSH-2.0-OpenSSH_9.6\r\n".to_vec(), true).await;
        let reply = post_to(&addr).await.unwrap();
        assert_eq!(reply.status, 0);
        assert_eq!(reply.json().await.unwrap(), serde_json::Value::Null);
    }

    #[tokio::test]
    async fn dropping_an_answer_closes_its_connection() {
        let (addr, served) = answering(b"HTTP/1.0 200 OK\r\n\r\n\n".to_vec(), false).await;
        let mut reply = post_to(&addr).await.unwrap();
        assert_eq!(reply.line().await.unwrap().as_deref(), Some(""));
        drop(reply);
        // The answer goes on until the connection ends, which the server waits for: dropping
        // the answer ends it.
        tokio::time::timeout(std::time::Duration::from_secs(5), served)
            .await
            .unwrap()
            .unwrap();
    }
}

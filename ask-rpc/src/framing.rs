//! LF-delimited lines with a size cap: a line over [`MAX_LINE`] is skipped up to its line feed
//! and reported, without ever holding more than the cap in memory.

use tokio::io::{AsyncBufRead, AsyncBufReadExt};

/// The longest line accepted: 1 MiB.
pub const MAX_LINE: usize = 1024 * 1024;

/// A line that could not be read as text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FrameError {
    /// The line is longer than the cap.
    #[error("the line is {length} bytes long; lines may be at most {MAX_LINE} bytes")]
    TooLong {
        /// Its length in bytes.
        length: usize,
    },
    /// The line is not UTF-8.
    #[error("the line is not valid UTF-8 (at byte {at})")]
    NotUtf8 {
        /// The offset of the first bad byte.
        at: usize,
    },
}

/// Reads lines from `reader`, bounded by [`MAX_LINE`].
#[derive(Debug)]
pub struct LineReader<R> {
    reader: R,
    max: usize,
}

impl<R: AsyncBufRead + Unpin> LineReader<R> {
    /// Lines from `reader`.
    pub fn new(reader: R) -> LineReader<R> {
        LineReader {
            reader,
            max: MAX_LINE,
        }
    }

    /// Lines from `reader`, capped at `max` bytes (for tests).
    pub fn with_max(reader: R, max: usize) -> LineReader<R> {
        LineReader { reader, max }
    }

    /// The next line without its line feed (and without a carriage return before it), or `None`
    /// at the end of the input. A last line without a line feed is still a line.
    pub async fn next_line(&mut self) -> std::io::Result<Option<Result<String, FrameError>>> {
        let mut line: Vec<u8> = Vec::new();
        let mut length = 0usize;
        loop {
            let available = self.reader.fill_buf().await?;
            if available.is_empty() {
                if length == 0 {
                    return Ok(None);
                }
                break;
            }
            let (chunk, found) = match available.iter().position(|b| *b == b'\n') {
                Some(end) => (&available[..end], true),
                None => (available, false),
            };
            length += chunk.len();
            if length <= self.max {
                line.extend_from_slice(chunk);
            } else {
                // Over the cap: keep counting, but hold nothing more.
                line = Vec::new();
            }
            let consumed = chunk.len() + usize::from(found);
            self.reader.consume(consumed);
            if found {
                break;
            }
        }
        if length > self.max {
            return Ok(Some(Err(FrameError::TooLong { length })));
        }
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        Ok(Some(String::from_utf8(line).map_err(|e| {
            FrameError::NotUtf8 {
                at: e.utf8_error().valid_up_to(),
            }
        })))
    }
}

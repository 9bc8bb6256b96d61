//! LF-delimited lines with a size cap: a line over [`MAX_LINE`] is reported as soon as it passes
//! the cap and then skipped up to its line feed, without ever holding more than the cap in
//! memory. An endless line (a client writing without line feeds) is reported once, and nothing
//! more is kept of it.

use tokio::io::{AsyncBufRead, AsyncBufReadExt};

/// The longest line accepted: 1 MiB.
pub const MAX_LINE: usize = 1024 * 1024;

/// A line that could not be read as text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FrameError {
    /// The line is longer than the cap.
    #[error(
        "the line is longer than {MAX_LINE} bytes, the most a line may hold; it is skipped up to its line feed"
    )]
    TooLong {
        /// How many bytes of it had been read when it passed the cap.
        read: usize,
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
    /// True while the rest of a line already reported as too long is being skipped.
    skipping: bool,
}

impl<R: AsyncBufRead + Unpin> LineReader<R> {
    /// Lines from `reader`.
    pub fn new(reader: R) -> LineReader<R> {
        LineReader {
            reader,
            max: MAX_LINE,
            skipping: false,
        }
    }

    /// Lines from `reader`, capped at `max` bytes (for tests).
    pub fn with_max(reader: R, max: usize) -> LineReader<R> {
        LineReader {
            reader,
            max,
            skipping: false,
        }
    }

    /// The next line without its line feed (and without a carriage return before it), or `None`
    /// at the end of the input. A last line without a line feed is still a line.
    pub async fn next_line(&mut self) -> std::io::Result<Option<Result<String, FrameError>>> {
        while self.skipping {
            let available = self.reader.fill_buf().await?;
            if available.is_empty() {
                return Ok(None);
            }
            let (consumed, found) = match available.iter().position(|b| *b == b'\n') {
                Some(end) => (end + 1, true),
                None => (available.len(), false),
            };
            self.reader.consume(consumed);
            self.skipping = !found;
        }
        let mut line: Vec<u8> = Vec::new();
        loop {
            let available = self.reader.fill_buf().await?;
            if available.is_empty() {
                if line.is_empty() {
                    return Ok(None);
                }
                break;
            }
            let (chunk, found) = match available.iter().position(|b| *b == b'\n') {
                Some(end) => (&available[..end], true),
                None => (available, false),
            };
            let read = line.len() + chunk.len();
            let consumed = chunk.len() + usize::from(found);
            if read > self.max {
                // Reported now, whether or not its line feed has come; the rest is skipped on
                // the next call.
                self.reader.consume(consumed);
                self.skipping = !found;
                return Ok(Some(Err(FrameError::TooLong { read })));
            }
            line.extend_from_slice(chunk);
            self.reader.consume(consumed);
            if found {
                break;
            }
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

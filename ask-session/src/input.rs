//! Reading a call from a file or stdin: through a size cap, in the dialect asked for.

use std::io::Read;
use std::path::Path;

use ask_core::{Limits, Problems};
use ask_schema::{DialectCall, ReadOptions};

/// The default cap on one input: 16 MiB, far above any call the limits allow.
pub const DEFAULT_MAX_INPUT_BYTES: u64 = 16 * 1024 * 1024;

/// Why a call could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadFailure {
    /// The file or stdin could not be read.
    #[error("cannot read {what}: {error}")]
    Io {
        /// `stdin`, or the file's path in backticks.
        what: String,
        /// Why.
        error: std::io::Error,
    },
    /// The file or stdin holds more than the cap.
    #[error("{what} is longer than {max} bytes, the most one input may hold; nothing was asked")]
    TooLarge {
        /// `stdin`, or the file's path in backticks.
        what: String,
        /// The cap, in bytes.
        max: u64,
    },
    /// The call is not valid.
    #[error("{}", .0.heading())]
    Invalid(Problems),
}

/// How [`read_call_from`] reads a call.
#[derive(Debug, Clone, Copy)]
pub struct InputOptions<'a> {
    /// The limits the call is validated against.
    pub limits: &'a Limits,
    /// The most bytes the input may hold ([`DEFAULT_MAX_INPUT_BYTES`] unless the person says).
    pub max_bytes: u64,
    /// The dialect the call is read in, named or shown by the call.
    pub read: ReadOptions,
}

/// Reads and validates the call in `input` (a path, or `-` for stdin) in the dialect
/// `options.read` names or the call shows, refusing more than `options.max_bytes` as soon as
/// the cap is passed: one byte past the cap ends the read.
pub fn read_call_from(
    input: &Path,
    options: &InputOptions<'_>,
) -> Result<DialectCall, ReadFailure> {
    let &InputOptions {
        limits,
        max_bytes,
        read: options,
    } = options;
    let (what, reader): (String, Box<dyn Read>) = if input == Path::new("-") {
        ("stdin".into(), Box::new(std::io::stdin().lock()))
    } else {
        let what = format!("`{}`", input.display());
        match ask_fs::open_plain(input) {
            Ok(file) => (what, Box::new(file)),
            Err(error) => return Err(ReadFailure::Io { what, error }),
        }
    };
    let mut bytes = Vec::new();
    if let Err(error) = reader
        .take(max_bytes.saturating_add(1))
        .read_to_end(&mut bytes)
    {
        return Err(ReadFailure::Io { what, error });
    }
    if bytes.len() as u64 > max_bytes {
        return Err(ReadFailure::TooLarge {
            what,
            max: max_bytes,
        });
    }
    ask_schema::read_call_bytes(&bytes, options, limits).map_err(ReadFailure::Invalid)
}

/// True when stdin can hold a call: a pipe, a socket or a file, so that `cat call.json |
/// ask-user` works; false for a terminal (nobody would type a call there) or anything else,
/// such as `/dev/null`.
pub fn stdin_holds_input() -> bool {
    use std::os::fd::AsFd;
    use std::os::unix::fs::FileTypeExt;
    let Ok(fd) = std::io::stdin().as_fd().try_clone_to_owned() else {
        return false;
    };
    std::fs::File::from(fd)
        .metadata()
        .map(|m| m.file_type())
        .is_ok_and(|kind| kind.is_fifo() || kind.is_socket() || kind.is_file())
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;

    #[test]
    fn a_file_one_byte_over_the_cap_is_refused_and_one_at_the_cap_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("call.json");
        let call = r#"{"questions":[{"question":"Which?","header":"H","options":[{"label":"a","description":"x"},{"label":"b","description":"y"}]}]}"#;
        std::fs::write(&path, call).unwrap();
        let len = call.len() as u64;
        let limits = Limits::default();
        let options = |max_bytes| InputOptions {
            limits: &limits,
            max_bytes,
            read: ReadOptions::default(),
        };
        let read = read_call_from(&path, &options(len));
        assert_eq!(read.unwrap().call.input.questions.len(), 1);
        let refused = read_call_from(&path, &options(len - 1));
        assert!(matches!(refused, Err(ReadFailure::TooLarge { max, .. }) if max == len - 1));
    }

    #[test]
    fn a_missing_file_is_named_in_the_failure() {
        let options = InputOptions {
            limits: &Limits::default(),
            max_bytes: DEFAULT_MAX_INPUT_BYTES,
            read: ReadOptions::default(),
        };
        let failure = read_call_from(Path::new("/no/such/call.json"), &options).unwrap_err();
        assert!(
            failure
                .to_string()
                .starts_with("cannot read `/no/such/call.json`: ")
        );
    }
}

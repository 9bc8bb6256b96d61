//! Reading the call: INPUT or stdin through a size cap, in the dialect the flags name, and the
//! report of a call that cannot be read.

use std::io::Read;
use std::path::Path;

use ask_core::{Limits, ProblemReport, Problems};
use ask_schema::{DialectCall, ReadOptions};
use serde_json::json;

use crate::exit::Exit;
use crate::output::finish;
use crate::output::{emit, say};

/// Why a call could not be read.
#[derive(Debug)]
pub enum ReadFailure {
    /// The file or stdin could not be read.
    Io { what: String, error: std::io::Error },
    /// The file or stdin holds more than the cap.
    TooLarge { what: String, max: u64 },
    /// The call is not valid.
    Invalid(Problems),
}

impl ReadFailure {
    /// Reports the failure (stdout: the problems as JSON; stderr: sentences) and gives the exit.
    pub fn report(self) -> Exit {
        match self {
            ReadFailure::Io { what, error } => {
                say(&format!("cannot read {what}: {error}"));
                Exit::Invalid
            }
            ReadFailure::TooLarge { what, max } => {
                say(&format!(
                    "{what} is longer than {max} bytes, the most one input may hold; nothing was \
                     asked (raise the cap with --max-input-bytes BYTES)"
                ));
                Exit::Invalid
            }
            ReadFailure::Invalid(problems) => {
                let list = problems_json(&problems);
                say_invalid(&problems);
                finish(
                    emit(&json!({"valid": false, "problems": list})),
                    Exit::Invalid,
                )
            }
        }
    }
}

/// The INPUT to take when none is given: `-` (stdin) when stdin is a pipe, a socket or a file, so
/// that `cat call.json | ask-user` works; none when it is a terminal (nobody would type a call
/// there) or anything else, such as `/dev/null`.
pub fn stdin_input() -> Option<&'static str> {
    use std::os::fd::AsFd;
    use std::os::unix::fs::FileTypeExt;
    let fd = std::io::stdin().as_fd().try_clone_to_owned().ok()?;
    let kind = std::fs::File::from(fd).metadata().ok()?.file_type();
    (kind.is_fifo() || kind.is_socket() || kind.is_file()).then_some("-")
}

/// Says that no INPUT was given and stdin holds none.
pub fn say_no_input() {
    say(
        "no INPUT given, and stdin is not a pipe or a file; pass a file with the ask_user call \
         (ask-user call.json), or pipe it in (ask-user < call.json)",
    );
    say("try `ask-user demo` to see the questions UI, or `ask-user --help`");
}

/// Says on stderr that a call is invalid and lists its problems, in the same words in every
/// command (`validate`, the ask command, `mcp`).
pub fn say_invalid(problems: &Problems) {
    say(&problems.heading());
    for problem in problems {
        say(&format!("  {problem}"));
    }
}

/// The lenient forms of a call as JSON, `[{path, message}]`, for the validate report and the RPC
/// result.
pub fn warnings_json(warnings: &[ask_schema::Warning]) -> serde_json::Value {
    serde_json::to_value(warning_reports(warnings)).unwrap_or_default()
}

/// The lenient forms of a call as reports, `{path, message}` each.
pub fn warning_reports(warnings: &[ask_schema::Warning]) -> Vec<ProblemReport> {
    warnings
        .iter()
        .map(|w| ProblemReport::new(&w.path, w.message.clone()))
        .collect()
}

/// The problems of a call as JSON, `[{path, message}]`, for the validate report.
pub fn problems_json(problems: &Problems) -> serde_json::Value {
    serde_json::to_value(ProblemReport::all(problems)).unwrap_or_default()
}

/// Reads and validates the call in `input` (a path, or `-` for stdin) in the dialect `options`
/// name or show, refusing more than `max_bytes` as soon as the cap is passed. Each lenient form
/// read is said on stderr.
pub fn read_call(
    input: &Path,
    limits: &Limits,
    max_bytes: u64,
    options: ReadOptions,
) -> Result<DialectCall, ReadFailure> {
    let (what, reader): (String, Box<dyn Read>) = if input == Path::new("-") {
        ("stdin".into(), Box::new(std::io::stdin().lock()))
    } else {
        let what = format!("`{}`", input.display());
        match std::fs::File::open(input) {
            Ok(file) => (what, Box::new(file)),
            Err(error) => return Err(ReadFailure::Io { what, error }),
        }
    };
    let bytes = read_capped(reader, max_bytes).map_err(|error| match error {
        Capped::TooLarge => ReadFailure::TooLarge {
            what: what.clone(),
            max: max_bytes,
        },
        Capped::Io(error) => ReadFailure::Io {
            what: what.clone(),
            error,
        },
    })?;
    let read =
        ask_schema::read_call_bytes(&bytes, options, limits).map_err(ReadFailure::Invalid)?;
    for warning in &read.warnings {
        say(&format!("warning: {warning}"));
    }
    Ok(read)
}

/// Why [`read_capped`] failed.
enum Capped {
    TooLarge,
    Io(std::io::Error),
}

/// Reads all of `reader`, but never more than `max` bytes: one byte past the cap ends the read.
fn read_capped(reader: impl Read, max: u64) -> Result<Vec<u8>, Capped> {
    let mut bytes = Vec::new();
    reader
        .take(max.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(Capped::Io)?;
    if bytes.len() as u64 > max {
        return Err(Capped::TooLarge);
    }
    Ok(bytes)
}

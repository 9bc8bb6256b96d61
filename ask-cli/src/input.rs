//! Reading the call (INPUT or stdin, in the dialect the flags name), and the report of a call
//! that cannot be read.

use std::path::Path;

use ask_schema::DialectCall;
use ask_session::{InputOptions, ReadFailure};

use crate::exit::Exit;
use crate::output::{emit, finish, say, say_invalid};

/// Reads and validates the call in `input` (a path, or `-` for stdin); each lenient form read
/// is said on stderr.
pub(crate) fn read_call(
    input: &Path,
    options: &InputOptions<'_>,
) -> Result<DialectCall, ReadFailure> {
    let read = ask_session::read_call_from(input, options)?;
    for warning in &read.warnings {
        say(&format!("warning: {warning}"));
    }
    Ok(read)
}

/// Reports a call that could not be read (stdout: the problems as JSON; stderr: sentences) and
/// gives the exit.
pub(crate) fn report(failure: ReadFailure) -> Exit {
    match failure {
        ReadFailure::Invalid(problems) => {
            say_invalid(&problems);
            let report = DialectCall::invalid_report(&problems);
            finish(emit(&report), Exit::Invalid)
        }
        too_large @ ReadFailure::TooLarge { .. } => {
            say(&format!(
                "{too_large} (raise the cap with --max-input-bytes BYTES)"
            ));
            Exit::Invalid
        }
        io @ ReadFailure::Io { .. } => {
            say(&io.to_string());
            Exit::Invalid
        }
    }
}

/// The INPUT to take when none is given: `-` (stdin) when stdin is a pipe, a socket or a file.
pub(crate) fn stdin_input() -> Option<&'static str> {
    ask_session::stdin_holds_input().then_some("-")
}

/// Says that no INPUT was given and stdin holds none.
pub(crate) fn say_no_input() {
    say(
        "no INPUT given, and stdin is not a pipe or a file; pass a file with the ask_user call \
         (ask-user call.json), or pipe it in (ask-user < call.json)",
    );
    say("try `ask-user demo` to see the questions UI, or `ask-user --help`");
}

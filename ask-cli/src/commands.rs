//! The commands that ask nothing: `schema`, `validate` and `session show|summary|get`.

use std::path::Path;

use ask_core::Limits;
use ask_session::{InputOptions, SessionLog};

use ask_schema::OutputShape;

use crate::cli::{self, ValidateArgs};
use crate::deliver::emit_record;
use crate::exit::Exit;
use crate::input::{read_call, report, say_no_input, stdin_input};
use crate::output::{self, emit, emit_pretty, finish, say};

/// `ask-user validate [INPUT]`: INPUT, else stdin when it is a pipe or a file.
pub(crate) fn validate(args: &ValidateArgs) -> Exit {
    let Some(input) = args.input.as_deref().or(stdin_input().map(Path::new)) else {
        say_no_input();
        return Exit::Invalid;
    };
    let limits = args.limits.limits();
    let options = InputOptions {
        limits: &limits,
        max_bytes: args.limits.max_input_bytes(),
        read: args.dialect.read_options(),
    };
    match read_call(input, &options) {
        Ok(read) => finish(emit(&read.validate_report()), Exit::Ok),
        Err(failure) => report(failure),
    }
}

/// `ask-user schema --format NAME`: the descriptor or schema of that name.
pub(crate) fn schema(format: &str, limits: &Limits) -> Exit {
    match ask_schema::descriptor_named(format, limits) {
        Some(descriptor) => finish(emit_pretty(&descriptor), Exit::Ok),
        None => {
            say(&format!("unknown schema format `{format}`"));
            Exit::Invalid
        }
    }
}

/// `ask-user session get FILE CALL_ID`: the record of one call in an output shape, or `null`.
pub(crate) fn session_get(file: &Path, call_id: &str, output: cli::OutputArg) -> Exit {
    let (found, warnings) = match SessionLog::new(file).find(call_id) {
        Ok(found) => found,
        Err(error) => return unreadable(file, &error),
    };
    warnings.iter().for_each(|w| say(w));
    match found {
        // Exit 0 whatever the record's status: the query succeeded.
        Some(record) => match emit_record(record, &OutputShape::plain(output.form())) {
            Exit::Failure => Exit::Failure,
            _ => Exit::Ok,
        },
        None => finish(output::write_stdout("null"), Exit::Ok),
    }
}

/// `ask-user session show FILE`, or with `summary`, `session summary FILE`.
pub(crate) fn history(file: &Path, summary: bool) -> Exit {
    let history = match SessionLog::new(file).read() {
        Ok(history) => history,
        Err(error) => return unreadable(file, &error),
    };
    history.warnings.iter().for_each(|w| say(w));
    let text = if summary {
        ask_session::summarize(&history.records)
    } else {
        ask_session::render(&history.records)
    };
    finish(output::write_stdout(&text), Exit::Ok)
}

fn unreadable(file: &Path, error: &std::io::Error) -> Exit {
    say(&format!(
        "cannot read the session log `{}`: {error}",
        file.display()
    ));
    Exit::Failure
}

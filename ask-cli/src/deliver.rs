//! What a finished ask prints: the record in the shape the flags ask for, the RPC result line,
//! and the exit code of each outcome.

use std::sync::Arc;

use ask_core::{PresentError, Presenter, Record, Status, ToolOutput};
use ask_rpc::AskUserResultNotification;
use ask_schema::OutputShape;
use ask_session::{Ask, AskFailure, Finished, SessionLog};
use tokio::runtime::{Builder, Runtime};

use crate::cli::{AskArgs, OutputArg};
use crate::exit::Exit;
use crate::output::{emit, finish, finish_ask, say, write_stdout};

/// What stdout carries for a finished call, as the flags of `args` ask: the `--output` form,
/// in the dialect `--dialect` names.
pub(crate) fn shape_of(args: &AskArgs) -> OutputShape {
    OutputShape {
        form: args.output.form(),
        dialect: args.dialect.answer_dialect(),
        modes: Vec::new(),
    }
}

/// The options of the one ask path the flags give: the session log, the events file, and
/// stderr for what people should know.
pub(crate) fn ask_path<S>(args: &AskArgs, ask: Ask<S>) -> Ask<S> {
    ask.session(args.session.as_ref().map(SessionLog::new))
        .events(args.events.clone())
        .warn(Arc::new(say))
}

/// How a finished call is printed: the flags, where it was asked, the shape of the record on
/// stdout, and the lenient forms the call was read with.
pub(crate) struct Delivery<'a> {
    pub(crate) args: &'a AskArgs,
    pub(crate) presenter: Presenter,
    pub(crate) shape: &'a OutputShape,
    pub(crate) warnings: &'a [ask_schema::Warning],
}

/// Prints a finished call as `delivery` says and gives its exit code; a record that could not
/// be saved is still printed, so the answers reach the agent, and the exit code says so.
pub(crate) fn deliver(finished: Finished, delivery: &Delivery<'_>) -> Exit {
    let &Delivery {
        args,
        presenter,
        shape,
        warnings,
    } = delivery;
    let exit = match presenter {
        Presenter::Rpc | Presenter::Embedded => {
            let warnings = if finished.replayed { &[][..] } else { warnings };
            print_result(finished.record.clone(), args.output, warnings)
        }
        _ => print_record(finished.record.clone(), shape),
    };
    if finished.saved { exit } else { Exit::Failure }
}

/// Says why a call gave no record and gives the exit code; with `--output tool`, a host still
/// gets an explicit error to hand to its agent.
pub(crate) fn failed(failure: AskFailure, output: OutputArg) -> Exit {
    say(&failure.to_string());
    let exit = match &failure {
        AskFailure::Refused(_) => Exit::Refused,
        AskFailure::Present {
            error: PresentError::Interrupted { signal },
            ..
        } => {
            if signal.is_none() {
                say("nothing was answered or saved; the call is asked again next time");
            }
            // Ctrl+C twice ends as SIGINT (signal 2) does: 130, nothing saved.
            Exit::for_signal(signal.map_or(2, |s| s.number))
        }
        AskFailure::Present {
            error: PresentError::Refused(_),
            ..
        }
        | AskFailure::NoCallId => Exit::Invalid,
        _ => Exit::Failure,
    };
    match failure.tool_output() {
        Some(tool) => print_error(tool, output, exit),
        None => exit,
    }
}

/// Prints a finished call in the chosen output shape and gives its exit code. Pending
/// questions come with the instructions their frontend wrote.
pub(crate) fn print_record(record: Record, shape: &OutputShape) -> Exit {
    match record.status {
        Status::Cancelled => say("the questions were cancelled"),
        Status::ConnectionLost => say("the client went away before an answer"),
        Status::Pending => say(&record.outcome().message().unwrap_or_default()),
        Status::Answered => {}
    }
    emit_record(record, shape)
}

/// Prints a call in the chosen output shape on stdout, with no message on stderr, and gives its
/// exit code.
pub(crate) fn emit_record(record: Record, shape: &OutputShape) -> Exit {
    finish_ask(
        write_stdout(&shape.render(&record)),
        exit_for(record.status),
    )
}

/// The exit code of a final status.
pub(crate) fn exit_for(status: Status) -> Exit {
    match status {
        Status::Answered => Exit::Ok,
        Status::Cancelled => Exit::Cancelled,
        Status::ConnectionLost => Exit::ConnectionLost,
        Status::Pending => Exit::Pending,
    }
}

/// A call refused or invalid before anything was shown: its result, the tool output a host
/// hands its agent, and the exit code.
pub(crate) struct Unasked {
    pub(crate) result: ask_core::AskUserResult,
    pub(crate) tool: ToolOutput,
    pub(crate) exit: Exit,
}

/// Prints a call that was refused or invalid before anything was shown: in RPC and embedded
/// mode the protocol's last line, `ask_user_result` with its result (and the tool output with
/// `--output tool`); elsewhere the tool output for `--output tool`, nothing otherwise.
pub(crate) fn print_unasked(unasked: Unasked, presenter: Presenter, args: &AskArgs) -> Exit {
    let Unasked { result, tool, exit } = unasked;
    if !matches!(presenter, Presenter::Rpc | Presenter::Embedded) {
        return print_error(tool, args.output, exit);
    }
    let tool = (args.output == OutputArg::Tool).then_some(tool);
    let line = AskUserResultNotification::unasked_line(args.call_id.clone(), result, tool);
    finish(write_stdout(line.trim_end()), exit)
}

/// Prints an error outcome: the tool output for `--output tool`, nothing on stdout otherwise.
pub(crate) fn print_error(output: ToolOutput, format: OutputArg, exit: Exit) -> Exit {
    match format {
        OutputArg::Tool => finish(emit(&output), exit),
        OutputArg::Result | OutputArg::Answers => exit,
    }
}
/// Prints the final `ask_user_result` line and gives the exit code of the outcome. With
/// `--output tool` the line also carries the tool output.
pub(crate) fn print_result(
    record: Record,
    output: OutputArg,
    warnings: &[ask_schema::Warning],
) -> Exit {
    let warnings = ask_schema::Warning::reports(warnings);
    let line = AskUserResultNotification::line_for(&record, output == OutputArg::Tool, &warnings);
    finish_ask(write_stdout(line.trim_end()), exit_for(record.status))
}

/// The runtime a command runs on: the current thread for an ask in every mode (the terminal
/// UI's loop on its blocking pool) and for print mode's second pass; two worker threads for
/// `ask-user mcp` (`multi`), so that a presenter waiting on one does not hold up the protocol.
pub(crate) fn runtime(multi: bool) -> Result<Runtime, Exit> {
    let mut builder = if multi {
        Builder::new_multi_thread()
    } else {
        Builder::new_current_thread()
    };
    builder
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|error| {
            say(&format!("cannot start the async runtime: {error}"));
            Exit::Failure
        })
}

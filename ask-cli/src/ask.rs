//! The ask command: read the call, refuse a sub-agent, choose the mode, run the frontend, print
//! the outcome and map it to an exit code.

use std::io::IsTerminal;

use ask_core::{
    AskCall, AskError, Caller, Frontend, Limits, Record, StateMachine, Status, ToolOutput,
};
use ask_print::{PrintError, PrintFrontend};
use ask_schema::ParsedCall;

use crate::cli::{AskArgs, ModeArg, OutputArg};
use crate::events::EventLog;
use crate::exit::Exit;
use crate::output::{emit, say};
use crate::session::{Appended, SessionLog};
use crate::{ReadFailure, finish, read_call};

/// The mode an ask runs in, once `auto` is resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Tui,
    Print,
    Rpc,
    Web,
}

/// Resolves `auto`: the terminal UI when a terminal can be opened, else print mode, so that
/// nothing ever waits for a person who cannot be reached.
pub fn resolve_mode(mode: ModeArg, via: bool) -> Mode {
    match mode {
        // `--via` replaces the local presenter (the terminal UI or print mode).
        ModeArg::Auto | ModeArg::Tui | ModeArg::Print if via => Mode::Web,
        ModeArg::Tui => Mode::Tui,
        ModeArg::Print => Mode::Print,
        ModeArg::Rpc => Mode::Rpc,
        ModeArg::Web => Mode::Web,
        ModeArg::Auto if terminal_available() => Mode::Tui,
        ModeArg::Auto => Mode::Print,
    }
}

/// True when the controlling terminal can be opened for reading and writing.
pub fn terminal_available() -> bool {
    if std::env::var_os("ASK_USER_NO_TTY").is_some() {
        return false;
    }
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")
        .is_ok_and(|tty| tty.is_terminal())
}

/// Runs `ask-user [OPTIONS] [INPUT]`.
pub fn run(args: &AskArgs) -> Exit {
    // A sub-agent is refused before anything is read, shown or written, in every mode.
    let caller = if args.is_sub_agent() {
        Caller::SubAgent
    } else {
        Caller::Parent
    };
    if let Err(refusal) = caller.check() {
        say(&refusal.to_string());
        return print_error(ToolOutput::refused(), args.output, Exit::Refused);
    }
    let limits = args.limits.limits();
    if let Some(reply) = &args.reply
        && !args
            .input
            .as_deref()
            .is_some_and(|input| input.starts_with('@'))
    {
        say(&format!(
            "unexpected argument `{reply}` after INPUT; only a reply to pending questions takes a \
             second argument: ask-user -p @PENDING \"your answers\""
        ));
        return Exit::Invalid;
    }
    if let Some(how) = crate::print::pass_two_form(args) {
        return match how {
            Ok(how) => crate::print::pass_two(args, how),
            Err(exit) => exit,
        };
    }
    let Some(input) = args.input.as_deref().or_else(|| crate::stdin_input()) else {
        crate::say_no_input();
        return Exit::Invalid;
    };
    let mode = resolve_mode(args.mode(), args.via.is_some());
    if mode == Mode::Rpc && input == "-" {
        say(
            "in RPC mode stdin carries the protocol, so INPUT must be a file: ask-user --rpc call.json",
        );
        return Exit::Invalid;
    }
    let max_bytes = args.limits.max_input_bytes();
    let mut call = match read_call(std::path::Path::new(input), &limits, max_bytes) {
        Ok(call) => call,
        Err(failure) => return failure.report_for_ask(args.output),
    };
    if args.call_id.is_some() {
        call.call_id.clone_from(&args.call_id);
    }
    // With a session, one ask of a call id at a time: a concurrent ask of the same call waits
    // here, then replays the record the first one wrote.
    let mut _call_lock = None;
    if let Some(session) = &args.session {
        let Some(call_id) = call.call_id.as_deref() else {
            say(
                "--session needs a call id: pass --call-id ID, or give INPUT as a tool-call envelope with an id",
            );
            return Exit::Invalid;
        };
        let log = SessionLog::new(session);
        _call_lock = match log.lock_call(call_id) {
            Ok(lock) => Some(lock),
            Err(error) => {
                say(&format!(
                    "cannot lock call {call_id} beside the session log `{}`: {error}",
                    session.display()
                ));
                return Exit::Failure;
            }
        };
        match log.find(call_id) {
            Ok((found, warnings)) => {
                warnings.iter().for_each(|w| say(w));
                if let Some(record) = found {
                    say(&format!(
                        "replaying the answer recorded for call {call_id} in {}",
                        session.display()
                    ));
                    log.forget_call_lock(call_id);
                    return match mode {
                        Mode::Rpc => crate::rpc::print_result(record),
                        Mode::Tui | Mode::Print | Mode::Web => print_record(record, args.output),
                    };
                }
            }
            Err(error) => {
                say(&format!(
                    "cannot read the session log `{}`: {error}",
                    session.display()
                ));
                return Exit::Failure;
            }
        }
    }
    // The call's lock is held until the record is written and printed.
    match ask_with(call, caller, mode, args) {
        Ok(record) => finish_record(record, args, mode),
        Err(exit) => exit,
    }
}

/// Records a finished call in the session log (when there is one) and prints it.
///
/// If the log cannot be written, the result is still printed, so the answers reach the agent,
/// and the exit code says that the record was not saved.
///
/// A call id has one record: when the log already holds one for this call (another process
/// answered it first), that record stands and is the one printed.
pub fn finish_record(record: Record, args: &AskArgs, mode: Mode) -> Exit {
    let mut saved = true;
    let mut record = record;
    if let Some(session) = &args.session
        && record.call_id.is_some()
        && crate::session::is_final(&record)
    {
        let log = SessionLog::new(session);
        let appended = log.append_once(&record);
        if appended.is_ok() {
            log.forget_call_lock(record.call_id.as_deref().unwrap_or_default());
        }
        match appended {
            Ok(Appended::Written) => {}
            Ok(Appended::Existing(first)) => {
                if *first != record {
                    say(&format!(
                        "call {} already has a record in {}; that answer stands and is the one \
                         returned",
                        record.call_id.as_deref().unwrap_or_default(),
                        session.display()
                    ));
                }
                record = *first;
            }
            Err(error) => {
                say(&format!(
                    "the answer was not saved to the session log `{}`: {error}",
                    session.display()
                ));
                saved = false;
            }
        }
    }
    if record.status == Status::Pending
        && let Some(session) = &args.session
    {
        say(&format!(
            "the call is recorded in the session log once it is answered: give the answering \
             command --session {} too",
            session.display()
        ));
    }
    let exit = match mode {
        Mode::Rpc => crate::rpc::print_result(record),
        Mode::Tui | Mode::Print | Mode::Web => print_record(record, args.output),
    };
    if saved { exit } else { Exit::Failure }
}

/// Asks a parsed call in `mode` and returns the record.
fn ask_with(call: ParsedCall, caller: Caller, mode: Mode, args: &AskArgs) -> Result<Record, Exit> {
    if mode == Mode::Rpc {
        return crate::rpc::ask(call, caller, args);
    }
    let frontend: Box<dyn Frontend> = frontend_for(mode, args, call.call_id.as_deref())?;
    let ask_call = AskCall {
        call_id: call.call_id,
        caller,
        input: call.input,
    };
    run_call(
        frontend.as_ref(),
        ask_call,
        args.events.as_deref(),
        args.output,
    )
}

/// Runs one call through `frontend` on a new runtime; see [`drive`].
pub(crate) fn run_call(
    frontend: &dyn Frontend,
    call: AskCall,
    events: Option<&std::path::Path>,
    output: OutputArg,
) -> Result<Record, Exit> {
    runtime()?.block_on(drive(frontend, call, events, output))
}

/// The single-threaded runtime that one ask runs on.
pub(crate) fn runtime() -> Result<tokio::runtime::Runtime, Exit> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| {
            say(&format!("cannot start the async runtime: {error}"));
            Exit::Failure
        })
}

/// Runs one call through `frontend`, with the `--events` observer when asked for, and maps a
/// failure to its exit code.
pub(crate) async fn drive(
    frontend: &dyn Frontend,
    call: AskCall,
    events: Option<&std::path::Path>,
    output: OutputArg,
) -> Result<Record, Exit> {
    let mut machine = StateMachine::new();
    if let Some(path) = events {
        match EventLog::open(path, call.call_id.clone()) {
            Ok(events) => machine.observe(events),
            Err(error) => {
                say(&format!(
                    "cannot open the events file `{}`: {error}",
                    path.display()
                ));
                return Err(Exit::Failure);
            }
        }
    }
    match ask_core::ask(frontend, call, &mut machine).await {
        Ok(record) => Ok(record),
        Err(AskError::Frontend { source, .. }) => {
            say(&source.to_string());
            match source.downcast_ref() {
                Some(ask_tui::TuiError::Signal { number, .. }) => {
                    return Err(Exit::for_signal(*number));
                }
                Some(ask_tui::TuiError::Aborted) => {
                    say("nothing was answered or saved; the call is asked again next time");
                    // Ends as SIGINT (signal 2) does: 130, nothing printed or saved.
                    return Err(Exit::for_signal(2));
                }
                _ => {}
            }
            let usage = source
                .downcast_ref::<PrintError>()
                .is_some_and(PrintError::is_usage);
            Err(if usage { Exit::Invalid } else { Exit::Failure })
        }
        Err(AskError::Refused(refusal)) => {
            say(&refusal.to_string());
            Err(print_error(ToolOutput::refused(), output, Exit::Refused))
        }
        Err(error) => {
            say(&error.to_string());
            Err(Exit::Failure)
        }
    }
}

/// Runs `ask-user demo`: the example questions of seed 001 in the terminal UI.
pub fn demo(output: OutputArg, no_notify: bool) -> Exit {
    let input = match ask_core::validate(ask_tui::demo_input(), &Limits::default()) {
        Ok(input) => input,
        Err(problems) => {
            for problem in &problems {
                say(&problem.to_string());
            }
            return Exit::Failure;
        }
    };
    if !terminal_available() {
        say("the demo needs a terminal, and /dev/tty cannot be opened");
        return Exit::Failure;
    }
    match run_call(
        &ask_tui::TuiFrontend::new().with_notify(!no_notify),
        AskCall::new(input),
        None,
        output,
    ) {
        Ok(record) => print_record(record, output),
        Err(exit) => exit,
    }
}

/// The frontend for `mode`.
pub fn frontend_for(
    mode: Mode,
    args: &AskArgs,
    call_id: Option<&str>,
) -> Result<Box<dyn Frontend>, Exit> {
    match mode {
        Mode::Print => Ok(Box::new(
            PrintFrontend::new(&args.pending_file).with_call_id(call_id.map(str::to_string)),
        )),
        Mode::Tui => Ok(Box::new(
            ask_tui::TuiFrontend::new().with_notify(!args.no_notify),
        )),
        Mode::Web => crate::web::frontend(args),
        Mode::Rpc => {
            // RPC mode takes over stdin and stdout, so only the ask command, which owns them,
            // runs it (`crate::rpc::ask`); a host with its own protocol there cannot.
            say("RPC mode needs stdin and stdout for itself: run it as ask-user --rpc INPUT");
            Err(Exit::Invalid)
        }
    }
}

/// Prints a finished call in the chosen output shape and gives its exit code.
pub fn print_record(record: Record, output: OutputArg) -> Exit {
    match record.status {
        Status::Cancelled => say("the questions were cancelled"),
        Status::ConnectionLost => say("the client went away before an answer"),
        Status::Pending => {
            let file = record.pending_file.as_deref().unwrap_or("");
            for line in ask_core::pending_instructions(file, record.questions.len()).lines() {
                say(line);
            }
        }
        Status::Answered => {}
    }
    emit_record(record, output)
}

/// Prints a call in the chosen output shape on stdout, with no message on stderr, and gives its
/// exit code.
pub fn emit_record(record: Record, output: OutputArg) -> Exit {
    let exit = exit_for(record.status);
    let written = match output {
        OutputArg::Result => emit(&record.result()),
        // While the questions wait, the map is empty; where they wait is said beside it.
        OutputArg::Answers if record.status == Status::Pending => emit(&serde_json::json!({
            "answers": {},
            "pendingFile": record.pending_file,
        })),
        // An empty map alone would read as "answered nothing"; say why it is empty.
        OutputArg::Answers if record.status == Status::Cancelled => {
            emit(&serde_json::json!({"answers": {}, "cancelled": true}))
        }
        OutputArg::Answers if record.status == Status::ConnectionLost => {
            emit(&serde_json::json!({"answers": {}, "connectionLost": true}))
        }
        OutputArg::Answers => emit(&record.result().answer_map()),
        OutputArg::Tool => emit(&ToolOutput::from_record(record)),
    };
    finish(written, exit)
}

/// The exit code of a final status (SPEC §8).
pub fn exit_for(status: Status) -> Exit {
    match status {
        Status::Answered => Exit::Ok,
        Status::Cancelled => Exit::Cancelled,
        Status::ConnectionLost => Exit::ConnectionLost,
        Status::Pending => Exit::Pending,
    }
}

/// Prints an error outcome: the tool output for `--output tool`, nothing on stdout otherwise.
pub fn print_error(output: ToolOutput, format: OutputArg, exit: Exit) -> Exit {
    match format {
        OutputArg::Tool => finish(emit(&output), exit),
        OutputArg::Result | OutputArg::Answers => exit,
    }
}

impl ReadFailure {
    /// Reports a call that could not be read, for the ask command.
    fn report_for_ask(self, format: OutputArg) -> Exit {
        match self {
            ReadFailure::Invalid(problems) => {
                crate::say_invalid(&problems);
                print_error(ToolOutput::invalid(&problems), format, Exit::Invalid)
            }
            io => io.report(),
        }
    }
}

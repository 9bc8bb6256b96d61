//! The ask command: read the call, refuse a sub-agent, choose the mode, run the frontend, print
//! the outcome and map it to an exit code.

use std::io::IsTerminal;

use ask_core::{
    AskCall, AskError, Caller, Frontend, Host, Limits, Record, StateMachine, Status, ToolOutput,
};
use ask_print::{PrintError, PrintFrontend};
use ask_schema::{Dialect, DialectCall};
use ask_tui::Lang;

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
    Embedded,
}

/// What stdout carries for a finished call: the `--output` form, in the dialect `--dialect`
/// names (none: the canonical shapes).
#[derive(Debug, Clone)]
pub struct Shape {
    /// `--output`.
    pub output: OutputArg,
    /// The dialect named by `--dialect`, unless it is the canonical one.
    pub dialect: Option<Dialect>,
    /// Roo Code's mode of each suggestion, when the call carried them.
    pub modes: Vec<Option<String>>,
    /// The host whose pass-2 commands pending instructions name (`--host`).
    pub host: Host,
}

impl Shape {
    /// The canonical shape of `output`.
    pub fn plain(output: OutputArg) -> Shape {
        Shape {
            output,
            dialect: None,
            modes: Vec::new(),
            host: Host::AskUser,
        }
    }

    /// The shape the flags of `args` ask for.
    pub fn of(args: &AskArgs) -> Shape {
        Shape {
            output: args.output,
            dialect: args.dialect.answer_dialect(),
            modes: Vec::new(),
            host: args.host,
        }
    }
}

/// Resolves `auto`: the terminal UI when a terminal can be opened, else print mode, so that
/// nothing ever waits for a person who cannot be reached.
pub fn resolve_mode(mode: ModeArg) -> Mode {
    match mode {
        ModeArg::Tui => Mode::Tui,
        ModeArg::Print => Mode::Print,
        ModeArg::Rpc => Mode::Rpc,
        ModeArg::Embedded => Mode::Embedded,
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
    let mode = resolve_mode(args.mode());
    if mode == Mode::Rpc && input == "-" {
        say(
            "in RPC mode stdin carries the protocol, so INPUT must be a file: ask-user --rpc call.json",
        );
        return Exit::Invalid;
    }
    if mode == Mode::Embedded && input == "-" {
        say(
            "in embedded mode stdin carries the host's messages, so INPUT must be a file: ask-user --mode embedded call.json",
        );
        return Exit::Invalid;
    }
    let max_bytes = args.limits.max_input_bytes();
    let options = args.dialect.read_options();
    let read = match read_call(std::path::Path::new(input), &limits, max_bytes, options) {
        Ok(read) => read,
        Err(failure) => return failure.report_for_ask(args.output),
    };
    let mut shape = Shape::of(args);
    shape.modes.clone_from(&read.modes);
    let mut call = read;
    if args.call_id.is_some() {
        call.call.call_id.clone_from(&args.call_id);
    }
    // With a session, one ask of a call id at a time: a concurrent ask of the same call waits
    // here, then replays the record the first one wrote.
    let mut _call_lock = None;
    if let Some(session) = &args.session {
        let Some(call_id) = call.call.call_id.as_deref() else {
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
                // A secret answer is never kept, so a call with a secret question is asked
                // again rather than replayed.
                let secret = call.call.input.input().questions.iter().any(|q| q.secret);
                match found {
                    Some(record) if secret || record.has_secret() => say(&format!(
                        "call {call_id} has a record in {}, but it asks a secret question whose \
                         answer is never kept: asking again",
                        session.display()
                    )),
                    Some(record) => {
                        say(&format!(
                            "replaying the answer recorded for call {call_id} in {}",
                            session.display()
                        ));
                        log.forget_call_lock(call_id);
                        return match mode {
                            Mode::Rpc | Mode::Embedded => {
                                crate::rpc::print_result(record, args.output, &[])
                            }
                            Mode::Tui | Mode::Print => print_record(record, &shape),
                        };
                    }
                    None => {}
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
    let warnings = call.warnings.clone();
    match ask_with(call, caller, mode, args) {
        Ok(record) => finish_record(record, args, mode, &shape, &warnings),
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
/// In RPC mode, `warnings` (the lenient forms of the call) go into the result line.
pub fn finish_record(
    record: Record,
    args: &AskArgs,
    mode: Mode,
    shape: &Shape,
    warnings: &[ask_schema::Warning],
) -> Exit {
    let mut saved = true;
    let mut record = record;
    if let Some(session) = &args.session
        && record.call_id.is_some()
        && crate::session::is_final(&record)
    {
        let log = SessionLog::new(session);
        // The log keeps "[secret]" in place of a secret answer; the answer itself goes to the
        // model only, in the result printed below.
        let kept = record.redacted();
        let appended = log.append_once(&kept);
        if appended.is_ok() {
            log.forget_call_lock(record.call_id.as_deref().unwrap_or_default());
        }
        match appended {
            Ok(Appended::Written) => {}
            // A call with a secret question is asked again when a record exists (none can be
            // replayed): the record stays the one there, and the fresh answer is returned.
            Ok(Appended::Existing(_)) if record.has_secret() => {}
            Ok(Appended::Existing(first)) => {
                if *first != kept {
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
        Mode::Rpc | Mode::Embedded => crate::rpc::print_result(record, args.output, warnings),
        Mode::Tui | Mode::Print => print_record(record, shape),
    };
    if saved { exit } else { Exit::Failure }
}

/// Asks a call read in some dialect in `mode` and returns the record. Answers the call already
/// carries (Claude Code's `answers`) are shown pre-filled.
fn ask_with(read: DialectCall, caller: Caller, mode: Mode, args: &AskArgs) -> Result<Record, Exit> {
    let call = read.call;
    if mode == Mode::Rpc {
        return crate::rpc::ask(call, read.given, caller, args);
    }
    let frontend: Box<dyn Frontend> = frontend_for(mode, args, call.call_id.as_deref())?;
    let frontend = ask_core::Given {
        inner: frontend.as_ref(),
        given: read.given,
    };
    let ask_call = AskCall {
        call_id: call.call_id,
        caller,
        input: call.input,
    };
    run_call(&frontend, ask_call, args.events.as_deref(), args.output)
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
            // An interrupted UI has no result and no record; with `--output tool`, a host still
            // gets an explicit error to hand to its agent.
            match source.downcast_ref() {
                Some(ask_tui::TuiError::Signal { number, name }) => {
                    let exit = Exit::for_signal(*number);
                    return Err(print_error(
                        ToolOutput::interrupted(Some(name)),
                        output,
                        exit,
                    ));
                }
                Some(ask_tui::TuiError::Aborted) => {
                    say("nothing was answered or saved; the call is asked again next time");
                    // Ends as SIGINT (signal 2) does: 130, nothing saved.
                    let exit = Exit::for_signal(2);
                    return Err(print_error(ToolOutput::interrupted(None), output, exit));
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
pub fn demo(output: OutputArg, no_notify: bool, lang: Option<Lang>) -> Exit {
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
        &ask_tui::TuiFrontend::new()
            .with_notify(!no_notify)
            .with_lang(ui_lang(lang)),
        AskCall::new(input),
        None,
        output,
    ) {
        Ok(record) => print_record(record, &Shape::plain(output)),
        Err(exit) => exit,
    }
}

/// The language of the terminal UI: `--lang` when given, else the locale's (POSIX order:
/// LC_ALL, LC_MESSAGES, LANG), else English.
pub fn ui_lang(flag: Option<Lang>) -> Lang {
    flag.unwrap_or_else(|| Lang::from_locale(|name| std::env::var(name).ok()))
}

/// The frontend for `mode`.
pub fn frontend_for(
    mode: Mode,
    args: &AskArgs,
    call_id: Option<&str>,
) -> Result<Box<dyn Frontend>, Exit> {
    match mode {
        Mode::Print => Ok(Box::new(
            PrintFrontend::new(&args.pending_file)
                .with_call_id(call_id.map(str::to_string))
                .with_host(args.host),
        )),
        Mode::Tui => {
            let mut tui = ask_tui::TuiFrontend::new()
                .with_notify(!args.no_notify)
                .with_lang(ui_lang(args.lang));
            // ↑ in a text field recalls earlier answers to the same question from this session's
            // log only, never another's.
            if let Some(session) = &args.session {
                let log = SessionLog::new(session);
                tui = tui.with_history(std::sync::Arc::new(move |question: &str| {
                    log.earlier_answers(question, ask_tui::HISTORY_MAX)
                }));
            }
            Ok(Box::new(tui))
        }
        Mode::Embedded => Ok(Box::new(crate::embedded::EmbeddedFrontend)),
        Mode::Rpc => {
            // RPC mode takes over stdin and stdout, so only the ask command, which owns them,
            // runs it (`crate::rpc::ask`); a host with its own protocol there cannot.
            say("RPC mode needs stdin and stdout for itself: run it as ask-user --rpc INPUT");
            Err(Exit::Invalid)
        }
    }
}

/// Prints a finished call in the chosen output shape and gives its exit code. Pending
/// instructions name the pass-2 commands of the shape's host.
pub fn print_record(record: Record, shape: &Shape) -> Exit {
    match record.status {
        Status::Cancelled => say("the questions were cancelled"),
        Status::ConnectionLost => say("the client went away before an answer"),
        Status::Pending => {
            let file = record.pending_file.as_deref().unwrap_or("");
            let questions = record.questions.len();
            for line in ask_core::pending_instructions_for(shape.host, file, questions).lines() {
                say(line);
            }
        }
        Status::Answered => {}
    }
    emit_record(record, shape)
}

/// Prints a call in the chosen output shape on stdout, with no message on stderr, and gives its
/// exit code. A named dialect prints its own result shape for `--output result` and `answers`,
/// and its own words in the tool output for `--output tool`.
pub fn emit_record(record: Record, shape: &Shape) -> Exit {
    let exit = exit_for(record.status);
    if let Some(dialect) = shape.dialect {
        let value = match shape.output {
            OutputArg::Result | OutputArg::Answers => {
                ask_schema::result_in(dialect, &record, &shape.modes)
            }
            OutputArg::Tool => ask_schema::tool_output_in(dialect, &record, &shape.modes),
        };
        return finish(emit(&value), exit);
    }
    let written = match shape.output {
        OutputArg::Result => emit(&record.result_for(shape.host)),
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
        OutputArg::Tool => emit(&ToolOutput::from_record_for(record, shape.host)),
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

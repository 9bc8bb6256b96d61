//! The ask command: read the call, refuse a sub-agent, choose the mode, run the frontend, print
//! the outcome and map it to an exit code.

use std::io::IsTerminal;

use ask_core::{AskCall, Caller, Frontend, Limits, Record, StateMachine, Status, ToolOutput};
use ask_schema::ParsedCall;

use crate::cli::{AskArgs, DemoArgs, ModeArg, OutputArg};
use crate::exit::Exit;
use crate::output::{emit, say};
use crate::{ReadFailure, finish, read_call};

/// The mode an ask runs in, once `auto` is resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Tui,
    Print,
    Rpc,
}

/// Resolves `auto`: the terminal UI when a terminal can be opened, else print mode, so that
/// nothing ever waits for a person who cannot be reached.
pub fn resolve_mode(mode: ModeArg) -> Mode {
    match mode {
        ModeArg::Tui => Mode::Tui,
        ModeArg::Print => Mode::Print,
        ModeArg::Rpc => Mode::Rpc,
        ModeArg::Auto if terminal_available() => Mode::Tui,
        ModeArg::Auto => Mode::Print,
    }
}

/// True when the controlling terminal can be opened for reading and writing.
fn terminal_available() -> bool {
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
    let limits = args.limits.limits();
    let Some(input) = args.input.as_deref() else {
        say("no INPUT given; pass a file with the ask_user call, or - to read it from stdin");
        say("try `ask-user demo` to see the questions UI, or `ask-user --help`");
        return Exit::Invalid;
    };
    let call = match read_call(std::path::Path::new(input), &limits) {
        Ok(call) => call,
        Err(failure) => return failure.report_for_ask(args.output),
    };
    let caller = if args.is_sub_agent() {
        Caller::SubAgent
    } else {
        Caller::Parent
    };
    let mode = resolve_mode(args.mode());
    ask_with(call, caller, mode, args)
}

/// Asks a parsed call in `mode` and prints the outcome.
fn ask_with(call: ParsedCall, caller: Caller, mode: Mode, args: &AskArgs) -> Exit {
    if let Err(refusal) = caller.check() {
        say(&refusal.to_string());
        return print_error(ToolOutput::refused(), args.output, Exit::Refused);
    }
    let frontend: Box<dyn Frontend> = match frontend_for(mode, args) {
        Ok(frontend) => frontend,
        Err(exit) => return exit,
    };
    let ask_call = AskCall {
        call_id: call.call_id,
        caller,
        input: call.input,
    };
    run_frontend(frontend.as_ref(), ask_call, args.output)
}

/// Runs one call through `frontend` and prints the outcome in the `output` shape.
fn run_frontend(frontend: &dyn Frontend, call: AskCall, output: OutputArg) -> Exit {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            say(&format!("cannot start the async runtime: {error}"));
            return Exit::Failure;
        }
    };
    let mut machine = StateMachine::new();
    match runtime.block_on(ask_core::ask(frontend, call, &mut machine)) {
        Ok(record) => print_record(record, output),
        Err(error) => {
            say(&error.to_string());
            Exit::Failure
        }
    }
}

/// Runs `ask-user demo`: the example questions of seed 001 in the terminal UI.
pub fn demo(args: &DemoArgs) -> Exit {
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
    run_frontend(
        &ask_tui::TuiFrontend::new(),
        AskCall::new(input),
        args.output,
    )
}

/// The frontend for `mode`.
fn frontend_for(mode: Mode, args: &AskArgs) -> Result<Box<dyn Frontend>, Exit> {
    let _ = args;
    match mode {
        Mode::Tui => Ok(Box::new(ask_tui::TuiFrontend::new())),
        Mode::Print | Mode::Rpc => {
            say(&format!("the {mode:?} mode is not available in this build"));
            Err(Exit::Failure)
        }
    }
}

/// Prints a finished call in the chosen output shape and gives its exit code.
pub fn print_record(record: Record, output: OutputArg) -> Exit {
    let exit = match record.status {
        Status::Answered => Exit::Ok,
        Status::Cancelled => Exit::Cancelled,
        Status::ConnectionLost => Exit::ConnectionLost,
        Status::Pending => Exit::Pending,
    };
    match record.status {
        Status::Cancelled => say("the questions were cancelled"),
        Status::ConnectionLost => say("the client went away before an answer"),
        Status::Pending => {
            for line in
                ask_core::pending_instructions(record.pending_file.as_deref().unwrap_or("")).lines()
            {
                say(line);
            }
        }
        Status::Answered => {}
    }
    let written = match output {
        OutputArg::Result => emit(&record.result()),
        OutputArg::Answers => emit(&record.result().answer_map()),
        OutputArg::Tool => emit(&ToolOutput::from_record(record)),
    };
    finish(written, exit)
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
                say(&format!("the call is invalid ({}):", problems.len()));
                for problem in &problems {
                    say(&format!("  {problem}"));
                }
                print_error(ToolOutput::invalid(&problems), format, Exit::Invalid)
            }
            io => io.report(),
        }
    }
}

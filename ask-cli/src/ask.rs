//! The ask command: read the call, choose where the person answers, hand both to the one ask
//! path of `ask-session`, print the outcome and map it to an exit code.

use std::io::IsTerminal;
use std::sync::Arc;

use ask_core::ToolOutput;
use ask_core::{AskCall, Caller, Frontend, Host, Limits, PresentError, Presenter, Record, Status};
use ask_print::PrintFrontend;
use ask_schema::Dialect;
use ask_session::{Ask, AskFailure, Finished, SessionLog};
use ask_tui::Lang;

use crate::cli::{AskArgs, ModeArg, OutputArg};
use crate::exit::Exit;
use crate::output::{emit, say};
use crate::{finish, read_call};

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

/// Where the person answers, once `auto` is resolved: the terminal UI when a terminal can be
/// opened, else print mode, so that nothing ever waits for a person who cannot be reached.
pub fn resolve_presenter(mode: ModeArg, via: bool) -> Presenter {
    match mode {
        // `--via` replaces the local presenter (the terminal UI or print mode).
        ModeArg::Auto | ModeArg::Tui | ModeArg::Print if via => Presenter::Web,
        ModeArg::Tui => Presenter::Tui,
        ModeArg::Print => Presenter::File,
        ModeArg::Rpc => Presenter::Rpc,
        ModeArg::Embedded => Presenter::Embedded,
        ModeArg::Web => Presenter::Web,
        ModeArg::Auto if terminal_available() => Presenter::Tui,
        ModeArg::Auto => Presenter::File,
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
    if let Some(reply) = &args.reply
        && !args.input.as_deref().is_some_and(|i| i.starts_with('@'))
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
    let presenter = resolve_presenter(args.mode(), args.via.is_some());
    if input == "-" && matches!(presenter, Presenter::Rpc | Presenter::Embedded) {
        let (mode, carries) = match presenter {
            Presenter::Rpc => ("--rpc", "the protocol"),
            _ => ("--mode embedded", "the host's messages"),
        };
        say(&format!(
            "in this mode stdin carries {carries}, so INPUT must be a file: ask-user {mode} call.json"
        ));
        return Exit::Invalid;
    }
    let limits = args.limits.limits();
    let options = args.dialect.read_options();
    let max_bytes = args.limits.max_input_bytes();
    let read = match read_call(std::path::Path::new(input), &limits, max_bytes, options) {
        Ok(read) => read,
        Err(failure) => return failure.report_for_ask(args.output),
    };
    let mut shape = Shape::of(args);
    shape.modes.clone_from(&read.modes);
    let call = AskCall {
        call_id: args.call_id.clone().or(read.call.call_id),
        caller,
        input: read.call.input,
        given: read.given,
    };
    if args.session.is_some() && call.call_id.is_none() {
        say(
            "--session needs a call id: pass --call-id ID, or give INPUT as a tool-call envelope with an id",
        );
        return Exit::Invalid;
    }
    let runtime = match runtime() {
        Ok(runtime) => runtime,
        Err(exit) => return exit,
    };
    let frontend = match runtime.block_on(async { frontend_for(presenter, args, &call) }) {
        Ok(frontend) => frontend,
        Err(exit) => return exit,
    };
    let asked = runtime.block_on(async {
        let asked = ask_path(args, Ask::new(call)).run(frontend.as_ref()).await;
        if let Some(rpc) = &frontend.rpc {
            // The state lines go out before the result line printed below.
            rpc.flush().await;
        }
        asked
    });
    // The RPC reader may still be blocked on stdin; it is not waited for.
    runtime.shutdown_background();
    match asked {
        Ok(finished) => deliver(finished, args, presenter, &shape, &read.warnings),
        Err(failure) => failed(failure, args.output),
    }
}

/// The options of the one ask path the flags give: the session log, the events file, and
/// stderr for what people should know.
pub fn ask_path<S>(args: &AskArgs, ask: Ask<S>) -> Ask<S> {
    ask.session(args.session.as_ref().map(SessionLog::new))
        .events(args.events.clone())
        .warn(Arc::new(say))
}

/// Prints a finished call for `presenter` and gives its exit code; a record that could not be
/// saved is still printed, so the answers reach the agent, and the exit code says so.
pub fn deliver(
    finished: Finished,
    args: &AskArgs,
    presenter: Presenter,
    shape: &Shape,
    warnings: &[ask_schema::Warning],
) -> Exit {
    let exit = match presenter {
        Presenter::Rpc | Presenter::Embedded => {
            let warnings = if finished.replayed { &[][..] } else { warnings };
            crate::rpc::print_result(finished.record.clone(), args.output, warnings)
        }
        _ => print_record(finished.record.clone(), shape),
    };
    if finished.saved { exit } else { Exit::Failure }
}

/// Says why a call gave no record and gives the exit code; with `--output tool`, a host still
/// gets an explicit error to hand to its agent.
pub fn failed(failure: AskFailure, output: OutputArg) -> Exit {
    say(&failure.to_string());
    match failure {
        AskFailure::Refused(_) => print_error(ToolOutput::refused(), output, Exit::Refused),
        AskFailure::Present {
            error: PresentError::Interrupted { signal },
            ..
        } => {
            if signal.is_none() {
                say("nothing was answered or saved; the call is asked again next time");
            }
            // Ctrl+C twice ends as SIGINT (signal 2) does: 130, nothing saved.
            let exit = Exit::for_signal(signal.map_or(2, |s| s.number));
            print_error(
                ToolOutput::interrupted(signal.map(|s| s.name)),
                output,
                exit,
            )
        }
        AskFailure::Present {
            error: PresentError::Refused(_),
            ..
        }
        | AskFailure::NoCallId => Exit::Invalid,
        AskFailure::Present { .. }
        | AskFailure::Session { .. }
        | AskFailure::Events { .. }
        | AskFailure::State(_) => Exit::Failure,
    }
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

/// Runs `ask-user demo`: the example questions in the terminal UI.
pub fn demo(output: OutputArg, no_notify: bool, lang: Option<Lang>) -> Exit {
    let input = match ask_core::validate(ask_tui::demo_input(), &Limits::default()) {
        Ok(input) => input,
        Err(problems) => {
            problems.iter().for_each(|p| say(&p.to_string()));
            return Exit::Failure;
        }
    };
    if !terminal_available() {
        say("the demo needs a terminal, and /dev/tty cannot be opened");
        return Exit::Failure;
    }
    let tui = ask_tui::TuiFrontend::new()
        .with_notify(!no_notify)
        .with_lang(ui_lang(lang));
    let asked = runtime().map(|rt| rt.block_on(Ask::new(AskCall::new(input)).run(&tui)));
    match asked {
        Ok(Ok(finished)) => print_record(finished.record, &Shape::plain(output)),
        Ok(Err(failure)) => failed(failure, output),
        Err(exit) => exit,
    }
}

/// The language of the terminal UI: `--lang` when given, else the locale's (POSIX order:
/// LC_ALL, LC_MESSAGES, LANG), else English.
pub fn ui_lang(flag: Option<Lang>) -> Lang {
    flag.unwrap_or_else(|| Lang::from_locale(|name| std::env::var(name).ok()))
}

/// The frontend of one ask, and the RPC connection when it speaks the protocol on stdio.
pub struct Chosen {
    frontend: Box<dyn Frontend>,
    rpc: Option<ask_rpc::Connection>,
}

impl AsRef<dyn Frontend> for Chosen {
    fn as_ref(&self) -> &(dyn Frontend + 'static) {
        self.frontend.as_ref()
    }
}

/// The frontend of `presenter` for the call; must run inside the runtime (RPC and the web
/// page start tasks on it).
fn frontend_for(presenter: Presenter, args: &AskArgs, call: &AskCall) -> Result<Chosen, Exit> {
    let plain = |frontend: Box<dyn Frontend>| Chosen {
        frontend,
        rpc: None,
    };
    Ok(match presenter {
        Presenter::File => plain(Box::new(
            PrintFrontend::new(&args.pending_file)
                .with_call_id(call.call_id.clone())
                .with_host(args.host),
        )),
        Presenter::Tui => {
            let mut tui = ask_tui::TuiFrontend::new()
                .with_notify(!args.no_notify)
                .with_lang(ui_lang(args.lang));
            // ↑ in a text field recalls earlier answers to the same question from this
            // session's log only, never another's.
            if let Some(session) = &args.session {
                let log = SessionLog::new(session);
                tui = tui.with_history(Arc::new(move |question: &str| {
                    log.earlier_answers(question, ask_tui::HISTORY_MAX)
                }));
            }
            plain(Box::new(tui))
        }
        Presenter::Embedded => plain(Box::new(ask_rpc::embedded::EmbeddedFrontend::new(
            Box::new(|request| {
                Box::new(ask_tui::Embedded::new(request.input.input()).with_given(&request.given))
            }),
            tokio::io::BufReader::new(tokio::io::stdin()),
            tokio::io::stdout(),
        ))),
        Presenter::Rpc => {
            let connection = ask_rpc::Connection::new(tokio::io::stdin(), tokio::io::stdout());
            Chosen {
                frontend: Box::new(ask_rpc::RpcFrontend::new(connection.clone())),
                rpc: Some(connection),
            }
        }
        Presenter::Web | Presenter::Url => plain(crate::web::frontend(args)?),
        Presenter::Elicitation => {
            say("an MCP client's form is only reachable through `ask-user mcp`");
            return Err(Exit::Invalid);
        }
    })
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
            say(&ask_core::pending_instructions_for(
                shape.host, file, questions,
            ));
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
        OutputArg::Answers => crate::output::write_stdout(&record.answers_output()),
        OutputArg::Tool => emit(&ToolOutput::from_record_for(record, shape.host)),
    };
    finish(written, exit)
}

/// The exit code of a final status.
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

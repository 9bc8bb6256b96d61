//! The ask command: read the call, choose where the person answers, hand both to the one ask
//! path of `ask-session`, print the outcome and map it to an exit code.

use std::sync::Arc;

use ask_core::{AskCall, AskUserResult, Caller, Frontend, Limits, Presenter, ToolOutput};
use ask_print::PrintFrontend;
use ask_schema::OutputShape;
use ask_session::{Ask, AskFailure, Finished, InputOptions, ReadFailure, SessionLog};

use crate::cli::{AskArgs, ModeArg};
use crate::deliver::{
    Delivery, Unasked, ask_path, deliver, failed, print_record, print_unasked, runtime, shape_of,
};
use crate::exit::Exit;
use crate::input::{read_call, say_no_input, stdin_input};
use crate::output::{say, say_invalid};

/// Where the person answers, once `auto` is resolved: the terminal UI when a terminal can be
/// opened, else print mode, so that nothing ever waits for a person who cannot be reached.
pub(crate) fn resolve_presenter(mode: ModeArg, via: bool) -> Presenter {
    match mode {
        // `--via` replaces the local presenter (the terminal UI or print mode).
        ModeArg::Auto | ModeArg::Tui | ModeArg::Print if via => Presenter::Web,
        ModeArg::Tui => Presenter::Tui,
        ModeArg::Print => Presenter::File,
        ModeArg::Rpc => Presenter::Rpc,
        ModeArg::Embedded => Presenter::Embedded,
        ModeArg::Web => Presenter::Web,
        ModeArg::Auto if crate::tui::access().opens => Presenter::Tui,
        ModeArg::Auto => Presenter::File,
    }
}

/// Runs `ask-user [OPTIONS] [INPUT]`.
pub(crate) fn run(args: &AskArgs) -> Exit {
    // A sub-agent is refused before anything is read, shown or written, in every mode.
    let caller = Caller::of(args.sub_agent);
    let presenter = resolve_presenter(args.mode(), args.inbox.via.is_some());
    if let Err(refusal) = caller.check() {
        say(&refusal.to_string());
        let unasked = Unasked {
            result: AskUserResult::refused(),
            tool: ToolOutput::refused(),
            exit: Exit::Refused,
        };
        return print_unasked(unasked, presenter, args);
    }
    if let Some(how) = crate::print::pass_two_form(args) {
        return match how {
            Ok((how, path)) => crate::print::pass_two(args, how, &path),
            Err(exit) => exit,
        };
    }
    let Some(input) = args.input.as_deref().or_else(|| stdin_input()) else {
        say_no_input();
        return Exit::Invalid;
    };
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
    let options = InputOptions {
        limits: &limits,
        max_bytes: args.limits.max_input_bytes(),
        read: args.dialect.read_options(),
    };
    let read = match read_call(std::path::Path::new(input), &options) {
        Ok(read) => read,
        Err(failure) => return report_unreadable(failure, presenter, args),
    };
    let mut shape = shape_of(args);
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
    let asking = Asking {
        presenter,
        args,
        kept: true,
    };
    match ask_in(call, &asking) {
        Ok(Ok(finished)) => {
            let delivery = Delivery {
                args,
                presenter,
                shape: &shape,
                warnings: &read.warnings,
            };
            deliver(finished, &delivery)
        }
        Ok(Err(failure)) => failed(failure, args.output),
        Err(exit) => exit,
    }
}

/// Where a call is asked: through the frontend of `presenter`, made from the flags, and
/// whether the ask path keeps it in the session log and the events file the flags name (the
/// demo keeps nothing).
struct Asking<'a> {
    presenter: Presenter,
    args: &'a AskArgs,
    kept: bool,
}

/// Asks `call` as `asking` says, on the current-thread runtime of one ask.
fn ask_in(call: AskCall, asking: &Asking<'_>) -> Result<Result<Finished, AskFailure>, Exit> {
    let &Asking {
        presenter,
        args,
        kept,
    } = asking;
    let runtime = runtime(false)?;
    // The frontends that open sockets or spawn tasks do it on this runtime.
    let frontend = {
        let _entered = runtime.enter();
        frontend_for(presenter, args, &call)?
    };
    let ask = Ask::new(call);
    let ask = if kept { ask_path(args, ask) } else { ask };
    let asked = runtime.block_on(ask.run(frontend.as_ref()));
    // The RPC reader may still be blocked on stdin; it is not waited for.
    runtime.shutdown_background();
    Ok(asked)
}

/// Runs `ask-user demo`: the example questions (or, with `showcase`, one of every field) in the
/// terminal UI, or on the web page with `--mode web` or `--via`.
pub(crate) fn demo(args: &AskArgs, showcase: bool) -> Exit {
    let example = if showcase {
        ask_tui::showcase_input()
    } else {
        ask_tui::demo_input()
    };
    let input = match ask_core::validate(example, &Limits::default()) {
        Ok(input) => input,
        Err(problems) => {
            problems.iter().for_each(|p| say(&p.to_string()));
            return Exit::Failure;
        }
    };
    let presenter = match resolve_presenter(args.mode, args.inbox.via.is_some()) {
        Presenter::Web => Presenter::Web,
        _ if !matches!(args.mode, ModeArg::Auto | ModeArg::Tui) => {
            say(
                "the demo asks in the terminal UI (--mode tui) or on a web page (--mode web, --via)",
            );
            return Exit::Invalid;
        }
        _ if !crate::tui::access().opens => {
            say(
                "the demo needs a terminal, and /dev/tty cannot be opened; try the web page: \
                 ask-user --mode web demo",
            );
            return Exit::Failure;
        }
        _ => Presenter::Tui,
    };
    let asking = Asking {
        presenter,
        args,
        kept: false,
    };
    match ask_in(AskCall::new(input), &asking) {
        Ok(Ok(finished)) => print_record(finished.record, &OutputShape::plain(args.output.form())),
        Ok(Err(failure)) => failed(failure, args.output),
        Err(exit) => exit,
    }
}

/// The frontend of `presenter` for the call; RPC and the web page must be made inside the
/// runtime (they start tasks on it), and the terminal UI runs on its blocking pool.
fn frontend_for(
    presenter: Presenter,
    args: &AskArgs,
    call: &AskCall,
) -> Result<Box<dyn Frontend>, Exit> {
    Ok(match presenter {
        Presenter::File => Box::new(
            PrintFrontend::new(&args.pending_file)
                .with_call_id(call.call_id.clone())
                .with_host(args.host)
                .with_names(crate::print::names("ask_user")),
        ),
        Presenter::Tui => {
            let mut tui = ask_tui::TuiFrontend::new()
                .with_notify(!args.tui.no_notify)
                .with_lang(crate::tui::chosen_lang(args.tui.lang));
            // ↑ in a text field recalls earlier answers to the same question from this
            // session's log only, never another's.
            if let Some(session) = &args.session {
                let log = SessionLog::new(session);
                tui = tui.with_history(Arc::new(move |question: &str| {
                    log.earlier_answers(question, ask_tui::HISTORY_MAX)
                }));
            }
            Box::new(tui)
        }
        Presenter::Embedded => Box::new(ask_rpc::embedded::EmbeddedFrontend::new(
            Box::new(|request| {
                Box::new(ask_tui::Embedded::new(request.input.input()).with_given(&request.given))
            }),
            tokio::io::BufReader::new(tokio::io::stdin()),
            crate::output::protocol_stdout(),
        )),
        Presenter::Rpc => Box::new(ask_rpc::RpcFrontend::new(ask_rpc::Connection::new(
            tokio::io::stdin(),
            crate::output::protocol_stdout(),
        ))),
        Presenter::Web | Presenter::Url => crate::web::frontend(args)?,
        Presenter::Elicitation => {
            say("an MCP client's form is only reachable through `ask-user mcp`");
            return Err(Exit::Invalid);
        }
    })
}

/// Reports a call that could not be read: in RPC and embedded mode, the protocol's result line
/// says it is invalid.
fn report_unreadable(failure: ReadFailure, presenter: Presenter, args: &AskArgs) -> Exit {
    match failure {
        ReadFailure::Invalid(problems) => {
            say_invalid(&problems);
            let unasked = Unasked {
                result: AskUserResult::invalid(&problems),
                tool: ToolOutput::invalid(&problems),
                exit: Exit::Invalid,
            };
            print_unasked(unasked, presenter, args)
        }
        other => crate::input::report(other),
    }
}

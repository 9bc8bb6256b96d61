//! Print mode's second pass and the `questions` command: glue between the flags and `ask-print`.

use std::path::{Path, PathBuf};

use ask_print::{PassTwo, PassTwoStep, PrintError, notes};

use ask_core::{Caller, Presenter};
use ask_session::{Ask, Replay, SessionLog, replay_of};

use crate::cli::{AskArgs, QuestionsAction, QuestionsArgs};
use crate::deliver::{Delivery, ask_path, deliver, emit_record, failed, print_record, shape_of};
use crate::exit::Exit;
use crate::output::{finish, say, write_stdout};

/// The pass-2 form the flags ask for, if any (`-c`, `--answers`, or INPUT `@PENDING` and a
/// reply), and its pending file (`@PATH` when given, else `--pending-file`). `@PENDING`
/// without a reply, or a reply after another INPUT, is a usage error, said with an example.
pub(crate) fn pass_two_form(args: &AskArgs) -> Option<Result<(PassTwo, PathBuf), Exit>> {
    let usage = |message: String| {
        say(&message);
        Some(Err(Exit::Invalid))
    };
    let at = args
        .input
        .as_deref()
        .and_then(|input| input.strip_prefix('@'));
    if let (Some(reply), None) = (&args.reply, at) {
        return usage(format!(
            "unexpected argument `{reply}` after INPUT; only a reply to pending questions \
             takes a second argument: ask-user -p @PENDING \"your answers\""
        ));
    }
    let path = match at {
        Some(path) if !path.is_empty() => PathBuf::from(path),
        _ => args.pending_file.clone(),
    };
    let how = if args.continue_ {
        PassTwo::Edited
    } else if let Some(answers) = &args.answers {
        PassTwo::Inline(answers.clone())
    } else {
        let at = at?;
        match &args.reply {
            Some(reply) => PassTwo::Reply(reply.clone()),
            None => {
                return usage(format!(
                    "@{at} needs the reply after it, e.g. ask-user -p @{} \"use postgres, \
                     call it order-processor\"",
                    ask_core::shell_quote(at)
                ));
            }
        }
    };
    Some(Ok((how, path)))
}

/// How the words of print mode name ask-user and the tool `tool`: ask-user by the absolute path
/// of this binary, so that a command it gives runs in a shell whose `PATH` has no `ask-user` (a
/// host started through `npx`, OpenCode's `!` in a login shell); by its name when the path is
/// unknown.
pub(crate) fn names(tool: &str) -> ask_print::Names {
    match std::env::current_exe() {
        Ok(path) => ask_print::Names::new(&path.to_string_lossy(), tool),
        Err(_) => ask_print::Names::new("ask-user", tool),
    }
}

/// Runs pass 2 and prints the outcome.
pub(crate) fn pass_two(args: &AskArgs, how: PassTwo, path: &Path) -> Exit {
    let inline = matches!(how, PassTwo::Inline(_));
    let reply = matches!(how, PassTwo::Reply(_));
    let commands = ask_print::Commands {
        host: args.host,
        names: names("ask_user"),
    };
    match ask_print::answer(path, how, &commands) {
        // The answers are safe in the file (its `answered` state): record them, print them, and
        // only then remove the file. A crash on the way leaves them there for the next pass 2.
        Ok(PassTwoStep::Answered(answering)) => {
            let mut record = answering.record().clone();
            if answering.resumed() {
                say(&format!(
                    "delivering the answers already taken in {} by an earlier run that did not finish",
                    path.display()
                ));
            }
            if args.call_id.is_some() {
                record.call_id.clone_from(&args.call_id);
            }
            if !reply && !answering.resumed() {
                notes::custom_answers(&record).iter().for_each(|n| say(n));
            }
            let ask = ask_path(args, Ask::known(record, Caller::Parent));
            let recorded = match crate::deliver::runtime(false) {
                Ok(runtime) => runtime.block_on(ask.record()),
                Err(exit) => return exit,
            };
            let exit = match recorded {
                Ok(finished) => {
                    let delivery = Delivery {
                        args,
                        presenter: Presenter::File,
                        shape: &shape_of(args),
                        warnings: &[],
                    };
                    deliver(finished, &delivery)
                }
                Err(failure) => failed(failure, args.output),
            };
            if exit != Exit::Ok {
                say(&notes::undelivered(path, answering.kept()));
                return exit;
            }
            let tool = answering.awaited_tool();
            if answering.replaced_awaiting() {
                say(&notes::replaced_awaiting(path, tool));
            } else if answering.awaits_call() {
                say(&notes::awaiting_call(path, tool));
            }
            match answering.mark_delivered() {
                Ok(_) => exit,
                Err(error) => report(&error),
            }
        }
        Ok(PassTwoStep::Incomplete { record, unanswered }) => {
            let run = notes::Run {
                inline,
                host: &commands,
            };
            for note in notes::incomplete(&record, &unanswered, run) {
                say(&note);
            }
            // Not the instructions of pass 1: the questions were not saved again.
            emit_record(*record, &shape_of(args))
        }
        Err(error) => {
            if matches!(error, PrintError::NoPending { .. })
                && let Some(exit) = replay_finished(args)
            {
                return exit;
            }
            report(&error)
        }
    }
}

/// A pass 2 that finds no pending file, with `--session` and `--call-id`: the call may have been
/// answered by a run that was ended after recording it; its record is printed again.
fn replay_finished(args: &AskArgs) -> Option<Exit> {
    let log = SessionLog::new(args.session.as_ref()?);
    let replay = Replay {
        call_id: args.call_id.as_deref()?,
        asks_secret: false,
        instead: "not replayed",
    };
    let record = replay_of(&log, replay, &say).ok()??;
    Some(print_record(record, &shape_of(args)))
}

fn report(error: &PrintError) -> Exit {
    say(&error.to_string());
    if error.is_usage() {
        Exit::Invalid
    } else {
        Exit::Failure
    }
}

/// `ask-user questions [show|clear|state]`.
pub(crate) fn questions(args: &QuestionsArgs) -> Exit {
    let path = &args.pending_file;
    let text = match args.action.unwrap_or(QuestionsAction::Show) {
        QuestionsAction::Clear => ask_print::clear_and_say(path).map(|message| {
            say(&message);
            None
        }),
        QuestionsAction::State => {
            ask_print::state(path).map(|state| serde_json::to_string(&state).ok())
        }
        QuestionsAction::Show => {
            ask_print::show_text(path, args.json, &names("ask_user")).map(Some)
        }
    };
    match text {
        Ok(Some(text)) => finish(write_stdout(&text), Exit::Ok),
        Ok(None) => Exit::Ok,
        Err(error) => report(&error),
    }
}

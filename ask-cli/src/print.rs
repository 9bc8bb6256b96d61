//! Print mode's second pass and the `questions` command: glue between the flags and `ask-print`.

use std::path::PathBuf;

use ask_core::{sanitize_for_display, shell_quote};
use ask_print::{PassTwo, PassTwoStep, PrintError};

use ask_core::{Caller, Presenter};
use ask_session::Ask;

use crate::cli::{AskArgs, QuestionsAction, QuestionsArgs};
use crate::deliver::{Shape, ask_path, deliver, emit_record, failed, print_record};
use crate::exit::Exit;
use crate::output::{emit, emit_pretty, finish, say, write_stdout};

/// The pass-2 form the flags ask for, if any: `-c`, `--answers`, or `@PENDING TEXT`.
pub fn pass_two_form(args: &AskArgs) -> Option<Result<PassTwo, Exit>> {
    if args.continue_ {
        return Some(Ok(PassTwo::Edited));
    }
    if let Some(answers) = &args.answers {
        return Some(Ok(PassTwo::Inline(answers.clone())));
    }
    let input = args.input.as_deref()?;
    let path = input.strip_prefix('@')?;
    Some(match &args.reply {
        Some(reply) => Ok(PassTwo::Reply(reply.clone())),
        None => {
            say(&format!(
                "{input} needs the reply after it, e.g. ask-user -p @{} \"use postgres, call it order-processor\"",
                shell_quote(path)
            ));
            Err(Exit::Invalid)
        }
    })
}

/// The pending file of a pass-2 command: `@PATH` when given, else `--pending-file`.
fn pending_path(args: &AskArgs) -> PathBuf {
    match args
        .input
        .as_deref()
        .and_then(|input| input.strip_prefix('@'))
    {
        Some(path) if !path.is_empty() => PathBuf::from(path),
        _ => args.pending_file.clone(),
    }
}

/// Runs pass 2 and prints the outcome.
pub fn pass_two(args: &AskArgs, how: PassTwo) -> Exit {
    let path = pending_path(args);
    let inline = matches!(how, PassTwo::Inline(_));
    let reply = matches!(how, PassTwo::Reply(_));
    match ask_print::answer(&path, how, args.host) {
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
                say_custom_answers(&record);
            }
            let exit = match crate::deliver::runtime() {
                Ok(runtime) => {
                    let ask = ask_path(args, Ask::settled(record, Caller::Parent));
                    match runtime.block_on(ask.finish()) {
                        Ok(finished) => {
                            deliver(finished, args, Presenter::File, &Shape::of(args), &[])
                        }
                        Err(failure) => failed(failure, args.output),
                    }
                }
                Err(exit) => exit,
            };
            if exit != Exit::Ok {
                if answering.kept() {
                    say(&format!(
                        "the answers stay in {}: run the command again to deliver them",
                        path.display()
                    ));
                } else {
                    say(&format!(
                        "the answers could not be written into {} either; it still holds the \
                         questions",
                        path.display()
                    ));
                }
                return exit;
            }
            match answering.finish() {
                Ok(_) => exit,
                Err(error) => report(&error),
            }
        }
        Ok(PassTwoStep::Incomplete { record, unanswered }) => {
            say(&format!(
                "{} of {} questions still {} no answer:",
                unanswered.len(),
                record.questions.len(),
                if unanswered.len() == 1 { "has" } else { "have" }
            ));
            for (index, question) in &unanswered {
                say(&format!(
                    "  {}. {}",
                    index + 1,
                    sanitize_for_display(question)
                ));
            }
            let file = record.pending_file.clone().unwrap_or_default();
            let edited = args.host.edited_command(&file);
            if inline {
                say(&format!(
                    "nothing was recorded and {file} is as it was: give every answer in --answers \
                     (null takes the answer written in the file), or write them into the file \
                     and run {edited}"
                ));
            } else {
                say(&format!(
                    "nothing was recorded and {file} is as it was: write the missing answers into \
                     it and run {edited} again"
                ));
            }
            // Not the instructions of pass 1: the questions were not saved again.
            emit_record(*record, &Shape::of(args))
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
    let session = args.session.as_ref()?;
    let call_id = args.call_id.as_deref()?;
    let (found, warnings) = ask_session::SessionLog::new(session).find(call_id).ok()?;
    warnings.iter().for_each(|w| say(w));
    let record = found?;
    say(&format!(
        "no questions are pending; replaying the answer recorded for call {call_id} in {}",
        session.display()
    ));
    Some(print_record(record, &Shape::of(args)))
}

/// Names the answers that matched no option and were taken as the person's own text, so that a
/// typo in a label is seen rather than silently sent as a custom answer.
fn say_custom_answers(record: &ask_core::Record) {
    for (index, (question, answer)) in record.questions.iter().zip(&record.answers).enumerate() {
        if !answer.was_custom || question.is_free_text() {
            continue;
        }
        // A multi-select answer lists its typed text last.
        let typed = match &answer.answer {
            ask_core::AnswerValue::Text(text) => text.as_str(),
            ask_core::AnswerValue::Choices(choices) => choices.last().map_or("", String::as_str),
        };
        say(&format!(
            "question {} (\"{}\"): \"{}\" matches no option, so it was taken as your own answer",
            index + 1,
            sanitize_for_display(&question.question),
            sanitize_for_display(typed)
        ));
    }
}

fn report(error: &PrintError) -> Exit {
    for line in error.to_string().lines() {
        say(line);
    }
    if error.is_usage() {
        Exit::Invalid
    } else {
        Exit::Failure
    }
}

/// `ask-user questions [show|clear]`.
pub fn questions(args: &QuestionsArgs) -> Exit {
    let path = &args.pending_file;
    match args.action.unwrap_or(QuestionsAction::Show) {
        QuestionsAction::Clear => match ask_print::clear(path) {
            Ok(true) => {
                say(&format!(
                    "cleared the pending questions in {}",
                    path.display()
                ));
                Exit::Ok
            }
            Ok(false) => {
                say("no questions were pending");
                Exit::Ok
            }
            Err(error) => report(&error),
        },
        QuestionsAction::State => match ask_print::state(path) {
            Ok(state) => finish(emit(&state), Exit::Ok),
            Err(error) => report(&error),
        },
        QuestionsAction::Show => match ask_print::show(path) {
            Ok(None) if args.json => finish(write_stdout("null"), Exit::Ok),
            Ok(None) => finish(write_stdout("No questions are pending."), Exit::Ok),
            Ok(Some(file)) if args.json => finish(emit_pretty(&file), Exit::Ok),
            Ok(Some(file)) => finish(write_stdout(&ask_print::render(&file, path)), Exit::Ok),
            Err(error) => report(&error),
        },
    }
}

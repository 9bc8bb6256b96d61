//! `ask-user`: the binary. It parses flags, picks the layers, and maps outcomes to exit codes;
//! the behaviour lives in the library crates.

mod ask;
mod cli;
mod exit;
mod mcp;
mod output;
mod print;
mod rpc;
mod web;

use std::io::Read;
use std::path::Path;
use std::process::ExitCode;

use ask_core::{Limits, Problems};
use ask_schema::{DialectCall, ReadOptions, ToolFormat};
use serde_json::json;

use crate::cli::{Cli, Command, SchemaFormat};
use crate::exit::Exit;
use crate::output::{emit, emit_pretty, say};

fn main() -> ExitCode {
    let cli = match parse() {
        Ok(cli) => cli,
        // Help and version go to stdout as clap writes them.
        Err(error) if !error.use_stderr() => error.exit(),
        // A usage error quotes the arguments, which may hold the model's text: sanitised like
        // every other message on stderr.
        Err(error) => {
            output::say_unprefixed(&error.render().to_string());
            return ExitCode::from(u8::try_from(error.exit_code()).unwrap_or(2));
        }
    };
    let exit = match cli.command {
        None => ask::run(&cli.ask),
        Some(Command::Demo(args)) => ask::demo(
            args.output.unwrap_or(cli.ask.output),
            args.no_notify || cli.ask.no_notify,
            args.lang.or(cli.ask.lang),
        ),
        Some(Command::Schema(args)) => schema(args.format, &args.limits.limits()),
        Some(Command::Validate(args)) => {
            match args.input.as_deref().or(stdin_input().map(Path::new)) {
                Some(input) => validate(
                    input,
                    &args.limits.limits(),
                    args.limits.max_input_bytes(),
                    args.dialect.read_options(),
                ),
                None => {
                    say_no_input();
                    Exit::Invalid
                }
            }
        }
        Some(Command::Mcp(args)) => mcp::run(&args),
        Some(Command::Serve(args)) => web::serve(&args),
        Some(Command::Questions(args)) => print::questions(&args),
        Some(Command::Session(command)) => match command {
            cli::SessionCommand::Show { file } => history(&file, History::Show),
            cli::SessionCommand::Summary { file } => history(&file, History::Summary),
            cli::SessionCommand::Get {
                file,
                call_id,
                output,
            } => session_get(&file, &call_id, output),
        },
    };
    exit.into()
}

/// Parses the command line. The ask command's flags and INPUT come before any subcommand in
/// clap's grammar; only `demo` takes some of them (`ask-user --no-notify demo`), and any other
/// use of them with a subcommand is refused rather than ignored.
fn parse() -> Result<Cli, clap::Error> {
    use clap::{CommandFactory, FromArgMatches};
    let mut command = Cli::command();
    let matches = command.try_get_matches_from_mut(std::env::args_os())?;
    if let Some((name, _)) = matches.subcommand() {
        let demo = name == "demo";
        // A flag the subcommand defines as well (`questions --pending-file`, a global flag of
        // `questions`) is the subcommand's: clap shows a global flag's value at every level.
        let own: Vec<clap::Id> = command
            .find_subcommand(name)
            .map(|sub| sub.get_arguments().map(|a| a.get_id().clone()).collect())
            .unwrap_or_default();
        // Only the ask command's own arguments: a subcommand's global flags show up here too.
        let misplaced = command.get_arguments().map(clap::Arg::get_id).find(|id| {
            !own.contains(id)
                && matches.try_get_raw(id.as_str()).is_ok()
                && matches.value_source(id.as_str()) == Some(clap::parser::ValueSource::CommandLine)
                && !(demo && cli::DEMO_FLAGS.contains(&id.as_str()))
        });
        if let Some(id) = misplaced {
            let shown = match id.as_str() {
                "input" | "reply" => "an INPUT".to_string(),
                other => format!("--{}", other.replace('_', "-")),
            };
            return Err(command.error(
                clap::error::ErrorKind::ArgumentConflict,
                format!("`ask-user {name}` does not take {shown}; see `ask-user {name} --help`"),
            ));
        }
    }
    Cli::from_arg_matches(&matches).map_err(|error| error.format(&mut command))
}

fn schema(format: SchemaFormat, limits: &Limits) -> Exit {
    use ask_schema::Dialect;
    let dialect = |dialect| ask_schema::dialect_descriptor(dialect, limits);
    let tool = |format| ask_schema::tool_descriptor(format, limits);
    let descriptor = match format {
        SchemaFormat::JsonSchema => tool(ToolFormat::JsonSchema),
        SchemaFormat::Anthropic => tool(ToolFormat::Anthropic),
        SchemaFormat::Openai => tool(ToolFormat::OpenAi),
        SchemaFormat::Mcp => tool(ToolFormat::Mcp),
        SchemaFormat::Result => tool(ToolFormat::Result),
        SchemaFormat::Claude => dialect(Dialect::Claude),
        SchemaFormat::Codex => dialect(Dialect::Codex),
        SchemaFormat::Opencode => dialect(Dialect::OpenCode),
        SchemaFormat::Gemini => dialect(Dialect::Gemini),
        SchemaFormat::Roo => dialect(Dialect::Roo),
        SchemaFormat::Cline => dialect(Dialect::Cline),
        SchemaFormat::Simple => dialect(Dialect::Simple),
    };
    finish(emit_pretty(&descriptor), Exit::Ok)
}

fn validate(input: &Path, limits: &Limits, max_bytes: u64, options: ReadOptions) -> Exit {
    match read_call(input, limits, max_bytes, options) {
        Ok(read) => {
            let call = read.call;
            let mut report = json!({
                "valid": true,
                "questions": call.input.questions.len(),
                "dialect": read.dialect.name(),
            });
            if let Some(id) = call.call_id {
                report["callId"] = id.into();
            }
            if !read.warnings.is_empty() {
                report["warnings"] = warnings_json(&read.warnings);
            }
            finish(emit(&report), Exit::Ok)
        }
        Err(failure) => failure.report(),
    }
}

/// `ask-user session get FILE CALL_ID`: the record of one call in an output shape, or `null`.
fn session_get(file: &Path, call_id: &str, output: cli::OutputArg) -> Exit {
    match ask_session::SessionLog::new(file).find(call_id) {
        Ok((found, warnings)) => {
            warnings.iter().for_each(|w| say(w));
            match found {
                // Exit 0 whatever the record's status: the query succeeded.
                Some(record) => match ask::emit_record(record, &ask::Shape::plain(output)) {
                    Exit::Failure => Exit::Failure,
                    _ => Exit::Ok,
                },
                None => finish(output::write_stdout("null"), Exit::Ok),
            }
        }
        Err(error) => {
            say(&format!(
                "cannot read the session log `{}`: {error}",
                file.display()
            ));
            Exit::Failure
        }
    }
}

/// How `history` shows a session log.
#[derive(Debug, Clone, Copy)]
enum History {
    /// `session show`: the records for people.
    Show,
    /// `session summary`: one sentence per answer.
    Summary,
}

/// `ask-user session show|summary FILE`.
fn history(file: &Path, how: History) -> Exit {
    let history = match ask_session::SessionLog::new(file).read() {
        Ok(history) => history,
        Err(error) => {
            say(&format!(
                "cannot read the session log `{}`: {error}",
                file.display()
            ));
            return Exit::Failure;
        }
    };
    history.warnings.iter().for_each(|w| say(w));
    let text = match how {
        History::Show => render_history(&history.records),
        // One sentence a line, sanitised like everything else for people: the sentences quote
        // the model's questions and the person's answers, which may hold escape sequences.
        History::Summary => history
            .records
            .iter()
            .flat_map(|r| r.summary())
            .map(|sentence| ask_core::sanitize_for_display(&sentence).into_owned())
            .collect::<Vec<_>>()
            .join("\n"),
    };
    finish(output::write_stdout(&text), Exit::Ok)
}

/// The records of a session for people; agent text is sanitised, as this goes to a terminal.
fn render_history(records: &[ask_core::Record]) -> String {
    use ask_core::sanitize_for_display as clean;
    if records.is_empty() {
        return "The session log holds no calls.".to_string();
    }
    let mut out = String::new();
    for record in records {
        if !out.is_empty() {
            out.push('\n');
        }
        let id = record.call_id.as_deref().map(clean).unwrap_or_default();
        let status = serde_json::to_value(record.status).unwrap_or_default();
        out.push_str(&format!(
            "{id} · {} · {} · {}\n",
            ask_core::rfc3339(record.answered_at),
            record.mode.as_str(),
            status.as_str().unwrap_or_default()
        ));
        if let Some(reply) = &record.reply {
            out.push_str(&format!("  reply to every question: {}\n", clean(reply)));
        }
        for (i, question) in record.questions.iter().enumerate() {
            let answer = record.answers.get(i).map_or_else(
                || "(no answer)".to_string(),
                |a| {
                    let typed = if a.was_custom { " (typed)" } else { "" };
                    format!("{}{typed}", clean(&a.answer.joined()))
                },
            );
            out.push_str(&format!("  {} → {answer}\n", clean(&question.question)));
        }
    }
    out.trim_end().to_string()
}

/// Why a call could not be read.
#[derive(Debug)]
pub(crate) enum ReadFailure {
    /// The file or stdin could not be read.
    Io { what: String, error: std::io::Error },
    /// The file or stdin holds more than the cap.
    TooLarge { what: String, max: u64 },
    /// The call is not valid.
    Invalid(Problems),
}

impl ReadFailure {
    /// Reports the failure (stdout: the problems as JSON; stderr: sentences) and gives the exit.
    fn report(self) -> Exit {
        match self {
            ReadFailure::Io { what, error } => {
                say(&format!("cannot read {what}: {error}"));
                Exit::Invalid
            }
            ReadFailure::TooLarge { what, max } => {
                say(&format!(
                    "{what} is longer than {max} bytes, the most one input may hold; nothing was \
                     asked (raise the cap with --max-input-bytes BYTES)"
                ));
                Exit::Invalid
            }
            ReadFailure::Invalid(problems) => {
                let list: Vec<_> = problems
                    .iter()
                    // The path names the model's own keys: sanitised like the message, as
                    // people read this report too.
                    .map(|p| {
                        let path = ask_core::sanitize_for_display(&p.path);
                        json!({"path": path, "message": p.kind.to_string()})
                    })
                    .collect();
                say_invalid(&problems);
                finish(
                    emit(&json!({"valid": false, "problems": list})),
                    Exit::Invalid,
                )
            }
        }
    }
}

/// The INPUT to take when none is given: `-` (stdin) when stdin is a pipe, a socket or a file, so
/// that `cat call.json | ask-user` works; none when it is a terminal (nobody would type a call
/// there) or anything else, such as `/dev/null`.
pub(crate) fn stdin_input() -> Option<&'static str> {
    use std::os::fd::AsFd;
    use std::os::unix::fs::FileTypeExt;
    let fd = std::io::stdin().as_fd().try_clone_to_owned().ok()?;
    let kind = std::fs::File::from(fd).metadata().ok()?.file_type();
    (kind.is_fifo() || kind.is_socket() || kind.is_file()).then_some("-")
}

/// Says that no INPUT was given and stdin holds none.
pub(crate) fn say_no_input() {
    say(
        "no INPUT given, and stdin is not a pipe or a file; pass a file with the ask_user call \
         (ask-user call.json), or pipe it in (ask-user < call.json)",
    );
    say("try `ask-user demo` to see the questions UI, or `ask-user --help`");
}

/// Says on stderr that a call is invalid and lists its problems, in the same words in every
/// command (`validate`, the ask command, `mcp`).
pub(crate) fn say_invalid(problems: &Problems) {
    say(&problems.heading());
    for problem in problems {
        say(&format!("  {problem}"));
    }
}

/// The lenient forms of a call as JSON, `[{path, message}]`, for the validate report and the RPC
/// result.
pub(crate) fn warnings_json(warnings: &[ask_schema::Warning]) -> serde_json::Value {
    warnings
        .iter()
        .map(|w| json!({"path": ask_core::sanitize_for_display(&w.path), "message": w.message}))
        .collect()
}

/// Reads and validates the call in `input` (a path, or `-` for stdin) in the dialect `options`
/// name or show, refusing more than `max_bytes` as soon as the cap is passed. Each lenient form
/// read is said on stderr.
pub(crate) fn read_call(
    input: &Path,
    limits: &Limits,
    max_bytes: u64,
    options: ReadOptions,
) -> Result<DialectCall, ReadFailure> {
    let (what, reader): (String, Box<dyn Read>) = if input == Path::new("-") {
        ("stdin".into(), Box::new(std::io::stdin().lock()))
    } else {
        let what = format!("`{}`", input.display());
        match std::fs::File::open(input) {
            Ok(file) => (what, Box::new(file)),
            Err(error) => return Err(ReadFailure::Io { what, error }),
        }
    };
    let bytes = read_capped(reader, max_bytes).map_err(|error| match error {
        Capped::TooLarge => ReadFailure::TooLarge {
            what: what.clone(),
            max: max_bytes,
        },
        Capped::Io(error) => ReadFailure::Io {
            what: what.clone(),
            error,
        },
    })?;
    let text = std::str::from_utf8(&bytes).map_err(|error| {
        let valid = &bytes[..error.valid_up_to()];
        let line = valid.iter().filter(|b| **b == b'\n').count() + 1;
        let column = valid.iter().rev().take_while(|b| **b != b'\n').count() + 1;
        let kind = ask_core::ProblemKind::InvalidJson {
            line,
            column,
            reason: "the text is not valid UTF-8".to_string(),
        };
        ReadFailure::Invalid(ask_core::Problem::new("", kind).into())
    })?;
    // A byte-order mark, as some editors save one, is not part of the JSON.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let read = ask_schema::read_call(text, options, limits).map_err(ReadFailure::Invalid)?;
    for warning in &read.warnings {
        say(&format!("warning: {warning}"));
    }
    Ok(read)
}

/// Why [`read_capped`] failed.
enum Capped {
    TooLarge,
    Io(std::io::Error),
}

/// Reads all of `reader`, but never more than `max` bytes: one byte past the cap ends the read.
fn read_capped(reader: impl Read, max: u64) -> Result<Vec<u8>, Capped> {
    let mut bytes = Vec::new();
    reader
        .take(max.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(Capped::Io)?;
    if bytes.len() as u64 > max {
        return Err(Capped::TooLarge);
    }
    Ok(bytes)
}

/// The exit for a finished command whose stdout write may have failed.
pub(crate) fn finish(written: std::io::Result<()>, exit: Exit) -> Exit {
    match written {
        Ok(()) => exit,
        Err(error) => {
            say(&format!("cannot write the result: {error}"));
            Exit::Failure
        }
    }
}

impl ReadFailure {
    /// Reports a call that could not be read, for the ask command.
    fn report_for_ask(self, format: cli::OutputArg) -> Exit {
        match self {
            ReadFailure::Invalid(problems) => {
                say_invalid(&problems);
                let output = ask_core::ToolOutput::invalid(&problems);
                ask::print_error(output, format, Exit::Invalid)
            }
            io => io.report(),
        }
    }
}

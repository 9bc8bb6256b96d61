//! `ask-user`: the binary. It parses flags, picks the layers, and maps outcomes to exit codes;
//! the behaviour lives in the library crates.
// The binary is where the process's environment, arguments, output streams and exit live.
// The binary prints to stderr. Its process glue (environment, arguments, programs, exit) is
// allowed function by function, so that the rule on files holds here as in the libraries.
#![allow(clippy::print_stderr)]

mod ask;
mod browser;
mod cli;
mod commands;
mod deliver;
mod exit;
mod input;
mod mcp;
mod output;
mod print;
mod tui;
mod web;
mod web_run;

use crate::cli::{Cli, Command};

/// The standard library's start-up has already opened each closed standard stream on
/// `/dev/null` and set SIGPIPE to be ignored, so a write to a reader that went away fails with
/// EPIPE, which each command reports, instead of killing the process.
fn main() -> std::process::ExitCode {
    run().into()
}

/// Runs the command line; the exit code.
fn run() -> u8 {
    if let Err(message) = trust_owners() {
        output::say(&message);
        return 2;
    }
    let cli = match parse() {
        Ok(cli) => cli,
        // Help and version go to stdout as clap writes them.
        Err(error) if !error.use_stderr() => error.exit(),
        // A usage error quotes the arguments, which may hold the model's text: sanitised like
        // every other message on stderr.
        Err(error) => {
            output::say_unprefixed(&error.render().to_string());
            return u8::try_from(error.exit_code()).unwrap_or(2);
        }
    };
    let exit = match cli.command {
        None => ask::run(&cli.ask),
        Some(Command::Demo(demo)) => {
            let mut args = cli.ask;
            args.output = demo.output.unwrap_or(args.output);
            args.tui.no_notify |= demo.tui.no_notify;
            args.tui.lang = demo.tui.lang.or(args.tui.lang);
            ask::demo(&args, demo.showcase)
        }
        Some(Command::Schema(args)) => commands::schema(&args.format, &args.limits.limits()),
        Some(Command::Validate(args)) => commands::validate(&args),
        Some(Command::Mcp(args)) => mcp::run(&args),
        Some(Command::Serve(args)) => web::serve(&args),
        Some(Command::Questions(args)) => print::questions(&args),
        Some(Command::Session(command)) => match command {
            cli::SessionCommand::Show { file } => commands::history(&file, false),
            cli::SessionCommand::Summary { file } => commands::history(&file, true),
            cli::SessionCommand::Get {
                file,
                call_id,
                output,
            } => commands::session_get(&file, &call_id, output),
        },
    };
    exit.code()
}

/// Hands ask-fs the owners `ASK_USER_TRUST_OWNERS` trusts besides the user and root (a
/// comma-separated list of numeric uids), read once here; anything else in it is a usage error
/// naming the variable and the item.
#[allow(clippy::disallowed_methods)] // process glue: only the binary does it
fn trust_owners() -> Result<(), String> {
    let Some(list) = std::env::var_os("ASK_USER_TRUST_OWNERS") else {
        return Ok(());
    };
    let list = list.to_string_lossy();
    let mut uids = Vec::new();
    for item in list
        .split(',')
        .map(str::trim)
        .filter(|item| !item.is_empty())
    {
        match item.parse::<u32>() {
            Ok(uid) => uids.push(uid),
            Err(_) => {
                return Err(format!(
                    "ASK_USER_TRUST_OWNERS holds `{item}`, which is not a numeric uid: give a \
                     comma-separated list of uids, such as 1000,1001"
                ));
            }
        }
    }
    ask_fs::trust_owners(&uids);
    Ok(())
}

/// Parses the command line. The ask command's flags and INPUT come before any subcommand in
/// clap's grammar; only `demo` takes some of them (`ask-user --no-notify demo`), and any other
/// use of them with a subcommand is refused rather than ignored.
#[allow(clippy::disallowed_methods)] // process glue: only the binary does it
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

//! `ask-user`: the binary. It parses flags, picks the layers, and maps outcomes to exit codes;
//! the behaviour lives in the library crates.

mod ask;
mod cli;
mod exit;
mod output;

use std::io::Read;
use std::path::Path;
use std::process::ExitCode;

use ask_core::{Limits, Problems};
use ask_schema::{ParsedCall, ToolFormat};
use clap::Parser;
use serde_json::json;

use crate::cli::{Cli, Command, SchemaFormat};
use crate::exit::Exit;
use crate::output::{emit, emit_pretty, say};

fn main() -> ExitCode {
    let cli = Cli::parse();
    let exit = match cli.command {
        None => ask::run(&cli.ask),
        Some(Command::Demo(args)) => ask::demo(&args),
        Some(Command::Schema(args)) => schema(args.format, &args.limits.limits()),
        Some(Command::Validate(args)) => validate(&args.input, &args.limits.limits()),
    };
    exit.into()
}

fn schema(format: SchemaFormat, limits: &Limits) -> Exit {
    let format = match format {
        SchemaFormat::JsonSchema => ToolFormat::JsonSchema,
        SchemaFormat::Anthropic => ToolFormat::Anthropic,
        SchemaFormat::Openai => ToolFormat::OpenAi,
        SchemaFormat::Mcp => ToolFormat::Mcp,
        SchemaFormat::Result => ToolFormat::Result,
    };
    finish(
        emit_pretty(&ask_schema::tool_descriptor(format, limits)),
        Exit::Ok,
    )
}

fn validate(input: &Path, limits: &Limits) -> Exit {
    match read_call(input, limits) {
        Ok(call) => {
            let mut report = json!({"valid": true, "questions": call.input.questions.len()});
            if let Some(id) = call.call_id {
                report["callId"] = id.into();
            }
            finish(emit(&report), Exit::Ok)
        }
        Err(failure) => failure.report(),
    }
}

/// Why a call could not be read.
#[derive(Debug)]
pub(crate) enum ReadFailure {
    /// The file or stdin could not be read.
    Io { what: String, error: std::io::Error },
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
            ReadFailure::Invalid(problems) => {
                let list: Vec<_> = problems
                    .iter()
                    .map(|p| json!({"path": p.path, "message": p.kind.to_string()}))
                    .collect();
                say(&format!(
                    "the call is invalid ({} {}):",
                    problems.len(),
                    if problems.len() == 1 {
                        "problem"
                    } else {
                        "problems"
                    }
                ));
                for problem in &problems {
                    say(&format!("  {problem}"));
                }
                finish(
                    emit(&json!({"valid": false, "problems": list})),
                    Exit::Invalid,
                )
            }
        }
    }
}

/// Reads and validates the call in `input` (a path, or `-` for stdin).
pub(crate) fn read_call(input: &Path, limits: &Limits) -> Result<ParsedCall, ReadFailure> {
    let text = if input == Path::new("-") {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|error| ReadFailure::Io {
                what: "stdin".into(),
                error,
            })?;
        text
    } else {
        std::fs::read_to_string(input).map_err(|error| ReadFailure::Io {
            what: format!("`{}`", input.display()),
            error,
        })?
    };
    ask_schema::parse_call(text.as_str(), limits).map_err(ReadFailure::Invalid)
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

//! The command line, as clap definitions.

use std::path::PathBuf;

use ask_core::Limits;
use clap::{Args, Parser, Subcommand, ValueEnum};

/// Ask the person structured questions on behalf of an LLM agent.
#[derive(Debug, Parser)]
#[command(name = "ask-user", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print the tool descriptor or a schema.
    Schema(SchemaArgs),
    /// Check a call without asking it; prints every problem with its JSON path.
    Validate(ValidateArgs),
}

/// The limits a call is checked against.
#[derive(Debug, Clone, Copy, Args)]
pub struct LimitArgs {
    /// Allow up to N questions in one call (default 4).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub max_questions: Option<u16>,
    /// Allow up to N options in one question (default 4).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(2..))]
    pub max_options: Option<u16>,
}

impl LimitArgs {
    /// The limits in force.
    pub fn limits(&self) -> Limits {
        let mut limits = Limits::default();
        if let Some(n) = self.max_questions {
            limits = limits.with_max_questions(usize::from(n));
        }
        if let Some(n) = self.max_options {
            limits = limits.with_max_options(usize::from(n));
        }
        limits
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SchemaFormat {
    /// The JSON Schema of the tool input.
    JsonSchema,
    /// An Anthropic Messages API tool.
    Anthropic,
    /// An OpenAI Chat Completions function tool.
    Openai,
    /// A Model Context Protocol tool.
    Mcp,
    /// The JSON Schema of the result.
    Result,
}

#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// The shape to print.
    #[arg(long, value_enum, default_value = "json-schema")]
    pub format: SchemaFormat,
    #[command(flatten)]
    pub limits: LimitArgs,
}

#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// The call: a file with the tool input or a tool-call envelope, or - for stdin.
    #[arg(value_name = "INPUT", default_value = "-")]
    pub input: PathBuf,
    #[command(flatten)]
    pub limits: LimitArgs,
}

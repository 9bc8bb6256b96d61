//! The commands that ask nothing: `schema`, `validate` and `session show|summary|get`.

use std::path::Path;

use ask_core::Limits;
use ask_schema::{ReadOptions, ToolFormat};
use serde_json::json;

use crate::cli::{self, SchemaFormat, ValidateArgs};
use crate::deliver::{emit_record, plain};
use crate::exit::Exit;
use crate::input::{read_call, say_no_input, stdin_input, warnings_json};
use crate::output::{self, emit, emit_pretty, finish, say};

/// `ask-user validate [INPUT]`: INPUT, else stdin when it is a pipe or a file.
pub fn validate_command(args: &ValidateArgs) -> Exit {
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

pub fn schema(format: SchemaFormat, limits: &Limits) -> Exit {
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
pub fn session_get(file: &Path, call_id: &str, output: cli::OutputArg) -> Exit {
    match ask_session::SessionLog::new(file).find(call_id) {
        Ok((found, warnings)) => {
            warnings.iter().for_each(|w| say(w));
            match found {
                // Exit 0 whatever the record's status: the query succeeded.
                Some(record) => match emit_record(record, &plain(output)) {
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
pub enum History {
    /// `session show`: the records for people.
    Show,
    /// `session summary`: one sentence per answer.
    Summary,
}

/// `ask-user session show|summary FILE`.
pub fn history(file: &Path, how: History) -> Exit {
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
        History::Show => ask_session::render(&history.records),
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

//! The schema side of the `ask_user` tool: the JSON Schema of the input and of the result,
//! generated from the `ask-core` types and following the active [`Limits`]; the tool descriptor in
//! the shapes agent APIs load; and [`parse`], which turns raw JSON into a validated call with
//! every problem and its JSON path.
//!
//! This crate reads no files and talks to no terminal; the checked-in `schema/*.json` files are
//! written by `cargo xtask schema` from [`generated_files`].
//!
//! ```
//! use ask_core::{Answer, Limits, Mode, Outcome, Record, ToolOutput};
//!
//! let raw = r#"{"questions": [{"question": "Which database should we use?", "header": "Database",
//!     "options": [{"label": "PostgreSQL (Recommended)", "description": "Battle-tested"},
//!                 {"label": "SQLite", "description": "File-based"}]}]}"#;
//! let input = ask_schema::parse(raw, &Limits::default()).expect("a valid call");
//!
//! let answer = Answer::from_text(&input.questions[0], "PostgreSQL (Recommended)");
//! let record = Record::new(input.into_inner(), Mode::Interactive, Outcome::Answered(vec![answer]));
//! let output = ToolOutput::from_record(record);
//! assert_eq!(output.content, r#"{"answers":{"Which database should we use?":"PostgreSQL (Recommended)"}}"#);
//!
//! let problems = ask_schema::parse(r#"{"questions": [{"question": "Q?", "options": [{"label": "x"}]}]}"#,
//!     &Limits::default()).unwrap_err();
//! assert_eq!(problems.to_string(),
//!     "/questions/0/options: 1 option given; give 2 to 4, or omit options for a free-text question");
//! ```

pub use ask_core::Limits;

mod dialect;
mod dialect_output;
pub mod display_rules;
mod output;
mod parse;
mod schema;

pub use dialect::{Dialect, DialectCall, ReadOptions, Warning, read_call, read_call_bytes};
use dialect_output::dialect_descriptor;
pub use output::{OutputForm, OutputShape};
pub use parse::{JsonSource, ParsedCall, parse, parse_call};
pub use schema::{
    ToolFormat, UnknownFormat, input_schema, render, result_schema, tool_descriptor,
    tool_output_schema,
};

/// Items the integration tests reach; not part of the API.
#[doc(hidden)]
pub mod testing {
    pub use crate::dialect::read_value;
    pub use crate::dialect_output::dialect_descriptor;
    pub use crate::parse::warm_up;
}

/// Every name `ask-user schema --format` takes, with a line of help: the tool formats, then
/// each agent dialect's descriptor.
pub fn descriptor_formats() -> Vec<(&'static str, String)> {
    let tools = ToolFormat::ALL.map(|f| (f.name(), f.help().to_string()));
    let dialects = Dialect::ALL
        .into_iter()
        .filter(|d| *d != Dialect::Canonical)
        .map(|d| {
            let help = match d {
                Dialect::Simple => "The simplified {question, suggestions} tool.".to_string(),
                _ => format!("{} tool, served by ask-user.", d.agent_possessive()),
            };
            (d.name(), help)
        });
    tools.into_iter().chain(dialects).collect()
}

/// The descriptor a name of [`descriptor_formats`] gives, for `limits`.
///
/// ```
/// let tool = ask_schema::descriptor_named("codex", &ask_core::Limits::default()).unwrap();
/// assert_eq!(tool["name"], "request_user_input");
/// assert!(ask_schema::descriptor_named("canonical", &ask_core::Limits::default()).is_none());
/// ```
pub fn descriptor_named(name: &str, limits: &Limits) -> Option<serde_json::Value> {
    match name.parse::<ToolFormat>() {
        Ok(format) => Some(tool_descriptor(format, limits)),
        Err(_) => Dialect::from_name(name)
            .filter(|d| *d != Dialect::Canonical)
            .map(|d| dialect_descriptor(d, limits)),
    }
}

/// Every name `--dialect` takes, with a line of help: `auto`, then each dialect.
pub fn dialect_choices() -> Vec<(&'static str, String)> {
    let auto = (
        "auto",
        "Detect the shape; answer in the canonical shape.".to_string(),
    );
    let canonical = Dialect::Canonical;
    let others = Dialect::ALL.into_iter().filter(|d| *d != canonical);
    let named = std::iter::once(canonical).chain(others);
    std::iter::once(auto)
        .chain(named.map(|d| (d.name(), d.help().to_string())))
        .collect()
}

/// The generated files and their contents for the default limits, as
/// `(path relative to the repository root, text)`: each tool format, then each agent dialect's
/// descriptor (`schema/tool.<dialect>.json`), then the pi package's `integrations/pi/tool.json`.
pub fn generated_files() -> Vec<(String, String)> {
    let limits = Limits::default();
    let formats = ToolFormat::ALL.into_iter().map(|format| {
        (
            format!("schema/{}", format.file_name()),
            render(&tool_descriptor(format, &limits)),
        )
    });
    let dialects = Dialect::ALL
        .into_iter()
        .filter(|d| *d != Dialect::Canonical)
        .map(|dialect| {
            (
                format!("schema/tool.{}.json", dialect.name()),
                render(&dialect_descriptor(dialect, &limits)),
            )
        });
    // The pi package loads the tool from a file of its own folder: it may be installed without
    // the rest of the repository.
    let pi = (
        "integrations/pi/tool.json".to_string(),
        render(&tool_descriptor(ToolFormat::OpenAi, &limits)),
    );
    formats.chain(dialects).chain([pi]).collect()
}

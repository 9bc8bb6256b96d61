//! The schemas and tool descriptors, generated from the `ask-core` types.

use std::fmt;
use std::str::FromStr;

use ask_core::{AskUserInput, AskUserResult, Limits, QuestionKind, ToolOutput};
use schemars::generate::SchemaSettings;
use serde_json::{Value, json};

/// The name of the tool.
pub(crate) const TOOL_NAME: &str = "ask_user";

/// The title of the tool, for clients that show one.
pub(crate) const TOOL_TITLE: &str = "Ask User";

/// The tool description the model reads, for the given limits.
pub(crate) fn tool_description(limits: &Limits) -> String {
    let questions = if limits.max_questions == 1 {
        "Ask 1 question per call".to_string()
    } else {
        format!(
            "Limit to {} questions per call (fewer is better) to avoid user fatigue",
            limits.max_questions
        )
    };
    format!(
        "Ask the user one or more questions. Use when you need:\n\
         - Clarification on requirements or preferences\n\
         - User decisions between multiple valid approaches\n\
         - Confirmation before significant changes\n\
         - Input that cannot be inferred from context\n\
         \n\
         Each question can have suggested options with descriptions.\n\
         Users can always select \"Other\" to provide a custom answer.\n\
         In non-interactive mode, creates a pending questions file for async response.\n\
         \n\
         Guidelines:\n\
         - Put recommended option first with \"(Recommended)\" in the label\n\
         - Batch related questions together (avoid multiple rounds)\n\
         - {questions}\n\
         - Don't ask what can be inferred from context or previous messages\n\
         - Don't re-ask questions already answered in this session"
    )
}

fn settings() -> SchemaSettings {
    SchemaSettings::draft2020_12().with(|s| {
        s.inline_subschemas = true;
    })
}

/// The JSON Schema of the tool input, following `limits`.
///
/// ```
/// let schema = ask_schema::input_schema(&ask_core::Limits::default());
/// assert_eq!(schema["properties"]["questions"]["maxItems"], 4);
/// ```
pub fn input_schema(limits: &Limits) -> Value {
    let mut schema = settings()
        .into_generator()
        .into_root_schema_for::<AskUserInput>()
        .to_value();
    apply_limits(&mut schema, limits);
    schema
}

/// The JSON Schema of the structured result (`AskUserResult`).
pub fn result_schema() -> Value {
    let settings = settings().with(|s| s.contract = schemars::generate::Contract::Serialize);
    let mut schema = settings
        .into_generator()
        .into_root_schema_for::<AskUserResult>()
        .to_value();
    unwrap_descriptions(&mut schema);
    schema
}

/// The JSON Schema of the tool output `--output tool` prints (`ToolOutput`: `{content,
/// details, isError}`, where `details` is the record of the call), for hosts that read it, such
/// as the pi package's generated types.
pub fn tool_output_schema() -> Value {
    let settings = settings().with(|s| s.contract = schemars::generate::Contract::Serialize);
    let mut schema = settings
        .into_generator()
        .into_root_schema_for::<ToolOutput>()
        .to_value();
    unwrap_descriptions(&mut schema);
    schema
}

/// Writes the limits into the generated schema: counts, lengths and the fact that `Other` is
/// added by the tool.
fn apply_limits(schema: &mut Value, limits: &Limits) {
    unwrap_descriptions(schema);
    if let Some(object) = schema.as_object_mut() {
        object.insert("title".into(), json!("ask_user input"));
    }
    let questions = &mut schema["properties"]["questions"];
    set(questions, "minItems", json!(1));
    set(questions, "maxItems", json!(limits.max_questions));
    let question = &mut questions["items"]["properties"];
    set(&mut question["question"], "minLength", json!(1));
    set(
        &mut question["question"],
        "maxLength",
        json!(limits.max_question_chars),
    );
    set(&mut question["header"], "minLength", json!(1));
    set(
        &mut question["header"],
        "maxLength",
        json!(limits.max_header_chars),
    );
    let options = &mut question["options"];
    set(options, "minItems", json!(limits.min_options));
    set(options, "maxItems", json!(limits.max_options));
    let option = &mut options["items"]["properties"];
    set(&mut option["label"], "minLength", json!(1));
    set(
        &mut option["label"],
        "maxLength",
        json!(limits.max_label_chars),
    );
    set(
        &mut option["description"],
        "maxLength",
        json!(limits.max_description_chars),
    );
    set(
        &mut option["preview"],
        "maxLength",
        json!(limits.max_preview_chars),
    );
    set(&mut question["placeholder"], "minLength", json!(1));
    set(
        &mut question["placeholder"],
        "maxLength",
        json!(limits.max_placeholder_chars),
    );
    set(
        &mut question["id"],
        "pattern",
        json!("^[A-Za-z0-9_-]{1,64}$"),
    );
    // A plain `enum` rather than the generated `oneOf` of constants: every model API's tool
    // schema subset understands `enum`.
    let kind = &mut question["kind"];
    if let Some(object) = kind.as_object_mut() {
        object.remove("oneOf");
    }
    set(kind, "type", json!("string"));
    set(
        kind,
        "enum",
        json!(
            [
                QuestionKind::Choice,
                QuestionKind::YesNo,
                QuestionKind::Path
            ]
            .map(QuestionKind::as_str)
        ),
    );
    set(kind, "default", json!(QuestionKind::Choice.as_str()));
}

/// Joins the lines of each description that come from wrapped doc comments, keeping paragraph
/// breaks, so that the model reads plain sentences.
fn unwrap_descriptions(node: &mut Value) {
    match node {
        Value::Object(object) => {
            for (key, value) in object.iter_mut() {
                match value {
                    Value::String(text) if key == "description" => {
                        *text = text
                            .split("\n\n")
                            .map(|paragraph| paragraph.replace('\n', " "))
                            .collect::<Vec<_>>()
                            .join("\n\n");
                    }
                    _ => unwrap_descriptions(value),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(unwrap_descriptions),
        _ => {}
    }
}

fn set(node: &mut Value, key: &str, value: Value) {
    if let Some(object) = node.as_object_mut() {
        object.insert(key.to_string(), value);
    }
}

/// The shapes in which the tool is exported.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolFormat {
    /// The plain JSON Schema of the input.
    JsonSchema,
    /// An Anthropic Messages API tool: `{name, description, input_schema}`.
    Anthropic,
    /// An OpenAI Chat Completions function tool: `{type: "function", function: {name,
    /// description, parameters}}`.
    OpenAi,
    /// A Model Context Protocol tool: `{name, title, description, inputSchema, outputSchema}`.
    Mcp,
    /// The JSON Schema of the result.
    Result,
}

impl ToolFormat {
    /// Every format, in the order `ask-user schema --help` lists them.
    pub const ALL: [ToolFormat; 5] = [
        ToolFormat::JsonSchema,
        ToolFormat::Anthropic,
        ToolFormat::OpenAi,
        ToolFormat::Mcp,
        ToolFormat::Result,
    ];

    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            ToolFormat::JsonSchema => "json-schema",
            ToolFormat::Anthropic => "anthropic",
            ToolFormat::OpenAi => "openai",
            ToolFormat::Mcp => "mcp",
            ToolFormat::Result => "result",
        }
    }

    /// What the shape is, in one line for `--help`.
    pub fn help(self) -> &'static str {
        match self {
            ToolFormat::JsonSchema => "The JSON Schema of the tool input.",
            ToolFormat::Anthropic => "An Anthropic Messages API tool.",
            ToolFormat::OpenAi => "An OpenAI Chat Completions function tool.",
            ToolFormat::Mcp => "A Model Context Protocol tool.",
            ToolFormat::Result => "The JSON Schema of the result.",
        }
    }

    /// The file under `schema/` that holds this shape for the default limits.
    pub fn file_name(self) -> &'static str {
        match self {
            ToolFormat::JsonSchema => "input.schema.json",
            ToolFormat::Anthropic => "tool.anthropic.json",
            ToolFormat::OpenAi => "tool.openai.json",
            ToolFormat::Mcp => "tool.mcp.json",
            ToolFormat::Result => "result.schema.json",
        }
    }
}

impl fmt::Display for ToolFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A format name that is not one of [`ToolFormat::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown schema format `{0}`; use json-schema, anthropic, openai, mcp or result")]
pub struct UnknownFormat(pub String);

impl FromStr for ToolFormat {
    type Err = UnknownFormat;

    fn from_str(s: &str) -> Result<ToolFormat, UnknownFormat> {
        ToolFormat::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| UnknownFormat(s.to_string()))
    }
}

/// The tool in the given shape, for the given limits.
///
/// ```
/// use ask_schema::{ToolFormat, tool_descriptor};
/// let tool = tool_descriptor(ToolFormat::Anthropic, &ask_core::Limits::default());
/// assert_eq!(tool["name"], "ask_user");
/// assert_eq!(tool["input_schema"]["type"], "object");
/// ```
pub fn tool_descriptor(format: ToolFormat, limits: &Limits) -> Value {
    let description = tool_description(limits);
    let parameters = || {
        let mut schema = input_schema(limits);
        if let Some(object) = schema.as_object_mut() {
            object.remove("$schema");
            object.remove("title");
        }
        schema
    };
    match format {
        ToolFormat::JsonSchema => input_schema(limits),
        ToolFormat::Result => result_schema(),
        ToolFormat::Anthropic => json!({
            "name": TOOL_NAME,
            "description": description,
            "input_schema": parameters(),
        }),
        ToolFormat::OpenAi => json!({
            "type": "function",
            "function": {
                "name": TOOL_NAME,
                "description": description,
                "parameters": parameters(),
            }
        }),
        ToolFormat::Mcp => {
            let mut output = result_schema();
            if let Some(object) = output.as_object_mut() {
                object.remove("$schema");
            }
            json!({
                "name": TOOL_NAME,
                "title": TOOL_TITLE,
                "description": description,
                "inputSchema": parameters(),
                "outputSchema": output,
                // Asking changes nothing in the world and reaches nothing outside this machine:
                // hosts that run read-only tools without asking for approval (Codex's `exec`)
                // run this one.
                "annotations": {
                    "title": TOOL_TITLE,
                    "readOnlyHint": true,
                    "destructiveHint": false,
                    "idempotentHint": false,
                    "openWorldHint": false,
                },
            })
        }
    }
}

/// The text of a checked-in schema file: pretty JSON with a final newline.
pub fn render(value: &Value) -> String {
    let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_follows_limits() {
        let limits = Limits::default().with_max_questions(6).with_max_options(10);
        let schema = input_schema(&limits);
        let questions = &schema["properties"]["questions"];
        assert_eq!(questions["maxItems"], 6);
        assert_eq!(questions["items"]["properties"]["options"]["maxItems"], 10);
        assert_eq!(questions["items"]["properties"]["options"]["minItems"], 2);
        assert!(tool_description(&limits).contains("Limit to 6 questions per call"));
    }

    #[test]
    fn schema_refuses_unknown_fields_everywhere() {
        let schema = input_schema(&Limits::default());
        assert_eq!(schema["additionalProperties"], false);
        let question = &schema["properties"]["questions"]["items"];
        assert_eq!(question["additionalProperties"], false);
        assert_eq!(
            question["properties"]["options"]["items"]["additionalProperties"],
            false
        );
        assert_eq!(schema["required"], json!(["questions"]));
        assert_eq!(question["required"], json!(["question"]));
    }

    #[test]
    fn schema_has_no_references() {
        // Some tool APIs refuse `$ref`, so the schema is inlined.
        let text = input_schema(&Limits::default()).to_string();
        assert!(!text.contains("$ref"), "{text}");
        assert!(!text.contains("$defs"), "{text}");
    }

    #[test]
    fn descriptors_have_their_shapes() {
        let limits = Limits::default();
        let openai = tool_descriptor(ToolFormat::OpenAi, &limits);
        assert_eq!(openai["function"]["name"], "ask_user");
        assert_eq!(openai["function"]["parameters"]["type"], "object");
        assert!(openai["function"]["parameters"].get("$schema").is_none());
        let mcp = tool_descriptor(ToolFormat::Mcp, &limits);
        assert_eq!(mcp["inputSchema"]["type"], "object");
        assert_eq!(
            mcp["outputSchema"]["required"],
            json!(["answered", "answers"])
        );
        assert!(
            mcp["description"]
                .as_str()
                .unwrap()
                .starts_with("Ask the user one or more questions.")
        );
    }

    #[test]
    fn format_names_round_trip() {
        for format in ToolFormat::ALL {
            assert_eq!(format.name().parse::<ToolFormat>(), Ok(format));
        }
        assert_eq!(
            "yaml".parse::<ToolFormat>().unwrap_err().to_string(),
            "unknown schema format `yaml`; use json-schema, anthropic, openai, mcp or result"
        );
    }
}

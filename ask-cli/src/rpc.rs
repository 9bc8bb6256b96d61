//! `ask-user --rpc INPUT`: one ask over the process's stdin and stdout with the JSON-lines
//! protocol of `ask-rpc`; the last stdout line is the `ask_user_result` message.

use ask_core::{Record, ToolOutput};
use ask_rpc::{AskUserResultNotification, ServerMessage};

use crate::cli::OutputArg;
use crate::exit::Exit;
use crate::finish;
use crate::output::emit;

/// The request id an ask uses on the wire: the call id, or the one the ask path gives.
fn request_id(record: &Record) -> String {
    record
        .call_id
        .clone()
        .unwrap_or_else(|| "ask-1".to_string())
}

/// Prints the final `ask_user_result` line and gives the exit code of the outcome. With
/// `--output tool` the line also carries the tool output. The lenient forms the call was read
/// with go in its `details.warnings`, so the model can learn the canonical shape.
pub fn print_result(record: Record, output: OutputArg, warnings: &[ask_schema::Warning]) -> Exit {
    let exit = crate::ask::exit_for(record.status);
    let message = ServerMessage::AskUserResult(AskUserResultNotification {
        request_id: request_id(&record),
        result: record.result(),
        tool_output: (output == OutputArg::Tool).then(|| Box::new(ToolOutput::from_record(record))),
    });
    if warnings.is_empty() {
        return finish(emit(&message), exit);
    }
    let mut line = serde_json::to_value(&message).unwrap_or_default();
    line["details"] = serde_json::json!({"warnings": crate::warnings_json(warnings)});
    finish(emit(&line), exit)
}

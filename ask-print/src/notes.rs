//! What pass 2 tells the person on the way, as sentences: the answers taken as their own text,
//! the questions still open, and where undelivered answers wait. The binary prints them; they
//! quote the model's text, so each is sanitised for display.

use std::path::Path;

use ask_core::{AnswerValue, Record, sanitize_for_display};

use crate::Commands;

/// One sentence per answer that matched no option and was taken as the person's own text, so
/// that a typo in a label is seen rather than silently sent as a custom answer.
pub fn custom_answers(record: &Record) -> Vec<String> {
    let mut notes = Vec::new();
    for (index, (question, answer)) in record.questions.iter().zip(&record.answers).enumerate() {
        if !answer.was_custom || question.is_free_text() {
            continue;
        }
        // A multi-select answer lists its typed text last.
        let typed = match &answer.answer {
            AnswerValue::Text(text) => text.as_str(),
            AnswerValue::Choices(choices) => choices.last().map_or("", String::as_str),
        };
        notes.push(format!(
            "question {} (\"{}\"): \"{}\" matches no option, so it was taken as your own answer",
            index + 1,
            sanitize_for_display(&question.question),
            sanitize_for_display(typed)
        ));
    }
    notes
}

/// How an incomplete pass 2 was run, which says what the person runs next.
#[derive(Debug, Clone, Copy)]
pub struct Run<'a> {
    /// True when the answers were given by `--answers`.
    pub inline: bool,
    /// The commands of the host that take the answers once they are written.
    pub host: &'a Commands,
}

/// What an incomplete pass 2 tells the person: which questions are still open, that nothing
/// was recorded, and the command of `run.host` that takes the answers once they are written.
pub fn incomplete(record: &Record, unanswered: &[(usize, String)], run: Run<'_>) -> Vec<String> {
    let Run { inline, host } = run;
    let mut notes = vec![format!(
        "{} of {} questions still {} no answer:",
        unanswered.len(),
        record.questions.len(),
        if unanswered.len() == 1 { "has" } else { "have" }
    )];
    for (index, question) in unanswered {
        notes.push(format!(
            "  {}. {}",
            index + 1,
            sanitize_for_display(question)
        ));
    }
    let file = record.pending_file.clone().unwrap_or_default();
    let edited = host.edited_command(&file);
    notes.push(if inline {
        format!(
            "nothing was recorded and {file} is as it was: give every answer in --answers (null \
             takes the answer written in the file), or write them into the file and run {edited}"
        )
    } else {
        format!(
            "nothing was recorded and {file} is as it was: write the missing answers into it and \
             run {edited} again"
        )
    });
    notes
}

/// Where answers that were not delivered wait: still in the pending file's `answered` state
/// when it could be written (`kept`), else nowhere but in the file's questions.
pub fn undelivered(path: &Path, kept: bool) -> String {
    if kept {
        format!(
            "the answers stay in {}: run the command again to deliver them",
            path.display()
        )
    } else {
        format!(
            "the answers could not be written into {} either; it still holds the questions",
            path.display()
        )
    }
}

/// The tool whose next call takes the answers, as a person reads it: its name as the model
/// knows it, when the lock file kept it.
fn the_tool(tool: Option<&str>) -> String {
    tool.map_or_else(
        || "the same tool".to_string(),
        |tool| ask_core::sanitize_for_display(tool).into_owned(),
    )
}

/// What pass 2 tells the person when the answers go back to the model through its next call of
/// the same questions (a file written by `ask-user mcp`): the file keeps them until then.
pub fn awaiting_call(path: &Path, tool: Option<&str>) -> String {
    format!(
        "the answers wait in {} for the agent: they reach the model when it calls {} again \
         with the same questions (tell it to)",
        path.display(),
        the_tool(tool)
    )
}

/// What pass 2 tells the person when the pending file was written by hand over one whose answers
/// waited for the model's next call (a file written by `ask-user mcp`): the answers wait there,
/// in the order of the questions, for that call.
pub fn replaced_awaiting(path: &Path, tool: Option<&str>) -> String {
    format!(
        "{} was written by hand over the file ask-user mcp wrote: its answers, in the order of \
         the agent's questions, wait in it and reach the model when it calls {} again with the \
         same questions (tell it to)",
        path.display(),
        the_tool(tool)
    )
}

//! What the model gets back: answers, outcomes, the tool output and the persisted record.
//!
//! The answers and the answer map live in [`answer`], the record of an ask and how it ended in
//! [`record`], and the structured result and the tool output an agent harness reads in
//! [`tool_output`].

mod answer;
mod multi;
mod record;
mod tool_output;

pub use answer::{Answer, AnswerMap, AnswerValue, SECRET_PLACEHOLDER, answer_mask, any_secret};
pub use multi::{MULTI_SELECT_PREFIX, Picks, multi_select_line};
pub use record::{ChosenPreview, Mode, Outcome, Record, Status};
pub use tool_output::{
    AskUserResult, ProblemReport, SUBAGENT_REFUSAL, ToolOutput, interrupted_text,
};

/// Helpers the unit tests of the result modules share.
#[cfg(test)]
mod test_support {
    use crate::input::Question;

    pub(super) fn features() -> Question {
        Question::choice(
            "Which features should we include?",
            ["Authentication", "REST API", "Admin Dashboard"],
        )
        .multi()
    }
}

//! Semantic validation of a call: every problem at once, each with its JSON path and a sentence a
//! model can act on.
//!
//! The rules live in [`rules`], the problems and the sentences they read as in [`problem`], and
//! the checks for labels that look alike or imitate the built-in "Other" choice in [`lookalike`].

use std::ops::Deref;

use crate::input::{AskUserInput, Limits, QuestionKind, QuestionOption, YES_NO_LABELS};

mod lookalike;
mod problem;
mod rules;

pub use problem::{JsonType, MAX_PROBLEMS, Problem, ProblemKind, Problems, TextField};
pub(crate) use rules::check_input;
pub use rules::{check_metadata, check_questions};

/// A call that passed validation. Only [`validate`] (and parsers built on it) make one.
#[derive(Debug, Clone, PartialEq)]
pub struct ValidatedInput(AskUserInput);

impl ValidatedInput {
    /// The validated call.
    pub fn input(&self) -> &AskUserInput {
        &self.0
    }

    /// Gives back the call.
    pub fn into_inner(self) -> AskUserInput {
        self.0
    }
}

impl Deref for ValidatedInput {
    type Target = AskUserInput;

    fn deref(&self) -> &AskUserInput {
        &self.0
    }
}

/// Checks a call against the contract and `limits`, returning every problem at once.
///
/// ```
/// use ask_core::{AskUserInput, Limits, Question, validate};
/// let input = AskUserInput {
///     questions: vec![Question::choice("Which database?", ["PostgreSQL", "SQLite"])],
///     metadata: None,
/// };
/// assert!(validate(input, &Limits::default()).is_ok());
/// ```
pub fn validate(mut input: AskUserInput, limits: &Limits) -> Result<ValidatedInput, Problems> {
    let mut problems = Vec::new();
    check_input(&input, limits, &mut problems);
    match Problems::from_vec(problems) {
        None => {
            complete_yes_no(&mut input);
            Ok(ValidatedInput(input))
        }
        Some(problems) => Err(problems),
    }
}

/// Gives each yes/no question that left its options out the options "Yes" and "No", so that
/// every later layer sees an ordinary two-option question.
fn complete_yes_no(input: &mut AskUserInput) {
    for question in &mut input.questions {
        if question.kind == QuestionKind::YesNo && question.options.is_none() {
            question.options = Some(YES_NO_LABELS.map(QuestionOption::new).to_vec());
        }
    }
}

/// Helpers the unit tests of the validation modules share.
#[cfg(test)]
mod test_support {
    use super::*;
    use crate::input::Question;

    pub(super) fn call(questions: Vec<Question>) -> AskUserInput {
        AskUserInput {
            questions,
            metadata: None,
        }
    }

    /// Validates `input` with the default limits and compares the rendered problems.
    #[track_caller]
    /// The limits of these tests: the defaults, with the names a host raises them with.
    pub(super) fn limits() -> Limits {
        Limits::default().raised_with(crate::RaisedWith {
            questions: "--max-questions",
            options: "--max-options",
        })
    }

    pub(super) fn check(input: AskUserInput, expected: &[&str]) {
        let got: Vec<String> = match validate(input, &limits()) {
            Ok(_) => Vec::new(),
            Err(problems) => problems.iter().map(ToString::to_string).collect(),
        };
        assert_eq!(got, expected);
    }

    pub(super) fn db() -> Question {
        Question::choice(
            "Which database should we use?",
            ["PostgreSQL (Recommended)", "SQLite"],
        )
        .with_header("Database")
    }

    /// Checks that `labels` are accepted as they are.
    #[track_caller]
    pub(super) fn check_ok(labels: &[&str]) {
        check(call(vec![Question::choice("A?", labels.to_vec())]), &[]);
    }
}

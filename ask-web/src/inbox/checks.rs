//! The checks of what an agent sends beside its call: its call id, who asks, and the answers
//! given before the ask arrived.

use ask_core::{Answer, Question};

use crate::board::Asker;

/// The most characters of a call id.
pub const MAX_CALL_ID: usize = 256;

/// The most characters of an agent's name.
pub const MAX_AGENT_NAME: usize = 100;

/// The most characters of an agent's working folder.
pub const MAX_FOLDER: usize = 1024;

/// Why what an agent sent beside its call is refused (`422`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum AgentProblem {
    /// The call id is empty or too long.
    #[error("/callId: {count} characters; give 1 to {MAX_CALL_ID}")]
    CallIdLength { count: usize },
    /// The call id holds a character that is not printable ASCII.
    #[error(
        "/callId: character {at} is {}; a call id is printable ASCII without spaces",
        ask_core::describe_char(*character)
    )]
    CallIdCharacter { at: usize, character: char },
    /// The agent's name or folder is too long.
    #[error("/{field}: {count} characters; give at most {cap}")]
    AskerLength {
        field: &'static str,
        count: usize,
        cap: usize,
    },
    /// The agent's name or folder holds a character that could hide text.
    #[error(
        "/{field}: character {at} is {}, a control, line break, bidi or invisible character",
        ask_core::describe_char(*character)
    )]
    AskerCharacter {
        field: &'static str,
        at: usize,
        character: char,
    },
    /// The answers given are not one per question.
    #[error(
        "given holds {given} answers for {questions} questions; give one per question, null for \
         an open one"
    )]
    GivenCount { given: usize, questions: usize },
    /// A given answer names another question than the one at its place.
    #[error(
        "given answer {at} names the question \"{}\", not question {at} (\"{}\")",
        ask_core::sanitize_for_display(named),
        ask_core::sanitize_for_display(question)
    )]
    GivenQuestion {
        at: usize,
        named: String,
        question: String,
    },
}

/// Checks a call id: within its cap, and printable ASCII without spaces.
pub(super) fn check_call_id(call_id: &str) -> Result<(), AgentProblem> {
    if call_id.is_empty() || call_id.len() > MAX_CALL_ID {
        return Err(AgentProblem::CallIdLength {
            count: call_id.chars().count(),
        });
    }
    match call_id
        .chars()
        .enumerate()
        .find(|(_, c)| !c.is_ascii_graphic())
    {
        Some((at, character)) => Err(AgentProblem::CallIdCharacter {
            at: at + 1,
            character,
        }),
        None => Ok(()),
    }
}

/// Checks who asks like every other text of an agent: within its cap, one line, and without a
/// control, bidi or invisible character.
pub(super) fn check_asker(asker: &Asker) -> Result<(), AgentProblem> {
    for (field, text, cap) in [
        ("agent", &asker.agent, MAX_AGENT_NAME),
        ("cwd", &asker.cwd, MAX_FOLDER),
    ] {
        let Some(text) = text else { continue };
        let chars: Vec<char> = text.chars().collect();
        if chars.len() > cap {
            return Err(AgentProblem::AskerLength {
                field,
                count: chars.len(),
                cap,
            });
        }
        for index in 0..chars.len() {
            if ask_core::classify_in_context(&chars, index) != ask_core::CharClass::Plain {
                return Err(AgentProblem::AskerCharacter {
                    field,
                    at: index + 1,
                    character: chars[index],
                });
            }
        }
    }
    Ok(())
}

/// Who asks, fit for the inbox: each field cut to its cap and shown through the display rules,
/// so that a long or strange folder name never costs an agent its ask.
pub fn fit_asker(asker: Asker) -> Asker {
    let fit = |text: Option<String>, cap: usize| {
        text.map(|text| {
            let shown = ask_core::sanitize_for_display(&text).into_owned();
            if shown.chars().count() > cap {
                let mut cut: String = shown.chars().take(cap - 1).collect();
                cut.push('…');
                cut
            } else {
                shown
            }
        })
    };
    Asker {
        agent: fit(asker.agent, MAX_AGENT_NAME),
        cwd: fit(asker.cwd, MAX_FOLDER),
    }
}

/// Checks that the answers an agent says were given belong to its questions: none, or one per
/// question, each naming its question.
pub(super) fn check_given(
    questions: &[Question],
    given: &[Option<Answer>],
) -> Result<(), AgentProblem> {
    if given.is_empty() {
        return Ok(());
    }
    if given.len() != questions.len() {
        return Err(AgentProblem::GivenCount {
            given: given.len(),
            questions: questions.len(),
        });
    }
    for (index, (question, answer)) in questions.iter().zip(given).enumerate() {
        if let Some(answer) = answer
            && answer.question != question.question
        {
            return Err(AgentProblem::GivenQuestion {
                at: index + 1,
                named: answer.question.clone(),
                question: question.question.clone(),
            });
        }
    }
    Ok(())
}

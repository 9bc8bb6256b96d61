//! Turning a client's answers into `ask-core` answers, checked against the questions.

use ask_core::{Answer, AnswerValue, Question};

use crate::message::AnswerInput;

/// Matches `given` to `questions` (by question text, or by position when texts are left out) and
/// derives what the client left out. Returns a sentence naming the problem when they do not fit.
pub fn to_answers(questions: &[Question], given: &[AnswerInput]) -> Result<Vec<Answer>, String> {
    if given.len() != questions.len() {
        return Err(format!(
            "{} {} given for {} {}; give one answer per question",
            given.len(),
            if given.len() == 1 {
                "answer"
            } else {
                "answers"
            },
            questions.len(),
            if questions.len() == 1 {
                "question"
            } else {
                "questions"
            },
        ));
    }
    let mut slots: Vec<Option<Answer>> = vec![None; questions.len()];
    for (position, input) in given.iter().enumerate() {
        let index = match &input.question {
            None => position,
            Some(text) => questions
                .iter()
                .position(|q| q.question == *text)
                .ok_or_else(|| {
                    format!(
                        "answer {} is for \"{text}\", which was not asked",
                        position + 1
                    )
                })?,
        };
        if slots[index].is_some() {
            return Err(format!(
                "question {} (\"{}\") is answered twice",
                index + 1,
                questions[index].question
            ));
        }
        slots[index] = Some(to_answer(index, &questions[index], input)?);
    }
    Ok(slots.into_iter().flatten().collect())
}

fn to_answer(index: usize, question: &Question, input: &AnswerInput) -> Result<Answer, String> {
    if matches!(input.answer, AnswerValue::Choices(_)) && !question.multi_select {
        return Err(format!(
            "question {} (\"{}\") takes one answer, not a list",
            index + 1,
            question.question
        ));
    }
    // An empty answer is no answer, in every mode (`AnswerValue::is_empty`).
    let Some(mut answer) = Answer::from_value(question, &input.answer) else {
        return Err(format!(
            "question {} (\"{}\") has an empty answer, which is no answer; give an option label \
             or the person's text, or send ask_user_cancel",
            index + 1,
            question.question
        ));
    };
    // A client that knows the person typed an answer equal to a label says so.
    if input.was_custom == Some(true) && !answer.was_custom {
        answer.was_custom = true;
        answer.selected_option = None;
    }
    Ok(answer)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(question: Option<&str>, answer: AnswerValue) -> AnswerInput {
        AnswerInput {
            question: question.map(str::to_string),
            answer,
            selected_option: None,
            was_custom: None,
        }
    }

    fn questions() -> Vec<Question> {
        vec![
            Question::choice("Which database?", ["PostgreSQL", "SQLite"]),
            Question::choice("Which features?", ["Auth", "API"]).multi(),
        ]
    }

    #[test]
    fn derived_by_text_in_any_order() {
        let answers = to_answers(
            &questions(),
            &[
                input(
                    Some("Which features?"),
                    AnswerValue::Choices(vec!["api".into(), "GraphQL".into()]),
                ),
                input(Some("Which database?"), AnswerValue::Text("sqlite".into())),
            ],
        )
        .unwrap();
        assert_eq!(answers[0], Answer::selected("Which database?", "SQLite"));
        assert_eq!(
            answers[1],
            Answer::multi(
                "Which features?",
                vec!["API".into()],
                Some("GraphQL".into())
            )
        );
    }

    #[test]
    fn misfits_are_named() {
        let qs = questions();
        let one = [input(None, AnswerValue::Text("x".into()))];
        assert_eq!(
            to_answers(&qs, &one).unwrap_err(),
            "1 answer given for 2 questions; give one answer per question"
        );
        let unknown = [
            input(Some("Nope?"), AnswerValue::Text("x".into())),
            input(None, AnswerValue::Text("y".into())),
        ];
        assert_eq!(
            to_answers(&qs, &unknown).unwrap_err(),
            "answer 1 is for \"Nope?\", which was not asked"
        );
        let list = [
            input(None, AnswerValue::Choices(vec![])),
            input(None, AnswerValue::Text("Auth".into())),
        ];
        assert_eq!(
            to_answers(&qs, &list).unwrap_err(),
            "question 1 (\"Which database?\") takes one answer, not a list"
        );
        for empty in [
            AnswerValue::Text(String::new()),
            AnswerValue::Text("  ".into()),
        ] {
            let given = [
                input(None, empty),
                input(None, AnswerValue::Text("Auth".into())),
            ];
            assert_eq!(
                to_answers(&qs, &given).unwrap_err(),
                "question 1 (\"Which database?\") has an empty answer, which is no answer; give an option label or the person's text, or send ask_user_cancel"
            );
        }
        for empty in [
            AnswerValue::Choices(vec![]),
            AnswerValue::Choices(vec![String::new()]),
        ] {
            let given = [
                input(None, AnswerValue::Text("SQLite".into())),
                input(None, empty),
            ];
            assert_eq!(
                to_answers(&qs, &given).unwrap_err(),
                "question 2 (\"Which features?\") has an empty answer, which is no answer; give an option label or the person's text, or send ask_user_cancel"
            );
        }
        let twice = [
            input(Some("Which database?"), AnswerValue::Text("x".into())),
            input(Some("Which database?"), AnswerValue::Text("y".into())),
        ];
        assert_eq!(
            to_answers(&qs, &twice).unwrap_err(),
            "question 1 (\"Which database?\") is answered twice"
        );
    }
}

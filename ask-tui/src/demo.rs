//! The example questions `ask-user demo` asks.

use ask_core::{AskUserInput, Question, QuestionOption};
use serde_json::json;

/// The example call: a database choice with descriptions, a free-text service name and a
/// multi-select of features.
pub fn demo_input() -> AskUserInput {
    let option = |label: &str, description: Option<&str>| {
        let option = QuestionOption::new(label);
        match description {
            Some(text) => option.with_description(text),
            None => option,
        }
    };
    let mut metadata = serde_json::Map::new();
    metadata.insert("source".into(), json!("ask-user demo"));
    AskUserInput {
        questions: vec![
            Question {
                question: "Which database should we use?".into(),
                header: Some("Database".into()),
                options: Some(vec![
                    option(
                        "PostgreSQL (Recommended)",
                        Some("Battle-tested relational DB"),
                    ),
                    option("SQLite", Some("Lightweight, file-based")),
                    option("MongoDB", Some("Document store")),
                ]),
                multi_select: false,
                ..Question::default()
            },
            Question::text("What should we name this service?").with_header("Service Name"),
            Question {
                question: "Which features should we include?".into(),
                header: Some("Features".into()),
                options: Some(vec![
                    option("Authentication", Some("OAuth2 + JWT")),
                    option("REST API", Some("OpenAPI spec included")),
                    option("Admin Dashboard", None),
                ]),
                multi_select: true,
                ..Question::default()
            },
        ],
        metadata: Some(metadata),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demo_is_a_valid_call() {
        assert!(ask_core::validate(demo_input(), &ask_core::Limits::default()).is_ok());
    }
}

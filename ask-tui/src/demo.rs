//! The example questions `ask-user demo` asks, and the showcase of every field of the call that
//! `ask-user demo --showcase` asks.

use ask_core::{AskUserInput, Question, QuestionKind, QuestionOption};
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

/// The showcase: every canonical field of a question in one call (`examples/showcase.json`):
/// a multi-select with a recommended option and previews, a yes/no question, a path with a
/// placeholder, and a secret.
pub fn showcase_input() -> AskUserInput {
    let option = |label: &str, description: &str, preview: Option<&str>| {
        let mut option = QuestionOption::new(label).with_description(description);
        option.preview = preview.map(str::to_string);
        option
    };
    let mut metadata = serde_json::Map::new();
    metadata.insert("source".into(), json!("ask-user demo --showcase"));
    AskUserInput {
        questions: vec![
            Question {
                id: Some("features".into()),
                question: "Which features should we include?".into(),
                header: Some("Features".into()),
                multi_select: true,
                options: Some(vec![
                    option(
                        "Authentication (Recommended)",
                        "OAuth2 sign-in and JWT sessions",
                        Some(
                            "POST /login\n  -> 302 to the provider\nGET /callback?code=...\n  -> \
                             Set-Cookie: session=<JWT>",
                        ),
                    ),
                    option(
                        "REST API",
                        "An OpenAPI spec and generated routes",
                        Some(
                            "GET    /orders\nPOST   /orders\nGET    /orders/{id}\nDELETE \
                             /orders/{id}",
                        ),
                    ),
                    option(
                        "Admin Dashboard",
                        "A page to see and edit every record",
                        None,
                    ),
                ]),
                ..Question::default()
            },
            Question {
                id: Some("migrate".into()),
                question: "Run the database migrations now?".into(),
                header: Some("Migrations".into()),
                kind: QuestionKind::YesNo,
                ..Question::default()
            },
            Question {
                id: Some("config".into()),
                question: "Where should the configuration file go?".into(),
                header: Some("Config".into()),
                kind: QuestionKind::Path,
                placeholder: Some("./config/app.toml".into()),
                ..Question::default()
            },
            Question {
                id: Some("token".into()),
                question: "Paste the staging API token".into(),
                header: Some("Token".into()),
                secret: true,
                placeholder: Some("stg_…".into()),
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
    fn the_showcase_is_the_example_file_and_uses_every_field() {
        let text = include_str!("../../examples/showcase.json");
        let file: AskUserInput = serde_json::from_str(text).unwrap();
        assert_eq!(file, showcase_input());
        let input = ask_core::validate(showcase_input(), &ask_core::Limits::default()).unwrap();
        let questions = &input.questions;
        assert!(questions.iter().any(|q| {
            q.multi_select
                && q.options().iter().any(|o| o.preview.is_some())
                && q.options()
                    .iter()
                    .any(|o| ask_core::is_recommended(&o.label))
        }));
        assert!(questions.iter().any(|q| q.kind == QuestionKind::YesNo));
        assert!(
            questions
                .iter()
                .any(|q| q.kind == QuestionKind::Path && q.placeholder.is_some())
        );
        assert!(questions.iter().any(|q| q.secret));
        assert!(
            questions
                .iter()
                .all(|q| q.id.is_some() && q.header.is_some())
        );
    }

    #[test]
    fn demo_is_a_valid_call() {
        assert!(ask_core::validate(demo_input(), &ask_core::Limits::default()).is_ok());
    }
}

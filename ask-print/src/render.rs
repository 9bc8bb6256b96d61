//! The pending questions as text for a person (`ask-user questions show`).

use std::path::Path;

use ask_core::sanitize_for_display;

use crate::host::{Commands, Host, Names};
use crate::pending::PendingFile;

/// The pending questions of `file`, read from `path`, as text for a person: each question with
/// its options and the answer written so far, then the commands that answer or clear them, in
/// `ask-user`'s words (the person runs `ask-user questions` itself) with ask-user run as `names`
/// says, the path shell-quoted so
/// that each command runs as printed. Agent text is sanitised: this goes to a terminal.
pub(crate) fn render(file: &PendingFile, path: &Path, names: &Names) -> String {
    let clean = |text: &str| sanitize_for_display(text).into_owned();
    let mut out = format!(
        "{} pending {} in {} (asked {}):\n",
        file.questions.len(),
        if file.questions.len() == 1 {
            "question"
        } else {
            "questions"
        },
        path.display(),
        file.timestamp
    );
    for (i, question) in file.questions.iter().enumerate() {
        out.push('\n');
        let header = question
            .header
            .as_deref()
            .map(|h| format!("[{}] ", clean(h)))
            .unwrap_or_default();
        out.push_str(&format!(
            "{}. {header}{}\n",
            i + 1,
            clean(&question.question)
        ));
        if question.multi_select {
            out.push_str(
                "   (choose any number; your own words are added to them; [] for none of them)\n",
            );
        }
        for label in question.options.iter().flatten() {
            let description = question
                .option_descriptions
                .get(label)
                .map(|d| format!(" — {}", clean(d)))
                .unwrap_or_default();
            out.push_str(&format!("   - {}{description}\n", clean(label)));
        }
        let answer = match &question.answer {
            serde_json::Value::Null => "(not answered yet)".to_string(),
            serde_json::Value::String(s) if s.trim().is_empty() => "(not answered yet)".to_string(),
            serde_json::Value::String(s) => clean(s),
            serde_json::Value::Array(items) if items.is_empty() && question.multi_select => {
                "(none of these)".to_string()
            }
            other => clean(&other.to_string()),
        };
        out.push_str(&format!("   answer: {answer}\n"));
    }
    let shown = path.display().to_string();
    let commands = Commands {
        host: Host::AskUser,
        names: names.clone(),
    };
    out.push_str(&format!(
        "\nTo answer, edit the \"answer\" fields and run:\n  {}\n\
         or answer in your own words:\n  {}\n\
         or clear them:\n  {}",
        commands.edited_command(&shown),
        commands.reply_command(&shown),
        commands.clear_command(&shown),
    ));
    out
}

/// The command that clears the questions pending in `file`.
pub(crate) fn clear_command(file: &str) -> String {
    Commands::default().clear_command(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_command_names_the_path_shell_quoted() {
        let input: ask_core::AskUserInput =
            serde_json::from_str(r#"{"questions": [{"question": "Name?"}]}"#).unwrap();
        let mut file = PendingFile::new(&input);
        file.timestamp = "t".into();
        let text = render(&file, Path::new("/w/my dir/it's.json"), &Names::default());
        assert!(
            text.starts_with("1 pending question in /w/my dir/it's.json (asked t):"),
            "{text}"
        );
        assert!(
            text.ends_with(
                "\nTo answer, edit the \"answer\" fields and run:\n  \
                 ask-user -c --pending-file '/w/my dir/it'\\''s.json'\n\
                 or answer in your own words:\n  \
                 ask-user -p @'/w/my dir/it'\\''s.json' \"your answers\"\n\
                 or clear them:\n  \
                 ask-user questions clear --pending-file '/w/my dir/it'\\''s.json'"
            ),
            "{text}"
        );
    }

    #[test]
    fn a_multi_select_says_how_it_is_answered_and_shows_none_of_these() {
        let input: ask_core::AskUserInput = serde_json::from_str(
            r#"{"questions": [{"question": "Which?", "multiSelect": true,
                "options": [{"label": "A"}, {"label": "B"}]}]}"#,
        )
        .unwrap();
        let mut file = PendingFile::new(&input);
        file.questions[0].answer = serde_json::json!([]);
        let text = render(&file, Path::new("/w/p.json"), &Names::default());
        assert!(
            text.contains(
                "   (choose any number; your own words are added to them; [] for none of them)\n\
                 \x20  - A\n   - B\n   answer: (none of these)\n"
            ),
            "{text}"
        );
    }
}

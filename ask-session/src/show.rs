//! A session log shown to people (`ask-user session show` and `session summary`).

use ask_core::Record;

/// One sentence per question and answer, a line each, for a compacted transcript. Sanitised
/// like everything else for people: the sentences quote the model's questions and the
/// person's answers, which may hold escape sequences.
pub fn summarize(records: &[Record]) -> String {
    records
        .iter()
        .flat_map(Record::summary)
        .map(|sentence| ask_core::sanitize_for_display(&sentence).into_owned())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The records of a session for people, one block per call: its id, time, mode and status,
/// then each question with its answer. Agent text and answers are sanitised, as this goes to a
/// terminal.
pub fn render(records: &[Record]) -> String {
    use ask_core::sanitize_for_display as clean;
    if records.is_empty() {
        return "The session log holds no calls.".to_string();
    }
    let mut out = String::new();
    for record in records {
        if !out.is_empty() {
            out.push('\n');
        }
        let id = record.call_id.as_deref().map(clean).unwrap_or_default();
        let status = serde_json::to_value(record.status).unwrap_or_default();
        out.push_str(&format!(
            "{id} · {} · {} · {}\n",
            ask_core::rfc3339(record.answered_at),
            record.mode.as_str(),
            status.as_str().unwrap_or_default()
        ));
        if let Some(reply) = &record.reply {
            out.push_str(&format!("  reply to every question: {}\n", clean(reply)));
        }
        for (i, question) in record.questions.iter().enumerate() {
            let answer = record.answers.get(i).map_or_else(
                || "(no answer)".to_string(),
                |a| {
                    let typed = if a.was_custom { " (typed)" } else { "" };
                    format!("{}{typed}", clean(&a.answer.joined()))
                },
            );
            out.push_str(&format!("  {} → {answer}\n", clean(&question.question)));
        }
    }
    out.trim_end().to_string()
}

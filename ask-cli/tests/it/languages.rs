//! The terminal UI's language, end to end: the real binary in a pseudo-terminal, its language
//! chosen by `--lang` or by LC_ALL / LC_MESSAGES / LANG, and the result the same in every
//! language.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::pty::{ENTER, ESC, Session};

fn database_call() -> String {
    serde_json::json!({"questions": [{
        "question": "Which database should we use?",
        "header": "Database",
        "options": [
            {"label": "PostgreSQL (Recommended)", "description": "Battle-tested relational DB"},
            {"label": "SQLite", "description": "Lightweight, file-based"}
        ]
    }]})
    .to_string()
}

/// The result of typing "DynamoDB" through "Other": the same in every language.
const TYPED_RESULT: &str = r#"{"answered":true,"answers":[{"question":"Which database should we use?","answer":"DynamoDB","wasCustom":true}]}"#;

#[test]
fn lang_from_the_locale_shows_german_and_answers_as_in_english() {
    let db = database_call();
    let mut session = Session::start(
        "LC_ALL= LC_MESSAGES= LANG=de_DE.UTF-8 exec \"$ASK\" --mode tui call.json \
         > stdout.json 2> stderr.txt",
        &[("call.json", &db)],
    );
    session.wait_for("3. Andere (eigene Antwort eingeben)");
    session.wait_for("↑↓ bewegen • Enter wählen • Esc Abbruch • ? Tasten");
    session.key("0", "Andere: ");
    session.send("DynamoDB");
    session.wait_for("Enter senden • Esc zurück");
    session.send(ENTER);
    let (code, stdout) = session.finish();
    assert_eq!(code, 0);
    assert_eq!(stdout, format!("{TYPED_RESULT}\n"));
}

#[test]
fn lc_messages_comes_before_lang_and_the_language_yes_key_confirms() {
    let db = database_call();
    let mut session = Session::start(
        "LC_ALL= LC_MESSAGES=es_ES.UTF-8 LANG=de_DE.UTF-8 exec \"$ASK\" --mode tui call.json \
         > stdout.json 2> stderr.txt",
        &[("call.json", &db)],
    );
    session.wait_for("3. Otra (escriba su respuesta)");
    session.key("0", "Otra: ");
    session.send("DynamoDB");
    session.key(ESC, "(Enter en esta fila la envía)");
    session.key(ESC, "¿Descartar 1 respuesta? [s/N]");
    session.send("s");
    let (code, _) = session.finish();
    assert_eq!(code, 130, "s confirms the discard in Spanish");
}

#[test]
fn the_flag_wins_over_lc_all_and_wide_words_fit() {
    let db = database_call();
    let mut session = Session::start(
        "LC_ALL=fr_FR.UTF-8 exec \"$ASK\" --mode tui --lang ja call.json \
         > stdout.json 2> stderr.txt",
        &[("call.json", &db)],
    );
    session.wait_for("3. その他（自由入力）");
    session.wait_for("↑↓ 移動 • Enter で選択 • Esc で中止 • ? キー一覧");
    session.key("0", "その他: ");
    session.send("DynamoDB");
    session.send(ENTER);
    let (code, stdout) = session.finish();
    assert_eq!(code, 0);
    assert_eq!(stdout, format!("{TYPED_RESULT}\n"));
}

#[test]
fn an_unshipped_locale_falls_back_to_english() {
    let db = database_call();
    let mut session = Session::start(
        "LC_ALL=pt_BR.UTF-8 LANG=de_DE.UTF-8 exec \"$ASK\" --mode tui call.json \
         > stdout.json 2> stderr.txt",
        &[("call.json", &db)],
    );
    session.wait_for("3. Other (type your answer)");
    session.send(ESC);
    let (code, _) = session.finish();
    assert_eq!(code, 130);
}

#[test]
fn the_demo_speaks_the_language_given_before_the_word_demo() {
    let mut session = Session::start(
        "exec \"$ASK\" --lang zh --no-notify demo > stdout.json 2> stderr.txt",
        &[],
    );
    session.wait_for("✓ 提交");
    session.wait_for("4. 其他（请输入）");
    session.send(ESC);
    let (code, _) = session.finish();
    assert_eq!(code, 130);
}

#[test]
fn an_unknown_language_is_a_usage_error() {
    let output = common::ask_user()
        .args(["--lang", "xx", "--mode", "tui", "-"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("unknown language \"xx\"") && stderr.contains("en, de, es, fr, ja, zh"),
        "{stderr}"
    );
}

//! The hostile-input corpus: every entry gets a clear validation error or is accepted as safe to
//! show. Small entries live in `tests/corpus/` with their expected outcome in
//! `tests/corpus/expected.json`; huge ones are generated here.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

use common::ask_user;

fn validate(bytes: &[u8]) -> Output {
    common::run_with_stdin(&["validate"], bytes)
}

use serde_json::{Value, json};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus")
}

/// Checks one entry: a valid one exits 0; an invalid one exits 2 with its first problem at
/// `path` saying `message`. Either way the process ends normally (no crash, no signal).
#[track_caller]
fn check(name: &str, bytes: &[u8], expected: &Value) {
    let output = validate(bytes);
    let code = output.status.code();
    assert!(code.is_some(), "{name}: killed by a signal");
    let report: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{name}: stdout is not JSON ({e})"));
    if expected["valid"] == true {
        assert_eq!(code, Some(0), "{name}: {report}");
        return;
    }
    assert_eq!(code, Some(2), "{name}: {report}");
    let problem = &report["problems"][0];
    assert_eq!(problem["path"], expected["path"], "{name}: {report}");
    assert_eq!(problem["message"], expected["message"], "{name}: {report}");
    // The message on stderr never carries the hostile bytes themselves.
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !stderr.contains('\u{1b}') && !stderr.contains('\u{202e}'),
        "{name}: {stderr:?}"
    );
}

#[test]
fn every_corpus_entry_has_its_expected_outcome() {
    let entries = entries();
    let files = std::fs::read_dir(corpus()).unwrap().count() - 1;
    assert_eq!(
        files,
        entries.len(),
        "every file in tests/corpus has an entry in expected.json"
    );
    for (name, bytes, case) in &entries {
        check(name, bytes, case);
    }
}

/// The corpus entries with their expected outcomes.
fn entries() -> Vec<(String, Vec<u8>, Value)> {
    let expected: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(corpus().join("expected.json")).unwrap())
            .unwrap();
    expected
        .into_iter()
        .map(|case| {
            let name = case["name"].as_str().unwrap().to_string();
            let bytes = std::fs::read(corpus().join(format!("{name}.json"))).unwrap();
            (name, bytes, case)
        })
        .collect()
}

/// True for a character that must never reach a person's terminal raw: a control character
/// other than the line feed (so no escape sequence either), a bidi control, or a character that
/// draws nothing. This is the test's own list, not the sanitiser's; the zero-width joiner and the
/// variation selectors are left to `classify_in_context`, which allows them after a character
/// they apply to (emoji sequences, ideographic variants).
fn is_hostile(c: char) -> bool {
    (c.is_control() && c != '\n')
        || matches!(c,
            '\u{061c}' | '\u{200b}' | '\u{200c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}'
            | '\u{2060}'..='\u{2069}' | '\u{2028}' | '\u{2029}' | '\u{2800}' | '\u{3164}'
            | '\u{feff}' | '\u{e0000}'..='\u{e00ff}' | '\u{e01f0}'..='\u{e0fff}')
}

/// Fails unless `bytes`, written by `command` for `name`, are free of hostile characters.
#[track_caller]
fn check_clean(name: &str, command: &str, stream: &str, bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    let chars: Vec<char> = text.chars().collect();
    let joiner_out_of_place = |i: usize| {
        matches!(chars[i], '\u{200d}' | '\u{fe00}'..='\u{fe0f}' | '\u{e0100}'..='\u{e01ef}')
            && ask_core::classify_in_context(&chars, i) != ask_core::CharClass::Plain
    };
    if let Some(i) = (0..chars.len()).find(|&i| is_hostile(chars[i]) || joiner_out_of_place(i)) {
        panic!(
            "{name}: `{command}` wrote {} to {stream}: {text:?}",
            ask_core::describe_char(chars[i])
        );
    }
}

/// An answer a person might type or paste, or a client might send: an OSC 52 clipboard write, a
/// bell, a screen clear, a bidi override, a NUL, a C1 CSI and line breaks.
const HOSTILE_ANSWER: &str =
    "x\u{1b}]52;c;cm0=\u{7}\u{1b}[2J\u{202e}evil\u{0}\u{9b}31m\nsecond line\r\nthird";

/// Runs `ask-user ARGS` in `dir` and checks that neither stream carries a hostile character;
/// stdout is checked only when it is meant for people.
#[track_caller]
fn run_clean(name: &str, dir: &Path, args: &[&str], stdout_for_people: bool) -> Output {
    let output = common::run_in(dir, args);
    let command = args.join(" ");
    assert!(
        output.status.code().is_some(),
        "{name}: `{command}` was killed"
    );
    check_clean(name, &command, "stderr", &output.stderr);
    if stdout_for_people {
        check_clean(name, &command, "stdout", &output.stdout);
    }
    output
}

/// Every entry of the corpus goes through every command that writes for people: `validate`,
/// print mode's first pass and its instructions, `questions show` with the person's stored
/// answers, the second pass from the edited file and from a reply, and `session show` and
/// `session summary` of the records. No control character, bidi control or invisible character
/// reaches any of them, and the summary shows an answer's line breaks as ⏎.
#[test]
fn no_hostile_character_reaches_a_person() {
    for (name, bytes, expected) in entries() {
        let dir = tempfile::tempdir().unwrap();
        let call = dir.path().join("call.json");
        std::fs::write(&call, &bytes).unwrap();
        let call = call.to_str().unwrap();
        // The report names the problems and their paths, which quote the model's keys.
        run_clean(&name, dir.path(), &["validate", call], true);
        // The instructions of the first pass are text for the agent and the person; the
        // questions in them were validated, so the whole document must be clean.
        let first = run_clean(
            &name,
            dir.path(),
            &[
                "-p",
                "--output",
                "tool",
                "--pending-file",
                "p.json",
                "--session",
                "s.jsonl",
                "--call-id",
                "edited",
                call,
            ],
            true,
        );
        if expected["valid"] != true {
            assert_eq!(first.status.code(), Some(2), "{name}");
            continue;
        }
        assert_eq!(
            first.status.code(),
            Some(4),
            "{name}: {}",
            common::stderr(&first)
        );
        // The person writes hostile answers into the pending file.
        let mut pending: Value =
            serde_json::from_slice(&std::fs::read(dir.path().join("p.json")).unwrap()).unwrap();
        for question in pending["questions"].as_array_mut().unwrap() {
            question["answer"] = HOSTILE_ANSWER.into();
        }
        std::fs::write(dir.path().join("p.json"), pending.to_string()).unwrap();
        run_clean(
            &name,
            dir.path(),
            &["questions", "show", "--pending-file", "p.json"],
            true,
        );
        let second = run_clean(
            &name,
            dir.path(),
            &["-c", "--pending-file", "p.json", "--session", "s.jsonl"],
            false,
        );
        assert_eq!(
            second.status.code(),
            Some(0),
            "{name}: {}",
            common::stderr(&second)
        );
        // The same questions answered with a reply in the person's own words.
        run_clean(
            &name,
            dir.path(),
            &[
                "-p",
                "--pending-file",
                "q.json",
                "--session",
                "s.jsonl",
                "--call-id",
                "reply",
                call,
            ],
            true,
        );
        // An argument cannot hold a NUL; everything else goes through.
        let reply = HOSTILE_ANSWER.replace('\0', "");
        let second = run_clean(
            &name,
            dir.path(),
            &[
                "-p",
                "--session",
                "s.jsonl",
                "--call-id",
                "reply",
                "@q.json",
                &reply,
            ],
            false,
        );
        assert_eq!(
            second.status.code(),
            Some(0),
            "{name}: {}",
            common::stderr(&second)
        );
        run_clean(&name, dir.path(), &["session", "show", "s.jsonl"], true);
        let summary = run_clean(&name, dir.path(), &["session", "summary", "s.jsonl"], true);
        let summary = String::from_utf8(summary.stdout).unwrap();
        let questions = pending["questions"].as_array().unwrap().len();
        // One line per answer of the edited call, one for the reply.
        assert_eq!(summary.lines().count(), questions + 1, "{name}: {summary}");
        assert!(
            summary.contains("31m⏎second line⏎third"),
            "{name}: {summary}"
        );
    }
}

#[test]
fn a_ten_megabyte_question() {
    let call = json!({"questions": [{"question": "x".repeat(10 * 1024 * 1024)}]});
    check(
        "10 MB question",
        call.to_string().as_bytes(),
        &json!({"valid": false, "path": "/questions/0/question",
                "message": "the question is 10485760 characters long; shorten it to 1000"}),
    );
}

#[test]
fn ten_thousand_options() {
    let options: Vec<Value> = (0..10_000)
        .map(|i| json!({"label": format!("Option {i}")}))
        .collect();
    let call = json!({"questions": [{"question": "Which?", "options": options}]});
    check(
        "10,000 options",
        call.to_string().as_bytes(),
        &json!({"valid": false, "path": "/questions/0/options",
                "message": "10000 options given; give 2 to 4 (the person can always type another answer through \"Other\"; a host that wants more raises the limit with `--max-options 10000`)"}),
    );
}

#[test]
fn nesting_ten_thousand_deep() {
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let call =
        format!(r#"{{"questions": [{{"question": "Q?"}}], "metadata": {{"deep": {deep}}}}}"#);
    check(
        "nesting 10,000 deep",
        call.as_bytes(),
        &json!({"valid": false, "path": "",
                "message": "not valid JSON at line 1, column 183: recursion limit exceeded"}),
    );
}

#[test]
fn a_closed_stdout_is_a_clean_exit() {
    // A session log with one answered call, through print mode's two passes.
    let dir = tempfile::tempdir().unwrap();
    let (call, log, pending) = (
        dir.path().join("call.json"),
        dir.path().join("session.jsonl"),
        dir.path().join("pending.json"),
    );
    let question = json!({"question": "Which database?", "header": "Database",
        "options": [{"label": "PostgreSQL", "description": "x"}, {"label": "SQLite", "description": "y"}]});
    std::fs::write(&call, json!({"questions": [question]}).to_string()).unwrap();
    let kept = [
        "--session",
        log.to_str().unwrap(),
        "--pending-file",
        pending.to_str().unwrap(),
    ];
    let first = (ask_user()
        .args(["-p", "--call-id", "toolu_1"])
        .args(kept)
        .arg(&call))
    .output()
    .unwrap();
    assert_eq!(first.status.code(), Some(4));
    let second = (ask_user()
        .args(["-p", "--answers", r#"["SQLite"]"#])
        .args(kept))
    .output()
    .unwrap();
    assert_eq!(second.status.code(), Some(0));
    let (call, log) = (call.to_str().unwrap(), log.to_str().unwrap());
    for args in [
        &["schema", "--format", "mcp"][..],
        &["validate", call],
        &["session", "show", log],
        &["session", "summary", log],
    ] {
        let mut child = ask_user()
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // The reader goes away before reading anything.
        drop(child.stdout.take());
        let output = child.wait_with_output().unwrap();
        assert_eq!(output.status.code(), Some(0), "{args:?}");
        assert!(
            output.stderr.is_empty(),
            "{args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

#[test]
fn an_answer_whose_agent_stopped_reading_ends_as_a_lost_connection_and_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let pending = dir.path().join("pending.json");
    let call = dir.path().join("call.json");
    let question = json!({"question": "Which database?", "header": "Database",
        "options": [{"label": "PostgreSQL", "description": "x"}, {"label": "SQLite", "description": "y"}]});
    std::fs::write(&call, json!({"questions": [question]}).to_string()).unwrap();
    let pending_file = ["--pending-file", pending.to_str().unwrap()];
    let first = ask_user()
        .arg("-p")
        .args(pending_file)
        .arg(&call)
        .output()
        .unwrap();
    assert_eq!(first.status.code(), Some(4));
    // Pass 2, whose reader went away before the answers were printed: they never reached the
    // agent, so the ask ends as a lost connection, and the pending file keeps them.
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let output = ask_user()
        .args(["-p", "--answers", r#"["SQLite"]"#])
        .args(pending_file)
        .stdout(writer)
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(5),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(pending.exists());
    // The next pass 2 delivers them.
    let again = ask_user()
        .args(["-p", "-c"])
        .args(pending_file)
        .output()
        .unwrap();
    assert_eq!(
        again.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    let result: Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(result["answers"][0]["answer"], "SQLite");
    assert!(!pending.exists());
}

/// The frames `ask-user --mode embedded` draws for the call in `path` when the host sends
/// `inputs` (each the bytes of one keypress or paste) and then goes away: every frame's lines
/// with their SGR styling taken out, one string per frame.
fn embedded_frames(path: &Path, inputs: &[&str]) -> Vec<String> {
    let mut lines = vec![json!({"type": "size", "width": 60, "maxHeight": 24}).to_string()];
    lines.extend(
        inputs
            .iter()
            .map(|data| json!({"type": "input", "data": data}).to_string()),
    );
    let mut input = lines.join("\n");
    input.push('\n');
    let output = common::run_with_stdin(
        &["--mode", "embedded", path.to_str().unwrap()],
        input.as_bytes(),
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|message| message["type"] == "frame")
        .map(|frame| {
            let lines: Vec<String> = frame["lines"]
                .as_array()
                .unwrap()
                .iter()
                .map(|l| without_sgr(l.as_str().unwrap()))
                .collect();
            lines.join("\n")
        })
        .collect()
}

/// `text` without its SGR sequences (`ESC [ digits and ; m`), the only escapes a frame may
/// hold: any other escape is left in, for the check to find.
fn without_sgr(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("\u{1b}[") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let params = after
            .find(|c: char| !(c.is_ascii_digit() || c == ';'))
            .unwrap_or(after.len());
        if after[params..].starts_with('m') {
            rest = &after[params + 1..];
        } else {
            out.push_str("\u{1b}[");
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// The embedded presenter's frames, drawn in a host's own terminal UI, carry nothing but text
/// and SGR styling for every valid entry of the corpus, with a hostile answer typed into the
/// "Other" field; and a secret typed there never reaches a frame, in the field or the review.
#[test]
fn embedded_frames_carry_no_hostile_character_and_no_secret() {
    let dir = tempfile::tempdir().unwrap();
    for (name, bytes, expected) in entries() {
        if expected["valid"] != true {
            continue;
        }
        let path = dir.path().join(format!("{name}.json"));
        std::fs::write(&path, &bytes).unwrap();
        // Open "Other" (0), paste a hostile answer, then Ctrl+C twice.
        let paste = format!("\u{1b}[200~{HOSTILE_ANSWER}\u{1b}[201~");
        let frames = embedded_frames(&path, &["0", &paste, "\u{3}", "\u{3}"]);
        assert!(frames.len() > 2, "{name}: {frames:?}");
        for frame in &frames {
            check_clean(&name, "--mode embedded", "a frame", frame.as_bytes());
        }
    }
    let secret = dir.path().join("secret.json");
    std::fs::write(
        &secret,
        json!({"questions": [
            {"question": "Which key?", "header": "Key", "secret": true,
             "options": [{"label": "old"}, {"label": "new"}]},
            {"question": "Paste the deploy token", "header": "Token", "secret": true}
        ]})
        .to_string(),
    )
    .unwrap();
    // Other text on the first question, the token on the second, then the review.
    let frames = embedded_frames(
        &secret,
        &["0", "hunter2-other", "\r", "tok-SECRET-123", "\r"],
    );
    let last = frames.last().unwrap();
    assert!(last.contains("[secret]"), "the review masks: {last}");
    for frame in &frames {
        for secret in ["hunter2", "tok-SECRET-123", "SECRET"] {
            assert!(!frame.contains(secret), "a frame shows {secret}: {frame}");
        }
        check_clean("secret", "--mode embedded", "a frame", frame.as_bytes());
    }
}

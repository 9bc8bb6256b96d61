//! The session log: one JSON line per finished call, keyed by the agent's tool-call id, for replay
//! and history. All of its disk access is here.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use ask_core::{Record, Status};

/// An append-only session log.
#[derive(Debug, Clone)]
pub struct SessionLog {
    path: PathBuf,
}

/// The records of a log, and what was skipped while reading it.
#[derive(Debug, Default)]
pub struct History {
    /// The records, in the order they were written.
    pub records: Vec<Record>,
    /// One sentence per skipped line.
    pub warnings: Vec<String>,
}

impl SessionLog {
    /// The log at `path`.
    pub fn new(path: impl Into<PathBuf>) -> SessionLog {
        SessionLog { path: path.into() }
    }

    /// The log's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Reads every record. A missing file is an empty log; a line that is not a record (such as
    /// a last line cut short by a crash) is skipped with a warning, and every other record is
    /// kept. Records are acted on, so a log another user owns or may write, or a symbolic
    /// link, is refused ([`ask_fs::open_acted_on`]).
    pub fn read(&self) -> io::Result<History> {
        let Some(bytes) = ask_fs::read_acted_on(&self.path)? else {
            return Ok(History::default());
        };
        Ok(parse_history(&bytes, &self.path))
    }

    /// The record of the call `call_id`, if the log has one (the first, should an old log hold
    /// several), and warnings about lines that look like that call's but are not records.
    ///
    /// The log is streamed a line at a time and only lines that mention the call id are parsed,
    /// so memory does not grow with the log and a lookup in a long log stays fast. A record
    /// found is replayed without asking, so a log another user owns or may write, or a
    /// symbolic link, is refused ([`ask_fs::open_acted_on`]).
    pub fn find(&self, call_id: &str) -> io::Result<(Option<Record>, Vec<String>)> {
        let Some(file) = ask_fs::open_acted_on(&self.path)? else {
            return Ok((None, Vec::new()));
        };
        scan(
            BufReader::with_capacity(64 * 1024, file),
            call_id,
            &self.path,
        )
    }

    /// The answers given earlier in this log to questions whose text is `question`, newest
    /// first, at most `max`, each once: what ↑ recalls in the terminal UI's text fields.
    ///
    /// Only answered records count; a secret answer (kept as `"[secret]"`) never does. The log
    /// is streamed and only lines that hold the question's text are parsed; a log that cannot
    /// be read has no earlier answers.
    pub fn earlier_answers(&self, question: &str, max: usize) -> Vec<String> {
        let Ok(Some(file)) = ask_fs::open_acted_on(&self.path) else {
            return Vec::new();
        };
        let Ok(needle) = serde_json::to_string(question) else {
            return Vec::new();
        };
        let finder = memchr::memmem::Finder::new(needle.as_bytes());
        let mut reader = BufReader::with_capacity(64 * 1024, file);
        let mut found: std::collections::VecDeque<String> = std::collections::VecDeque::new();
        let mut line = Vec::new();
        while matches!(reader.read_until(b'\n', &mut line), Ok(n) if n > 0) {
            if finder.find(&line).is_some()
                && let Ok(record) = serde_json::from_slice::<Record>(&line)
                && record.status == Status::Answered
            {
                for answer in record.answers.iter().filter(|a| a.question == question) {
                    let text = answer.answer.joined();
                    if text.is_empty() || text == ask_core::SECRET_PLACEHOLDER {
                        continue;
                    }
                    found.retain(|earlier| *earlier != text);
                    found.push_back(text);
                    if found.len() > max {
                        found.pop_front();
                    }
                }
            }
            line.clear();
        }
        found.into_iter().rev().collect()
    }

    /// Takes the lock of the call `call_id` (a file in `<log>.calls/`), waiting while another
    /// process holds it: concurrent asks of one call wait for the first one, which then has a
    /// record to replay. This is not the log's own lock, which is held only for the moment of
    /// an append. The folder is made 0700 and the lock 0600, never through a symbolic link
    /// ([`ask_fs::open_lock`]).
    pub(crate) fn lock_call(&self, call_id: &str) -> io::Result<CallLock> {
        let file = ask_fs::open_lock(&self.call_lock_path(call_id))?;
        file.lock()?;
        Ok(CallLock { _file: file })
    }

    /// Removes the lock file of a call that has its record: whoever still waits on it finds the
    /// record and replays it, and a later ask of the call creates a new one.
    pub(crate) fn forget_call_lock(&self, call_id: &str) {
        let _ = ask_fs::remove(&self.call_lock_path(call_id));
    }

    fn call_lock_path(&self, call_id: &str) -> PathBuf {
        let mut dir = self.path.clone().into_os_string();
        dir.push(".calls");
        PathBuf::from(dir).join(format!("{:016x}.lock", fnv1a(call_id.as_bytes())))
    }

    /// Appends `record` as one line, unless the log already holds a record of its call: then
    /// that record is returned and nothing is written. Only a [`Kept`] record can be appended,
    /// so no secret answer reaches the log. The lookup and the append happen under
    /// one exclusive lock, so a call id never gets two records; a torn last line left by a crash
    /// is cut off first, and the line is synced to disk before this returns. The log (0600, its
    /// folder 0700 when made) is never opened through a symbolic link, and refused when another
    /// user owns it or may write it ([`ask_fs::open_append`]).
    pub(crate) fn append_once(&self, record: &Kept) -> io::Result<Appended> {
        let record = &record.0;
        let mut line = serde_json::to_vec(record).map_err(io::Error::other)?;
        line.push(b'\n');
        let mut file = ask_fs::open_append(&self.path, ask_fs::Append { read: true })?;
        file.lock()?;
        repair_torn_tail(&mut file)?;
        if let Some(call_id) = record.call_id.as_deref() {
            file.seek(SeekFrom::Start(0))?;
            let (found, _) = scan(
                BufReader::with_capacity(64 * 1024, &file),
                call_id,
                &self.path,
            )?;
            if let Some(found) = found {
                file.unlock()?;
                return Ok(Appended::Existing(Box::new(found)));
            }
        }
        let length = file.metadata()?.len();
        let written = file.write_all(&line).and_then(|()| {
            ask_core::failpoint("session:before-sync");
            file.sync_all()
        });
        if let Err(error) = written {
            // A full disk may have taken part of the line: cut it off so that nothing
            // half-written stays in the log.
            let _ = file.set_len(length).and_then(|()| file.sync_all());
            return Err(error);
        }
        ask_core::failpoint("session:after-append");
        file.unlock()?;
        Ok(Appended::Written)
    }
}

/// A record as the session log keeps it: every secret answer, its chosen option, note and
/// preview replaced by `"[secret]"` ([`Record::redacted`]). The only way to make one is
/// [`Kept::of`], so a record cannot reach the log unredacted by a forgotten call.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Kept(Record);

impl Kept {
    /// `record` as the log keeps it.
    pub(crate) fn of(record: &Record) -> Kept {
        Kept(record.redacted())
    }

    /// The kept record.
    pub(crate) fn record(&self) -> &Record {
        &self.0
    }
}

/// What [`SessionLog::append_once`] did.
#[derive(Debug)]
pub(crate) enum Appended {
    /// The record was appended.
    Written,
    /// The log already held a record of the call, which stands; nothing was written.
    Existing(Box<Record>),
}

/// The lock of one call id, held until dropped.
#[derive(Debug)]
pub(crate) struct CallLock {
    _file: File,
}

/// FNV-1a, 64 bits: a call id becomes a file name of hex digits, whatever the id holds.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Streams the lines of a log and returns the first record of `call_id`. Only lines that hold
/// the call id as a JSON string are parsed.
fn scan(
    mut reader: impl BufRead,
    call_id: &str,
    path: &Path,
) -> io::Result<(Option<Record>, Vec<String>)> {
    let needle = serde_json::to_string(call_id).map_err(io::Error::other)?;
    let finder = memchr::memmem::Finder::new(needle.as_bytes());
    let mut warnings = Vec::new();
    let mut line = Vec::new();
    let mut number = 0;
    loop {
        line.clear();
        if reader.read_until(b'\n', &mut line)? == 0 {
            return Ok((None, warnings));
        }
        number += 1;
        if finder.find(&line).is_none() {
            continue;
        }
        let complete = line.last() == Some(&b'\n');
        match serde_json::from_slice::<Record>(&line) {
            Ok(record) if record.call_id.as_deref() == Some(call_id) => {
                return Ok((Some(record), warnings));
            }
            Ok(_) => {}
            Err(_) if !complete => warnings.push(format!(
                "skipped the last line of {} (line {number}): it was cut short, probably by a \
                 crash while it was written",
                path.display()
            )),
            Err(error) => warnings.push(format!(
                "skipped line {number} of {}: it is not a record ({error})",
                path.display()
            )),
        }
    }
}

/// Cuts off a last line without its line feed: what a crash while it was written leaves. The
/// caller holds the log's lock, so no writer is still at work on it, and it was never synced,
/// recorded or delivered.
fn repair_torn_tail(file: &mut File) -> io::Result<()> {
    let len = file.metadata()?.len();
    let mut keep = len;
    let mut buffer = vec![0u8; 64 * 1024];
    while keep > 0 {
        let start = keep.saturating_sub(buffer.len() as u64);
        let chunk = &mut buffer[..usize::try_from(keep - start).unwrap_or(0)];
        file.seek(SeekFrom::Start(start))?;
        file.read_exact(chunk)?;
        if let Some(at) = chunk.iter().rposition(|b| *b == b'\n') {
            keep = start + at as u64 + 1;
            break;
        }
        keep = start;
    }
    if keep < len {
        file.set_len(keep)?;
        file.sync_all()?;
    }
    Ok(())
}

/// Parses the lines of a log.
fn parse_history(bytes: &[u8], path: &Path) -> History {
    let mut history = History::default();
    let text = String::from_utf8_lossy(bytes);
    let complete = text.ends_with('\n');
    let lines: Vec<&str> = text.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Record>(line) {
            Ok(record) => history.records.push(record),
            Err(_) if i + 1 == lines.len() && !complete => history.warnings.push(format!(
                "skipped the last line of {} (line {}): it was cut short, probably by a crash \
                 while it was written",
                path.display(),
                i + 1
            )),
            Err(error) => history.warnings.push(format!(
                "skipped line {} of {}: it is not a record ({error})",
                i + 1,
                path.display()
            )),
        }
    }
    history
}

/// True when a record is final and belongs in the log: answered or cancelled. A call whose client
/// went away, or whose questions wait in a pending file, is not finished, and asks again.
pub(crate) fn is_final(record: &Record) -> bool {
    matches!(record.status, Status::Answered | Status::Cancelled)
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)]
mod tests {
    use super::*;
    use ask_core::{Answer, AskUserInput, Mode, Outcome, Question};
    use std::fs::{self, OpenOptions};

    fn record(id: &str) -> Record {
        let input = AskUserInput {
            questions: vec![Question::text("Name?")],
            metadata: None,
        };
        let answers = vec![Answer::custom("Name?", id)];
        Record::new(input, Mode::Print, Outcome::Answered(answers))
            .with_call_id(Some(id.into()))
            .with_answered_at(1)
    }

    #[test]
    fn earlier_answers_are_newest_first_once_each_and_never_a_secret() {
        let dir = tempfile::tempdir().unwrap();
        let log = SessionLog::new(dir.path().join("log.jsonl"));
        assert!(log.earlier_answers("Name?", 100).is_empty(), "no log yet");
        for id in ["alpha", "beta", "alpha", "[secret]", "gamma"] {
            log.append_once(&Kept::of(&record(id))).unwrap();
        }
        let other = Record::new(
            AskUserInput {
                questions: vec![Question::text("Port?")],
                metadata: None,
            },
            Mode::Print,
            Outcome::Answered(vec![Answer::custom("Port?", "8080")]),
        )
        .with_call_id(Some("other".into()))
        .with_answered_at(1);
        log.append_once(&Kept::of(&other)).unwrap();
        // "alpha" was appended once only (one record per call id), and "[secret]" is a mask.
        assert_eq!(
            log.earlier_answers("Name?", 100),
            ["gamma", "beta", "alpha"]
        );
        assert_eq!(log.earlier_answers("Name?", 2), ["gamma", "beta"]);
        assert_eq!(log.earlier_answers("Port?", 100), ["8080"]);
        assert!(log.earlier_answers("Other?", 100).is_empty());
    }

    #[test]
    fn torn_last_line_is_skipped_then_cut_off_by_the_next_append() {
        let dir = tempfile::tempdir().unwrap();
        let log = SessionLog::new(dir.path().join("s.jsonl"));
        log.append_once(&Kept::of(&record("a"))).unwrap();
        log.append_once(&Kept::of(&record("b"))).unwrap();
        // A crash in the middle of writing a third record.
        let line = serde_json::to_string(&record("c")).unwrap();
        let mut file = OpenOptions::new().append(true).open(&log.path).unwrap();
        file.write_all(&line.as_bytes()[..line.len() / 2]).unwrap();
        drop(file);
        let history = log.read().unwrap();
        assert_eq!(history.records.len(), 2);
        assert_eq!(history.warnings.len(), 1);
        assert!(
            history.warnings[0].contains("line 3"),
            "{:?}",
            history.warnings
        );
        assert!(history.warnings[0].contains("cut short"));
        // The next append repairs the log: the torn line is gone, the records are whole.
        log.append_once(&Kept::of(&record("d"))).unwrap();
        let history = log.read().unwrap();
        let ids: Vec<_> = history
            .records
            .iter()
            .map(|r| r.call_id.clone().unwrap())
            .collect();
        assert_eq!(ids, ["a", "b", "d"]);
        assert!(history.warnings.is_empty(), "{:?}", history.warnings);
    }

    #[test]
    fn a_log_that_is_one_torn_line_is_emptied_by_the_next_append() {
        let dir = tempfile::tempdir().unwrap();
        let log = SessionLog::new(dir.path().join("s.jsonl"));
        fs::write(&log.path, b"{\"callId\":\"a\",\"quest").unwrap();
        log.append_once(&Kept::of(&record("b"))).unwrap();
        let text = fs::read_to_string(&log.path).unwrap();
        assert_eq!(text.lines().count(), 1);
        assert!(text.starts_with("{\"callId\":\"b\""), "{text}");
    }

    #[test]
    fn find_takes_the_record_of_a_call_and_append_once_keeps_it() {
        let dir = tempfile::tempdir().unwrap();
        let log = SessionLog::new(dir.path().join("nested/s.jsonl"));
        assert!(log.find("a").unwrap().0.is_none());
        log.append_once(&Kept::of(&record("a"))).unwrap();
        log.append_once(&Kept::of(&record("b"))).unwrap();
        let (found, warnings) = log.find("b").unwrap();
        assert_eq!(found.unwrap().answers[0].answer.joined(), "b");
        assert!(warnings.is_empty());
        // A second record of call `a` is refused: the first one stands.
        let mut other = record("a");
        other.answers[0] = Answer::custom("Name?", "something else");
        let Appended::Existing(first) = log.append_once(&Kept::of(&other)).unwrap() else {
            panic!("a second record of one call was written");
        };
        assert_eq!(first.answers[0].answer.joined(), "a");
        assert_eq!(log.read().unwrap().records.len(), 2);
    }

    #[test]
    fn a_call_id_that_appears_inside_another_record_is_not_taken_for_it() {
        let dir = tempfile::tempdir().unwrap();
        let log = SessionLog::new(dir.path().join("s.jsonl"));
        // The answer of call `x` is the text "b", which is also the call id looked up.
        let mut x = record("x");
        x.answers[0] = Answer::custom("Name?", "b");
        log.append_once(&Kept::of(&x)).unwrap();
        assert!(log.find("b").unwrap().0.is_none());
        log.append_once(&Kept::of(&record("b"))).unwrap();
        assert_eq!(
            log.find("b").unwrap().0.unwrap().call_id.as_deref(),
            Some("b")
        );
    }
}

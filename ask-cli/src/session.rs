//! The session log: one JSON line per finished call, keyed by the agent's tool-call id, for replay
//! and history (SPEC §6). All of its disk access is here.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
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

    /// Reads every record. A missing file is an empty log; a line that is not a record (such as
    /// a last line cut short by a crash) is skipped with a warning, and every other record is
    /// kept.
    pub fn read(&self) -> io::Result<History> {
        let bytes = match fs::read(&self.path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(History::default()),
            Err(e) => return Err(e),
        };
        Ok(parse_history(&bytes, &self.path))
    }

    /// The last record of the call `call_id`, if the log has one.
    pub fn find(&self, call_id: &str) -> io::Result<(Option<Record>, Vec<String>)> {
        let history = self.read()?;
        let found = history
            .records
            .into_iter()
            .rev()
            .find(|r| r.call_id.as_deref() == Some(call_id));
        Ok((found, history.warnings))
    }

    /// Appends `record` as one line: under an exclusive lock (so that two writers never
    /// interleave), after mending a torn last line, and synced to disk before returning.
    pub fn append(&self, record: &Record) -> io::Result<()> {
        if let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty()) {
            fs::create_dir_all(dir)?;
        }
        let mut line = serde_json::to_vec(record).map_err(io::Error::other)?;
        line.push(b'\n');
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(&self.path)?;
        file.lock()?;
        if ends_without_newline(&mut file)? {
            // A crash cut the last line short; start ours on a line of its own.
            line.insert(0, b'\n');
        }
        let length = file.metadata()?.len();
        if let Err(error) = file.write_all(&line).and_then(|()| file.sync_all()) {
            // A full disk may have taken part of the line: cut it off so that nothing
            // half-written stays in the log.
            let _ = file.set_len(length).and_then(|()| file.sync_all());
            return Err(error);
        }
        file.unlock()
    }
}

fn ends_without_newline(file: &mut File) -> io::Result<bool> {
    let len = file.metadata()?.len();
    if len == 0 {
        return Ok(false);
    }
    file.seek(SeekFrom::Start(len - 1))?;
    let mut last = [0u8; 1];
    file.read_exact(&mut last)?;
    Ok(last[0] != b'\n')
}

/// Parses the lines of a log.
pub fn parse_history(bytes: &[u8], path: &Path) -> History {
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
pub fn is_final(record: &Record) -> bool {
    matches!(record.status, Status::Answered | Status::Cancelled)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ask_core::{Answer, AskUserInput, Mode, Outcome, Question};

    fn record(id: &str) -> Record {
        let input = AskUserInput {
            questions: vec![Question::text("Name?")],
            metadata: None,
        };
        let answers = vec![Answer::custom("Name?", id)];
        Record::new(
            Some(id.into()),
            input,
            Mode::Print,
            Outcome::Answered(answers),
            1,
        )
    }

    #[test]
    fn torn_last_line_is_skipped_and_mended() {
        let dir = tempfile::tempdir().unwrap();
        let log = SessionLog::new(dir.path().join("s.jsonl"));
        log.append(&record("a")).unwrap();
        log.append(&record("b")).unwrap();
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
        // The next record starts on a fresh line and both earlier ones survive.
        log.append(&record("d")).unwrap();
        let history = log.read().unwrap();
        let ids: Vec<_> = history
            .records
            .iter()
            .map(|r| r.call_id.clone().unwrap())
            .collect();
        assert_eq!(ids, ["a", "b", "d"]);
        assert_eq!(history.warnings.len(), 1);
        assert!(
            history.warnings[0].contains("skipped line 3"),
            "{:?}",
            history.warnings
        );
    }

    #[test]
    fn find_takes_the_latest_record_of_a_call() {
        let dir = tempfile::tempdir().unwrap();
        let log = SessionLog::new(dir.path().join("nested/s.jsonl"));
        assert!(log.find("a").unwrap().0.is_none());
        log.append(&record("a")).unwrap();
        log.append(&record("b")).unwrap();
        let (found, warnings) = log.find("b").unwrap();
        assert_eq!(found.unwrap().answers[0].answer.joined(), "b");
        assert!(warnings.is_empty());
    }
}

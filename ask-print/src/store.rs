//! The one module of this crate that touches the disk: reading the pending file, writing it
//! atomically and durably, removing it, and the lock that serialises writers.

use std::fs::File;
use std::io::{self, Read, Seek, Write};
use std::path::{Path, PathBuf};

use ask_fs::{Dir, NewFile, Rule};

use ask_core::failpoint;
use serde_json::Value;

use crate::answers::strip_position;
use crate::error::PrintError;
use crate::pending::{FORMAT_VERSION, PendingFile};

/// The pending file at one path.
#[derive(Debug, Clone)]
pub struct Store {
    path: PathBuf,
}

/// A pending file as read: its exact bytes (to detect later edits) and its contents.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The bytes on disk when read.
    pub bytes: Vec<u8>,
    /// The parsed file.
    pub file: PendingFile,
}

/// An exclusive lock on the pending file, held until dropped.
///
/// The lock file also says whether the pending file last written under it waits for the model's
/// next call of its questions (`awaitsCall`, then the words of those questions as a JSON list),
/// so that pass 2 can tell when a file written by hand has taken the place of such a file, and
/// put its answers under the questions the model asked.
#[derive(Debug)]
pub struct Lock {
    file: File,
}

/// The first line of the lock file while the pending file waits for the model's next call.
const AWAITS_CALL: &[u8] = b"awaitsCall\n";

/// What the lock file says of a pending file that waits for the model's next call: the tool as
/// the model knows it, and the words of the questions, so that pass 2 can name the one and put a
/// hand-written file's answers under the other.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Awaited {
    /// The tool's name as served (`--tool-name`).
    pub(crate) tool: String,
    /// The words of the questions, in order.
    pub(crate) questions: Vec<String>,
}

impl Lock {
    /// Notes whether the pending file just written waits for the model's next call, and what
    /// that call is.
    pub(crate) fn mark_awaits_call(&mut self, awaits: Option<&Awaited>) -> io::Result<()> {
        self.file.set_len(0)?;
        self.file.rewind()?;
        if let Some(awaited) = awaits {
            self.file.write_all(AWAITS_CALL)?;
            serde_json::to_writer(&mut self.file, awaited)?;
            self.file.write_all(b"\n")?;
        }
        self.file.sync_data()
    }

    /// What the pending file last written under this lock waited for, when it waited for the
    /// model's next call and has not been removed since (empty when the mark says no more).
    pub(crate) fn awaited_call(&mut self) -> Option<Awaited> {
        let mut held = Vec::new();
        self.file.rewind().ok()?;
        self.file.read_to_end(&mut held).ok()?;
        let rest = held.strip_prefix(AWAITS_CALL)?;
        Some(serde_json::from_slice(rest).unwrap_or_default())
    }
}

impl Store {
    /// The pending file at `path`.
    pub fn new(path: impl Into<PathBuf>) -> Store {
        Store { path: path.into() }
    }

    /// The path of the pending file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn io(&self, action: &'static str, path: &Path) -> impl FnOnce(io::Error) -> PrintError {
        let path = path.to_path_buf();
        move |source| PrintError::Io {
            action,
            path,
            source,
        }
    }

    /// Takes the lock file beside the pending file (`<file>.lock`), waiting for other writers.
    /// The folder is made 0700 when missing, and refused when another user owns it or may
    /// write it (a sticky folder such as `/tmp` aside); the lock is never opened through a
    /// symbolic link, and refused when another user owns it ([`Dir::lock_file`]).
    ///
    /// Every write of the pending file happens under this lock, so a temporary file
    /// (`<file>.tmp-` and random hex digits) found once the lock is held was left by a writer
    /// killed between creating it and the rename; it is removed.
    pub fn lock(&self) -> Result<Lock, PrintError> {
        let dir = self.dir().unwrap_or(Path::new("."));
        let folder =
            Dir::create(dir, Rule::Shared).map_err(self.io("cannot use the folder", dir))?;
        let lock_path = self.sibling(".lock");
        let file = folder
            .lock_file(lock_path.file_name().unwrap_or_default())
            .map_err(self.io("cannot open the lock file", &lock_path))?;
        file.lock().map_err(self.io("cannot lock", &lock_path))?;
        folder.remove_temporaries_of(self.path.file_name().unwrap_or_default());
        Ok(Lock { file })
    }

    /// Reads and parses the pending file; `None` when there is none. Its answers are acted on,
    /// so it is refused when another user owns it or may write it, or it is a symbolic link.
    pub fn read(&self) -> Result<Option<Loaded>, PrintError> {
        let bytes = match ask_fs::read_acted_on(&self.path) {
            Ok(Some(bytes)) => bytes,
            Ok(None) => return Ok(None),
            Err(e) => return Err(self.io("cannot read", &self.path)(e)),
        };
        let file = parse(&self.path, &bytes)?;
        Ok(Some(Loaded { bytes, file }))
    }

    /// Writes a new pending file atomically. The caller holds the lock and has checked that
    /// there is no pending file.
    pub fn create(&self, file: &PendingFile) -> Result<(), PrintError> {
        write_atomic(&self.path, file.to_text().as_bytes(), &crash_before_rename)
            .map_err(self.io("cannot write", &self.path))?;
        failpoint("pending:after-rename");
        Ok(())
    }

    /// Replaces the pending file atomically with `file`, unless it changed since `read`, and
    /// returns what is now on disk. The caller holds the lock.
    pub fn replace(&self, read: &Loaded, file: PendingFile) -> Result<Loaded, PrintError> {
        self.check_unchanged(read)?;
        let bytes = file.to_text().into_bytes();
        write_atomic(&self.path, &bytes, &crash_before_rename)
            .map_err(self.io("cannot write", &self.path))?;
        failpoint("pending:after-rename");
        Ok(Loaded { bytes, file })
    }

    /// Removes the pending file, unless it changed since `read`.
    pub fn remove(&self, read: &Loaded) -> Result<(), PrintError> {
        self.check_unchanged(read)?;
        failpoint("pending:before-remove");
        self.remove_unchecked()
    }

    /// Removes the pending file whatever it holds (`ask-user questions clear`).
    pub fn remove_unchecked(&self) -> Result<(), PrintError> {
        match ask_fs::remove(&self.path) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(self.io("cannot remove", &self.path)(e)),
        }
        failpoint("pending:after-remove");
        // No pending file waits for a call any more. The caller holds the lock.
        if let Ok(lock) = ask_fs::open_lock(&self.sibling(".lock")) {
            let _ = lock.set_len(0);
        }
        let dir = self.dir().unwrap_or(Path::new("."));
        Dir::open(dir, Rule::Shared)
            .and_then(|folder| folder.sync())
            .map_err(self.io("cannot sync the folder", dir))?;
        Ok(())
    }

    fn check_unchanged(&self, read: &Loaded) -> Result<(), PrintError> {
        let now = ask_fs::read_acted_on(&self.path)
            .and_then(|read| read.ok_or_else(|| io::ErrorKind::NotFound.into()))
            .map_err(self.io("cannot read", &self.path))?;
        if now == read.bytes {
            Ok(())
        } else {
            Err(PrintError::Changed {
                path: self.path.clone(),
                read: read.file.revision,
            })
        }
    }

    fn dir(&self) -> Option<&Path> {
        self.path.parent().filter(|p| !p.as_os_str().is_empty())
    }

    fn sibling(&self, suffix: &str) -> PathBuf {
        let mut name = self.path.file_name().unwrap_or_default().to_os_string();
        name.push(suffix);
        self.path.with_file_name(name)
    }
}

/// Parses pending-file bytes: JSON syntax first (with line and column), then the version, then
/// the kind of each field it knows, then the shape.
pub fn parse(path: &Path, bytes: &[u8]) -> Result<PendingFile, PrintError> {
    let malformed = |e: serde_json::Error| PrintError::Malformed {
        path: path.to_path_buf(),
        line: e.line(),
        column: e.column(),
        reason: strip_position(&e.to_string()),
    };
    // A byte-order mark, as some editors save one, is not part of the JSON.
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    let value: Value = serde_json::from_slice(bytes).map_err(malformed)?;
    if let Some(found) = value.get("version").and_then(Value::as_u64)
        && found > u64::from(FORMAT_VERSION)
    {
        return Err(PrintError::NewerVersion {
            path: path.to_path_buf(),
            found,
            supported: FORMAT_VERSION,
        });
    }
    // A field present with the wrong kind of value is named with what to write, rather than
    // by the parser's words and a position.
    if let Some(wrong) = crate::pending::wrong_field(&value) {
        return Err(PrintError::WrongField {
            path: path.to_path_buf(),
            wrong,
        });
    }
    serde_json::from_slice(bytes).map_err(malformed)
}

/// Writes `bytes` to `path` so that a reader sees the old file or the new one, never a part
/// ([`Dir::write_file`]: a temporary file under a random name, created 0600 without following
/// a link, synced, renamed over `path`, the folder synced), in a folder checked by
/// [`Rule::Shared`].
///
/// `before_rename` runs after the temporary file is complete; tests use it to stand in for a
/// crash at that moment.
pub(crate) fn write_atomic(
    path: &Path,
    bytes: &[u8],
    before_rename: &dyn Fn(&Path) -> io::Result<()>,
) -> io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    Dir::create(dir, Rule::Shared)?.write_file(&NewFile {
        name: path.file_name().unwrap_or_default(),
        bytes,
        before_rename: Some(before_rename),
    })
}

/// The `before_rename` of every write of the pending file: only the failpoint.
fn crash_before_rename(_: &Path) -> io::Result<()> {
    failpoint("pending:before-rename");
    Ok(())
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn a_temporary_file_left_by_a_dead_writer_is_removed_under_the_lock() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pending.json");
        fs::write(&path, b"old contents").unwrap();
        // What a writer killed between writing and renaming leaves behind.
        fs::write(dir.path().join("pending.json.tmp-4242"), b"new cont").unwrap();
        fs::write(dir.path().join("pending.json.tmp-5f3a9c0e1b2d4876"), b"new").unwrap();
        fs::write(dir.path().join("pending.json.tmp-notes"), b"kept").unwrap();
        fs::write(dir.path().join("other.json.tmp-4242"), b"kept").unwrap();
        let store = Store::new(&path);
        let _lock = store.lock().unwrap();
        let mut names: Vec<String> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(
            names,
            [
                "other.json.tmp-4242",
                "pending.json",
                "pending.json.lock",
                "pending.json.tmp-notes"
            ]
        );
        assert_eq!(fs::read(&path).unwrap(), b"old contents");
    }

    #[test]
    fn a_crash_before_the_rename_keeps_the_old_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pending.json");
        fs::write(&path, b"old contents").unwrap();
        let crash = |temp: &Path| {
            // The new contents are complete in the temporary file when the crash happens.
            assert_eq!(fs::read(temp).unwrap(), b"new contents");
            Err(io::Error::other("simulated crash"))
        };
        let err = write_atomic(&path, b"new contents", &crash).unwrap_err();
        assert_eq!(err.to_string(), "simulated crash");
        assert_eq!(fs::read(&path).unwrap(), b"old contents");
        let left: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, ["pending.json"], "no temporary file is left behind");
    }

    #[test]
    fn atomic_write_replaces() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pending.json");
        write_atomic(&path, b"one", &|_| Ok(())).unwrap();
        write_atomic(&path, b"two", &|_| Ok(())).unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"two");
    }

    #[test]
    fn newer_versions_are_refused_before_the_shape_is_checked() {
        let err = parse(Path::new("p.json"), br#"{"version": 2, "whatever": true}"#).unwrap_err();
        assert_eq!(
            err.to_string(),
            "`p.json` is in format version 2, but this ask-user reads version 1; answer it with a newer ask-user"
        );
    }

    #[test]
    fn malformed_files_name_line_and_column() {
        let err = parse(
            Path::new("p.json"),
            b"{\n  \"version\": 1,\n  \"questions\": [,]\n}",
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "`p.json` is not a valid pending-questions file: expected value at line 3, column 17"
        );
    }
}

//! The one checked way ask-user touches files. Every file it creates, rewrites, appends to,
//! locks or acts on is opened here, relative to a descriptor of its folder, so that another
//! user of the machine cannot aim a write elsewhere with a symbolic link or plant a file for
//! ask-user to act on.
//!
//! - A folder is opened with `O_DIRECTORY|O_NOFOLLOW` and checked once open ([`Dir`], [`Rule`]):
//!   owned by the user, root or a trusted owner ([`trust_owners`]), and writable by nobody else,
//!   but for group write in the user's private group and, except under [`Rule::Strict`], a
//!   sticky folder such as `/tmp`. A missing folder is made 0700, one component at a time.
//! - A new or rewritten file is written under a random name with `O_CREAT|O_EXCL|O_NOFOLLOW`,
//!   0600, synced, renamed into place and the folder synced ([`Dir::write_file`]).
//! - A lock file keeps its name, is opened without following a link, and is refused when it is
//!   not a regular file or another user owns it ([`Dir::lock_file`]).
//! - An append opens with `O_APPEND|O_NOFOLLOW` and refuses another user's file
//!   ([`open_append`]). A FIFO or character device of the user's that the person names is
//!   written as it is, and a descriptor of the process's own (`/dev/fd/N`, `/dev/stdout`,
//!   `/dev/stderr`) through its links: the one place a symbolic link is followed, since
//!   `/dev/fd/N` is one and the person chose it.
//! - A regular file with a second name (a hard link) is never locked, appended to or acted on,
//!   and a FIFO put where a file is read or locked is refused without waiting on it.
//! - A file ask-user acts on (a session log it replays, answers it reads back, a token it uses)
//!   is refused when another user owns it or could write it ([`open_acted_on`]).
//! - A file nothing acts on (the call to ask) is read as it is ([`read_plain`]).
//!
//! Every refusal is a [`Refusal`] inside an `io::Error` of kind `PermissionDenied`: one sentence
//! naming the file and what is wrong with it.

// This crate is the one place of the workspace allowed to open files with std::fs.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

mod dir;
mod rules;

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use rustix::fs::{Mode, OFlags};

pub use dir::{BeforeRename, Dir, NewFile};
pub use rules::{Problem, Refusal, Rule, trust_owners, trusted_owners};

/// How [`open_append`] opens a file.
#[derive(Debug, Clone, Copy, Default)]
pub struct Append {
    /// The file is read back as well (the session log, which is scanned for a call's record and
    /// whose torn last line is cut off): it is opened for reading too and checked as a file
    /// ask-user acts on, and a FIFO or device is not accepted.
    pub read: bool,
}

/// The folder and the name of `path`: `.` for a bare name.
fn split(path: &Path) -> io::Result<(&Path, OsString)> {
    let name = path.file_name().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("`{}` does not name a file", path.display()),
        )
    })?;
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    Ok((dir, name.to_os_string()))
}

/// Writes `bytes` to `path` so that a reader sees the old file or the new one, never a part:
/// its folder is opened (made 0700 when missing) and checked by [`Rule::Shared`], then
/// [`Dir::write_file`].
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let (dir, name) = split(path)?;
    Dir::create(dir, Rule::Shared)?.write_file(&NewFile {
        name: &name,
        bytes,
        before_rename: None,
    })
}

/// Opens the lock file `path` (its folder made 0700 when missing): see [`Dir::lock_file`].
pub fn open_lock(path: &Path) -> io::Result<File> {
    let (dir, name) = split(path)?;
    Dir::create(dir, Rule::Shared)?.lock_file(&name)
}

/// True when `path` names one of the process's own descriptors, which the person gave on
/// purpose: `/dev/fd/N`, `/proc/self/fd/N`, `/dev/stdout` or `/dev/stderr`.
fn names_a_descriptor(path: &Path) -> bool {
    let Some(text) = path.to_str() else {
        return false;
    };
    let number = |rest: &str| !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit());
    text == "/dev/stdout"
        || text == "/dev/stderr"
        || text.strip_prefix("/dev/fd/").is_some_and(number)
        || text.strip_prefix("/proc/self/fd/").is_some_and(number)
}

/// Opens `path` for appending, creating it 0600 (and its folder 0700) when missing.
///
/// The file is opened relative to its checked folder with `O_APPEND|O_NOFOLLOW`, and must be a
/// regular file of the user's, root's or a trusted owner's, with one name. With `options.read`
/// it is opened for reading too and checked as a file ask-user acts on ([`open_acted_on`]).
///
/// Without `options.read`, a FIFO or character device of the user's, root's or a trusted
/// owner's in a checked folder is opened as it is, and one of the process's own descriptors the
/// person names (`/dev/fd/N`, `/proc/self/fd/N`, `/dev/stdout`, `/dev/stderr`) is opened
/// following the links on its way: the one place ask-user follows one, since `/dev/fd/N` is a
/// link and the process's own descriptors are the person's choice. Any other path is never
/// followed.
pub fn open_append(path: &Path, options: Append) -> io::Result<File> {
    if !options.read && names_a_descriptor(path) {
        let fd = rustix::fs::open(
            path,
            OFlags::WRONLY | OFlags::APPEND | OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        return Ok(File::from(fd));
    }
    let (dir, name) = split(path)?;
    let dir = Dir::create(dir, Rule::Shared)?;
    if !options.read
        && let Some(stream) = dir.open_stream(&name)?
    {
        return Ok(stream);
    }
    dir.append(&name, options)
}

/// Opens the file `path` that ask-user will act on (a session log to replay, answers to read
/// back, a token to use), for reading; `None` when it or its folder does not exist.
///
/// Its folder must pass [`Rule::Shared`], and the file must be a regular file (never a symbolic
/// link) of the user's, root's or a trusted owner's that neither its group (but the user's
/// private group) nor other users may write.
pub fn open_acted_on(path: &Path) -> io::Result<Option<File>> {
    let (dir, name) = split(path)?;
    match Dir::open(dir, Rule::Shared) {
        Ok(dir) => dir.open_acted_on(&name),
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(error),
    }
}

/// Reads the whole of the file `path` that ask-user will act on ([`open_acted_on`]); `None`
/// when it does not exist.
pub fn read_acted_on(path: &Path) -> io::Result<Option<Vec<u8>>> {
    let Some(mut file) = open_acted_on(path)? else {
        return Ok(None);
    };
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)?;
    Ok(Some(bytes))
}

/// Opens `path` for reading as it is, following links: for a file nothing acts on, such as the
/// call to ask, whose every question is shown to the person before anything is answered.
pub fn open_plain(path: &Path) -> io::Result<File> {
    File::open(path)
}

/// Reads the whole of `path` as it is ([`open_plain`]).
pub fn read_plain(path: &Path) -> io::Result<Vec<u8>> {
    std::fs::read(path)
}

/// Removes the file `path`, relative to its folder opened and checked by [`Rule::Shared`]; a
/// missing one is an error of kind `NotFound`. The name is removed, never what a symbolic link
/// there points to.
pub fn remove(path: &Path) -> io::Result<()> {
    let (dir, name) = split(path)?;
    Dir::open(dir, Rule::Shared)?.remove(&name)
}

/// Checks the place of the inbox's store at `path` before SQLite opens it, and gives its
/// folder: the folder is opened (made 0700 when missing) by [`Rule::Strict`], and the database
/// and its `-wal` and `-shm` files, where they exist, must each be a regular file (not a
/// symbolic link) of the user's, root's or a trusted owner's. SQLite then opens them itself:
/// the one writer outside this crate.
pub fn check_store(path: &Path) -> io::Result<(Dir, OsString)> {
    let (dir, name) = split(path)?;
    let dir = Dir::create(dir, Rule::Strict)?;
    for suffix in ["", "-wal", "-shm"] {
        let mut file = name.clone();
        file.push(suffix);
        dir.check_store_file(&file)?;
    }
    Ok((dir, name))
}

/// The path of `name` in the folder `dir`, as a sentence names it.
fn joined(dir: &Path, name: &std::ffi::OsStr) -> PathBuf {
    if dir == Path::new(".") {
        PathBuf::from(name)
    } else {
        dir.join(name)
    }
}

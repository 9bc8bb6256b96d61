//! A checked folder, and every open, create, rename and removal relative to its descriptor.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{self, Write};
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use rustix::io::Errno;

use crate::joined;
use crate::rules::{Problem, Refusal, Rule, Who, regular};

/// The flags every folder is opened with.
const FOLDER: OFlags = OFlags::RDONLY
    .union(OFlags::DIRECTORY)
    .union(OFlags::NOFOLLOW)
    .union(OFlags::CLOEXEC);

/// How many random names a new file tries before giving up (each taken one is a collision of
/// 64 random bits, or another user's plant).
const TRIES: usize = 16;

/// A folder opened without following a symbolic link, and checked by its rule once open: the
/// files made, locked, appended to and read in it are opened relative to its descriptor, so a
/// link swapped in for the folder afterwards changes nothing.
#[derive(Debug)]
pub struct Dir {
    fd: OwnedFd,
    path: PathBuf,
}

/// What runs before a rename ([`NewFile::before_rename`]).
pub type BeforeRename<'a> = &'a dyn Fn(&Path) -> io::Result<()>;

/// A file [`Dir::write_file`] writes.
#[derive(Clone, Copy)]
pub struct NewFile<'a> {
    /// Its name in the folder.
    pub name: &'a OsStr,
    /// Its whole contents.
    pub bytes: &'a [u8],
    /// Runs once the temporary file is complete and synced, before the rename, with its path;
    /// an error ends the write there (tests stand in for a crash at that moment with it).
    pub before_rename: Option<BeforeRename<'a>>,
}

impl std::fmt::Debug for NewFile<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NewFile")
            .field("name", &self.name)
            .field("bytes", &self.bytes.len())
            .finish_non_exhaustive()
    }
}

/// A refusal of `path` for `problem`, as an `io::Error`.
fn refuse(path: PathBuf, problem: Problem) -> io::Error {
    Refusal { path, problem }.into()
}

/// `errno`, or the refusal of a symbolic link when it says `path` is one (`ELOOP` from an open
/// with `O_NOFOLLOW`).
fn link_or(errno: Errno, path: PathBuf) -> io::Error {
    if errno == Errno::LOOP {
        refuse(path, Problem::Symlink)
    } else {
        errno.into()
    }
}

/// `errno` of an open of the folder `path`, or the refusal it stands for: with
/// `O_DIRECTORY|O_NOFOLLOW`, a symbolic link at the end gives `ELOOP` or `ENOTDIR`.
fn folder_error(errno: Errno, path: &Path) -> io::Error {
    let problem = match errno {
        Errno::LOOP => Problem::Symlink,
        Errno::NOTDIR => {
            match rustix::fs::lstat(path).map(|s| FileType::from_raw_mode(s.st_mode)) {
                Ok(FileType::Symlink) => Problem::Symlink,
                Ok(FileType::Directory) | Err(_) => return errno.into(),
                Ok(_) => Problem::NotFolder,
            }
        }
        _ => return errno.into(),
    };
    refuse(path.to_path_buf(), problem)
}

/// Opens the folder `path` without following a link at its end, making it and every missing
/// folder above it 0700 when `create`.
fn open_folder(path: &Path, create: bool) -> io::Result<OwnedFd> {
    match rustix::fs::open(path, FOLDER, Mode::empty()) {
        Ok(fd) => Ok(fd),
        Err(Errno::NOENT) if create => {
            let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
                return Err(Errno::NOENT.into());
            };
            let parent = if parent.as_os_str().is_empty() {
                Path::new(".")
            } else {
                parent
            };
            let parent_fd = open_folder(parent, true)?;
            let made = match rustix::fs::mkdirat(&parent_fd, name, Mode::from_raw_mode(0o700)) {
                Ok(()) => true,
                Err(Errno::EXIST) => false,
                Err(errno) => return Err(errno.into()),
            };
            let fd = rustix::fs::openat(&parent_fd, name, FOLDER, Mode::empty())
                .map_err(|errno| folder_error(errno, path))?;
            // 0700 whatever the umask took away, on a folder of the user's own.
            if made && rustix::fs::fstat(&fd)?.st_uid == Who::me().uid {
                rustix::fs::fchmod(&fd, Mode::from_raw_mode(0o700))?;
            }
            Ok(fd)
        }
        Err(errno) => Err(folder_error(errno, path)),
    }
}

/// 16 random lowercase hex digits.
fn random_hex() -> io::Result<String> {
    let mut random = [0_u8; 8];
    getrandom::fill(&mut random).map_err(io::Error::other)?;
    Ok(random.iter().map(|byte| format!("{byte:02x}")).collect())
}

/// True when `entry` is a temporary file of `name` ([`Dir::write_file`]): `NAME.tmp-` and
/// then hex digits, the random name of this build or the process id of earlier ones.
pub(crate) fn is_temporary_of(entry: &OsStr, name: &OsStr) -> bool {
    let mut prefix = name.as_bytes().to_vec();
    prefix.extend_from_slice(b".tmp-");
    entry
        .as_bytes()
        .strip_prefix(prefix.as_slice())
        .is_some_and(|rest| {
            !rest.is_empty()
                && rest
                    .iter()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(b))
        })
}

impl Dir {
    /// Opens the existing folder `path` (never through a symbolic link at its end) and checks it
    /// by `rule`: owned by the user, root or a trusted owner, and writable by nobody else, but
    /// for group write in the user's private group (the folder's group is the process's
    /// effective group, numbered as the user is) and, under [`Rule::Shared`], a sticky folder.
    pub fn open(path: &Path, rule: Rule) -> io::Result<Dir> {
        Dir::opened(path, open_folder(path, false)?, rule)
    }

    /// As [`Dir::open`], making the folder and each missing folder above it 0700 first (with
    /// `mkdirat` relative to its parent's descriptor), whatever the umask.
    pub fn create(path: &Path, rule: Rule) -> io::Result<Dir> {
        Dir::opened(path, open_folder(path, true)?, rule)
    }

    fn opened(path: &Path, fd: OwnedFd, rule: Rule) -> io::Result<Dir> {
        let stat = rustix::fs::fstat(&fd)?;
        Who::me()
            .folder(&stat, rule)
            .map_err(|problem| refuse(path.to_path_buf(), problem))?;
        Ok(Dir {
            fd,
            path: path.to_path_buf(),
        })
    }

    /// The folder's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn at(&self, name: &OsStr) -> PathBuf {
        joined(&self.path, name)
    }

    /// Opens `name` with `flags`, creating it 0600 (whatever the umask) when it is missing;
    /// never through a symbolic link, and without waiting on a FIFO put there (no reader makes
    /// it a refusal, not a hang).
    fn open_or_create(&self, name: &OsStr, flags: OFlags) -> io::Result<OwnedFd> {
        let flags = flags | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::NONBLOCK;
        let mode = Mode::from_raw_mode(0o600);
        let fd = loop {
            match rustix::fs::openat(&self.fd, name, flags | OFlags::CREATE | OFlags::EXCL, mode) {
                Ok(fd) => {
                    rustix::fs::fchmod(&fd, mode)?;
                    break fd;
                }
                Err(Errno::EXIST) => {}
                Err(errno) => return Err(errno.into()),
            }
            match rustix::fs::openat(&self.fd, name, flags, Mode::empty()) {
                Ok(fd) => break fd,
                // Removed between the two opens: try again.
                Err(Errno::NOENT) => {}
                // A FIFO nobody reads.
                Err(Errno::NXIO) => {
                    let kind = "FIFO";
                    return Err(refuse(self.at(name), Problem::NotRegular { kind }));
                }
                Err(errno) => return Err(link_or(errno, self.at(name))),
            }
        };
        let status = rustix::fs::fcntl_getfl(&fd)?;
        rustix::fs::fcntl_setfl(&fd, status - OFlags::NONBLOCK)?;
        Ok(fd)
    }

    /// Opens the FIFO or character device `name` for appending, as the person named it: `None`
    /// when `name` is missing or something else (a regular file, a link: for
    /// [`Dir::append`] to make or refuse). It must belong to the user, root or a trusted
    /// owner; the open waits for a FIFO's reader, as the person who named it means.
    pub(crate) fn open_stream(&self, name: &OsStr) -> io::Result<Option<File>> {
        let looked = match rustix::fs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) => stat,
            Err(Errno::NOENT) => return Ok(None),
            Err(errno) => return Err(errno.into()),
        };
        let stream = |stat: &rustix::fs::Stat| {
            matches!(
                FileType::from_raw_mode(stat.st_mode),
                FileType::Fifo | FileType::CharacterDevice
            )
        };
        if !stream(&looked) {
            return Ok(None);
        }
        Who::me()
            .owner(&looked)
            .map_err(|problem| refuse(self.at(name), problem))?;
        let flags = OFlags::WRONLY | OFlags::APPEND | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let fd = rustix::fs::openat(&self.fd, name, flags, Mode::empty())
            .map_err(|errno| link_or(errno, self.at(name)))?;
        // What was opened is what was looked at.
        let opened = rustix::fs::fstat(&fd)?;
        if (opened.st_dev, opened.st_ino) != (looked.st_dev, looked.st_ino) {
            let kind = "file swapped in";
            return Err(refuse(self.at(name), Problem::NotRegular { kind }));
        }
        Ok(Some(File::from(fd)))
    }

    /// Writes `file` so that a reader sees the old file or the new one, never a part: a
    /// temporary file under a random name (`NAME.tmp-` and 16 random hex digits) created with
    /// `O_CREAT|O_EXCL|O_NOFOLLOW`, 0600, written and synced, renamed over `NAME`, and the folder
    /// synced. The temporary file is removed on any failure; only a process killed between its
    /// creation and the rename leaves it behind, for [`Dir::remove_temporaries_of`].
    pub fn write_file(&self, file: &NewFile<'_>) -> io::Result<()> {
        let mode = Mode::from_raw_mode(0o600);
        let flags =
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let mut tries = 0;
        let (fd, temporary) = loop {
            let mut temporary = file.name.to_os_string();
            temporary.push(format!(".tmp-{}", random_hex()?));
            match rustix::fs::openat(&self.fd, &temporary, flags, mode) {
                Ok(fd) => break (fd, temporary),
                Err(Errno::EXIST) if tries + 1 < TRIES => tries += 1,
                Err(errno) => return Err(errno.into()),
            }
        };
        let written = (|| {
            rustix::fs::fchmod(&fd, mode)?;
            let mut opened = File::from(fd);
            opened.write_all(file.bytes)?;
            opened.sync_all()?;
            drop(opened);
            if let Some(before_rename) = file.before_rename {
                before_rename(&self.at(&temporary))?;
            }
            rustix::fs::renameat(&self.fd, &temporary, &self.fd, file.name)?;
            self.sync()
        })();
        if written.is_err() {
            let _ = rustix::fs::unlinkat(&self.fd, &temporary, AtFlags::empty());
        }
        written
    }

    /// Removes the temporary files of `name` that a writer killed before its rename left
    /// ([`Dir::write_file`]). Call it with the lock of `name` held, so that no writer is at
    /// work on one.
    pub fn remove_temporaries_of(&self, name: &OsStr) {
        for entry in self.entries().unwrap_or_default() {
            if is_temporary_of(&entry, name) {
                let _ = rustix::fs::unlinkat(&self.fd, &entry, AtFlags::empty());
            }
        }
    }

    /// Creates the new file `name` (`O_CREAT|O_EXCL|O_NOFOLLOW`, 0600 whatever the umask) and
    /// opens it for writing: an existing file or link of that name is an error.
    pub fn create_new(&self, name: &OsStr) -> io::Result<File> {
        let flags =
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let mode = Mode::from_raw_mode(0o600);
        let fd = rustix::fs::openat(&self.fd, name, flags, mode)?;
        rustix::fs::fchmod(&fd, mode)?;
        Ok(File::from(fd))
    }

    /// Opens the lock file `name` for reading and writing, creating it 0600 when missing: never
    /// through a symbolic link, never replaced by a rename, and refused when it is not a regular
    /// file or another user (not root, not trusted) owns it. The caller locks it.
    pub fn lock_file(&self, name: &OsStr) -> io::Result<File> {
        let fd = self.open_or_create(name, OFlags::RDWR)?;
        let stat = rustix::fs::fstat(&fd)?;
        regular(&stat)
            .and_then(|()| Who::me().owner(&stat))
            .map_err(|problem| refuse(self.at(name), problem))?;
        Ok(File::from(fd))
    }

    /// Opens `name` for appending (`O_APPEND|O_NOFOLLOW`), creating it 0600 when missing: a
    /// regular file of the user's, root's or a trusted owner's; with `options.read`, opened for
    /// reading too and checked as a file ask-user acts on.
    pub fn append(&self, name: &OsStr, options: crate::Append) -> io::Result<File> {
        let access = if options.read {
            OFlags::RDWR
        } else {
            OFlags::WRONLY
        };
        let fd = self.open_or_create(name, access | OFlags::APPEND)?;
        let stat = rustix::fs::fstat(&fd)?;
        let who = Who::me();
        let checked = if options.read {
            who.acted_on(&stat)
        } else {
            regular(&stat).and_then(|()| who.owner(&stat))
        };
        checked.map_err(|problem| refuse(self.at(name), problem))?;
        // A file of an earlier build, made under the umask, becomes the user's alone.
        if stat.st_uid == who.uid && stat.st_mode & 0o077 != 0 {
            rustix::fs::fchmod(&fd, Mode::from_raw_mode(0o600))?;
        }
        Ok(File::from(fd))
    }

    /// Opens `name`, a file ask-user will act on, for reading; `None` when it does not exist.
    /// It must be a regular file (never a symbolic link) of the user's, root's or a trusted
    /// owner's that neither its group (but the user's private group) nor other users may write.
    pub fn open_acted_on(&self, name: &OsStr) -> io::Result<Option<File>> {
        // Without blocking: a FIFO put there must not hold the open until it is refused.
        let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
        let fd = match rustix::fs::openat(&self.fd, name, flags, Mode::empty()) {
            Ok(fd) => fd,
            Err(Errno::NOENT) => return Ok(None),
            Err(errno) => return Err(link_or(errno, self.at(name))),
        };
        let stat = rustix::fs::fstat(&fd)?;
        Who::me()
            .acted_on(&stat)
            .map_err(|problem| refuse(self.at(name), problem))?;
        let flags = rustix::fs::fcntl_getfl(&fd)?;
        rustix::fs::fcntl_setfl(&fd, flags - OFlags::NONBLOCK)?;
        Ok(Some(File::from(fd)))
    }

    /// Checks `name`, a file SQLite opens itself, without opening it: where it exists, a
    /// regular file (not a symbolic link) of the user's, root's or a trusted owner's.
    pub(crate) fn check_store_file(&self, name: &OsStr) -> io::Result<()> {
        let stat = match rustix::fs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) => stat,
            Err(Errno::NOENT) => return Ok(()),
            Err(errno) => return Err(errno.into()),
        };
        regular(&stat)
            .and_then(|()| Who::me().owner(&stat))
            .map_err(|problem| refuse(self.at(name), problem))
    }

    /// Makes the new folder `name` 0700 (whatever the umask; an existing one is an error) and
    /// opens it, checked to be the user's own: in a parent that other users may write, one
    /// could swap it between the two steps.
    pub fn create_dir(&self, name: &OsStr) -> io::Result<Dir> {
        rustix::fs::mkdirat(&self.fd, name, Mode::from_raw_mode(0o700))?;
        let path = self.at(name);
        let fd = rustix::fs::openat(&self.fd, name, FOLDER, Mode::empty())
            .map_err(|errno| folder_error(errno, &path))?;
        let stat = rustix::fs::fstat(&fd)?;
        let me = Who::me();
        if stat.st_uid != me.uid {
            let problem = Problem::Owner {
                owner: stat.st_uid,
                me: me.uid,
            };
            return Err(refuse(path, problem));
        }
        rustix::fs::fchmod(&fd, Mode::from_raw_mode(0o700))?;
        Ok(Dir { fd, path })
    }

    /// True when `name` is a folder (not a link to one) of the user's own.
    pub fn is_own_folder(&self, name: &OsStr) -> bool {
        rustix::fs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW).is_ok_and(|stat| {
            FileType::from_raw_mode(stat.st_mode) == FileType::Directory
                && stat.st_uid == Who::me().uid
        })
    }

    /// Removes the file `name` (the name, never what a link there points to).
    pub fn remove(&self, name: &OsStr) -> io::Result<()> {
        Ok(rustix::fs::unlinkat(&self.fd, name, AtFlags::empty())?)
    }

    /// Removes the empty folder `name`.
    pub fn remove_dir(&self, name: &OsStr) -> io::Result<()> {
        Ok(rustix::fs::unlinkat(&self.fd, name, AtFlags::REMOVEDIR)?)
    }

    /// The names in the folder, but `.` and `..`.
    pub fn entries(&self) -> io::Result<Vec<OsString>> {
        let mut names = Vec::new();
        for entry in rustix::fs::Dir::read_from(&self.fd)? {
            let entry = entry?;
            let name = entry.file_name().to_bytes();
            if name != b"." && name != b".." {
                names.push(OsStr::from_bytes(name).to_os_string());
            }
        }
        Ok(names)
    }

    /// Syncs the folder, so that a rename or a new name in it survives a crash.
    pub fn sync(&self) -> io::Result<()> {
        Ok(rustix::fs::fsync(&self.fd)?)
    }
}

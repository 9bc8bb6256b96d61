//! The inbox's Unix socket for the agents of this machine: bound in a folder of this user's
//! alone, made readable and writable by this user only, and removed when the inbox ends.
//!
//! The socket file is made 0600 by a `chmod` right after `bind`, before any connection is
//! accepted. Between the two, the socket has the mode the umask gives it, but no other user
//! can reach it: its folder must already be this user's alone (0700, checked before the
//! bind), and a path in it cannot be opened by anyone else. The umask is left alone, as it is
//! the whole process's, and other threads create files meanwhile.

use std::io;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};

use crate::WebError;

/// The socket bound at its path, which is removed when this is dropped.
#[derive(Debug)]
pub(crate) struct SocketFile {
    pub(crate) listener: UnixListener,
    pub(crate) path: PathBuf,
    /// The socket file's inode as it was bound.
    inode: Option<u64>,
}

impl Drop for SocketFile {
    fn drop(&mut self) {
        // Only the socket this inbox bound: a later inbox may have replaced it meanwhile.
        let ours = std::fs::symlink_metadata(&self.path)
            .ok()
            .is_some_and(|now| Some(now.ino()) == self.inode);
        if ours {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Why the inbox cannot listen on its Unix socket.
#[derive(Debug, thiserror::Error)]
pub enum SocketFault {
    /// The path is not absolute.
    #[error("it must be an absolute path")]
    NotAbsolute,
    /// Its folder could not be made or examined.
    #[error("its folder cannot be made or read: {0}")]
    Folder(#[source] io::Error),
    /// Its folder is not this user's alone.
    #[error(
        "its folder {} must be a folder of this user's that no one else may enter (mode 0700; it \
         is {mode:o}, owned by user {owner}): make it so, or give another --token-file",
        folder.display()
    )]
    OpenFolder {
        /// The folder.
        folder: PathBuf,
        /// Its permission bits.
        mode: u32,
        /// Its owner's user id.
        owner: u32,
    },
    /// Something that is not a socket is at the path.
    #[error("something that is not a socket is in its place; move it away")]
    NotASocket,
    /// Something listens on the socket already.
    #[error(
        "another `ask-user serve` is listening on it; stop that one first, or give this one \
         another --listen port"
    )]
    Live,
    /// The socket of an inbox that is gone could not be removed.
    #[error("the stale socket cannot be removed: {0}")]
    Stale(#[source] io::Error),
    /// Binding or setting it up failed.
    #[error("{0}")]
    Io(#[source] io::Error),
}

/// The refusal of the socket at `path` for `fault`.
fn refused(path: &Path) -> impl FnOnce(SocketFault) -> WebError + '_ {
    move |fault| WebError::Socket {
        path: path.to_path_buf(),
        fault,
    }
}

/// Binds the socket at `path`: its folder is created 0700 when missing, and must be this
/// user's alone; a socket left there by an inbox that is gone is replaced, one an inbox still
/// listens on is refused, and anything else in its place is refused.
pub(crate) fn bind(path: &Path) -> Result<SocketFile, WebError> {
    bound(path).map_err(refused(path))
}

fn bound(path: &Path) -> Result<SocketFile, SocketFault> {
    let folder = path
        .parent()
        .filter(|folder| !folder.as_os_str().is_empty() && path.is_absolute())
        .ok_or(SocketFault::NotAbsolute)?;
    // Made 0700 when missing, never through a link; the check below is stricter than
    // ask-fs's rule still: this user's alone, no group at all.
    ask_fs::Dir::create(folder, ask_fs::Rule::Strict).map_err(SocketFault::Folder)?;
    let meta = std::fs::symlink_metadata(folder).map_err(SocketFault::Folder)?;
    let uid = rustix::process::geteuid().as_raw();
    if !meta.is_dir() || meta.uid() != uid || meta.mode() & 0o077 != 0 {
        return Err(SocketFault::OpenFolder {
            folder: folder.to_path_buf(),
            mode: meta.mode() & 0o7777,
            owner: meta.uid(),
        });
    }
    replace_stale(path)?;
    let listener = UnixListener::bind(path).map_err(SocketFault::Io)?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
        .map_err(SocketFault::Io)?;
    listener.set_nonblocking(true).map_err(SocketFault::Io)?;
    let inode = std::fs::symlink_metadata(path).ok().map(|meta| meta.ino());
    Ok(SocketFile {
        listener,
        path: path.to_path_buf(),
        inode,
    })
}

/// Removes a socket at `path` that no inbox listens on any more; refuses one that an inbox
/// still listens on, and anything that is not a socket.
fn replace_stale(path: &Path) -> Result<(), SocketFault> {
    use std::os::unix::fs::FileTypeExt;
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(error) => return Err(SocketFault::Io(error)),
    };
    if !meta.file_type().is_socket() {
        return Err(SocketFault::NotASocket);
    }
    match UnixStream::connect(path) {
        Ok(_) => Err(SocketFault::Live),
        Err(error) if error.kind() == io::ErrorKind::ConnectionRefused => {
            std::fs::remove_file(path).map_err(SocketFault::Stale)
        }
        Err(error) => Err(SocketFault::Io(error)),
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // tests make their own files
mod tests {
    use super::*;

    #[test]
    fn a_socket_is_refused_in_a_folder_others_may_enter_or_over_something_else() {
        let dir = tempfile::tempdir().unwrap();
        let open = dir.path().join("open");
        std::fs::create_dir(&open).unwrap();
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o755)).unwrap();
        let error = bind(&open.join("serve.sock")).unwrap_err().to_string();
        assert!(
            error.contains("must be a folder of this user's that no one else may enter"),
            "{error}"
        );
        assert!(error.contains("it is 755"), "{error}");
        // A missing folder is made 0700; a file in the socket's place is left alone.
        let own = dir.path().join("own/serve.sock");
        std::fs::create_dir(own.parent().unwrap()).unwrap();
        std::fs::set_permissions(
            own.parent().unwrap(),
            std::fs::Permissions::from_mode(0o700),
        )
        .unwrap();
        std::fs::write(&own, "not a socket").unwrap();
        let error = bind(&own).unwrap_err().to_string();
        assert!(error.contains("not a socket"), "{error}");
        assert_eq!(std::fs::read_to_string(&own).unwrap(), "not a socket");
        let made = dir.path().join("made/deeper/serve.sock");
        let socket = bind(&made).unwrap();
        let folder = std::fs::metadata(made.parent().unwrap()).unwrap();
        assert_eq!(folder.mode() & 0o777, 0o700);
        assert_eq!(std::fs::metadata(&made).unwrap().mode() & 0o777, 0o600);
        drop(socket);
        assert!(!made.exists(), "removed with its inbox");
        assert!(bind(Path::new("relative.sock")).is_err());
    }
}

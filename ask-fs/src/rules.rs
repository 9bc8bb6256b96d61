//! The rules: who may own a folder or a file ask-user uses, which modes are safe, and the
//! sentence that refuses anything else.

use std::io;
use std::path::PathBuf;
use std::sync::OnceLock;

use rustix::fs::{FileType, Stat};

/// The owners trusted besides the user and root, set once by the binary.
static TRUSTED: OnceLock<Vec<u32>> = OnceLock::new();

/// Trusts the files and folders of the users `uids` as the user's own, for the rest of the
/// process: a container where the agent and the person are different users. The binary reads
/// the list (`ASK_USER_TRUST_OWNERS`) once at start and sets it here; a library never reads the
/// environment. Gives false, and changes nothing, when a list was already set.
pub fn trust_owners(uids: &[u32]) -> bool {
    TRUSTED.set(uids.to_vec()).is_ok()
}

/// The owners trusted besides the user and root ([`trust_owners`]); none until it is called.
pub fn trusted_owners() -> &'static [u32] {
    TRUSTED.get().map_or(&[], Vec::as_slice)
}

/// How strictly a folder is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// Files may be made in a sticky folder that everybody may write, such as `/tmp`: there
    /// nobody can remove or rename a file of another user, and every file is opened without
    /// following a symbolic link and checked once open.
    Shared,
    /// The folder must be the user's alone, sticky or not: for the inbox's store, beside whose
    /// database SQLite creates its `-wal` and `-shm` files itself, where another user of a
    /// shared sticky folder could create them first.
    Strict,
}

/// Who this process is, against whom owners and modes are judged.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Who<'a> {
    /// The effective user id.
    pub(crate) uid: u32,
    /// The effective group id.
    pub(crate) gid: u32,
    /// The owners trusted besides the user and root.
    pub(crate) trusted: &'a [u32],
}

impl Who<'static> {
    /// This process.
    pub(crate) fn me() -> Who<'static> {
        Who {
            uid: rustix::process::geteuid().as_raw(),
            gid: rustix::process::getegid().as_raw(),
            trusted: trusted_owners(),
        }
    }
}

impl Who<'_> {
    /// True when files of `owner` may be used: the user's, root's or a trusted owner's.
    pub(crate) fn owns(&self, owner: u32) -> bool {
        owner == self.uid || owner == 0 || self.trusted.contains(&owner)
    }

    /// True when `gid` is the user's private group: the process's effective group, numbered as
    /// the user is (the convention of one group per user, named and numbered after them, that
    /// holds no one else). Group write in such a group is write by the user alone.
    pub(crate) fn private_group(&self, gid: u32) -> bool {
        gid == self.gid && self.gid == self.uid
    }

    /// True when the group or other users could write a file or folder of `stat`'s mode and
    /// group.
    fn others_write(&self, stat: &Stat) -> bool {
        let mode = stat.st_mode;
        mode & 0o002 != 0 || (mode & 0o020 != 0 && !self.private_group(stat.st_gid))
    }

    /// The folder `stat` is checked by `rule`: owned by the user, root or a trusted owner, and
    /// writable by nobody else, but for group write in the user's private group and, under
    /// [`Rule::Shared`], a sticky folder (mode `S_ISVTX`, such as `/tmp`).
    pub(crate) fn folder(&self, stat: &Stat, rule: Rule) -> Result<(), Problem> {
        if FileType::from_raw_mode(stat.st_mode) != FileType::Directory {
            return Err(Problem::NotFolder);
        }
        self.owner(stat)?;
        let sticky = stat.st_mode & 0o1000 != 0;
        if !self.others_write(stat) || (sticky && rule == Rule::Shared) {
            return Ok(());
        }
        let (owner, mode) = (stat.st_uid, stat.st_mode & 0o7777);
        Err(match rule {
            Rule::Shared => Problem::Writable { owner, mode },
            Rule::Strict => Problem::SharedStoreFolder { owner, mode },
        })
    }

    /// The owner of `stat` is the user, root or a trusted owner.
    pub(crate) fn owner(&self, stat: &Stat) -> Result<(), Problem> {
        if self.owns(stat.st_uid) {
            Ok(())
        } else {
            Err(Problem::Owner {
                owner: stat.st_uid,
                me: self.uid,
            })
        }
    }

    /// A file ask-user acts on (`stat`): a regular file of the user, root or a trusted owner,
    /// that no other user could write.
    pub(crate) fn acted_on(&self, stat: &Stat) -> Result<(), Problem> {
        regular(stat)?;
        self.owner(stat)?;
        if self.others_write(stat) {
            return Err(Problem::Writable {
                owner: stat.st_uid,
                mode: stat.st_mode & 0o7777,
            });
        }
        Ok(())
    }
}

/// `stat` is a regular file with one name: a second name (a hard link) may be another user's
/// plant in a sticky folder, naming a file of the user's elsewhere.
#[allow(clippy::useless_conversion)] // `st_nlink` is narrower than u64 on some targets
pub(crate) fn regular(stat: &Stat) -> Result<(), Problem> {
    match FileType::from_raw_mode(stat.st_mode) {
        FileType::RegularFile if stat.st_nlink > 1 => Err(Problem::HardLinked {
            names: u64::from(stat.st_nlink),
        }),
        FileType::RegularFile => Ok(()),
        FileType::Symlink => Err(Problem::Symlink),
        other => Err(Problem::NotRegular {
            kind: kind_name(other),
        }),
    }
}

/// A file type as a sentence names it.
fn kind_name(kind: FileType) -> &'static str {
    match kind {
        FileType::Directory => "folder",
        FileType::Symlink => "symbolic link",
        FileType::Fifo => "FIFO",
        FileType::Socket => "socket",
        FileType::CharacterDevice => "character device",
        FileType::BlockDevice => "block device",
        _ => "special file",
    }
}

/// A file or folder ask-user will not use, and why: one sentence naming it.
#[derive(Debug, thiserror::Error)]
#[error("`{}` {problem}", path.display())]
pub struct Refusal {
    /// The file or folder.
    pub path: PathBuf,
    /// What is wrong with it.
    pub problem: Problem,
}

impl From<Refusal> for io::Error {
    fn from(refusal: Refusal) -> io::Error {
        io::Error::new(io::ErrorKind::PermissionDenied, refusal)
    }
}

/// What is wrong with a file or folder ask-user will not use.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Problem {
    /// It is a symbolic link where ask-user follows none.
    #[error(
        "is a symbolic link, which ask-user never follows where it writes or reads what it acts \
         on: remove the link, or give the path of the file itself"
    )]
    Symlink,
    /// Another user owns it.
    #[error(
        "belongs to uid {owner}, not to this user (uid {me}) or root, so another user could \
         have planted it and ask-user does not use it; when ask-user runs as another user on \
         purpose (a container), set ASK_USER_TRUST_OWNERS={owner} (a comma-separated list of \
         uids)"
    )]
    Owner {
        /// Its owner.
        owner: u32,
        /// The user.
        me: u32,
    },
    /// The group or other users may write it.
    #[error(
        "(owner uid {owner}) has mode {mode:04o}, so other users could write it and ask-user \
         does not use it: take their write permission away (`chmod go-w`); \
         ASK_USER_TRUST_OWNERS=uid,… trusts other owners, never a mode"
    )]
    Writable {
        /// Its owner.
        owner: u32,
        /// Its mode.
        mode: u32,
    },
    /// The store's folder may be written by others, if only as a sticky folder.
    #[error(
        "(owner uid {owner}, mode {mode:04o}) is a folder other users may write, and the \
         store's folder must be the user's alone, since SQLite creates files beside the \
         database there: give a store in a folder of your own"
    )]
    SharedStoreFolder {
        /// Its owner.
        owner: u32,
        /// Its mode.
        mode: u32,
    },
    /// It is not a regular file.
    #[error("is a {kind}, not a regular file, so ask-user does not use it")]
    NotRegular {
        /// What it is.
        kind: &'static str,
    },
    /// It is a regular file with more than one name.
    #[error(
        "is a file with {names} names (hard links), so it may be a file of this user's elsewhere \
         that another user linked here, and ask-user does not use it: remove this name"
    )]
    HardLinked {
        /// How many names it has.
        names: u64,
    },
    /// It is not a folder.
    #[error("is not a folder")]
    NotFolder,
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)]
mod tests {
    use super::*;

    /// The stat of a real folder, made to say `uid`, `gid` and `mode`.
    fn folder(uid: u32, gid: u32, mode: u32) -> Stat {
        let mut stat = rustix::fs::stat("/").unwrap();
        stat.st_uid = uid;
        stat.st_gid = gid;
        stat.st_mode = (stat.st_mode & !0o7777) | mode;
        stat
    }

    /// The stat of a real regular file, made to say `uid`, `gid` and `mode`.
    fn file(uid: u32, gid: u32, mode: u32) -> Stat {
        let made = tempfile::NamedTempFile::new().unwrap();
        let mut stat = rustix::fs::stat(made.path()).unwrap();
        stat.st_uid = uid;
        stat.st_gid = gid;
        stat.st_mode = (stat.st_mode & !0o7777) | mode;
        stat
    }

    const ME: Who<'static> = Who {
        uid: 1000,
        gid: 1000,
        trusted: &[],
    };

    #[test]
    fn a_folder_of_the_user_or_root_is_used_and_another_users_is_refused_naming_the_uid() {
        assert_eq!(ME.folder(&folder(1000, 1000, 0o700), Rule::Shared), Ok(()));
        assert_eq!(ME.folder(&folder(0, 0, 0o755), Rule::Strict), Ok(()));
        let refused = ME
            .folder(&folder(65534, 65534, 0o700), Rule::Shared)
            .unwrap_err();
        assert_eq!(
            refused,
            Problem::Owner {
                owner: 65534,
                me: 1000
            }
        );
        let sentence = Refusal {
            path: "p/.ask-user".into(),
            problem: refused,
        }
        .to_string();
        assert!(
            sentence.starts_with("`p/.ask-user` belongs to uid 65534, not to this user (uid 1000)")
        );
        assert!(
            sentence.contains("ASK_USER_TRUST_OWNERS=65534"),
            "{sentence}"
        );
    }

    #[test]
    fn a_trusted_owner_is_used_as_the_users_own() {
        let trusting = Who {
            trusted: &[65534, 33],
            ..ME
        };
        assert_eq!(
            trusting.folder(&folder(33, 33, 0o700), Rule::Strict),
            Ok(())
        );
        assert_eq!(trusting.acted_on(&file(65534, 65534, 0o600)), Ok(()));
        assert!(ME.acted_on(&file(65534, 65534, 0o600)).is_err());
        // A trusted owner's file that others may write is refused all the same.
        assert_eq!(
            trusting.acted_on(&file(33, 33, 0o666)),
            Err(Problem::Writable {
                owner: 33,
                mode: 0o666
            })
        );
    }

    #[test]
    fn group_write_is_allowed_only_in_the_users_private_group() {
        assert_eq!(ME.folder(&folder(1000, 1000, 0o770), Rule::Shared), Ok(()));
        assert_eq!(ME.acted_on(&file(1000, 1000, 0o664)), Ok(()));
        // A shared group, such as `staff` or `users`.
        assert_eq!(
            ME.folder(&folder(1000, 50, 0o770), Rule::Shared),
            Err(Problem::Writable {
                owner: 1000,
                mode: 0o770
            })
        );
        // A user whose effective group is not numbered as they are has no private group.
        let grouped = Who { gid: 100, ..ME };
        assert!(
            grouped
                .folder(&folder(1000, 100, 0o770), Rule::Shared)
                .is_err()
        );
    }

    #[test]
    fn a_sticky_folder_is_allowed_unless_the_rule_is_strict() {
        assert_eq!(ME.folder(&folder(0, 0, 0o1777), Rule::Shared), Ok(()));
        assert_eq!(
            ME.folder(&folder(0, 0, 0o1777), Rule::Strict),
            Err(Problem::SharedStoreFolder {
                owner: 0,
                mode: 0o1777
            })
        );
        assert_eq!(
            ME.folder(&folder(1000, 1000, 0o777), Rule::Shared),
            Err(Problem::Writable {
                owner: 1000,
                mode: 0o777
            })
        );
        // Another user's sticky folder is theirs all the same.
        assert!(
            ME.folder(&folder(65534, 65534, 0o1777), Rule::Shared)
                .is_err()
        );
    }

    #[test]
    fn the_trusted_list_is_set_once() {
        assert!(trust_owners(&[4242]));
        assert!(!trust_owners(&[1]));
        assert_eq!(trusted_owners(), &[4242]);
    }
}

//! Each rule of ask-fs on real files: links planted where ask-user writes, folders others may
//! write, the modes of what is made, temporary names, FIFOs and descriptors the person names.

// Tests make their fixtures with std::fs, and stop at the first failure.
#![allow(
    clippy::unwrap_used,
    clippy::disallowed_methods,
    clippy::disallowed_types
)]

use std::ffi::OsStr;
use std::io::{Read, Write};
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use ask_fs::{Append, Dir, NewFile, Rule};

/// The umask is the process's: the test that changes it runs alone.
static UMASK: Mutex<()> = Mutex::new(());

fn serial() -> MutexGuard<'static, ()> {
    UMASK
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A fresh folder of the test's own, and a victim file beside it holding `"victim"`.
fn place() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let victim = dir.path().join("victim.txt");
    std::fs::write(&victim, "victim").unwrap();
    std::fs::set_permissions(&victim, std::fs::Permissions::from_mode(0o644)).unwrap();
    (dir, victim)
}

/// Makes a FIFO at `path`, 0600.
fn make_fifo(path: &Path) {
    rustix::fs::mknodat(
        rustix::fs::CWD,
        path,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
}

fn mode(path: &Path) -> u32 {
    std::fs::symlink_metadata(path)
        .unwrap()
        .permissions()
        .mode()
        & 0o7777
}

fn assert_untouched(victim: &Path) {
    assert_eq!(std::fs::read_to_string(victim).unwrap(), "victim");
    assert_eq!(mode(victim), 0o644, "the victim keeps its mode");
}

fn assert_link_refused(error: &std::io::Error, path: &Path) {
    assert_eq!(
        error.kind(),
        std::io::ErrorKind::PermissionDenied,
        "{error}"
    );
    assert_eq!(
        error.to_string(),
        format!(
            "`{}` is a symbolic link, which ask-user never follows where it writes or reads what \
             it acts on: remove the link, or give the path of the file itself",
            path.display()
        )
    );
}

#[test]
fn a_link_where_a_new_file_goes_is_replaced_and_its_target_untouched() {
    let _serial = serial();
    let (dir, victim) = place();
    let pending = dir.path().join("pending.json");
    symlink(&victim, &pending).unwrap();
    ask_fs::write_atomic(&pending, b"{}").unwrap();
    assert_untouched(&victim);
    assert!(std::fs::symlink_metadata(&pending).unwrap().is_file());
    assert_eq!(std::fs::read(&pending).unwrap(), b"{}");
    assert_eq!(mode(&pending), 0o600);
}

#[test]
fn a_link_where_a_lock_goes_is_refused_and_nothing_is_created_at_its_target() {
    let _serial = serial();
    let (dir, victim) = place();
    let lock = dir.path().join("pending.json.lock");
    let nowhere = dir.path().join("nologin");
    symlink(&nowhere, &lock).unwrap();
    assert_link_refused(&ask_fs::open_lock(&lock).unwrap_err(), &lock);
    assert!(
        !nowhere.exists(),
        "no file is created where the link points"
    );
    std::fs::remove_file(&lock).unwrap();
    symlink(&victim, &lock).unwrap();
    assert_link_refused(&ask_fs::open_lock(&lock).unwrap_err(), &lock);
    assert_untouched(&victim);
}

#[test]
fn a_link_where_an_append_goes_is_refused_and_its_target_untouched() {
    let _serial = serial();
    let (dir, victim) = place();
    for read in [false, true] {
        let log = dir.path().join(format!("log-{read}.jsonl"));
        symlink(&victim, &log).unwrap();
        let error = ask_fs::open_append(&log, Append { read }).unwrap_err();
        assert_link_refused(&error, &log);
        assert_untouched(&victim);
    }
}

#[test]
fn a_link_where_an_acted_on_file_is_read_is_refused() {
    let _serial = serial();
    let (dir, victim) = place();
    std::fs::set_permissions(&victim, std::fs::Permissions::from_mode(0o600)).unwrap();
    let log = dir.path().join("session.jsonl");
    symlink(&victim, &log).unwrap();
    assert_link_refused(&ask_fs::read_acted_on(&log).unwrap_err(), &log);
    // The file itself is read; a missing one is none.
    assert_eq!(ask_fs::read_acted_on(&victim).unwrap().unwrap(), b"victim");
    assert!(
        ask_fs::read_acted_on(&dir.path().join("none"))
            .unwrap()
            .is_none()
    );
    assert!(
        ask_fs::read_acted_on(&dir.path().join("no/none"))
            .unwrap()
            .is_none()
    );
}

#[test]
fn an_acted_on_file_others_may_write_is_refused_naming_its_mode_and_owner() {
    let _serial = serial();
    let (dir, _) = place();
    let log = dir.path().join("session.jsonl");
    std::fs::write(&log, "{}\n").unwrap();
    std::fs::set_permissions(&log, std::fs::Permissions::from_mode(0o666)).unwrap();
    let error = ask_fs::read_acted_on(&log).unwrap_err().to_string();
    let me = rustix::process::geteuid().as_raw();
    assert_eq!(
        error,
        format!(
            "`{}` (owner uid {me}) has mode 0666, so other users could write it and ask-user does \
             not use it: take their write permission away (`chmod go-w`); \
             ASK_USER_TRUST_OWNERS=uid,… trusts other owners, never a mode",
            log.display()
        )
    );
    // Appending to it to read it back is refused the same way; appending alone is not.
    assert!(ask_fs::open_append(&log, Append { read: true }).is_err());
    assert!(ask_fs::open_append(&log, Append { read: false }).is_ok());
}

#[test]
fn a_folder_others_may_write_is_refused_and_a_sticky_one_is_allowed_unless_strict() {
    let _serial = serial();
    let (dir, _) = place();
    let open = dir.path().join("open");
    std::fs::create_dir(&open).unwrap();
    std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).unwrap();
    let error = ask_fs::write_atomic(&open.join("pending.json"), b"{}").unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with(&format!("`{}` (owner uid", open.display())),
        "{error}"
    );
    assert!(error.to_string().contains("has mode 0777"), "{error}");
    assert!(!open.join("pending.json").exists());
    std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o1777)).unwrap();
    ask_fs::write_atomic(&open.join("pending.json"), b"{}").unwrap();
    let store = ask_fs::check_store(&open.join("inbox.db"))
        .unwrap_err()
        .to_string();
    assert!(
        store.contains("mode 1777) is a folder other users may write"),
        "{store}"
    );
}

#[test]
fn a_link_at_a_folder_is_refused() {
    let _serial = serial();
    let (dir, _) = place();
    let real = dir.path().join("real");
    std::fs::create_dir(&real).unwrap();
    let linked = dir.path().join(".ask-user");
    symlink(&real, &linked).unwrap();
    let error = ask_fs::write_atomic(&linked.join("pending.json"), b"{}").unwrap_err();
    assert_link_refused(&error, &linked);
    assert!(!real.join("pending.json").exists());
}

#[test]
fn files_are_made_0600_and_folders_0700_whatever_the_umask() {
    let _serial = serial();
    let (dir, _) = place();
    for umask in [0o000, 0o022, 0o277] {
        let before = rustix::process::umask(rustix::fs::Mode::from_raw_mode(umask));
        let base = dir.path().join(format!("u{umask:o}"));
        let made = (|| {
            ask_fs::write_atomic(&base.join("a/b/pending.json"), b"{}")?;
            ask_fs::open_lock(&base.join("a/b/pending.json.lock"))?;
            ask_fs::open_append(&base.join("c/events.jsonl"), Append { read: false })?;
            ask_fs::open_append(&base.join("d/session.jsonl"), Append { read: true })?;
            let parent = Dir::create(&base.join("e"), Rule::Shared)?;
            parent.create_dir(OsStr::new("f"))?;
            parent.create_new(OsStr::new("g"))?;
            std::io::Result::Ok(())
        })();
        rustix::process::umask(before);
        made.unwrap();
        for folder in ["", "a", "a/b", "c", "d", "e", "e/f"] {
            assert_eq!(
                mode(&base.join(folder)),
                0o700,
                "{folder} under umask {umask:o}"
            );
        }
        for file in [
            "a/b/pending.json",
            "a/b/pending.json.lock",
            "c/events.jsonl",
            "d/session.jsonl",
            "e/g",
        ] {
            assert_eq!(
                mode(&base.join(file)),
                0o600,
                "{file} under umask {umask:o}"
            );
        }
    }
}

#[test]
fn two_writers_never_share_a_temporary_name_and_none_is_left() {
    let _serial = serial();
    let (dir, _) = place();
    let folder = dir.path().to_path_buf();
    let names = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for writer in 0..4 {
            let (folder, names) = (&folder, &names);
            scope.spawn(move || {
                let dir = Dir::create(folder, Rule::Shared).unwrap();
                for round in 0..50 {
                    let bytes = format!("{writer}-{round}");
                    let seen = |temporary: &Path| {
                        names.lock().unwrap().push(temporary.to_path_buf());
                        Ok(())
                    };
                    dir.write_file(&NewFile {
                        name: OsStr::new("pending.json"),
                        bytes: bytes.as_bytes(),
                        before_rename: Some(&seen),
                    })
                    .unwrap();
                }
            });
        }
    });
    let mut names = names.into_inner().unwrap();
    assert_eq!(names.len(), 200);
    for name in &names {
        let text = name.file_name().unwrap().to_str().unwrap();
        let random = text.strip_prefix("pending.json.tmp-").unwrap();
        assert_eq!(random.len(), 16, "{text}");
        assert!(random.bytes().all(|b| b.is_ascii_hexdigit()), "{text}");
    }
    names.sort();
    names.dedup();
    assert_eq!(names.len(), 200, "every temporary name is new");
    let mut left: Vec<_> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    left.sort();
    assert_eq!(left, ["pending.json", "victim.txt"]);
}

#[test]
fn a_failed_write_removes_its_temporary_and_keeps_the_old_file() {
    let _serial = serial();
    let (dir, _) = place();
    let path = dir.path().join("pending.json");
    std::fs::write(&path, "old").unwrap();
    let folder = Dir::open(dir.path(), Rule::Shared).unwrap();
    let crash = |temporary: &Path| {
        assert_eq!(std::fs::read(temporary).unwrap(), b"new");
        Err(std::io::Error::other("simulated crash"))
    };
    let error = folder
        .write_file(&NewFile {
            name: OsStr::new("pending.json"),
            bytes: b"new",
            before_rename: Some(&crash),
        })
        .unwrap_err();
    assert_eq!(error.to_string(), "simulated crash");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "old");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
}

#[test]
fn temporaries_left_by_killed_writers_are_recognised_and_nothing_else() {
    let _serial = serial();
    let (dir, victim) = place();
    for name in [
        "pending.json.tmp-4242",
        "pending.json.tmp-0123456789abcdef",
        "pending.json.tmp-notes",
        "other.json.tmp-4242",
    ] {
        std::fs::write(dir.path().join(name), "left").unwrap();
    }
    // A link planted under a temporary's name goes as a name; its target stays.
    symlink(&victim, dir.path().join("pending.json.tmp-99")).unwrap();
    let folder = Dir::open(dir.path(), Rule::Shared).unwrap();
    folder.remove_temporaries_of(OsStr::new("pending.json"));
    let mut left = folder.entries().unwrap();
    left.sort();
    assert_eq!(
        left,
        [
            "other.json.tmp-4242",
            "pending.json.tmp-notes",
            "victim.txt"
        ]
    );
    assert_untouched(&victim);
}

#[test]
fn a_fifo_the_person_names_is_written_as_it_is() {
    let _serial = serial();
    let (dir, _) = place();
    let fifo = dir.path().join("events.fifo");
    make_fifo(&fifo);
    // Not through a link: another user could plant one to a FIFO of theirs.
    let linked = dir.path().join("events.link");
    symlink(&fifo, &linked).unwrap();
    let error = ask_fs::open_append(&linked, Append { read: false }).unwrap_err();
    assert_link_refused(&error, &linked);
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let mut text = String::new();
            std::fs::File::open(fifo)
                .unwrap()
                .read_to_string(&mut text)
                .unwrap();
            text
        })
    };
    let mut file = ask_fs::open_append(&fifo, Append { read: false }).unwrap();
    file.write_all(b"{\"state\":\"waiting\"}\n").unwrap();
    drop(file);
    assert_eq!(reader.join().unwrap(), "{\"state\":\"waiting\"}\n");
    // Read back as a session log, it is refused.
    assert!(ask_fs::open_append(&fifo, Append { read: true }).is_err());
}

#[test]
fn a_fifo_nobody_reads_is_refused_at_once_where_a_file_is_read_or_locked() {
    let _serial = serial();
    let (dir, _) = place();
    let fifo = dir.path().join("session.jsonl");
    make_fifo(&fifo);
    // Neither open waits for a writer or a reader that never comes.
    let error = ask_fs::open_append(&fifo, Append { read: true }).unwrap_err();
    assert!(
        error.to_string().contains("is a FIFO, not a regular file"),
        "{error}"
    );
    let error = ask_fs::open_lock(&fifo).unwrap_err();
    assert!(
        error.to_string().contains("is a FIFO, not a regular file"),
        "{error}"
    );
    assert!(ask_fs::read_acted_on(&fifo).is_err());
}

#[test]
fn a_second_name_of_a_file_is_refused_where_ask_user_locks_appends_or_acts() {
    let _serial = serial();
    let (dir, victim) = place();
    // A hard link another user could make, in a sticky folder, to a file of the user's.
    let lock = dir.path().join("pending.json.lock");
    let log = dir.path().join("session.jsonl");
    for name in [&lock, &log] {
        std::fs::hard_link(&victim, name).unwrap();
    }
    let refused = |error: std::io::Error| {
        assert_eq!(
            error.kind(),
            std::io::ErrorKind::PermissionDenied,
            "{error}"
        );
        assert!(
            error
                .to_string()
                .contains("is a file with 3 names (hard links)"),
            "{error}"
        );
    };
    refused(ask_fs::open_lock(&lock).unwrap_err());
    for read in [false, true] {
        refused(ask_fs::open_append(&log, Append { read }).unwrap_err());
    }
    refused(ask_fs::read_acted_on(&log).unwrap_err());
    assert_untouched(&victim);
}

#[test]
fn a_file_an_earlier_build_made_readable_by_others_is_made_the_users_alone_when_appended() {
    let _serial = serial();
    let (dir, _) = place();
    let log = dir.path().join("events.jsonl");
    std::fs::write(&log, "{}\n").unwrap();
    std::fs::set_permissions(&log, std::fs::Permissions::from_mode(0o644)).unwrap();
    drop(ask_fs::open_append(&log, Append { read: false }).unwrap());
    assert_eq!(mode(&log), 0o600);
}

#[test]
fn a_descriptor_the_person_names_is_written_as_it_is() {
    let _serial = serial();
    let (dir, _) = place();
    let kept = dir.path().join("kept.jsonl");
    let file = std::fs::File::create(&kept).unwrap();
    let fd = std::os::fd::AsRawFd::as_raw_fd(&file);
    let mut opened =
        ask_fs::open_append(Path::new(&format!("/dev/fd/{fd}")), Append::default()).unwrap();
    opened.write_all(b"line\n").unwrap();
    assert_eq!(std::fs::read_to_string(&kept).unwrap(), "line\n");
}

#[test]
fn the_store_refuses_a_link_at_its_path_and_a_planted_wal() {
    let _serial = serial();
    let (dir, victim) = place();
    let folder = dir.path().join("store");
    std::fs::create_dir(&folder).unwrap();
    std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o700)).unwrap();
    let db = folder.join("inbox.db");
    symlink(&victim, &db).unwrap();
    assert_link_refused(&ask_fs::check_store(&db).unwrap_err(), &db);
    std::fs::remove_file(&db).unwrap();
    let wal = folder.join("inbox.db-wal");
    symlink(&victim, &wal).unwrap();
    assert_link_refused(&ask_fs::check_store(&db).unwrap_err(), &wal);
    std::fs::remove_file(&wal).unwrap();
    std::fs::create_dir(folder.join("inbox.db-shm")).unwrap();
    let error = ask_fs::check_store(&db).unwrap_err().to_string();
    assert!(
        error.ends_with(
            "inbox.db-shm` is a folder, not a regular file, so ask-user does not use it"
        ),
        "{error}"
    );
    assert_untouched(&victim);
    // A missing folder is made 0700.
    let (made, name) = ask_fs::check_store(&dir.path().join("new/inbox.db")).unwrap();
    assert_eq!(name, "inbox.db");
    assert_eq!(mode(made.path()), 0o700);
}

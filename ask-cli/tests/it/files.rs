//! The files ask-user writes and acts on, attacked from a folder the test makes as another user
//! would: a symbolic link to a victim file planted where the pending file's lock, the session
//! log, the events file or the store goes, a folder everybody may write, a planted session log
//! whose forged record would be replayed. Each is refused with its sentence and exit 1, the
//! victim unchanged; what is made is 0600, its folders 0700.

use crate::common;

use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::process::Output;

use common::stderr;

/// A call of one question with two options.
const CALL: &str = r#"{"questions":[{"question":"Pick one?","header":"Pick","multiSelect":false,
"options":[{"label":"A","description":"a"},{"label":"B","description":"b"}]}]}"#;

/// A record of the call `toolu_X` answered "B", as another user would forge it.
const FORGED: &str = r#"{"callId":"toolu_X","questions":[{"question":"Pick one?","header":"Pick","options":[{"label":"A","description":"a"},{"label":"B","description":"b"}],"multiSelect":false}],"answers":[{"question":"Pick one?","answer":"B","selectedOption":"B","wasCustom":false}],"answeredAt":1,"mode":"interactive","status":"answered"}"#;

/// A project folder with the call in it, and a victim file the attacks aim at.
struct Project {
    dir: tempfile::TempDir,
    victim: PathBuf,
}

impl Project {
    fn new() -> Project {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("call.json"), CALL).unwrap();
        let victim = dir.path().join("victim.rc");
        std::fs::write(&victim, "alias ll=ls").unwrap();
        Project { dir, victim }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// A folder `name` that everybody may write (mode 0777), as another user would make it.
    fn open_folder(&self, name: &str) -> PathBuf {
        let folder = self.path(name);
        std::fs::create_dir(&folder).unwrap();
        std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o777)).unwrap();
        folder
    }

    /// A symbolic link at `name` to the victim file.
    fn plant_link(&self, name: &str) -> PathBuf {
        let link = self.path(name);
        std::fs::create_dir_all(link.parent().unwrap()).unwrap();
        symlink(&self.victim, &link).unwrap();
        link
    }

    fn run(&self, args: &[&str]) -> Output {
        common::run_in(self.dir.path(), args)
    }

    fn assert_victim_untouched(&self) {
        assert_eq!(
            std::fs::read_to_string(&self.victim).unwrap(),
            "alias ll=ls"
        );
        let mode = std::fs::metadata(&self.victim)
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o644, "the victim keeps its mode");
    }
}

/// The sentence that refuses a symbolic link at `path`.
fn link_refused(path: &Path) -> String {
    format!(
        "`{}` is a symbolic link, which ask-user never follows where it writes or reads what it \
         acts on",
        path.display()
    )
}

fn assert_refused(output: &Output, sentence: &str) {
    let said = stderr(output);
    assert_eq!(output.status.code(), Some(1), "{said}");
    assert!(said.contains(sentence), "{said}");
    assert!(output.stdout.is_empty(), "nothing on stdout");
}

#[test]
fn a_pending_file_in_a_folder_everybody_may_write_is_refused() {
    let project = Project::new();
    let folder = project.open_folder(".pi");
    let pending = folder.join("pending.json");
    let output = project.run(&[
        "-p",
        "call.json",
        "--pending-file",
        pending.to_str().unwrap(),
    ]);
    let me = rustix::process::geteuid().as_raw();
    let sentence = format!(
        "`{}` (owner uid {me}) has mode 0777, so other users could write it and ask-user does \
         not use it",
        folder.display()
    );
    assert_refused(&output, &sentence);
    assert!(
        std::fs::read_dir(&folder).unwrap().next().is_none(),
        "nothing written there"
    );
}

#[test]
fn a_link_planted_at_the_pending_files_lock_or_the_file_itself_is_refused() {
    let project = Project::new();
    for planted in [".pi/pending.json.lock", ".pi/pending.json"] {
        let link = project.plant_link(planted);
        let output = project.run(&["-p", "call.json", "--pending-file", ".pi/pending.json"]);
        assert_refused(&output, &link_refused(Path::new(planted)));
        project.assert_victim_untouched();
        std::fs::remove_file(link).unwrap();
    }
}

#[test]
fn a_link_planted_at_the_session_log_is_refused() {
    let project = Project::new();
    let link = project.plant_link(".ask-user/session.jsonl");
    let output = project.run(&[
        "call.json",
        "--session",
        link.to_str().unwrap(),
        "--call-id",
        "toolu_1",
    ]);
    assert_refused(&output, &link_refused(&link));
    project.assert_victim_untouched();
}

#[test]
fn a_planted_session_log_is_not_replayed() {
    let project = Project::new();
    let folder = project.open_folder(".ask-user");
    let log = folder.join("session.jsonl");
    std::fs::write(&log, format!("{FORGED}\n")).unwrap();
    std::fs::set_permissions(&log, std::fs::Permissions::from_mode(0o666)).unwrap();
    let args = [
        "call.json",
        "--session",
        log.to_str().unwrap(),
        "--call-id",
        "toolu_X",
    ];
    let output = project.run(&args);
    assert_refused(&output, &format!("`{}` (owner uid", folder.display()));
    assert!(
        !stderr(&output).contains("replaying"),
        "{}",
        stderr(&output)
    );
    // In a folder of the user's own, the log others may write is refused in turn.
    std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o700)).unwrap();
    let output = project.run(&args);
    assert_refused(&output, &format!("`{}` (owner uid", log.display()));
    assert!(
        stderr(&output).contains("has mode 0666"),
        "{}",
        stderr(&output)
    );
    assert!(
        !stderr(&output).contains("replaying"),
        "{}",
        stderr(&output)
    );
    // The user's own log is replayed, as before.
    std::fs::set_permissions(&log, std::fs::Permissions::from_mode(0o600)).unwrap();
    let output = project.run(&args);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stderr(&output).contains("replaying the answer recorded for call toolu_X"));
}

#[test]
fn a_link_planted_at_the_events_file_is_refused() {
    let project = Project::new();
    let link = project.plant_link(".ask-user/events.jsonl");
    let output = project.run(&["-p", "call.json", "--events", link.to_str().unwrap()]);
    assert_refused(&output, &link_refused(&link));
    project.assert_victim_untouched();
}

#[test]
fn a_link_at_the_store_or_a_planted_wal_is_refused() {
    let project = Project::new();
    let runtime = project.path("runtime");
    let store = project.path("store/inbox.db");
    for planted in ["store/inbox.db", "store/inbox.db-wal"] {
        let link = project.plant_link(planted);
        std::fs::set_permissions(
            project.path("store"),
            std::fs::Permissions::from_mode(0o700),
        )
        .unwrap();
        let output = common::serve_in(common::ask_user(), "127.0.0.1:0", &runtime)
            .arg("--store")
            .arg(&store)
            .arg("--migrate")
            .output()
            .unwrap();
        assert_refused(&output, &link_refused(&link));
        project.assert_victim_untouched();
        std::fs::remove_file(link).unwrap();
    }
}

#[test]
fn every_file_made_is_0600_and_every_folder_0700() {
    let project = Project::new();
    let output = project.run(&[
        "-p",
        "call.json",
        "--pending-file",
        ".pi/pending.json",
        "--events",
        ".ask-user/events.jsonl",
    ]);
    assert_eq!(output.status.code(), Some(4), "{}", stderr(&output));
    let output = project.run(&[
        "-p",
        "--pending-file",
        ".pi/pending.json",
        "--answers",
        r#"["A"]"#,
        "--session",
        ".ask-user/session.jsonl",
        "--call-id",
        "toolu_1",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let mode = |name: &str| {
        std::fs::metadata(project.path(name))
            .unwrap()
            .permissions()
            .mode()
            & 0o777
    };
    for folder in [".pi", ".ask-user"] {
        assert_eq!(mode(folder), 0o700, "{folder}");
    }
    for file in [
        ".pi/pending.json.lock",
        ".ask-user/events.jsonl",
        ".ask-user/session.jsonl",
    ] {
        assert_eq!(mode(file), 0o600, "{file}");
    }
}

#[test]
fn a_trusted_owner_list_that_is_not_numeric_is_refused_naming_the_item() {
    let project = Project::new();
    let output = common::ask_user_without_terminal()
        .args(["validate", "call.json"])
        .current_dir(project.dir.path())
        .env("ASK_USER_TRUST_OWNERS", "1000, www-data")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output),
        "ask-user: ASK_USER_TRUST_OWNERS holds `www-data`, which is not a numeric uid: give a \
         comma-separated list of uids, such as 1000,1001\n"
    );
    let output = common::ask_user_without_terminal()
        .args(["validate", "call.json"])
        .current_dir(project.dir.path())
        .env("ASK_USER_TRUST_OWNERS", "1000,65534")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
}

//! Opening a page's link on this machine, for `ask-user mcp`: whether a page opened here can be
//! seen (the process's `DISPLAY` and `WAYLAND_DISPLAY`), and the browser that opens it (`$BROWSER`,
//! then the system's opener). Nothing here writes to stdout, which carries the MCP messages: a
//! browser starts with every standard stream closed.
//!
//! The browser is never given the link: any user of the machine can read a process's command
//! line, and one who read a one-time link could spend it and answer in the person's name. It
//! gets a `file://` URL of a redirect file instead: `open.html`, 0600, in a fresh 0700 folder of
//! the user's (under `$XDG_RUNTIME_DIR`, else the temporary folder), which forwards to the link.
//! The file and its folder are removed once a browser spent the link, or the call ended; the
//! folders of processes killed before they could remove theirs go when a browser is next opened.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use ask_core::{AskRequest, Capabilities, Frontend, Outcome, PresentError, Presenter};

/// True when a page opened here can be seen: a graphical session (`DISPLAY` or
/// `WAYLAND_DISPLAY` set), or macOS or Windows.
#[allow(clippy::disallowed_methods)] // process glue: only the binary does it
pub(crate) fn display_available() -> bool {
    let set = |name: &str| std::env::var_os(name).is_some_and(|value| !value.is_empty());
    cfg!(any(target_os = "macos", target_os = "windows"))
        || set("DISPLAY")
        || set("WAYLAND_DISPLAY")
}

/// The commands that open a link, in order: each of `$BROWSER` (separated by `:`; `%s` stands
/// for the link, which is appended when no `%s` is given), then the system's opener (`open` on
/// macOS, `xdg-open` elsewhere).
fn browser_commands(browser: Option<&str>, link: &str) -> Vec<Vec<String>> {
    let mut commands: Vec<Vec<String>> = browser
        .unwrap_or_default()
        .split(':')
        .filter(|entry| !entry.trim().is_empty())
        .map(|entry| {
            let mut words: Vec<String> = entry
                .split_whitespace()
                .map(|word| word.replace("%s", link))
                .collect();
            if !entry.contains("%s") {
                words.push(link.to_string());
            }
            words
        })
        .collect();
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    commands.push(vec![opener.to_string(), link.to_string()]);
    commands
}

/// Starts the first of [`browser_commands`] for `target` that starts; gives whether one did.
/// The browser is not waited for (a thread reaps it), and its standard streams are `/dev/null`.
#[allow(clippy::disallowed_methods)] // process glue: only the binary does it
fn start_browser(target: &str) -> bool {
    let browser = std::env::var("BROWSER").ok();
    for words in browser_commands(browser.as_deref(), target) {
        let Some((program, args)) = words.split_first() else {
            continue;
        };
        let started = Command::new(program)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
        if let Ok(mut child) = started {
            std::thread::spawn(move || child.wait());
            return true;
        }
    }
    false
}

/// A redirect file that forwards a browser to a link: `open.html` in a folder of its own, both
/// removed when this is dropped.
#[derive(Debug)]
pub(crate) struct Redirect {
    folder: PathBuf,
}

/// The name of the redirect file in its folder.
const REDIRECT_FILE: &str = "open.html";

/// How a redirect folder's name starts; the pid of the process that made it follows, then a
/// dash and random hex digits.
const FOLDER_PREFIX: &str = "ask-user-";

/// Removes the redirect folders in `parent` that the user's processes left when they were
/// killed (kill -9, or a signal that ended them at once): folders of the user's own, named as
/// [`Redirect::write`] names them, whose process no longer runs. Each holds a link whose page
/// died with its process; this only tidies.
pub(crate) fn sweep_left_behind(parent: &Path) {
    let Ok(dir) = ask_fs::Dir::open(parent, ask_fs::Rule::Shared) else {
        return;
    };
    for name in dir.entries().unwrap_or_default() {
        let Some(pid) = name
            .to_str()
            .and_then(|name| name.strip_prefix(FOLDER_PREFIX))
            .and_then(|rest| rest.split_once('-'))
            .and_then(|(pid, _)| pid.parse::<i32>().ok())
            .and_then(rustix::process::Pid::from_raw)
        else {
            continue;
        };
        let gone = rustix::process::test_kill_process(pid) == Err(rustix::io::Errno::SRCH);
        if gone && dir.is_own_folder(&name) {
            drop(Redirect {
                folder: parent.join(&name),
            });
        }
    }
}

impl Redirect {
    /// Writes a redirect file to `link` in a fresh folder under `parent`: the parent is checked
    /// as every folder ask-user writes in (the user's or root's, and no other user may write
    /// it unless it is sticky), the folder is made 0700 under a random name (never an existing
    /// one) and checked to be the user's own once opened, and the file is made 0600 with
    /// `O_EXCL` and `O_NOFOLLOW` inside it, so that no other user can read it or aim it
    /// elsewhere.
    pub(crate) fn write(parent: &Path, link: &str) -> std::io::Result<Redirect> {
        let mut random = [0_u8; 12];
        getrandom::fill(&mut random).map_err(std::io::Error::other)?;
        let name: String = random.iter().map(|byte| format!("{byte:02x}")).collect();
        let pid = std::process::id();
        let name = format!("{FOLDER_PREFIX}{pid}-{name}");
        let parent_dir = ask_fs::Dir::open(parent, ask_fs::Rule::Shared)?;
        // Nothing in another user's folder is removed: the folder is this process's to remove
        // only once it was opened as the user's own.
        let dir = parent_dir.create_dir(name.as_ref())?;
        let redirect = Redirect {
            folder: dir.path().to_path_buf(),
        };
        dir.create_new(REDIRECT_FILE.as_ref())?
            .write_all(forwarding_page(link).as_bytes())?;
        Ok(redirect)
    }

    /// The redirect file.
    pub(crate) fn file(&self) -> PathBuf {
        self.folder.join(REDIRECT_FILE)
    }

    /// The `file://` URL of the redirect file, which a browser opens.
    pub(crate) fn url(&self) -> String {
        let mut url = String::from("file://");
        for byte in self.file().as_os_str().as_encoded_bytes() {
            match byte {
                b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'/' | b'-' | b'.' | b'_' | b'~' => {
                    url.push(char::from(*byte));
                }
                _ => url.push_str(&format!("%{byte:02X}")),
            }
        }
        url
    }
}

impl Drop for Redirect {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(self.file());
        let _ = std::fs::remove_dir(&self.folder);
    }
}

/// The redirect page to `link`: a refresh, a script for browsers that ignore it, and the link
/// to follow by hand when neither runs.
fn forwarding_page(link: &str) -> String {
    let attribute = link
        .replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    let script = serde_json::to_string(link)
        .unwrap_or_default()
        .replace('<', "\\u003c");
    format!(
        "<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"refresh\" content=\"0;url={attribute}\">\n\
         <title>ask-user</title>\n</head>\n<body>\n\
         <p><a href=\"{attribute}\">Open the questions</a> if this page does not go there by itself.</p>\n\
         <script>location.replace({script});</script>\n</body>\n</html>\n"
    )
}

/// The folders a redirect folder is made in, in order: `$XDG_RUNTIME_DIR` when set (the user's
/// own, 0700, emptied at logout), then the temporary folder (for a sandbox where the runtime
/// folder cannot be written).
#[allow(clippy::disallowed_methods)] // process glue: only the binary does it
fn redirect_parents() -> Vec<PathBuf> {
    let runtime = std::env::var_os("XDG_RUNTIME_DIR").filter(|dir| !dir.is_empty());
    runtime
        .map(PathBuf::from)
        .into_iter()
        .chain([std::env::temp_dir()])
        .collect()
}

/// The redirect files of the browsers opened for pages, by the link each forwards to. Each goes
/// once its link is spent or its page is dropped; [`Redirects::clear`] removes the rest.
#[derive(Debug, Clone, Default)]
pub(crate) struct Redirects(Arc<Mutex<HashMap<String, Redirect>>>);

impl Redirects {
    /// Opens `link` in the person's browser through a redirect file; gives whether a browser
    /// started. Without a file there is no browser: the person has the link from the client.
    pub(crate) fn open(&self, link: &str) -> bool {
        static SWEPT: std::sync::Once = std::sync::Once::new();
        SWEPT.call_once(|| redirect_parents().iter().for_each(|p| sweep_left_behind(p)));
        let written = redirect_parents()
            .iter()
            .find_map(|parent| Redirect::write(parent, link).ok());
        let Some(redirect) = written else {
            return false;
        };
        let started = start_browser(&redirect.url());
        if started {
            self.lock().insert(link.to_string(), redirect);
        }
        started
    }

    /// Removes the redirect file to `link`, if there is one.
    pub(crate) fn forget(&self, link: &str) {
        let gone = self.lock().remove(link);
        drop(gone);
    }

    /// Removes every redirect file.
    pub(crate) fn clear(&self) {
        let gone = std::mem::take(&mut *self.lock());
        drop(gone);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Redirect>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// How often a page whose link a redirect file holds is looked at for a browser that spent it.
const CLAIM_CHECK: Duration = Duration::from_millis(100);

/// A page's frontend that removes the redirect file to its link once a browser spent the link
/// (or a fresh one replaced it), and when the page is dropped (the call ended).
pub(crate) struct Redirected {
    pub(crate) inner: Box<dyn Frontend>,
    pub(crate) link: String,
    pub(crate) links: ask_web::Links,
    pub(crate) redirects: Redirects,
}

#[async_trait::async_trait]
impl Frontend for Redirected {
    fn presenter(&self) -> Presenter {
        self.inner.presenter()
    }

    fn capabilities(&self) -> Capabilities {
        self.inner.capabilities()
    }

    async fn present(&self, request: &AskRequest) -> Result<Outcome, PresentError> {
        let spent = async {
            let mut every = tokio::time::interval(CLAIM_CHECK);
            while self.links.opens(&self.link) {
                every.tick().await;
            }
            self.redirects.forget(&self.link);
            std::future::pending::<Result<Outcome, PresentError>>().await
        };
        tokio::select! {
            outcome = self.inner.present(request) => outcome,
            never = spent => never,
        }
    }

    async fn flush_queued_lines(&self) {
        self.inner.flush_queued_lines().await;
    }
}

impl Drop for Redirected {
    fn drop(&mut self) {
        self.redirects.forget(&self.link);
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)]
mod tests {
    use super::*;

    #[test]
    fn a_redirect_file_forwards_to_its_link_and_goes_with_its_folder() {
        use std::os::unix::fs::PermissionsExt;
        let parent = tempfile::tempdir().unwrap();
        let parent = parent.path().join("a folder");
        std::fs::create_dir(&parent).unwrap();
        let link = "http://127.0.0.1:9/#token=ab\"<&";
        let redirect = Redirect::write(&parent, link).unwrap();
        let file = redirect.file();
        let html = std::fs::read_to_string(&file).unwrap();
        let attribute = "http://127.0.0.1:9/#token=ab&quot;&lt;&amp;";
        assert!(
            html.contains(&format!("content=\"0;url={attribute}\"")),
            "{html}"
        );
        assert!(
            html.contains(&format!("<a href=\"{attribute}\">")),
            "{html}"
        );
        assert!(
            html.contains(r#"location.replace("http://127.0.0.1:9/#token=ab\"\u003c&")"#),
            "{html}"
        );
        let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode(&file), 0o600);
        assert_eq!(mode(file.parent().unwrap()), 0o700);
        let url = redirect.url();
        assert!(url.starts_with("file:///"), "{url}");
        assert!(url.contains("/a%20folder/ask-user-"), "{url}");
        assert!(url.ends_with("/open.html"), "{url}");
        let other = Redirect::write(&parent, link).unwrap();
        assert_ne!(other.file(), file, "every redirect has a folder of its own");
        drop(redirect);
        assert!(!file.parent().unwrap().exists());
        assert!(other.file().exists());
        assert!(Redirect::write(&parent.join("missing"), link).is_err());
    }

    #[test]
    fn folders_left_by_processes_that_no_longer_run_are_swept() {
        let parent = tempfile::tempdir().unwrap();
        let mine = Redirect::write(parent.path(), "http://127.0.0.1:9/#token=a").unwrap();
        // A process that ran and was reaped: its pid runs nothing now.
        let mut ended = std::process::Command::new("true").spawn().unwrap();
        let dead = ended.id();
        ended.wait().unwrap();
        let left = parent.path().join(format!("{FOLDER_PREFIX}{dead}-00ff"));
        std::fs::create_dir(&left).unwrap();
        std::fs::write(left.join(REDIRECT_FILE), "old").unwrap();
        let other = parent.path().join(format!("{FOLDER_PREFIX}{dead}-kept"));
        std::fs::create_dir(&other).unwrap();
        std::fs::write(other.join("something else"), "").unwrap();
        sweep_left_behind(parent.path());
        assert!(
            !left.exists(),
            "the folder of a process that no longer runs goes"
        );
        assert!(other.exists(), "a folder holding anything else stays");
        assert!(mine.file().exists(), "a running process's file stays");
    }

    #[test]
    fn browser_lists_its_commands_before_the_system_opener() {
        let link = "http://127.0.0.1:9/?t=1";
        let opener = if cfg!(target_os = "macos") {
            "open"
        } else {
            "xdg-open"
        };
        assert_eq!(
            browser_commands(Some("firefox --new-tab:lynx %s:"), link),
            vec![
                vec!["firefox".to_string(), "--new-tab".into(), link.into()],
                vec!["lynx".to_string(), link.into()],
                vec![opener.to_string(), link.into()],
            ]
        );
        assert_eq!(
            browser_commands(None, link),
            vec![vec![opener.to_string(), link.to_string()]]
        );
    }
}

//! Opening a page's link on this machine, for `ask-user mcp`: whether a page opened here can be
//! seen (the process's `DISPLAY` and `WAYLAND_DISPLAY`), and the browser that opens it (`$BROWSER`,
//! then the system's opener). Nothing here writes to stdout, which carries the MCP messages: a
//! browser starts with every standard stream closed.

use std::process::{Command, Stdio};

/// True when a page opened here can be seen: a graphical session (`DISPLAY` or
/// `WAYLAND_DISPLAY` set), or macOS or Windows.
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

/// Opens `link` in the person's browser with the first of [`browser_commands`] that starts;
/// gives whether one did. The browser is not waited for (a thread reaps it).
///
/// The browser is started with every standard stream on `/dev/null`, so the link never reaches a
/// terminal or a log through it.
pub(crate) fn open_in_browser(link: &str) -> bool {
    let browser = std::env::var("BROWSER").ok();
    for words in browser_commands(browser.as_deref(), link) {
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

#[cfg(test)]
mod tests {
    use super::*;

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

//! What a person and an agent need around the page: the link drawn as a QR code for a phone,
//! and the agent token's file. Nothing here serves a request.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

/// Whether the link is also drawn as a QR code: only for a page reachable from other machines
/// (a phone), and only on a terminal (a log gets the link alone).
pub fn shows_qr(listen: SocketAddr, stderr_is_terminal: bool) -> bool {
    stderr_is_terminal && !listen.ip().is_loopback()
}

/// `link` as a QR code in Unicode half blocks (two modules to a character cell), with its
/// quiet zone, each line drawn black on white whatever the terminal's colours, so a camera reads
/// it on dark and light themes alike. `None` when the link is too long for a QR code.
pub fn qr_text(link: &str) -> Option<String> {
    use qrcode::render::unicode::Dense1x2;
    let code = qrcode::QrCode::new(link.as_bytes()).ok()?;
    let drawn = code
        .render::<Dense1x2>()
        .dark_color(Dense1x2::Dark)
        .light_color(Dense1x2::Light)
        .quiet_zone(true)
        .build();
    let mut text = String::with_capacity(drawn.len() * 2);
    for line in drawn.lines() {
        text.push_str("\x1b[30;107m");
        text.push_str(line);
        text.push_str("\x1b[0m\n");
    }
    Some(text)
}

/// The file of the people's token, which mints links (`ask-user serve --link`), beside the
/// agents' token file: `serve-token` gives `serve-token-link`.
pub fn link_token_file(token_file: &Path) -> PathBuf {
    let mut name = token_file.file_name().unwrap_or_default().to_os_string();
    name.push("-link");
    token_file.with_file_name(name)
}

/// Writes `token` to `path`, readable and writable by this user only: a temporary file under
/// a random name beside it, created 0600 without following a link, then a rename, so a reader
/// never sees half a token; the folder is made 0700 when missing, and refused when another
/// user owns it or may write it ([`ask_fs::write_atomic`]).
pub fn write_token(path: &Path, token: &str) -> std::io::Result<()> {
    ask_fs::write_atomic(path, token.as_bytes())
}

/// Why a token file from an earlier run is not used again.
#[derive(Debug)]
pub enum NotKept {
    /// There is no such file.
    Missing,
    /// It, or its folder, is one ask-user does not act on: a symbolic link, not a regular
    /// file, another user's, or one others may write (the sentence of `ask_fs`).
    Refused(std::io::Error),
    /// Its group or other users may read or write it.
    Exposed,
    /// It does not hold a token as the inbox makes them (64 lowercase hex digits).
    Malformed,
    /// It could not be read.
    Unreadable(std::io::Error),
}

impl std::fmt::Display for NotKept {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotKept::Missing => f.write_str("there was none"),
            NotKept::Refused(error) => write!(f, "{error}"),
            NotKept::Exposed => f.write_str("its group or other users may read it"),
            NotKept::Malformed => f.write_str("it does not hold a token"),
            NotKept::Unreadable(error) => write!(f, "it cannot be read: {error}"),
        }
    }
}

/// The token of `path` written by an earlier run, when it may be used again: a regular file
/// (not a symbolic link) owned by this user (or root, or a trusted owner) in a folder no other
/// user may write ([`ask_fs::open_acted_on`]), that its group and other users can neither read
/// nor write, holding one token as [`crate::auth::random_token`] makes them.
pub fn kept_token(path: &Path) -> Result<String, NotKept> {
    use std::io::Read;
    use std::os::unix::fs::MetadataExt;
    let mut file = match ask_fs::open_acted_on(path) {
        Ok(Some(file)) => file,
        Ok(None) => return Err(NotKept::Missing),
        Err(error) if error.kind() == std::io::ErrorKind::PermissionDenied => {
            return Err(NotKept::Refused(error));
        }
        Err(error) => return Err(NotKept::Unreadable(error)),
    };
    let opened = file.metadata().map_err(NotKept::Unreadable)?;
    if opened.mode() & 0o077 != 0 {
        return Err(NotKept::Exposed);
    }
    // A token and a line break at most: anything longer is not one.
    let mut text = String::new();
    (&mut file)
        .take(100)
        .read_to_string(&mut text)
        .map_err(|_| NotKept::Malformed)?;
    let token = text.strip_suffix('\n').unwrap_or(&text);
    let well_formed = token.len() == 64
        && token
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    if well_formed {
        Ok(token.to_string())
    } else {
        Err(NotKept::Malformed)
    }
}

/// The name of the parent process, from `/proc`.
pub fn parent_name() -> Option<String> {
    let ppid = std::os::unix::process::parent_id();
    let comm = ask_fs::read_plain(Path::new(&format!("/proc/{ppid}/comm"))).ok()?;
    String::from_utf8(comm)
        .ok()
        .map(|name| name.trim().to_string())
        .filter(|name| !name.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_qr_code_is_drawn_only_for_an_exposed_page_on_a_terminal() {
        let exposed: [SocketAddr; 3] = [
            "0.0.0.0:8080".parse().unwrap(),
            "192.168.1.20:0".parse().unwrap(),
            "[::]:0".parse().unwrap(),
        ];
        for listen in exposed {
            assert!(shows_qr(listen, true), "{listen} on a terminal");
            assert!(!shows_qr(listen, false), "{listen} in a log");
        }
        for listen in ["127.0.0.1:0", "127.0.0.2:9000", "[::1]:0"] {
            let listen: SocketAddr = listen.parse().unwrap();
            assert!(!shows_qr(listen, true), "{listen} stays on this machine");
        }
    }

    #[test]
    fn the_qr_code_is_a_square_of_half_blocks_black_on_white() {
        let link = "http://192.168.1.20:8080/?token=Zk3vX9q2LmN8pR4tW6yB1cD5fH7jK0sA";
        let text = qr_text(link).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let mut width = None;
        for line in &lines {
            let body = line
                .strip_prefix("\x1b[30;107m")
                .and_then(|l| l.strip_suffix("\x1b[0m"))
                .unwrap_or_else(|| panic!("not black on white: {line:?}"));
            assert!(
                body.chars().all(|c| " ▀▄█".contains(c)),
                "only half blocks: {body:?}"
            );
            let n = body.chars().count();
            assert_eq!(*width.get_or_insert(n), n, "every line as wide");
        }
        let width = width.unwrap();
        // Modules: 17 + 4 per version, and a quiet zone of 4 on each side; two rows a line.
        assert_eq!((width - 8 - 17) % 4, 0, "{width} modules wide");
        assert_eq!(lines.len(), width.div_ceil(2), "square: {width} wide");
        // The quiet zone: the first line and every line's first cell are light.
        assert!(lines[0].contains(&" ".repeat(width)));
        assert!(lines.iter().all(|l| l.contains("m  ")));
        // A longer link needs a bigger code.
        let longer = qr_text(&format!("{link}{}", "x".repeat(200))).unwrap();
        assert!(longer.lines().count() > lines.len());
    }
}

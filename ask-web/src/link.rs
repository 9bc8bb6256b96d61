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

/// What a token file holds: the token on its first line (64 lowercase hex digits, as
/// [`crate::auth::random_token`] makes them), then a line `KEY VALUE` for each thing an agent
/// needs besides it: `socket PATH`, the inbox's Unix socket, and `tls-sha256 HEX` (64 lowercase
/// hex digits), the SHA-256 of the certificate of an inbox that serves TLS, which
/// `--via https://` pins. A reader ignores the keys it does not know, so a later `serve` may
/// add some.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenFile {
    /// The token.
    pub token: String,
    /// `socket PATH`: the absolute path of the inbox's Unix socket, which `--via` dials for a
    /// loopback URL.
    pub socket: Option<PathBuf>,
    /// The fingerprint of the inbox's certificate, when it serves TLS.
    pub tls_sha256: Option<crate::Fingerprint>,
}

impl TokenFile {
    /// The file's text: the token, then a line for each key it has, each line ended.
    pub fn text(&self) -> String {
        let mut text = format!("{}\n", self.token);
        if let Some(socket) = &self.socket {
            text.push_str(&format!("socket {}\n", socket.display()));
        }
        if let Some(sha256) = &self.tls_sha256 {
            text.push_str(&format!("tls-sha256 {}\n", crate::fingerprint_hex(sha256)));
        }
        text
    }

    /// Reads the text of a token file: `None` when its first line is not a token as
    /// [`crate::auth::random_token`] makes them, a later line is not `KEY VALUE`, its `socket`
    /// is not absolute or its `tls-sha256` not a fingerprint.
    pub fn parse(text: &str) -> Option<TokenFile> {
        let mut lines = text.lines();
        let token = lines.next()?.trim_end();
        let well_formed = token.len() == 64
            && token
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        if !well_formed {
            return None;
        }
        let mut file = TokenFile {
            token: token.to_string(),
            socket: None,
            tls_sha256: None,
        };
        for line in lines.filter(|line| !line.trim().is_empty()) {
            let (key, value) = line.trim_end_matches('\r').split_once(' ')?;
            let key_ok = !key.is_empty()
                && key
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
            if !key_ok || value.is_empty() {
                return None;
            }
            match key {
                "socket" => {
                    let path = PathBuf::from(value);
                    if !path.is_absolute() {
                        return None;
                    }
                    file.socket = Some(path);
                }
                "tls-sha256" => file.tls_sha256 = Some(crate::parse_fingerprint(value)?),
                _ => {}
            }
        }
        Some(file)
    }
}

/// Writes `text` (a token file's, [`TokenFile::text`]) to `path`, readable and writable by this
/// user only: a temporary file under a random name beside it, created 0600 without following a
/// link, then a rename, so a reader never sees half a token; the folder is made 0700 when
/// missing, and refused when another user owns it or may write it ([`ask_fs::write_atomic`]).
pub fn write_token(path: &Path, text: &str) -> std::io::Result<()> {
    ask_fs::write_atomic(path, text.as_bytes())
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
/// user may write, or a sticky one ([`ask_fs::open_acted_on`]), that its group and other users can neither read
/// nor write, that is a [`TokenFile`].
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
    // A token and a few lines `KEY VALUE` at most: anything longer is not a token file.
    let mut text = String::new();
    (&mut file)
        .take(MAX_TOKEN_FILE)
        .read_to_string(&mut text)
        .map_err(|_| NotKept::Malformed)?;
    TokenFile::parse(&text)
        .map(|file| file.token)
        .ok_or(NotKept::Malformed)
}

/// The most bytes of a token file that are read.
const MAX_TOKEN_FILE: u64 = 8192;

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
    fn a_token_file_is_its_token_then_lines_of_keys_and_values() {
        let token = "ab".repeat(32);
        let file = TokenFile {
            token: token.clone(),
            socket: Some(PathBuf::from("/run/user/1000/ask-user/serve-8765.sock")),
            tls_sha256: Some([0xab; 32]),
        };
        let text = file.text();
        assert_eq!(
            text,
            format!(
                "{token}\nsocket /run/user/1000/ask-user/serve-8765.sock\ntls-sha256 {}\n",
                "ab".repeat(32)
            )
        );
        assert_eq!(TokenFile::parse(&text), Some(file));
        // The file of earlier builds: the token alone, with or without its line break.
        for alone in [token.clone(), format!("{token}\n")] {
            let read = TokenFile::parse(&alone).unwrap();
            assert_eq!((read.token.as_str(), read.socket), (token.as_str(), None));
            assert_eq!(read.tls_sha256, None);
        }
        // A key it does not know is passed over.
        let later = format!("{token}\nfuture-key 0f\nsocket /s.sock\n");
        let read = TokenFile::parse(&later).unwrap();
        assert_eq!(read.socket, Some(PathBuf::from("/s.sock")));
        // Not a token, a line that is no key and value, a socket that is not absolute, a
        // fingerprint that is not one.
        for bad in [
            String::new(),
            "not a token".to_string(),
            format!("{}\n", "AB".repeat(32)),
            format!("{token}0"),
            format!("{token}\nsocket\n"),
            format!("{token}\nSocket /s.sock\n"),
            format!("{token}\nsocket relative.sock\n"),
            format!("{token}\ntls-sha256 abc\n"),
        ] {
            assert_eq!(TokenFile::parse(&bad), None, "{bad:?}");
        }
    }

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

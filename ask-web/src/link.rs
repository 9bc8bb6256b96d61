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
/// [`crate::auth::random_token`] makes them), then lines `KEY VALUE`. `tls-sha256 HEX` (64
/// lowercase hex digits) is the SHA-256 of the certificate of an inbox that serves TLS, which
/// `--via https://` pins; a reader ignores the keys it does not know.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenFile {
    /// The token.
    pub token: String,
    /// The fingerprint of the inbox's certificate, when it serves TLS.
    pub tls_sha256: Option<crate::Fingerprint>,
}

impl TokenFile {
    /// Reads a token file's text; `None` when its first line is not a token, or its
    /// `tls-sha256` not a fingerprint.
    pub fn parse(text: &str) -> Option<TokenFile> {
        let mut lines = text.lines();
        let token = lines.next()?.trim_end_matches('\r');
        let well_formed = token.len() == 64
            && token
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        if !well_formed {
            return None;
        }
        let mut tls_sha256 = None;
        for line in lines {
            if let Some(("tls-sha256", value)) = line.trim_end_matches('\r').split_once(' ') {
                tls_sha256 = Some(crate::parse_fingerprint(value)?);
            }
        }
        Some(TokenFile {
            token: token.to_string(),
            tls_sha256,
        })
    }
}

impl std::fmt::Display for TokenFile {
    /// The text of the file: the token, then the `tls-sha256` line when there is one (no line
    /// break at the end, so that a file with a token alone is that token).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.token)?;
        if let Some(sha256) = &self.tls_sha256 {
            write!(f, "\ntls-sha256 {}", crate::fingerprint_hex(sha256))?;
        }
        Ok(())
    }
}

/// Writes `token` (the whole text of the file, such as a [`TokenFile`]'s) to `path`, readable and writable by this user only (a temporary file beside
/// it, then a rename, so a reader never sees half a token).
pub fn write_token(path: &Path, token: &str) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)?;
    }
    let temporary = path.with_extension(format!("tmp-{}", std::process::id()));
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&temporary)?;
    file.write_all(token.as_bytes())?;
    file.sync_all()?;
    std::fs::rename(&temporary, path)
}

/// Why a token file from an earlier run is not used again.
#[derive(Debug)]
pub enum NotKept {
    /// There is no such file.
    Missing,
    /// It is not a regular file (a symbolic link, a folder, a device).
    NotRegular,
    /// Another user owns it.
    NotOwned,
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
            NotKept::NotRegular => f.write_str("it is not a regular file"),
            NotKept::NotOwned => f.write_str("another user owns it"),
            NotKept::Exposed => f.write_str("its group or other users may read it"),
            NotKept::Malformed => f.write_str("it does not hold a token"),
            NotKept::Unreadable(error) => write!(f, "it cannot be read: {error}"),
        }
    }
}

/// The token of `path` written by an earlier run, when it may be used again: a regular file
/// (not a symbolic link) owned by this user, that its group and other users can neither read
/// nor write, that is a [`TokenFile`].
pub fn kept_token(path: &Path) -> Result<String, NotKept> {
    use std::io::Read;
    use std::os::unix::fs::MetadataExt;
    let unreadable = |error: std::io::Error| match error.kind() {
        std::io::ErrorKind::NotFound => NotKept::Missing,
        _ => NotKept::Unreadable(error),
    };
    let named = std::fs::symlink_metadata(path).map_err(unreadable)?;
    if !named.file_type().is_file() {
        return Err(NotKept::NotRegular);
    }
    // The file opened is the one examined: same device and inode, so a swap between the two
    // steps is caught.
    let mut file = std::fs::File::open(path).map_err(unreadable)?;
    let opened = file.metadata().map_err(unreadable)?;
    if !opened.file_type().is_file() || (opened.dev(), opened.ino()) != (named.dev(), named.ino()) {
        return Err(NotKept::NotRegular);
    }
    if opened.uid() != rustix::process::geteuid().as_raw() {
        return Err(NotKept::NotOwned);
    }
    if opened.mode() & 0o077 != 0 {
        return Err(NotKept::Exposed);
    }
    // A token and a few lines of `KEY VALUE` at most: anything longer is not a token file.
    let mut text = String::new();
    (&mut file)
        .take(4096)
        .read_to_string(&mut text)
        .map_err(|_| NotKept::Malformed)?;
    TokenFile::parse(&text)
        .map(|file| file.token)
        .ok_or(NotKept::Malformed)
}

/// The name of the parent process, from `/proc`.
pub fn parent_name() -> Option<String> {
    let ppid = std::os::unix::process::parent_id();
    std::fs::read_to_string(format!("/proc/{ppid}/comm"))
        .ok()
        .map(|name| name.trim().to_string())
        .filter(|name| !name.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_file_is_the_token_then_keys_and_values_of_which_unknown_ones_are_ignored() {
        let token = "0123456789abcdef".repeat(4);
        let sha256 = [0xab; 32];
        let file = TokenFile {
            token: token.clone(),
            tls_sha256: Some(sha256),
        };
        let text = file.to_string();
        assert_eq!(text, format!("{token}\ntls-sha256 {}", "ab".repeat(32)));
        assert_eq!(TokenFile::parse(&text), Some(file));
        let plain = TokenFile::parse(&format!("{token}\nsocket /run/user/1000/ask-user/s\n"));
        assert_eq!(
            plain,
            Some(TokenFile {
                token: token.clone(),
                tls_sha256: None
            })
        );
        assert_eq!(
            TokenFile::parse(&token).map(|f| f.token),
            Some(token.clone())
        );
        for bad in [
            String::new(),
            token.to_uppercase(),
            format!("{token}0"),
            format!("{token}\ntls-sha256 abc\n"),
        ] {
            assert_eq!(TokenFile::parse(&bad), None, "{bad}");
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

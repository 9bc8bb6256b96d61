//! The addresses an agent may dial to reach the inbox, which both proofs of the handshake name
//! (`auth.rs`): what an agent's `hello` may name, and how a URL is written as one.
//!
//! The rule: over TCP, `IP:PORT` where PORT is the port the inbox listens on and IP is the
//! address it listens on, or, when it listens on every address of a family (`0.0.0.0`, `::`),
//! any address of that family that belongs to this machine (one a socket can be bound to);
//! `localhost:PORT` counts as `127.0.0.1:PORT`, which is what `--via` dials for it; and each
//! `host:port` of `serve --public-url`. Over the Unix socket, `unix:` and the socket's path.
//! Anything else is a relay's address, or a proxy's that the inbox was not told of.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::Path;

/// How a connection reached the inbox.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Came {
    /// Over TCP.
    Tcp,
    /// Over the Unix socket, from a process of this user id.
    Socket { uid: u32 },
}

/// Where the inbox may be dialled: what a `hello` may name.
#[derive(Debug, Clone, Default)]
pub(crate) struct Dialled {
    /// The TCP address the inbox listens on.
    pub(crate) bound: Option<SocketAddr>,
    /// `unix:PATH` of its socket, when it listens on one.
    pub(crate) socket: Option<String>,
    /// The `host:port` of each `--public-url`.
    pub(crate) public: Vec<String>,
}

impl Dialled {
    /// Whether `address`, named by a client that reached the inbox as `came`, is one of the
    /// inbox's own.
    pub(crate) fn accepts(&self, address: &str, came: Came) -> bool {
        if let Some(path) = address.strip_prefix("unix:") {
            return matches!(came, Came::Socket { .. })
                && self.socket.as_deref().and_then(|s| s.strip_prefix("unix:")) == Some(path);
        }
        if came != Came::Tcp {
            return false;
        }
        if self.public.iter().any(|public| public == address) {
            return true;
        }
        let Some(bound) = self.bound else {
            return false;
        };
        let named = match address.strip_prefix("localhost:") {
            Some(port) => port
                .parse::<u16>()
                .ok()
                .map(|port| SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port)),
            None => address.parse::<SocketAddr>().ok(),
        };
        let Some(named) = named else {
            return false;
        };
        if named.port() != bound.port() {
            return false;
        }
        if named.ip() == bound.ip() {
            return true;
        }
        bound.ip().is_unspecified() && named.is_ipv4() == bound.is_ipv4() && own(named.ip())
    }

    /// What the refusal of `address` says: the address, why, and how to let a proxy through.
    pub(crate) fn refusal(&self, address: &str) -> String {
        let own = self
            .bound
            .map(|bound| bound.to_string())
            .unwrap_or_default();
        // The address as the client sent it, at most 256 characters of it.
        format!(
            "refused: `{address:.256}`, the address you dialled, is not one this inbox listens on \
             ({own}): something between you and the inbox relays the connection. Dial the \
             inbox's own address; a reverse proxy you run yourself is let through with `ask-user \
             serve --public-url URL`"
        )
    }
}

/// Whether `ip` belongs to this machine: a socket can be bound to it.
fn own(ip: IpAddr) -> bool {
    std::net::UdpSocket::bind(SocketAddr::new(ip, 0)).is_ok()
}

/// `unix:` and the socket's path, as the proofs name a socket.
pub(crate) fn unix_address(path: &Path) -> String {
    format!("unix:{}", path.display())
}

/// The scheme, and the `host:port` that `url` (`http://host[:port][/]` or
/// `https://host[:port][/]`) names, lowercased, the port being the scheme's when it is left
/// out; `None` when `url` is not such a URL.
pub(crate) fn url_address(url: &str) -> Option<(&'static str, String)> {
    let (scheme, rest, port) = if let Some(rest) = url.strip_prefix("http://") {
        ("http", rest, 80)
    } else if let Some(rest) = url.strip_prefix("https://") {
        ("https", rest, 443)
    } else {
        return None;
    };
    let rest = rest.strip_suffix('/').unwrap_or(rest);
    if rest.is_empty() || rest.contains(['/', '?', '#', '@', ' ']) || !rest.is_ascii() {
        return None;
    }
    let rest = rest.to_ascii_lowercase();
    // The host ends at its port's colon: after the bracket of an IPv6 address.
    let host_end = match rest.strip_prefix('[') {
        Some(inner) => inner.find(']').map(|at| at + 2)?,
        None => rest.find(':').unwrap_or(rest.len()),
    };
    let (host, after) = rest.split_at(host_end);
    if host.is_empty() || host == "[]" {
        return None;
    }
    let address = match after.strip_prefix(':') {
        Some(port) => format!("{host}:{}", port.parse::<u16>().ok()?),
        None if after.is_empty() => format!("{host}:{port}"),
        None => return None,
    };
    Some((scheme, address))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listening(bound: &str) -> Dialled {
        Dialled {
            bound: Some(bound.parse().unwrap()),
            socket: Some("unix:/run/user/1000/ask-user/serve-8765.sock".into()),
            public: vec!["ask.example.org:443".into()],
        }
    }

    #[test]
    fn an_inbox_accepts_only_the_addresses_it_listens_on() {
        let on = listening("127.0.0.1:8765");
        for own in ["127.0.0.1:8765", "localhost:8765", "ask.example.org:443"] {
            assert!(on.accepts(own, Came::Tcp), "{own}");
        }
        for relay in [
            "127.0.0.1:8766",
            "127.0.0.2:8765",
            "[::1]:8765",
            "localhost:8766",
            "example.org:8765",
            "unix:/run/user/1000/ask-user/serve-8765.sock",
            "",
            "127.0.0.1",
        ] {
            assert!(!on.accepts(relay, Came::Tcp), "{relay}");
        }
        // The socket's address, over the socket only; nothing else over the socket.
        let socket = Came::Socket { uid: 1000 };
        assert!(on.accepts("unix:/run/user/1000/ask-user/serve-8765.sock", socket));
        assert!(!on.accepts("unix:/tmp/relay.sock", socket));
        assert!(!on.accepts("127.0.0.1:8765", socket));
    }

    #[test]
    fn an_inbox_on_every_address_accepts_this_machines_of_its_family() {
        let on = listening("0.0.0.0:8765");
        assert!(on.accepts("127.0.0.1:8765", Came::Tcp));
        assert!(on.accepts("127.0.0.2:8765", Came::Tcp));
        assert!(on.accepts("localhost:8765", Came::Tcp));
        // Not this machine's (TEST-NET-3), another port, another family.
        assert!(!on.accepts("203.0.113.9:8765", Came::Tcp));
        assert!(!on.accepts("127.0.0.1:9000", Came::Tcp));
        assert!(!on.accepts("[::1]:8765", Came::Tcp));
    }

    #[test]
    fn a_url_is_named_by_its_host_and_port_lowercased() {
        for (url, scheme, address) in [
            ("http://127.0.0.1:8765", "http", "127.0.0.1:8765"),
            ("http://127.0.0.1:8765/", "http", "127.0.0.1:8765"),
            ("http://LocalHost:8765", "http", "localhost:8765"),
            ("https://Ask.Example.org", "https", "ask.example.org:443"),
            ("http://ask.example.org", "http", "ask.example.org:80"),
            ("http://[::1]:8765", "http", "[::1]:8765"),
            ("https://[::1]", "https", "[::1]:443"),
        ] {
            assert_eq!(
                url_address(url),
                Some((scheme, address.to_string())),
                "{url}"
            );
        }
        for bad in [
            "127.0.0.1:8765",
            "ftp://x:1",
            "http://",
            "http://x:99999",
            "http://x:1/path",
            "http://user@x:1",
            "http://[::1",
            "http://x:",
        ] {
            assert_eq!(url_address(bad), None, "{bad}");
        }
    }
}

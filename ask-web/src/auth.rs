//! The secrets of the page and the inbox: random tokens, constant-time comparison, and the
//! HMAC-SHA-256 challenge-response by which an agent and the inbox prove to each other that they
//! hold the same token without the token ever crossing the socket.
//!
//! The exchange (`ask-web/WEB.md`): the agent sends a fresh nonce `nc` and the address it
//! dialled (`host:port` of its URL, or `unix:` and the socket's path) to
//! `POST /api/agent/hello`. The inbox answers only for an address it listens on (or one it was
//! told is its own, `serve --public-url`), with a fresh nonce `ns` of its own and
//! `HMAC(token, "ask-user inbox\n" nc "\n" ns "\n" address)`, which the agent checks against
//! the address it dialled before it sends anything else: a program squatting on the port cannot
//! compute the proof, and one that relays to the real inbox gets it refused (the address it
//! forwards is not the inbox's) or refused by the agent (the address it rewrote is not the one
//! the agent dialled). The agent then sends
//! `Authorization: AskUser nc ns HMAC(token, "ask-user client\n" nc "\n" ns "\n" address)`;
//! the inbox checks it against the address it remembered with `ns`, and accepts each `ns` once,
//! within [`CHALLENGE_LIFETIME`].

use std::time::Duration;

use hmac::{Hmac, KeyInit, Mac};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// How long a nonce of the inbox may be answered.
pub const CHALLENGE_LIFETIME: Duration = Duration::from_secs(30);

/// The most nonces of the inbox waiting for their answer; the oldest is forgotten first.
pub const MAX_CHALLENGES: usize = 1024;

/// What the inbox signs in its answer to `hello`.
const INBOX_LABEL: &str = "ask-user inbox";
/// What a client signs in its `Authorization`.
const CLIENT_LABEL: &str = "ask-user client";

/// 32 random bytes from the operating system's generator, as 64 hex digits (256 bits).
pub fn random_token() -> std::io::Result<String> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(std::io::Error::other)?;
    Ok(hex(&bytes))
}

/// Compares two secrets in time that depends only on their lengths.
pub fn same_secret(a: &str, b: &str) -> bool {
    bool::from(a.as_bytes().ct_eq(b.as_bytes()))
}

/// The SHA-256 of `parts`, each followed by a NUL byte, in lowercase hex: what the inbox keeps
/// of a capability, and how it derives an ask's id from its agent and call id.
pub fn digest(parts: &[&str]) -> String {
    let mut hasher = Sha256::new();
    for part in parts {
        hasher.update(part.as_bytes());
        hasher.update([0]);
    }
    hex(&hasher.finalize())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// HMAC-SHA-256 of `message` under `key` (RFC 2104).
fn hmac_sha256(key: &[u8], message: &[u8]) -> [u8; 32] {
    // HMAC takes a key of any length, so this never fails.
    let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(key) else {
        unreachable!("HMAC accepts keys of every length")
    };
    mac.update(message);
    mac.finalize().into_bytes().into()
}

/// What one proof of the handshake is made of besides the token: the client's nonce, the
/// inbox's nonce, and the address the client dialled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Exchange<'a> {
    /// The client's nonce `nc`.
    pub client_nonce: &'a str,
    /// The inbox's nonce `ns`.
    pub inbox_nonce: &'a str,
    /// The address the client dialled: `host:port` as its URL writes it, lowercased, or
    /// `unix:` and the absolute path of the socket.
    pub address: &'a str,
}

/// The proof under `label` that its maker holds `token`, for one exchange.
fn proof(label: &str, token: &str, exchange: Exchange<'_>) -> String {
    let Exchange {
        client_nonce,
        inbox_nonce,
        address,
    } = exchange;
    let message = format!("{label}\n{client_nonce}\n{inbox_nonce}\n{address}");
    hex(&hmac_sha256(token.as_bytes(), message.as_bytes()))
}

/// The inbox's answer to a client's nonce: it proves that the inbox holds `token`, for the
/// address the client dialled.
pub fn inbox_proof(token: &str, exchange: Exchange<'_>) -> String {
    proof(INBOX_LABEL, token, exchange)
}

/// A client's proof that it holds `token`, for the `Authorization` header.
pub fn client_proof(token: &str, exchange: Exchange<'_>) -> String {
    proof(CLIENT_LABEL, token, exchange)
}

/// The `Authorization` header a client sends after `hello`.
pub fn authorization(token: &str, exchange: Exchange<'_>) -> String {
    format!(
        "AskUser {} {} {}",
        exchange.client_nonce,
        exchange.inbox_nonce,
        client_proof(token, exchange)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hmac_sha256_matches_rfc_4231() {
        // Test case 2 of RFC 4231.
        let mac = hmac_sha256(b"Jefe", b"what do ya want for nothing?");
        assert_eq!(
            hex(&mac),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        // Test case 6: a key longer than the block.
        let mac = hmac_sha256(
            &[0xaa; 131],
            b"Test Using Larger Than Block-Size Key - Hash Key First",
        );
        assert_eq!(
            hex(&mac),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        );
    }

    fn exchange<'a>(nonces: [&'a str; 2], address: &'a str) -> Exchange<'a> {
        Exchange {
            client_nonce: nonces[0],
            inbox_nonce: nonces[1],
            address,
        }
    }

    #[test]
    fn the_two_proofs_differ_and_depend_on_every_input() {
        let at = exchange(["a", "b"], "127.0.0.1:8765");
        let base = inbox_proof("t", at);
        assert_ne!(base, client_proof("t", at));
        assert_ne!(base, inbox_proof("u", at));
        assert_ne!(
            base,
            inbox_proof("t", exchange(["b", "a"], "127.0.0.1:8765"))
        );
        // The address dialled is part of both proofs: a relay on another port cannot pass
        // on the inbox's proof, nor the agent's.
        let relayed = exchange(["a", "b"], "127.0.0.1:9999");
        assert_ne!(base, inbox_proof("t", relayed));
        assert_ne!(client_proof("t", at), client_proof("t", relayed));
        assert_ne!(
            base,
            inbox_proof(
                "t",
                exchange(["a", "b"], "unix:/run/user/1000/ask-user/serve-8765.sock")
            )
        );
        // The message as WEB.md writes it.
        assert_eq!(
            base,
            hex(&hmac_sha256(b"t", b"ask-user inbox\na\nb\n127.0.0.1:8765"))
        );
        assert_eq!(base.len(), 64);
        assert!(same_secret("abc", "abc"));
        assert!(!same_secret("abc", "abd"));
        assert!(!same_secret("abc", "ab"));
    }
}

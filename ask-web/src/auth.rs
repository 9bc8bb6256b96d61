//! The secrets of the page and the inbox: random tokens, constant-time comparison, and the
//! HMAC-SHA-256 challenge-response by which an agent and the inbox prove to each other that they
//! hold the same token without the token ever crossing the socket.
//!
//! The exchange (`ask-web/WEB.md`): the agent sends a fresh nonce `nc` to
//! `POST /api/agent/hello`; the inbox answers with a fresh nonce `ns` of its own and
//! `HMAC(token, "ask-user inbox\n" nc "\n" ns)`, which the agent checks before it sends anything
//! else (a program squatting on the port cannot compute it). The agent then sends
//! `Authorization: AskUser nc ns HMAC(token, "ask-user client\n" nc "\n" ns)`; the inbox accepts
//! each `ns` once, within [`CHALLENGE_LIFETIME`].

use std::io::Read;
use std::time::Duration;

use sha2::{Digest, Sha256};

/// How long a nonce of the inbox may be answered.
pub const CHALLENGE_LIFETIME: Duration = Duration::from_secs(30);

/// The most nonces of the inbox waiting for their answer; the oldest is forgotten first.
pub const MAX_CHALLENGES: usize = 1024;

/// What the inbox signs in its answer to `hello`.
const INBOX_LABEL: &str = "ask-user inbox";
/// What a client signs in its `Authorization`.
const CLIENT_LABEL: &str = "ask-user client";

/// 32 random bytes from the kernel, as 64 hex digits (256 bits).
pub fn random_token() -> std::io::Result<String> {
    let mut bytes = [0u8; 32];
    std::fs::File::open("/dev/urandom").and_then(|mut file| file.read_exact(&mut bytes))?;
    Ok(hex(&bytes))
}

/// Compares two secrets in time that depends only on their lengths.
pub fn same_secret(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
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
    const BLOCK: usize = 64;
    let mut block = [0u8; BLOCK];
    if key.len() > BLOCK {
        block[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        block[..key.len()].copy_from_slice(key);
    }
    let mut inner = Sha256::new();
    inner.update(block.map(|b| b ^ 0x36));
    inner.update(message);
    let mut outer = Sha256::new();
    outer.update(block.map(|b| b ^ 0x5c));
    outer.update(inner.finalize());
    outer.finalize().into()
}

/// The two nonces of one exchange.
struct Nonces<'a> {
    client: &'a str,
    inbox: &'a str,
}

fn proof(label: &str, token: &str, nonces: Nonces<'_>) -> String {
    let Nonces { client, inbox } = nonces;
    let message = format!("{label}\n{client}\n{inbox}");
    hex(&hmac_sha256(token.as_bytes(), message.as_bytes()))
}

/// The inbox's answer to a client's nonce: it proves that the inbox holds `token`.
pub fn inbox_proof(token: &str, client_nonce: &str, inbox_nonce: &str) -> String {
    let nonces = Nonces {
        client: client_nonce,
        inbox: inbox_nonce,
    };
    proof(INBOX_LABEL, token, nonces)
}

/// A client's proof that it holds `token`, for the `Authorization` header.
pub fn client_proof(token: &str, client_nonce: &str, inbox_nonce: &str) -> String {
    let nonces = Nonces {
        client: client_nonce,
        inbox: inbox_nonce,
    };
    proof(CLIENT_LABEL, token, nonces)
}

/// The `Authorization` header a client sends after `hello`.
pub fn authorization(token: &str, client_nonce: &str, inbox_nonce: &str) -> String {
    format!(
        "AskUser {client_nonce} {inbox_nonce} {}",
        client_proof(token, client_nonce, inbox_nonce)
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

    #[test]
    fn the_two_proofs_differ_and_depend_on_every_input() {
        let base = inbox_proof("t", "a", "b");
        assert_ne!(base, client_proof("t", "a", "b"));
        assert_ne!(base, inbox_proof("u", "a", "b"));
        assert_ne!(base, inbox_proof("t", "b", "a"));
        assert_eq!(base.len(), 64);
        assert!(same_secret("abc", "abc"));
        assert!(!same_secret("abc", "abd"));
        assert!(!same_secret("abc", "ab"));
    }
}

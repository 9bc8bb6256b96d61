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

/// The proof under `label` that its maker holds `token`, for the client's and the inbox's nonce.
fn proof(label: &str, token: &str, [client_nonce, inbox_nonce]: [&str; 2]) -> String {
    let message = format!("{label}\n{client_nonce}\n{inbox_nonce}");
    hex(&hmac_sha256(token.as_bytes(), message.as_bytes()))
}

/// The inbox's answer to a client's nonce: it proves that the inbox holds `token`.
pub fn inbox_proof(token: &str, client_nonce: &str, inbox_nonce: &str) -> String {
    proof(INBOX_LABEL, token, [client_nonce, inbox_nonce])
}

/// A client's proof that it holds `token`, for the `Authorization` header.
pub fn client_proof(token: &str, client_nonce: &str, inbox_nonce: &str) -> String {
    proof(CLIENT_LABEL, token, [client_nonce, inbox_nonce])
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

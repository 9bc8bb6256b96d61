//! TLS: the certificate and key an inbox serves with, the addresses `--via` dials in plain
//! HTTP, and a pinned agent that meets another certificate.

use std::sync::Arc;

use ask_core::{Frontend, Limits};
use ask_web::{
    Asker, Inbox, TlsFile, TlsIdentity, TlsProblem, ViaFrontend, WebError, fingerprint_hex,
};
use sha2::Digest;

/// A self-signed certificate for 127.0.0.1: its PEM, its key's PEM and its DER.
fn certificate() -> (String, String, Vec<u8>) {
    let made = rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_string()]).unwrap();
    (
        made.cert.pem(),
        made.signing_key.serialize_pem(),
        made.cert.der().to_vec(),
    )
}

#[test]
fn a_certificate_and_key_that_cannot_serve_name_their_file_and_problem() {
    let (cert, key, der) = certificate();
    let (_, other_key, _) = certificate();
    let identity = TlsIdentity::from_pem(cert.as_bytes(), key.as_bytes()).unwrap();
    let sha256: [u8; 32] = sha2::Sha256::digest(&der).into();
    assert_eq!(identity.fingerprint(), sha256);
    let refused = |cert: &str, key: &str| TlsIdentity::from_pem(cert.as_bytes(), key.as_bytes());
    let error = refused("not a certificate\n", &key).unwrap_err();
    assert_eq!(error.file, TlsFile::Certificate);
    assert!(
        matches!(error.problem, TlsProblem::NoCertificate),
        "{error}"
    );
    assert_eq!(
        error.to_string(),
        "it holds no certificate in PEM (a `-----BEGIN CERTIFICATE-----` section)"
    );
    let cut = &cert[..cert.len() / 2];
    let error = refused(cut, &key).unwrap_err();
    assert_eq!(error.file, TlsFile::Certificate);
    assert!(matches!(error.problem, TlsProblem::Pem(_)), "{error}");
    // The certificate where the key should be.
    let error = refused(&cert, &cert).unwrap_err();
    assert_eq!(error.file, TlsFile::Key);
    assert!(matches!(error.problem, TlsProblem::NoKey), "{error}");
    // Another certificate's key.
    let error = refused(&cert, &other_key).unwrap_err();
    assert_eq!(error.file, TlsFile::Key);
    assert!(matches!(error.problem, TlsProblem::Refused(_)), "{error}");
}

#[test]
fn via_refuses_plain_http_beyond_loopback_and_takes_https_anywhere() {
    let via = |url: &str| ViaFrontend::new(url, "00".repeat(32), Asker::default());
    for url in [
        "http://192.0.2.1:9",
        "http://10.0.0.1:8765/",
        "http://0.0.0.0:8765",
        "http://[::ffff:127.0.0.1]:8765",
        "http://[2001:db8::1]:8765",
        "http://inbox.example:8765",
        "http://127.0.0.1.example:8765",
    ] {
        match via(url) {
            Err(error @ WebError::ViaPlain(_)) => {
                let said = error.to_string();
                assert!(said.contains("use https://"), "{said}");
                assert!(said.contains("SSH tunnel"), "{said}");
            }
            other => panic!("{url}: {other:?}"),
        }
    }
    for url in [
        "http://127.0.0.1:8765",
        "http://127.1.2.3:8765",
        "http://[::1]:8765",
        "http://localhost:8765",
        "http://LocalHost:8765/",
    ] {
        assert_eq!(via(url).unwrap().tls(), None, "{url}");
    }
    for url in [
        "https://192.0.2.1:9",
        "https://inbox.example:8765",
        "https://[2001:db8::1]:8765",
    ] {
        let secure = via(url).unwrap();
        assert_eq!(secure.tls(), Some(false), "{url}: the system's roots");
        assert_eq!(secure.pinning([7; 32]).tls(), Some(true), "{url}: pinned");
    }
    for url in [
        "ftp://127.0.0.1:21",
        "127.0.0.1:8765",
        "https://",
        "https://a/b",
    ] {
        assert!(matches!(via(url), Err(WebError::ViaAddress(_))), "{url}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_pinned_to_another_certificate_sends_nothing_and_the_inbox_sees_no_ask() {
    let (cert, key, _) = certificate();
    let (_, _, other) = certificate();
    let identity = TlsIdentity::from_pem(cert.as_bytes(), key.as_bytes()).unwrap();
    let inbox = Arc::new(
        Inbox::bind("127.0.0.1:0".parse().unwrap(), Limits::default())
            .unwrap()
            .with_tls(identity.clone()),
    );
    assert!(inbox.base_url().starts_with("https://127.0.0.1:"));
    assert!(
        inbox
            .link()
            .starts_with(&format!("{}/#token=", inbox.base_url()))
    );
    let serving = {
        let inbox = Arc::clone(&inbox);
        tokio::spawn(async move { inbox.serve().await })
    };
    let pinned: [u8; 32] = sha2::Sha256::digest(&other).into();
    let via = ViaFrontend::new(
        inbox.base_url(),
        inbox.agent_token().to_string(),
        Asker::default(),
    )
    .unwrap()
    .pinning(pinned);
    let started = std::time::Instant::now();
    let error = via
        .present(&crate::common::one_choice("toolu_pin"))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("was refused before anything was sent"),
        "{error}"
    );
    let seen = fingerprint_hex(&identity.fingerprint());
    assert!(
        error.contains(&format!(
            "its certificate's SHA-256 is {seen}, not the {} the token file pins",
            fingerprint_hex(&pinned)
        )),
        "{error}"
    );
    // Refused at the first handshake: a refused certificate is never tried again.
    assert!(
        started.elapsed() < std::time::Duration::from_millis(1500),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(inbox.waiting(), 0, "the inbox saw no ask");
    // The same agent pinned to the inbox's own certificate is taken: its people's side mints
    // an https:// link over the same TLS.
    let people = ViaFrontend::for_people(inbox.base_url(), inbox.people_token().to_string())
        .unwrap()
        .pinning(identity.fingerprint());
    let link = people.fresh_link().await.unwrap();
    assert!(
        link.starts_with(&format!("{}/#token=", inbox.base_url())),
        "{link}"
    );
    serving.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plain_http_to_an_inbox_that_serves_tls_gets_no_answer_and_nothing_is_served() {
    let (cert, key, _) = certificate();
    let identity = TlsIdentity::from_pem(cert.as_bytes(), key.as_bytes()).unwrap();
    let inbox = Arc::new(
        Inbox::bind("127.0.0.1:0".parse().unwrap(), Limits::default())
            .unwrap()
            .with_tls(identity),
    );
    let serving = {
        let inbox = Arc::clone(&inbox);
        tokio::spawn(async move { inbox.serve().await })
    };
    let addr = inbox.local_addr();
    let seen = tokio::task::spawn_blocking(move || {
        use std::io::{Read, Write};
        let mut stream = std::net::TcpStream::connect(addr).unwrap();
        stream
            .set_read_timeout(Some(std::time::Duration::from_secs(10)))
            .unwrap();
        stream
            .write_all(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            .unwrap();
        let mut seen = Vec::new();
        let _ = stream.read_to_end(&mut seen);
        seen
    })
    .await
    .unwrap();
    // At most a TLS alert, and the connection closed: no HTTP, no page.
    assert!(
        !seen.starts_with(b"HTTP/"),
        "{:?}",
        String::from_utf8_lossy(&seen)
    );
    assert!(seen.len() < 64, "{seen:?}");
    serving.abort();
}

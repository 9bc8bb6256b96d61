//! `ask-user serve --tls-cert --tls-key` and `--via https://`, with the real binary: a call
//! answered through a pinned inbox, a wrong certificate and plain HTTP beyond loopback refused
//! before anything is sent, a PEM that cannot serve named with its file, and the fingerprint
//! in the token files. The certificates are made at test time (a CA, and a certificate it
//! signed for 127.0.0.1).

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use sha2::Digest;

use crate::common;

/// A CA, a certificate it signed for 127.0.0.1 and that certificate's key, as PEM files in a
/// folder; the certificate's DER; and an HTTPS client that trusts the CA.
struct Certs {
    dir: tempfile::TempDir,
    ca: PathBuf,
    cert: PathBuf,
    key: PathBuf,
    der: Vec<u8>,
    client: Arc<rustls::ClientConfig>,
}

impl Certs {
    fn new() -> Certs {
        let dir = tempfile::tempdir().unwrap();
        let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
        ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        let ca_key = rcgen::KeyPair::generate().unwrap();
        let ca = rcgen::CertifiedIssuer::self_signed(ca_params, ca_key).unwrap();
        let key = rcgen::KeyPair::generate().unwrap();
        let cert = rcgen::CertificateParams::new(vec!["127.0.0.1".to_string()])
            .unwrap()
            .signed_by(&key, &ca)
            .unwrap();
        let write = |name: &str, text: &str| {
            let path = dir.path().join(name);
            std::fs::write(&path, text).unwrap();
            path
        };
        let ca_pem = ca.as_ref().pem();
        let mut roots = rustls::RootCertStore::empty();
        roots.add(ca.as_ref().der().clone()).unwrap();
        let client = rustls::ClientConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
        Certs {
            ca: write("ca.pem", &ca_pem),
            cert: write("cert.pem", &cert.pem()),
            key: write("key.pem", &key.serialize_pem()),
            der: cert.der().to_vec(),
            client: Arc::new(client),
            dir,
        }
    }

    /// The SHA-256 of the certificate's DER, in lowercase hex.
    fn sha256(&self) -> String {
        hex(&self.der)
    }
}

fn hex(der: &[u8]) -> String {
    sha2::Sha256::digest(der)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// One HTTPS request to `addr` (127.0.0.1:PORT) as a browser that trusts the CA sends it: the
/// status and the body.
fn https(
    client: &Arc<rustls::ClientConfig>,
    addr: &str,
    request: (&str, &str),
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String) {
    let (method, path) = request;
    let tcp = std::net::TcpStream::connect(addr).unwrap();
    tcp.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let name = rustls::pki_types::ServerName::try_from("127.0.0.1").unwrap();
    let connection = rustls::ClientConnection::new(Arc::clone(client), name).unwrap();
    let mut stream = rustls::StreamOwned::new(connection, tcp);
    let mut text = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (name, value) in headers {
        text.push_str(&format!("{name}: {value}\r\n"));
    }
    text.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    stream.write_all(text.as_bytes()).unwrap();
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    let raw = String::from_utf8(raw).unwrap();
    let (head, body) = raw
        .split_once("\r\n\r\n")
        .unwrap_or_else(|| panic!("{raw}"));
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, body.to_string())
}

/// `ask-user serve --tls-cert --tls-key` on a free port of 127.0.0.1, its token files in a
/// folder of its own; what it said on stderr before the link, and the link.
struct Serve {
    child: Child,
    base: String,
    addr: String,
    said: String,
    link: String,
    dir: tempfile::TempDir,
}

impl Serve {
    fn start(certs: &Certs) -> Serve {
        let dir = tempfile::tempdir().unwrap();
        let mut child = common::serve_in(common::ask_user(), "127.0.0.1:0", dir.path())
            .arg("--tls-cert")
            .arg(&certs.cert)
            .arg("--tls-key")
            .arg(&certs.key)
            .spawn()
            .unwrap();
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        let mut said = String::new();
        let link = loop {
            let mut line = String::new();
            assert!(stderr.read_line(&mut line).unwrap() > 0, "{said}");
            if let Some(link) = line
                .trim()
                .strip_prefix("ask-user: answer in a browser (the link works once): ")
            {
                break link.to_string();
            }
            said.push_str(&line);
        };
        std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
        let base = said
            .strip_prefix("ask-user: inbox at ")
            .and_then(|rest| rest.split(": ").next())
            .unwrap_or_else(|| panic!("{said}"))
            .to_string();
        let addr = base.strip_prefix("https://").unwrap().to_string();
        Serve {
            child,
            base,
            addr,
            said,
            link,
            dir,
        }
    }

    fn token_file(&self) -> PathBuf {
        self.dir.path().join("ask-user/serve-token")
    }

    /// The person's credential: the link spent over TLS, from the page's own origin.
    fn visit(&self, certs: &Certs) -> String {
        let token = self.link.split_once("#token=").unwrap().1;
        let (status, body) = https(
            &certs.client,
            &self.addr,
            ("POST", "/api/session"),
            &[("Origin", &self.base), ("Content-Type", "application/json")],
            &json!({ "token": token }).to_string(),
        );
        assert_eq!(status, 200, "{body}");
        let session: Value = serde_json::from_str(&body).unwrap();
        format!("Bearer {}", session["session"].as_str().unwrap())
    }

    fn asks(&self, certs: &Certs, credential: &str) -> Value {
        let (status, body) = https(
            &certs.client,
            &self.addr,
            ("GET", "/api/asks"),
            &[("Authorization", credential)],
            "",
        );
        assert_eq!(status, 200, "{body}");
        serde_json::from_str(&body).unwrap()
    }

    /// `ask-user --via URL CALL` with `token_file` (or `ASK_USER_VIA_TOKEN` when `None`).
    fn ask(&self, url: &str, token_file: Option<&Path>) -> std::process::Command {
        let call_file = self.dir.path().join("call.json");
        std::fs::write(&call_file, call().to_string()).unwrap();
        let mut command = common::ask_user();
        command
            .args(["--via", url, "--agent-name", "alpha"])
            .arg(&call_file)
            .env_remove("ASK_USER_VIA_TOKEN")
            .env_remove("ASK_USER_VIA_TOKEN_FILE")
            .env("XDG_RUNTIME_DIR", self.dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(file) = token_file {
            command.arg("--token-file").arg(file);
        }
        command
    }

    /// Answers the first ask the page lists, once one is there, while `agent` waits; its exit
    /// code, stdout and stderr.
    fn answer_on_the_page(&self, certs: &Certs, agent: Child) -> (i32, Value, String) {
        let credential = self.visit(certs);
        let deadline = Instant::now() + Duration::from_secs(20);
        let id = loop {
            if let Some(id) = self.asks(certs, &credential)["asks"][0]["requestId"].as_str() {
                break id.to_string();
            }
            assert!(Instant::now() < deadline, "the ask arrives");
            std::thread::sleep(Duration::from_millis(20));
        };
        let (status, body) = https(
            &certs.client,
            &self.addr,
            ("POST", &format!("/api/asks/{id}/answer")),
            &[
                ("Authorization", &credential),
                ("Origin", &self.base),
                ("Content-Type", "application/json"),
            ],
            &json!({"answers": [{"answer": "SQLite"}, {"answer": ["REST API"]},
                {"answer": "over-tls"}]})
            .to_string(),
        );
        assert_eq!(status, 200, "{body}");
        let output = agent.wait_with_output().unwrap();
        (
            output.status.code().unwrap(),
            serde_json::from_slice(&output.stdout).unwrap_or(Value::Null),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The three questions the browser script answers (Database, Features, Name).
fn call() -> Value {
    json!({"questions": [
        {"question": "Which database should we use?", "header": "Database", "options": [
            {"label": "PostgreSQL (Recommended)", "description": "Battle-tested relational DB"},
            {"label": "SQLite", "description": "Lightweight, file-based"}]},
        {"question": "Which features should we include?", "header": "Features", "multiSelect": true,
         "options": [{"label": "Authentication", "description": "OAuth2 + JWT"},
                     {"label": "REST API"}, {"label": "Admin Dashboard"}]},
        {"question": "What should we name this service?", "header": "Name"}]})
}

#[test]
fn serve_over_tls_writes_the_fingerprint_and_a_pinned_via_gets_its_answer() {
    let certs = Certs::new();
    let serve = Serve::start(&certs);
    assert!(
        serve.base.starts_with("https://127.0.0.1:"),
        "{}",
        serve.said
    );
    assert!(serve.link.starts_with(&format!("{}/#token=", serve.base)));
    // The fingerprint, on stderr for a person who compares, and in both token files.
    let sha256 = certs.sha256();
    assert!(
        serve.said.contains(&format!(
            "TLS: the certificate's SHA-256 fingerprint is {sha256};"
        )),
        "{}",
        serve.said
    );
    for file in ["ask-user/serve-token", "ask-user/serve-token-link"] {
        let text = std::fs::read_to_string(serve.dir.path().join(file)).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0].len(), 64, "{text}");
        let pins: Vec<&&str> = lines
            .iter()
            .filter(|l| l.starts_with("tls-sha256 "))
            .collect();
        assert_eq!(pins, [&format!("tls-sha256 {sha256}")], "{text}");
    }
    // The agent reads the pin from the default token file and is answered over TLS.
    let agent = serve.ask(&serve.base, None).spawn().unwrap();
    let (code, out, said) = serve.answer_on_the_page(&certs, agent);
    assert_eq!(code, 0, "{said}");
    assert_eq!(out["answers"][0]["answer"], "SQLite", "{out}");
    // `serve --link` speaks TLS to the inbox too, pinned by the people's file.
    let fresh = common::ask_user()
        .args(["serve", "--link", "--via", &serve.base])
        .env("XDG_RUNTIME_DIR", serve.dir.path())
        .env_remove("ASK_USER_LINK_TOKEN")
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&fresh.stderr);
    assert_eq!(fresh.status.code(), Some(0), "{said}");
    assert!(said.contains(&format!("{}/#token=", serve.base)), "{said}");
}

#[test]
fn a_via_pinned_to_another_certificate_is_refused_before_anything_is_sent() {
    let certs = Certs::new();
    let other = Certs::new();
    let serve = Serve::start(&certs);
    let text = std::fs::read_to_string(serve.token_file()).unwrap();
    let token = text.lines().next().unwrap();
    let wrong = serve.dir.path().join("wrong-pin");
    std::fs::write(&wrong, format!("{token}\ntls-sha256 {}\n", other.sha256())).unwrap();
    let started = Instant::now();
    let output = serve.ask(&serve.base, Some(&wrong)).output().unwrap();
    let said = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{said}");
    assert_eq!(
        said.trim(),
        format!(
            "ask-user: the ask-user inbox at {} was refused before anything was sent: its \
             certificate's SHA-256 is {}, not the {} the token file pins; check --via, or the \
             token file after `ask-user serve` was given another certificate",
            serve.addr,
            certs.sha256(),
            other.sha256()
        )
    );
    assert!(output.stdout.is_empty());
    // No try again: a refused certificate is not a crowded inbox.
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    let credential = serve.visit(&certs);
    assert_eq!(
        serve.asks(&certs, &credential)["asks"],
        json!([]),
        "no ask arrived"
    );
    // The token file of a TLS inbox that names no socket, with an http:// address: told to
    // use https:// (with the socket, an http:// address on this machine takes the socket).
    let pinned = serve.dir.path().join("pin-only");
    std::fs::write(&pinned, format!("{token}\ntls-sha256 {}\n", certs.sha256())).unwrap();
    let plain = serve.base.replacen("https://", "http://", 1);
    let output = serve.ask(&plain, Some(&pinned)).output().unwrap();
    let said = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{said}");
    assert!(
        said.contains(&format!("give --via {}", serve.base)),
        "{said}"
    );
}

#[test]
fn an_unpinned_via_checks_the_inbox_against_the_system_roots() {
    let certs = Certs::new();
    let serve = Serve::start(&certs);
    let text = std::fs::read_to_string(serve.token_file()).unwrap();
    let token = text.lines().next().unwrap().to_string();
    // A token given in a variable pins nothing: the roots decide. rustls-native-certs takes
    // them from SSL_CERT_FILE when it is set.
    let empty = certs.dir.path().join("no-roots.pem");
    std::fs::write(&empty, "").unwrap();
    let output = serve
        .ask(&serve.base, None)
        .env("ASK_USER_VIA_TOKEN", &token)
        .env("SSL_CERT_FILE", &empty)
        .env_remove("SSL_CERT_DIR")
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{said}");
    assert!(
        said.contains("was refused before anything was sent: the system's roots do not vouch"),
        "{said}"
    );
    let agent = serve
        .ask(&serve.base, None)
        .env("ASK_USER_VIA_TOKEN", &token)
        .env("SSL_CERT_FILE", &certs.ca)
        .env_remove("SSL_CERT_DIR")
        .spawn()
        .unwrap();
    let (code, out, said) = serve.answer_on_the_page(&certs, agent);
    assert_eq!(code, 0, "{said}");
    assert_eq!(out["answers"][0]["answer"], "SQLite", "{out}");
}

#[test]
fn via_refuses_plain_http_beyond_loopback_without_connecting() {
    // 0.0.0.0 is no loopback address, yet a connection to it reaches this machine: the
    // listener below would see one.
    let listener = std::net::TcpListener::bind("0.0.0.0:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    listener.set_nonblocking(true).unwrap();
    drop(std::net::TcpStream::connect(("0.0.0.0", port)).unwrap());
    let deadline = Instant::now() + Duration::from_secs(5);
    while listener.accept().is_err() {
        assert!(
            Instant::now() < deadline,
            "a plain connection reaches the listener"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let dir = tempfile::tempdir().unwrap();
    let call_file = dir.path().join("call.json");
    std::fs::write(&call_file, call().to_string()).unwrap();
    for url in [
        format!("http://0.0.0.0:{port}"),
        "http://192.0.2.1:9".to_string(),
    ] {
        let started = Instant::now();
        let output = common::ask_user()
            .args(["--via", &url])
            .arg(&call_file)
            .env("ASK_USER_VIA_TOKEN", "ab".repeat(32))
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{url}: {said}");
        let addr = url.strip_prefix("http://").unwrap();
        assert_eq!(
            said.trim(),
            format!(
                "ask-user: --via refuses plain http:// to {addr}, beyond this machine: the \
                 questions and answers would cross the network unencrypted; use https:// \
                 (`ask-user serve --tls-cert --tls-key`, or a TLS proxy in front of it), or an \
                 SSH tunnel to 127.0.0.1"
            )
        );
        assert!(started.elapsed() < Duration::from_secs(2), "{url}: at once");
    }
    assert!(listener.accept().is_err(), "--via connected");
}

#[test]
fn a_certificate_or_key_that_cannot_serve_exits_2_naming_the_file() {
    let certs = Certs::new();
    let other = Certs::new();
    let garbage = certs.dir.path().join("garbage.pem");
    std::fs::write(&garbage, "not PEM at all\n").unwrap();
    let missing = certs.dir.path().join("missing.pem");
    let cases: [(&Path, &Path, String); 4] = [
        (
            &garbage,
            &certs.key,
            format!(
                "cannot use the TLS certificate (--tls-cert) `{}`: it holds no certificate in \
                 PEM (a `-----BEGIN CERTIFICATE-----` section)",
                garbage.display()
            ),
        ),
        (
            &certs.cert,
            &certs.cert,
            format!(
                "cannot use the TLS key (--tls-key) `{}`: it holds no private key in PEM (a \
                 `-----BEGIN PRIVATE KEY-----`, `-----BEGIN RSA PRIVATE KEY-----` or \
                 `-----BEGIN EC PRIVATE KEY-----` section)",
                certs.cert.display()
            ),
        ),
        (
            &certs.cert,
            &other.key,
            format!(
                "cannot use the TLS key (--tls-key) `{}`: rustls refused it with the \
                 certificate: ",
                other.key.display()
            ),
        ),
        (
            &missing,
            &certs.key,
            format!(
                "cannot read the TLS certificate (--tls-cert) `{}`: No such file",
                missing.display()
            ),
        ),
    ];
    for (cert, key, expected) in cases {
        let dir = tempfile::tempdir().unwrap();
        let output = common::serve_in(common::ask_user(), "127.0.0.1:0", dir.path())
            .arg("--tls-cert")
            .arg(cert)
            .arg("--tls-key")
            .arg(key)
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{said}");
        assert!(said.contains(&expected), "{expected}\nin\n{said}");
        assert!(
            !dir.path().join("ask-user").exists(),
            "no token file is written: {said}"
        );
    }
}

#[test]
#[ignore = "needs chromium and playwright; run by .ci/run"]
fn browser_answers_an_ask_of_an_inbox_served_over_tls() {
    let _heavy = common::heavy::heavy("web");
    let certs = Certs::new();
    let serve = Serve::start(&certs);
    let agent = serve.ask(&serve.base, None).spawn().unwrap();
    // The browser takes the test's certificate, as a person does once its fingerprint matched.
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/web_browser.py");
    let output = std::process::Command::new("python3")
        .arg(script)
        .args(["saved", "phone", &serve.link])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let seen: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(seen["protocol"], "https:", "{seen}");
    assert_eq!(seen["secure"], true, "{seen}");
    assert_eq!(seen["firstStatus"], 200, "{seen}");
    assert!(
        seen["outcome"]
            .as_str()
            .unwrap()
            .contains("Your answers were sent"),
        "{seen}"
    );
    let output = agent.wait_with_output().unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let out: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(out["answers"][0]["answer"], "SQLite", "{out}");
    assert_eq!(out["answers"][1]["answer"], json!(["REST API"]), "{out}");
    assert_eq!(out["answers"][2]["answer"], "from-the-page", "{out}");
}

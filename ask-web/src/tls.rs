//! TLS, with rustls on the `ring` provider: the certificate `ask-user serve` presents
//! ([`TlsIdentity`], from `--tls-cert` and `--tls-key`), and how `--via https://` checks the
//! inbox it dials ([`Dial`]): against the SHA-256 fingerprint the token file pins, else against
//! the system's roots and the host name. Nothing here encrypts anything of its own.

use std::sync::{Arc, OnceLock};

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::CryptoProvider;
use rustls::{ClientConfig, DigitallySignedStruct, ServerConfig, SignatureScheme};
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use tokio::net::TcpStream;

/// The SHA-256 of a certificate's DER: what the token file pins, as `tls-sha256 HEX`.
pub type Fingerprint = [u8; 32];

/// The provider of every TLS connection: rustls's `ring`.
fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// `sha256` as 64 lowercase hex digits.
pub fn fingerprint_hex(sha256: &Fingerprint) -> String {
    sha256.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// The fingerprint written as 64 hex digits (either case); `None` for anything else.
pub fn parse_fingerprint(text: &str) -> Option<Fingerprint> {
    if text.len() != 64 || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let mut sha256 = [0u8; 32];
    for (at, byte) in sha256.iter_mut().enumerate() {
        *byte = u8::from_str_radix(text.get(2 * at..2 * at + 2)?, 16).ok()?;
    }
    Some(sha256)
}

/// Which of the two files of [`TlsIdentity::from_pem`] a problem is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TlsFile {
    /// The certificate (`--tls-cert`).
    Certificate,
    /// The private key (`--tls-key`).
    Key,
}

/// Why a certificate and its key cannot serve TLS, and in which file.
#[derive(Debug, thiserror::Error)]
#[error("{problem}")]
pub struct TlsError {
    /// The file at fault.
    pub file: TlsFile,
    /// What is wrong with it.
    #[source]
    pub problem: TlsProblem,
}

/// What is wrong with a file of [`TlsIdentity::from_pem`].
#[derive(Debug, thiserror::Error)]
pub enum TlsProblem {
    /// The certificate file holds no certificate.
    #[error("it holds no certificate in PEM (a `-----BEGIN CERTIFICATE-----` section)")]
    NoCertificate,
    /// The key file holds no private key.
    #[error(
        "it holds no private key in PEM (a `-----BEGIN PRIVATE KEY-----`, `-----BEGIN RSA \
         PRIVATE KEY-----` or `-----BEGIN EC PRIVATE KEY-----` section)"
    )]
    NoKey,
    /// Its PEM cannot be read.
    #[error("its PEM cannot be read: {0}")]
    Pem(#[source] rustls_pki_types::pem::Error),
    /// rustls refused the certificate and key (the key is not the certificate's, or is of a
    /// kind it cannot sign with).
    #[error("rustls refused it with the certificate: {0}")]
    Refused(#[source] rustls::Error),
}

/// The certificate chain and private key `serve` presents, and the fingerprint of its
/// certificate.
#[derive(Clone)]
pub struct TlsIdentity {
    config: Arc<ServerConfig>,
    sha256: Fingerprint,
}

impl std::fmt::Debug for TlsIdentity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TlsIdentity")
            .field("sha256", &fingerprint_hex(&self.sha256))
            .finish_non_exhaustive()
    }
}

impl TlsIdentity {
    /// The certificate chain in `certificate` (PEM, the server's own certificate first) and
    /// the private key in `key` (PEM: PKCS#8, PKCS#1 or SEC1).
    pub fn from_pem(certificate: &[u8], key: &[u8]) -> Result<TlsIdentity, TlsError> {
        let in_certificate = |problem| TlsError {
            file: TlsFile::Certificate,
            problem,
        };
        let in_key = |problem| TlsError {
            file: TlsFile::Key,
            problem,
        };
        let chain = CertificateDer::pem_slice_iter(certificate)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|error| in_certificate(TlsProblem::Pem(error)))?;
        let Some(own) = chain.first() else {
            return Err(in_certificate(TlsProblem::NoCertificate));
        };
        let sha256: Fingerprint = Sha256::digest(own.as_ref()).into();
        let key = PrivateKeyDer::from_pem_slice(key).map_err(|error| match error {
            rustls_pki_types::pem::Error::NoItemsFound => in_key(TlsProblem::NoKey),
            error => in_key(TlsProblem::Pem(error)),
        })?;
        let mut config = ServerConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()
            .map_err(|error| in_certificate(TlsProblem::Refused(error)))?
            .with_no_client_auth()
            .with_single_cert(chain, key)
            .map_err(|error| match error {
                rustls::Error::InvalidCertificate(_) | rustls::Error::NoCertificatesPresented => {
                    in_certificate(TlsProblem::Refused(error))
                }
                error => in_key(TlsProblem::Refused(error)),
            })?;
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(TlsIdentity {
            config: Arc::new(config),
            sha256,
        })
    }

    /// The SHA-256 of the server's own certificate (its DER).
    pub fn fingerprint(&self) -> Fingerprint {
        self.sha256
    }

    /// What accepts the TLS connections of this identity.
    pub(crate) fn acceptor(&self) -> tokio_rustls::TlsAcceptor {
        tokio_rustls::TlsAcceptor::from(Arc::clone(&self.config))
    }
}

/// How `--via https://` checks the inbox it dials: by the pinned fingerprint, else by the
/// system's roots and the host name.
#[derive(Debug, Clone)]
pub(crate) struct Dial {
    /// `None`: the system's roots, loaded once at the first connection.
    pin: Option<Fingerprint>,
    name: ServerName<'static>,
}

/// A server certificate that is not the one the token file pins.
#[derive(Debug, thiserror::Error)]
#[error(
    "its certificate's SHA-256 is {}, not the {} the token file pins",
    fingerprint_hex(.seen),
    fingerprint_hex(.pinned)
)]
pub(crate) struct NotPinned {
    seen: Fingerprint,
    pinned: Fingerprint,
}

/// The verifier of a pinned inbox: its own certificate must have the pinned SHA-256 (compared
/// in constant time); its signatures are checked by the provider's algorithms. The chain, the
/// name and the dates are not looked at: the pin says which certificate it is.
#[derive(Debug)]
struct Pinned {
    sha256: Fingerprint,
    provider: Arc<CryptoProvider>,
}

impl ServerCertVerifier for Pinned {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let seen: Fingerprint = Sha256::digest(end_entity.as_ref()).into();
        if bool::from(seen.ct_eq(&self.sha256)) {
            return Ok(ServerCertVerified::assertion());
        }
        let not_pinned = NotPinned {
            seen,
            pinned: self.sha256,
        };
        Err(rustls::Error::InvalidCertificate(
            rustls::CertificateError::Other(rustls::OtherError(Arc::new(not_pinned))),
        ))
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}

/// The client of an inbox checked against the system's roots, made once per process.
fn system_roots() -> Result<Arc<ClientConfig>, rustls::Error> {
    static CONFIG: OnceLock<Arc<ClientConfig>> = OnceLock::new();
    if let Some(config) = CONFIG.get() {
        return Ok(Arc::clone(config));
    }
    let mut roots = rustls::RootCertStore::empty();
    // A root that cannot be read is left out; with none at all, every inbox is refused.
    roots.add_parsable_certificates(rustls_native_certs::load_native_certs().certs);
    let config = ClientConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(Arc::clone(CONFIG.get_or_init(|| Arc::new(config))))
}

impl Dial {
    /// Dialling `host` (a name or an IP address, an IPv6 one in brackets or not), checked
    /// against the system's roots; `None` when `host` cannot be a server's name.
    pub(crate) fn new(host: &str) -> Option<Dial> {
        let host = host.trim_start_matches('[').trim_end_matches(']');
        let name = ServerName::try_from(host.to_string()).ok()?;
        Some(Dial { pin: None, name })
    }

    /// Checked against `sha256` instead.
    pub(crate) fn pinning(self, sha256: Fingerprint) -> Dial {
        Dial {
            pin: Some(sha256),
            ..self
        }
    }

    /// Whether the inbox's certificate is checked against a pinned fingerprint.
    pub(crate) fn is_pinned(&self) -> bool {
        self.pin.is_some()
    }

    /// The client of a pinned inbox.
    fn pinned(sha256: Fingerprint) -> Result<Arc<ClientConfig>, rustls::Error> {
        let provider = provider();
        let verifier = Pinned {
            sha256,
            provider: Arc::clone(&provider),
        };
        let config = ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()?
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(verifier))
            .with_no_client_auth();
        Ok(Arc::new(config))
    }

    /// The TLS handshake over `stream`; nothing is sent before it succeeds.
    pub(crate) async fn connect(
        &self,
        stream: TcpStream,
    ) -> std::io::Result<tokio_rustls::client::TlsStream<TcpStream>> {
        let config = match self.pin {
            Some(sha256) => Dial::pinned(sha256),
            None => system_roots(),
        }
        .map_err(std::io::Error::other)?;
        tokio_rustls::TlsConnector::from(config)
            .connect(self.name.clone(), stream)
            .await
    }
}

/// The certificate problem a failed handshake stands for, when it is one: the sentence that
/// says why the inbox's certificate was refused.
pub(crate) fn refused_certificate(error: &std::io::Error) -> Option<String> {
    let error = error.get_ref()?.downcast_ref::<rustls::Error>()?;
    match error {
        rustls::Error::InvalidCertificate(rustls::CertificateError::Other(other)) => {
            Some(other.0.to_string())
        }
        rustls::Error::InvalidCertificate(_) => Some(format!(
            "the system's roots do not vouch for its certificate for this address ({error}); an \
             inbox with a certificate of its own is pinned by the `tls-sha256` line of its \
             token file (a token given in a variable pins nothing)"
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fingerprint_is_64_hex_digits_both_ways() {
        let sha256: Fingerprint = std::array::from_fn(|at| u8::try_from(at * 7).unwrap());
        let hex = fingerprint_hex(&sha256);
        assert_eq!(hex.len(), 64);
        assert_eq!(hex, hex.to_lowercase());
        assert_eq!(parse_fingerprint(&hex), Some(sha256));
        assert_eq!(parse_fingerprint(&hex.to_uppercase()), Some(sha256));
        for bad in [
            "",
            &hex[..63],
            &format!("{hex}0"),
            &format!("{}g", &hex[..63]),
        ] {
            assert_eq!(parse_fingerprint(bad), None, "{bad}");
        }
    }
}

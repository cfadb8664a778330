//! Built-in TLS, for deployments without a proxy in front: a certificate
//! chain and key read from PEM files, served with rustls (ring), and read
//! again on demand (`serve` does it on SIGHUP) without dropping a
//! connection: handshakes after the reload present the new certificate.
//! The client side (the OpenID provider, `panecast attach` over wss)
//! checks servers against the Mozilla roots of `webpki-roots`;
//! `panecast health` may pin its own server's certificate instead.

use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock, PoisonError, RwLock};

use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use rustls_pki_types::{ServerName, UnixTime};
use tokio_rustls::rustls::client::danger::{
    HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier,
};
use tokio_rustls::rustls::crypto::{
    ring, verify_tls12_signature, verify_tls13_signature, CryptoProvider, WebPkiSupportedAlgorithms,
};
use tokio_rustls::rustls::server::{ClientHello, ResolvesServerCert};
use tokio_rustls::rustls::sign::CertifiedKey;
use tokio_rustls::rustls::{CertificateError, DigitallySignedStruct, SignatureScheme};
use tokio_rustls::rustls::{ClientConfig, RootCertStore, ServerConfig};
use tokio_rustls::{TlsAcceptor, TlsConnector};

/// The TLS client every outgoing connection uses: rustls (ring) with the
/// Mozilla roots.
pub static CLIENT: LazyLock<TlsConnector> = LazyLock::new(|| client_trusting(Vec::new()));

/// A TLS client that trusts the Mozilla roots and `extra` (a private CA,
/// a self-signed server).
pub fn client_trusting(extra: Vec<CertificateDer<'static>>) -> TlsConnector {
    let mut roots = RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    };
    // A certificate rustls cannot take as a root is left out; it would
    // fail every handshake anyway.
    let _ = roots.add_parsable_certificates(extra);
    let config = ClientConfig::builder_with_provider(Arc::new(ring::default_provider()))
        .with_safe_default_protocol_versions()
        // ring's defaults always include the safe protocol versions.
        .unwrap_or_else(|_| unreachable!())
        .with_root_certificates(roots)
        .with_no_client_auth();
    TlsConnector::from(Arc::new(config))
}

/// A TLS client that trusts exactly the server certificate `pinned`,
/// whatever name it is reached by (`panecast health` probing its own
/// server on loopback, whose certificate names its public host): the
/// handshake's signature is still checked against that certificate.
pub fn client_pinning(pinned: CertificateDer<'static>) -> TlsConnector {
    let provider = Arc::new(ring::default_provider());
    let verifier = Arc::new(Pinned {
        pinned,
        algorithms: provider.signature_verification_algorithms,
    });
    let config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        // ring's defaults always include the safe protocol versions.
        .unwrap_or_else(|_| unreachable!())
        .dangerous()
        .with_custom_certificate_verifier(verifier)
        .with_no_client_auth();
    TlsConnector::from(Arc::new(config))
}

/// Accepts the one pinned certificate.
#[derive(Debug)]
struct Pinned {
    pinned: CertificateDer<'static>,
    algorithms: WebPkiSupportedAlgorithms,
}

impl ServerCertVerifier for Pinned {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _name: &ServerName<'_>,
        _ocsp: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, tokio_rustls::rustls::Error> {
        if end_entity.as_ref() == self.pinned.as_ref() {
            Ok(ServerCertVerified::assertion())
        } else {
            Err(tokio_rustls::rustls::Error::InvalidCertificate(
                CertificateError::UnknownIssuer,
            ))
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        signature: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, tokio_rustls::rustls::Error> {
        verify_tls12_signature(message, cert, signature, &self.algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        signature: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, tokio_rustls::rustls::Error> {
        verify_tls13_signature(message, cert, signature, &self.algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.algorithms.supported_schemes()
    }
}

/// The certificates of a PEM file (at least one), in order.
pub fn read_certificates(path: &Path) -> Result<Vec<CertificateDer<'static>>, TlsError> {
    let file = |message: String| TlsError::File {
        path: path.to_owned(),
        message,
    };
    let certs = CertificateDer::pem_file_iter(path)
        .and_then(|items| items.collect::<Result<Vec<_>, _>>())
        .map_err(|e| file(e.to_string()))?;
    if certs.is_empty() {
        return Err(file("no PEM certificate in it".to_owned()));
    }
    Ok(certs)
}

/// A certificate or key that could not be used.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    /// A file could not be read or holds no PEM item of the kind needed.
    #[error("{path}: {message}")]
    File {
        /// The file.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// The key does not suit the certificate, or rustls refused them.
    #[error("the certificate and key cannot be used together: {0}")]
    Mismatch(String),
}

/// The certificate being served, and where it is read from.
#[derive(Debug)]
pub struct Certificates {
    cert_path: PathBuf,
    key_path: PathBuf,
    provider: Arc<CryptoProvider>,
    current: RwLock<Arc<CertifiedKey>>,
}

impl Certificates {
    /// Reads the chain (`cert_path`, PEM, leaf first) and its private key
    /// (`key_path`, PEM: PKCS#8, PKCS#1 or SEC1).
    pub fn load(cert_path: &Path, key_path: &Path) -> Result<Arc<Certificates>, TlsError> {
        let provider = Arc::new(ring::default_provider());
        let current = read(cert_path, key_path, &provider)?;
        Ok(Arc::new(Certificates {
            cert_path: cert_path.to_owned(),
            key_path: key_path.to_owned(),
            provider,
            current: RwLock::new(Arc::new(current)),
        }))
    }

    /// Reads both files again; on success later handshakes use them, on
    /// failure the certificate in use stays.
    pub fn reload(&self) -> Result<(), TlsError> {
        let fresh = read(&self.cert_path, &self.key_path, &self.provider)?;
        // A poisoned lock still holds a whole Arc: replacing it is sound.
        *self.current.write().unwrap_or_else(PoisonError::into_inner) = Arc::new(fresh);
        Ok(())
    }

    /// An acceptor that serves the current certificate, for HTTP/1.1.
    pub fn acceptor(self: &Arc<Certificates>) -> Result<TlsAcceptor, TlsError> {
        let mut config = ServerConfig::builder_with_provider(Arc::clone(&self.provider))
            .with_safe_default_protocol_versions()
            .map_err(|e| TlsError::Mismatch(e.to_string()))?
            .with_no_client_auth()
            .with_cert_resolver(Arc::clone(self) as Arc<dyn ResolvesServerCert>);
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(TlsAcceptor::from(Arc::new(config)))
    }
}

impl ResolvesServerCert for Certificates {
    fn resolve(&self, _hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        let current = self.current.read().unwrap_or_else(PoisonError::into_inner);
        Some(Arc::clone(&current))
    }
}

fn read(
    cert_path: &Path,
    key_path: &Path,
    provider: &CryptoProvider,
) -> Result<CertifiedKey, TlsError> {
    let file_error = |path: &Path, message: String| TlsError::File {
        path: path.to_owned(),
        message,
    };
    let chain = read_certificates(cert_path)?;
    let key = PrivateKeyDer::from_pem_file(key_path)
        .map_err(|e| file_error(key_path, format!("no usable PEM private key: {e}")))?;
    CertifiedKey::from_der(chain, key, provider).map_err(|e| TlsError::Mismatch(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn self_signed(dir: &Path, name: &str) -> (PathBuf, PathBuf) {
        let certified = rcgen::generate_simple_self_signed(vec![name.to_owned()]).expect("a cert");
        let cert = dir.join(format!("{name}.crt"));
        let key = dir.join(format!("{name}.key"));
        std::fs::write(&cert, certified.cert.pem()).expect("write the cert");
        std::fs::write(&key, certified.key_pair.serialize_pem()).expect("write the key");
        (cert, key)
    }

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("panecast-tls-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temporary directory");
        dir
    }

    #[test]
    fn loads_and_reloads_a_pair() {
        let dir = temp_dir("reload");
        let (cert, key) = self_signed(&dir, "localhost");
        let certificates = Certificates::load(&cert, &key).expect("a usable pair");
        let before = certificates.current.read().expect("lock").cert[0].clone();
        let (other_cert, other_key) = self_signed(&dir, "other");
        std::fs::copy(&other_cert, &cert).expect("replace the cert");
        std::fs::copy(&other_key, &key).expect("replace the key");
        certificates.reload().expect("the new pair loads");
        let after = certificates.current.read().expect("lock").cert[0].clone();
        assert_ne!(before, after);
        assert!(certificates.acceptor().is_ok());
        std::fs::remove_dir_all(dir).expect("clean up");
    }

    #[test]
    fn bad_files_are_errors_and_a_failed_reload_keeps_the_pair() {
        let dir = temp_dir("bad");
        let (cert, key) = self_signed(&dir, "localhost");
        let (_, other_key) = self_signed(&dir, "other");
        let missing = dir.join("missing.pem");
        assert!(matches!(
            Certificates::load(&missing, &key),
            Err(TlsError::File { .. })
        ));
        assert!(matches!(
            Certificates::load(&key, &key),
            Err(TlsError::File { .. })
        ));
        assert!(matches!(
            Certificates::load(&cert, &other_key),
            Err(TlsError::Mismatch(_))
        ));
        let certificates = Certificates::load(&cert, &key).expect("a usable pair");
        let before = certificates.current.read().expect("lock").cert[0].clone();
        std::fs::write(&cert, "not a certificate").expect("break the cert");
        assert!(certificates.reload().is_err());
        let after = certificates.current.read().expect("lock").cert[0].clone();
        assert_eq!(before, after);
        std::fs::remove_dir_all(dir).expect("clean up");
    }
}

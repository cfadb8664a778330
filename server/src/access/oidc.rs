//! `[auth.oidc]`: sign-in at an OpenID provider, checked at startup (the
//! secret file readable and not empty, the issuer and redirect URLs
//! absolute, https unless on loopback).

use std::path::PathBuf;

use serde::Deserialize;

use crate::secret_file::SecretFileError;

/// The `[auth.oidc]` section of the configuration.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OidcConfig {
    /// The provider's issuer URL; its discovery document is read from
    /// `ISSUER/.well-known/openid-configuration`.
    pub issuer: String,
    /// This server's client id at the provider.
    pub client_id: String,
    /// A file that holds the client secret (surrounding whitespace is
    /// ignored), which sessions may not read (chmod 600).
    pub client_secret_file: PathBuf,
    /// Where the key that seals sign-in cookies is kept on a single node
    /// (made on the first start, 0600); relative to the working directory.
    /// In a cluster the key derives from the bus key instead.
    #[serde(default = "default_cookie_key_file")]
    pub cookie_key_file: PathBuf,
    /// Where the provider sends the browser back: this server's
    /// `/auth/callback` as the browser reaches it (registered at the
    /// provider). None: made from the request to `/auth/login` (its
    /// `Host`, https when it came over TLS or a trusted proxy says so, and
    /// `base_path`).
    #[serde(default)]
    pub redirect_url: Option<String>,
    /// Where the provider sends the browser after signing out there
    /// (registered at the provider); none: the provider's own page.
    #[serde(default)]
    pub post_logout_redirect_url: Option<String>,
    /// The scopes asked for.
    #[serde(default = "default_scopes")]
    pub scopes: Vec<String>,
    /// The ID token claim that names the person; a token without it is
    /// named by its `sub`.
    #[serde(default = "default_user_claim")]
    pub user_claim: String,
    /// The ID token claim that lists the person's groups (a list of
    /// strings, or one string).
    #[serde(default = "default_groups_claim")]
    pub groups_claim: String,
}

fn default_cookie_key_file() -> PathBuf {
    PathBuf::from("oidc-cookie.key")
}

fn default_scopes() -> Vec<String> {
    ["openid", "profile", "email"].map(String::from).to_vec()
}

fn default_user_claim() -> String {
    "preferred_username".to_owned()
}

fn default_groups_claim() -> String {
    "groups".to_owned()
}

impl OidcConfig {
    /// Checks the section: URLs, the client id, the secret file, scopes
    /// that include `openid`.
    pub fn validate(&self) -> Result<(), OidcConfigError> {
        check_url("issuer", &self.issuer)?;
        if let Some(url) = &self.redirect_url {
            check_url("redirect_url", url)?;
        }
        if let Some(url) = &self.post_logout_redirect_url {
            check_url("post_logout_redirect_url", url)?;
        }
        if self.client_id.trim().is_empty() {
            return Err(OidcConfigError::NoClientId);
        }
        if !self.scopes.iter().any(|s| s == "openid") {
            return Err(OidcConfigError::NoOpenidScope);
        }
        if self.user_claim.is_empty() || self.groups_claim.is_empty() {
            return Err(OidcConfigError::NoClaim);
        }
        self.client_secret().map(|_| ())
    }

    /// The client secret, read from its file, which sessions may not read
    /// (see [`crate::secret_file`]).
    pub fn client_secret(&self) -> Result<String, OidcConfigError> {
        Ok(crate::secret_file::read(
            &self.client_secret_file,
            "client_secret_file",
        )?)
    }
}

/// What is wrong with `[auth.oidc]`; each message says which setting.
#[derive(Debug, thiserror::Error)]
pub enum OidcConfigError {
    /// A URL setting that is not an absolute https URL.
    #[error("auth.oidc: {name} = '{text}': {why}")]
    BadUrl {
        /// The setting.
        name: &'static str,
        /// Its value.
        text: String,
        /// What it must be.
        why: &'static str,
    },
    /// `client_id` is empty.
    #[error("auth.oidc: client_id is empty")]
    NoClientId,
    /// `scopes` lacks `openid`.
    #[error("auth.oidc: scopes must include 'openid'")]
    NoOpenidScope,
    /// `user_claim` or `groups_claim` is empty.
    #[error("auth.oidc: user_claim and groups_claim name a claim")]
    NoClaim,
    /// The client secret's file cannot be read, is not private or is empty.
    #[error("auth.oidc: {0}")]
    Secret(#[from] SecretFileError),
}

/// An absolute http(s) URL without credentials or fragment; http only
/// to a loopback host (a test provider), never across a network.
fn check_url(name: &'static str, text: &str) -> Result<(), OidcConfigError> {
    let bad = |why: &'static str| {
        Err(OidcConfigError::BadUrl {
            name,
            text: text.to_owned(),
            why,
        })
    };
    let Ok(url) = openidconnect::url::Url::parse(text) else {
        return bad("give an absolute URL (https://HOST/...)");
    };
    let Some(host) = url.host() else {
        return bad("give an absolute URL (https://HOST/...)");
    };
    if !url.username().is_empty() || url.password().is_some() || url.fragment().is_some() {
        return bad("no user, password or fragment");
    }
    let loopback = match host {
        openidconnect::url::Host::Domain(name) => name == "localhost",
        openidconnect::url::Host::Ipv4(ip) => ip.is_loopback(),
        openidconnect::url::Host::Ipv6(ip) => ip.is_loopback(),
    };
    match url.scheme() {
        "https" => Ok(()),
        "http" if loopback => Ok(()),
        "http" => bad("use https (http only to a loopback address)"),
        _ => bad("use https"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(extra: &str, secret_file: &str) -> OidcConfig {
        toml::from_str(&format!(
            "issuer = \"https://id.example.com/realms/main\"\nclient_id = \"panecast\"\n\
             client_secret_file = \"{secret_file}\"\n\
             redirect_url = \"https://term.example.com/auth/callback\"\n{extra}"
        ))
        .expect("a valid section")
    }

    fn secret_file(content: &str) -> (tempdir::Dir, String) {
        let dir = tempdir::Dir::new();
        let path = dir.0.join("secret");
        std::fs::write(&path, content).expect("write");
        let private = std::os::unix::fs::PermissionsExt::from_mode(0o600);
        std::fs::set_permissions(&path, private).expect("chmod");
        let path = path.display().to_string();
        (dir, path)
    }

    /// A directory removed when dropped.
    mod tempdir {
        pub struct Dir(pub std::path::PathBuf);
        impl Dir {
            pub fn new() -> Dir {
                let n = crate::random::hex128().expect("random");
                let path = std::env::temp_dir().join(format!("panecast-oidc-{n}"));
                std::fs::create_dir(&path).expect("mkdir");
                Dir(path)
            }
        }
        impl Drop for Dir {
            fn drop(&mut self) {
                let _ = std::fs::remove_dir_all(&self.0);
            }
        }
    }

    #[test]
    fn defaults_and_the_secret() {
        let (_dir, path) = secret_file("  s3cret\n");
        let config = parse("", &path);
        assert_eq!(config.scopes, ["openid", "profile", "email"]);
        assert_eq!(config.user_claim, "preferred_username");
        assert_eq!(config.groups_claim, "groups");
        assert_eq!(config.post_logout_redirect_url, None);
        assert_eq!(
            config.redirect_url.as_deref(),
            Some("https://term.example.com/auth/callback")
        );
        config.validate().expect("valid");
        assert_eq!(config.client_secret().expect("read"), "s3cret");
        let config = parse(
            "scopes = [\"openid\", \"groups\"]\nuser_claim = \"email\"",
            &path,
        );
        assert_eq!(config.scopes, ["openid", "groups"]);
        assert_eq!(config.user_claim, "email");
    }

    #[test]
    fn refuses_what_cannot_work() {
        let (_dir, path) = secret_file("s3cret");
        let error = |config: OidcConfig| config.validate().expect_err("refused");
        let missing = parse("", "/nonexistent/panecast-secret");
        assert!(error(missing)
            .to_string()
            .contains("cannot read client_secret_file"));
        let (_empty_dir, empty) = secret_file(" \n");
        assert!(error(parse("", &empty)).to_string().contains("is empty"));
        let mut config = parse("", &path);
        config.issuer = "id.example.com".into();
        assert!(error(config.clone()).to_string().contains("absolute URL"));
        config.issuer = "http://id.example.com".into();
        assert!(error(config.clone()).to_string().contains("use https"));
        config.issuer = "ftp://id.example.com".into();
        assert!(error(config.clone()).to_string().contains("use https"));
        config.issuer = "https://user:pw@id.example.com".into();
        assert!(error(config.clone()).to_string().contains("no user"));
        config.issuer = "http://127.0.0.1:9000".into();
        config.validate().expect("http to loopback is fine");
        config.redirect_url = Some("/auth/callback".into());
        assert!(error(config.clone()).to_string().contains("absolute URL"));
        config.redirect_url = None;
        config.validate().expect("made from each request");
        config.scopes = vec!["profile".into()];
        assert!(matches!(error(config), OidcConfigError::NoOpenidScope));
        let unknown = toml::from_str::<OidcConfig>(&format!(
            "issuer = \"https://a\"\nclient_id = \"c\"\nclient_secret_file = \"{path}\"\n\
             redirect_url = \"https://b/auth/callback\"\nsecret = \"x\""
        ));
        assert!(unknown.is_err(), "unknown keys are refused");
    }

    #[test]
    fn the_configuration_is_refused_at_start() {
        let (_dir, path) = secret_file("s3cret");
        let section = |secret: &str, issuer: &str| {
            format!(
                "[auth.oidc]\nissuer = \"{issuer}\"\nclient_id = \"panecast\"\n\
                 client_secret_file = \"{secret}\"\n\n\
                 [[auth.rules]]\ngroups = [\"dev\"]\nrole = \"control\"\n"
            )
        };
        let config = crate::config::Config::parse(&section(&path, "https://id.example.com"))
            .expect("a valid configuration");
        let oidc = config.auth.oidc.expect("the section");
        assert_eq!(oidc.issuer, "https://id.example.com");
        assert_eq!(oidc.redirect_url, None);
        let unreadable = section("/nonexistent/panecast-secret", "https://id.example.com");
        let err = crate::config::Config::parse(&unreadable).expect_err("refused");
        assert!(
            err.to_string().contains("cannot read client_secret_file"),
            "{err}"
        );
        let err =
            crate::config::Config::parse(&section(&path, "id.example.com")).expect_err("refused");
        assert!(err.to_string().contains("auth.oidc: issuer"), "{err}");
    }
}

//! Opaque, scoped, hashed API tokens.
//!
//! A token is `rl_<scope>_<32 random bytes as hex>` from the OS CSPRNG;
//! only its SHA-256 is stored. Tokens are accepted only in the
//! `Authorization: Bearer` header (or an HTML form's `token` field), never
//! in a URL, and never logged.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use rand::TryRng;
use sha2::{Digest, Sha256};

use crate::error::AppError;
use crate::storage::tokens::{self, TokenRecord};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Scope {
    Read,
    Upload,
    Admin,
}

impl Scope {
    pub fn parse(s: &str) -> Option<Scope> {
        match s {
            "read" => Some(Scope::Read),
            "upload" => Some(Scope::Upload),
            "admin" => Some(Scope::Admin),
            _ => None,
        }
    }
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Read => "read",
            Scope::Upload => "upload",
            Scope::Admin => "admin",
        }
    }
}

/// Make a new token; returns (secret to show once, its hash).
pub fn generate(scope: Scope) -> (String, Vec<u8>) {
    let mut bytes = [0u8; 32];
    rand::rngs::SysRng
        .try_fill_bytes(&mut bytes)
        .expect("the OS random number generator failed");
    let secret = format!("rl_{}_{}", scope.as_str(), hex::encode(bytes));
    let hash = hash_token(&secret);
    (secret, hash)
}

pub fn hash_token(secret: &str) -> Vec<u8> {
    Sha256::digest(secret.as_bytes()).to_vec()
}

/// The caller, authenticated by a Bearer token. Handlers that change state
/// take this extractor (`web::auth`) and check the scope they need with
/// [`Caller::require`].
#[derive(Debug, Clone)]
pub struct Caller {
    pub token: TokenRecord,
}

impl Caller {
    pub fn scope(&self) -> Scope {
        Scope::parse(&self.token.scope).unwrap_or(Scope::Read)
    }
    pub fn require(&self, need: Scope) -> Result<(), AppError> {
        if self.scope() >= need {
            Ok(())
        } else {
            Err(AppError::Forbidden(format!(
                "token '{}' has scope '{}'; this needs '{}'",
                self.token.name,
                self.token.scope,
                need.as_str()
            )))
        }
    }
}

/// The secret of an `Authorization: Bearer <token>` header. The scheme is
/// case-insensitive (RFC 9110 section 11.1), so `bearer` and `BEARER` work.
pub fn bearer_secret(value: &str) -> Option<&str> {
    let (scheme, rest) = value.trim_start().split_once([' ', '\t'])?;
    if !scheme.eq_ignore_ascii_case("bearer") {
        return None;
    }
    Some(rest.trim()).filter(|s| !s.is_empty())
}

/// The TCP peer of a request, when the server recorded it (tests that call
/// the router directly may not). No proxy header is trusted.
#[derive(Debug, Clone, Copy, Default)]
pub struct ClientAddr(pub Option<std::net::IpAddr>);

impl<S: Send + Sync> FromRequestParts<S> for ClientAddr {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        Ok(ClientAddr(
            parts
                .extensions
                .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
                .map(|c| c.0.ip()),
        ))
    }
}

/// Check a presented secret (from a header or a form field). A valid token
/// is always accepted, even from an address that is over its failure
/// limit: the limit slows guessing, it must not lock out the rig or admin
/// that shares an address with a client sending bad tokens. A missing or
/// wrong token counts as a failure of its address; once the address is
/// over the limit the answer is 429 instead of 401.
pub async fn authenticate(
    pool: &sqlx::PgPool,
    failures: &AuthFailures,
    peer: ClientAddr,
    secret: Option<&str>,
) -> Result<Caller, AppError> {
    let secret = secret.map(str::trim).filter(|s| !s.is_empty());
    let token = match secret {
        Some(s) if s.len() <= 512 => tokens::find_active(pool, &hash_token(s)).await?,
        _ => None,
    };
    if let Some(token) = token {
        return Ok(Caller { token });
    }
    if let Some(ip) = peer.0
        && failures.record(ip)
    {
        return Err(AppError::TooManyRequests(
            "too many failed authentications from this address; wait a minute (valid tokens are still accepted)".into(),
        ));
    }
    Err(AppError::Unauthorized)
}

/// Failed authentications per client address in a sliding minute. The
/// address is the TCP peer: no proxy headers are trusted.
#[derive(Debug)]
pub struct AuthFailures {
    limit: u32,
    window: std::time::Duration,
    seen: std::sync::Mutex<std::collections::HashMap<std::net::IpAddr, (std::time::Instant, u32)>>,
}

impl Default for AuthFailures {
    fn default() -> Self {
        AuthFailures::new(20, std::time::Duration::from_secs(60))
    }
}

impl AuthFailures {
    pub fn new(limit: u32, window: std::time::Duration) -> Self {
        AuthFailures {
            limit,
            window,
            seen: Default::default(),
        }
    }

    pub fn blocked(&self, ip: std::net::IpAddr) -> bool {
        let Ok(seen) = self.seen.lock() else {
            return false;
        };
        seen.get(&ip)
            .is_some_and(|(start, n)| start.elapsed() < self.window && *n >= self.limit)
    }

    /// Count a failure; true when the address is now over its limit.
    pub fn record(&self, ip: std::net::IpAddr) -> bool {
        let Ok(mut seen) = self.seen.lock() else {
            return false;
        };
        if seen.len() > 100_000 {
            let window = self.window;
            seen.retain(|_, (start, _)| start.elapsed() < window);
        }
        let e = seen.entry(ip).or_insert((std::time::Instant::now(), 0));
        if e.0.elapsed() >= self.window {
            *e = (std::time::Instant::now(), 0);
        }
        e.1 = e.1.saturating_add(1);
        e.1 > self.limit
    }
}

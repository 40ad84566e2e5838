//! Opaque, scoped, hashed API tokens.
//!
//! A token is `rl_<scope>_<32 random bytes as hex>` from the OS CSPRNG;
//! only its SHA-256 is stored. Tokens are accepted only in the
//! `Authorization: Bearer` header, never in a URL, and never logged.

use axum::extract::FromRequestParts;
use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;
use rand::TryRngCore;
use sha2::{Digest, Sha256};

use crate::error::AppError;
use crate::storage::tokens::{self, TokenRecord};
use crate::web::AppState;

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
    rand::rngs::OsRng
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
/// take this extractor and check the scope they need with [`Caller::require`].
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

impl FromRequestParts<AppState> for Caller {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, AppError> {
        let peer = parts
            .extensions
            .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
            .map(|c| c.0.ip());
        if peer.is_some_and(|ip| state.auth_failures.blocked(ip)) {
            return Err(AppError::TooManyRequests(
                "too many failed authentications from this address; wait a minute".into(),
            ));
        }
        let secret = parts
            .headers
            .get(AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|h| h.strip_prefix("Bearer "))
            .map(str::trim)
            .filter(|s| !s.is_empty());
        let token = match secret {
            Some(s) => tokens::find_active(&state.pool, &hash_token(s)).await?,
            None => None,
        };
        match token {
            Some(token) => Ok(Caller { token }),
            None => {
                if let Some(ip) = peer {
                    state.auth_failures.record(ip);
                }
                Err(AppError::Unauthorized)
            }
        }
    }
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

    pub fn record(&self, ip: std::net::IpAddr) {
        let Ok(mut seen) = self.seen.lock() else {
            return;
        };
        if seen.len() > 100_000 {
            let window = self.window;
            seen.retain(|_, (start, _)| start.elapsed() < window);
        }
        let e = seen.entry(ip).or_insert((std::time::Instant::now(), 0));
        if e.0.elapsed() >= self.window {
            *e = (std::time::Instant::now(), 0);
        }
        e.1 += 1;
    }
}

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
        let header = parts
            .headers
            .get(AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .ok_or(AppError::Unauthorized)?;
        let secret = header
            .strip_prefix("Bearer ")
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .ok_or(AppError::Unauthorized)?;
        let token = tokens::find_active(&state.pool, &hash_token(secret))
            .await?
            .ok_or(AppError::Unauthorized)?;
        Ok(Caller { token })
    }
}

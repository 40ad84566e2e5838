//! Every way a token reaches the service, each checked by
//! [`crate::auth::authenticate`] (which counts failures per address): the
//! [`Caller`] extractor (`Authorization: Bearer`), [`bearer`] for a handler
//! where the token is optional, and [`form_caller`] for HTML forms.

use axum::extract::FromRequestParts;
use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;

use crate::auth::{Caller, ClientAddr, authenticate, bearer_secret};
use crate::error::AppError;
use crate::web::AppState;

impl FromRequestParts<AppState> for Caller {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, AppError> {
        let peer = ClientAddr::from_request_parts(parts, state)
            .await
            .unwrap_or_default();
        let secret = bearer(&parts.headers);
        authenticate(&state.pool, &state.auth_failures, peer, secret.as_deref()).await
    }
}

/// The secret of a request's `Authorization: Bearer` header, if any.
pub fn bearer(headers: &axum::http::HeaderMap) -> Option<String> {
    headers
        .get(AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(bearer_secret)
        .map(str::to_owned)
}

/// The caller of an HTML form: the upload token travels in the form's
/// `token` field (see `import.rs` for why). Failures count against the
/// address exactly as a bad `Authorization` header does.
pub async fn form_caller(
    state: &crate::web::AppState,
    peer: crate::auth::ClientAddr,
    f: &std::collections::BTreeMap<String, String>,
) -> Result<crate::auth::Caller, AppError> {
    let caller = crate::auth::authenticate(
        &state.pool,
        &state.auth_failures,
        peer,
        f.get("token").map(String::as_str),
    )
    .await?;
    caller.require(crate::auth::Scope::Upload)?;
    Ok(caller)
}

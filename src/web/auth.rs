//! The [`Caller`] extractor: the `Authorization: Bearer` token of an API
//! request, checked by [`crate::auth::authenticate`].

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
        let secret = parts
            .headers
            .get(AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(bearer_secret)
            .map(str::to_owned);
        authenticate(&state.pool, &state.auth_failures, peer, secret.as_deref()).await
    }
}

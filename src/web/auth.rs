//! Every way a token reaches the service, each checked by
//! [`crate::auth::authenticate`] (which counts failures per address): the
//! [`Caller`] extractor (`Authorization: Bearer`), [`bearer`] for a handler
//! where the token is optional, and [`SignedForm`] (through
//! [`form_caller`]) for the HTML forms that write.

use axum::extract::{FromRequest, FromRequestParts, Request};
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

/// A form posted from one of the site's own pages by the holder of an
/// upload token: the same-origin check, the form body, then its `token`
/// field authenticated with the upload scope (a failure counts against the
/// peer's address). Every page handler that writes takes this extractor,
/// so none can skip a step.
pub struct SignedForm {
    pub caller: Caller,
    pub fields: crate::web::extract::Fields,
}

impl FromRequest<AppState> for SignedForm {
    type Rejection = crate::web::pages::PageError;

    async fn from_request(req: Request, state: &AppState) -> Result<Self, Self::Rejection> {
        crate::web::same_origin::same_origin(req.headers())?;
        let (mut parts, body) = req.into_parts();
        let peer = ClientAddr::from_request_parts(&mut parts, state)
            .await
            .unwrap_or_default();
        let crate::web::extract::page::Form(fields) =
            crate::web::extract::page::Form::from_request(Request::from_parts(parts, body), state)
                .await?;
        let caller = form_caller(state, peer, &fields.map).await?;
        Ok(SignedForm { caller, fields })
    }
}

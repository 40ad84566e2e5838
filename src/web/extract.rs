//! The request extractors of every handler: axum's `Path`, `Query`, `Json`
//! and form bodies with rejections that are [`AppError`]s, so a bad id, a
//! non-numeric `limit` or a malformed body answers the documented JSON
//! error on `/api` ([`api`]) and the HTML error page on pages ([`page`]),
//! never axum's own plain text.

use axum::extract::rejection::{JsonRejection, PathRejection, QueryRejection};
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::StatusCode;
use axum::http::request::Parts;
use serde::de::DeserializeOwned;

use crate::error::AppError;

/// What was wrong with the path, in words a client can act on.
fn path_error(e: PathRejection) -> AppError {
    match e {
        PathRejection::FailedToDeserializePathParams(e) => {
            let kind = e.into_kind();
            AppError::BadRequest(format!("bad path segment: {kind}"))
        }
        other => AppError::BadRequest(format!("bad path: {}", other.body_text())),
    }
}

fn query_error(e: QueryRejection) -> AppError {
    match e {
        QueryRejection::FailedToDeserializeQueryString(e) => {
            // axum's text is "Failed to deserialize query string: <serde's>".
            let text = e.body_text();
            let why = text
                .strip_prefix("Failed to deserialize query string: ")
                .unwrap_or(&text);
            AppError::BadRequest(format!("bad query parameter: {why}"))
        }
        other => AppError::BadRequest(format!("bad query: {}", other.body_text())),
    }
}

/// A missing content type, bad syntax and a wrong shape are all 400 (the
/// message says which); only an oversized body is 413.
fn json_error(e: JsonRejection) -> AppError {
    if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
        AppError::PayloadTooLarge("the JSON body is too large".into())
    } else {
        AppError::BadRequest(format!("bad JSON body: {}", e.body_text()))
    }
}

/// A form body (`application/x-www-form-urlencoded`) as name -> value; the
/// last of repeated names wins. Undecodable bytes become U+FFFD.
fn form_error(e: axum::extract::rejection::BytesRejection) -> AppError {
    if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
        AppError::PayloadTooLarge("the form body is too large".into())
    } else {
        AppError::BadRequest(format!("bad form body: {}", e.body_text()))
    }
}

async fn form_from<S: Send + Sync>(req: Request, state: &S) -> Result<Fields, AppError> {
    let bytes = axum::body::Bytes::from_request(req, state)
        .await
        .map_err(form_error)?;
    Ok(Fields {
        map: url::form_urlencoded::parse(&bytes).into_owned().collect(),
        raw: String::from_utf8_lossy(&bytes).into_owned(),
    })
}

/// Decoded form fields, in the order the names sort, and the body as sent.
#[derive(Debug, Clone, Default)]
pub struct Fields {
    pub map: std::collections::BTreeMap<String, String>,
    /// The encoded body (invalid UTF-8 replaced).
    pub raw: String,
}

impl Fields {
    pub fn get(&self, k: &str) -> Option<&String> {
        self.map.get(k)
    }
    /// The trimmed value, `None` when absent or blank.
    pub fn text(&self, k: &str) -> Option<String> {
        self.map
            .get(k)
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
    }
}

/// Extractors for `/api`: rejections answer the JSON error.
pub mod api {
    use super::*;

    pub struct Path<T>(pub T);
    pub struct Query<T>(pub T);
    pub struct Json<T>(pub T);
    /// A UTF-8 text body (a TOML table, say).
    pub struct Text(pub String);

    impl<S: Send + Sync> FromRequest<S> for Text {
        type Rejection = AppError;
        async fn from_request(req: Request, state: &S) -> Result<Self, AppError> {
            String::from_request(req, state)
                .await
                .map(Text)
                .map_err(|e| {
                    if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
                        AppError::PayloadTooLarge("the body is too large".into())
                    } else {
                        AppError::BadRequest(format!("bad body: {}", e.body_text()))
                    }
                })
        }
    }

    impl<T: DeserializeOwned + Send, S: Send + Sync> FromRequestParts<S> for Path<T> {
        type Rejection = AppError;
        async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, AppError> {
            axum::extract::Path::<T>::from_request_parts(parts, state)
                .await
                .map(|p| Path(p.0))
                .map_err(path_error)
        }
    }

    impl<T: DeserializeOwned, S: Send + Sync> FromRequestParts<S> for Query<T> {
        type Rejection = AppError;
        async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, AppError> {
            axum::extract::Query::<T>::from_request_parts(parts, state)
                .await
                .map(|q| Query(q.0))
                .map_err(query_error)
        }
    }

    impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for Json<T> {
        type Rejection = AppError;
        async fn from_request(req: Request, state: &S) -> Result<Self, AppError> {
            axum::Json::<T>::from_request(req, state)
                .await
                .map(|j| Json(j.0))
                .map_err(json_error)
        }
    }
}

/// Extractors for HTML pages: rejections answer the HTML error page.
pub mod page {
    use super::*;
    use crate::web::pages::PageError;

    pub struct Path<T>(pub T);
    pub struct Query<T>(pub T);
    /// The fields of a form body.
    pub struct Form(pub Fields);

    impl<T: DeserializeOwned + Send, S: Send + Sync> FromRequestParts<S> for Path<T> {
        type Rejection = PageError;
        async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, PageError> {
            axum::extract::Path::<T>::from_request_parts(parts, state)
                .await
                .map(|p| Path(p.0))
                .map_err(|e| PageError(path_error(e)))
        }
    }

    impl<T: DeserializeOwned, S: Send + Sync> FromRequestParts<S> for Query<T> {
        type Rejection = PageError;
        async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, PageError> {
            axum::extract::Query::<T>::from_request_parts(parts, state)
                .await
                .map(|q| Query(q.0))
                .map_err(|e| PageError(query_error(e)))
        }
    }

    impl<S: Send + Sync> FromRequest<S> for Form {
        type Rejection = PageError;
        async fn from_request(req: Request, state: &S) -> Result<Self, PageError> {
            form_from(req, state).await.map(Form).map_err(PageError)
        }
    }
}

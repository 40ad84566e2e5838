//! The one application error type, mapped to HTTP in exactly one place
//! (`IntoResponse`). Internal details are logged once here and never sent.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use reclaimlab_formats::{ErrorKind, ParseError};

#[derive(Debug, thiserror::Error)]
pub enum AppError {
    #[error("{0}")]
    BadRequest(String),
    #[error("missing or invalid token")]
    Unauthorized,
    #[error("{0}")]
    Forbidden(String),
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    MethodNotAllowed(String),
    #[error("{0}")]
    Gone(String),
    #[error("{0}")]
    Conflict(String),
    #[error("{0}")]
    PayloadTooLarge(String),
    #[error("{0}")]
    UnsupportedContent(String),
    #[error("{message}")]
    Unprocessable { message: String, line: Option<u64> },
    #[error("{0}")]
    TooManyRequests(String),
    #[error("{0}")]
    Busy(String),
    #[error("database unavailable")]
    Unavailable(#[source] sqlx::Error),
    #[error("internal error")]
    Internal(#[from] anyhow::Error),
}

impl AppError {
    pub fn status(&self) -> StatusCode {
        match self {
            AppError::BadRequest(_) => StatusCode::BAD_REQUEST,
            AppError::Unauthorized => StatusCode::UNAUTHORIZED,
            AppError::Forbidden(_) => StatusCode::FORBIDDEN,
            AppError::NotFound(_) => StatusCode::NOT_FOUND,
            AppError::MethodNotAllowed(_) => StatusCode::METHOD_NOT_ALLOWED,
            AppError::Gone(_) => StatusCode::GONE,
            AppError::Conflict(_) => StatusCode::CONFLICT,
            AppError::PayloadTooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            AppError::UnsupportedContent(_) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            AppError::Unprocessable { .. } => StatusCode::UNPROCESSABLE_ENTITY,
            AppError::TooManyRequests(_) => StatusCode::TOO_MANY_REQUESTS,
            AppError::Busy(_) | AppError::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
            AppError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    pub fn code(&self) -> &'static str {
        match self {
            AppError::BadRequest(_) => "bad_request",
            AppError::Unauthorized => "unauthorized",
            AppError::Forbidden(_) => "forbidden",
            AppError::NotFound(_) => "not_found",
            AppError::MethodNotAllowed(_) => "method_not_allowed",
            AppError::Gone(_) => "gone",
            AppError::Conflict(_) => "conflict",
            AppError::PayloadTooLarge(_) => "payload_too_large",
            AppError::UnsupportedContent(_) => "unsupported_content",
            AppError::Unprocessable { .. } => "unprocessable_content",
            AppError::TooManyRequests(_) => "too_many_requests",
            AppError::Busy(_) => "busy",
            AppError::Unavailable(_) => "unavailable",
            AppError::Internal(_) => "internal",
        }
    }

    pub fn not_found(what: impl std::fmt::Display) -> Self {
        AppError::NotFound(format!("{what} not found"))
    }

    /// The message shown to clients: never internal detail.
    pub fn public_message(&self) -> String {
        self.to_string()
    }

    pub fn line(&self) -> Option<u64> {
        match self {
            AppError::Unprocessable { line, .. } => *line,
            _ => None,
        }
    }
}

impl From<ParseError> for AppError {
    fn from(e: ParseError) -> Self {
        match e.kind {
            // Text in which no known result format starts: as unprocessable
            // as a malformed block, and the line says where it looked.
            ErrorKind::Unrecognized => AppError::Unprocessable {
                message: format!("no known result format found: {e}"),
                line: (e.line > 0).then_some(e.line),
            },
            ErrorKind::TooLarge => AppError::PayloadTooLarge(e.to_string()),
            ErrorKind::Invalid => AppError::Unprocessable {
                message: e.to_string(),
                line: (e.line > 0).then_some(e.line),
            },
        }
    }
}

impl From<sqlx::Error> for AppError {
    fn from(e: sqlx::Error) -> Self {
        match &e {
            sqlx::Error::PoolTimedOut | sqlx::Error::PoolClosed | sqlx::Error::Io(_) => {
                AppError::Unavailable(e)
            }
            sqlx::Error::RowNotFound => AppError::NotFound("not found".into()),
            _ => AppError::Internal(anyhow::Error::new(e)),
        }
    }
}

impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        let status = self.status();
        match &self {
            AppError::Internal(e) => tracing::error!(error = ?e, "internal error"),
            AppError::Unavailable(e) => tracing::warn!(error = %e, "database unavailable"),
            _ => tracing::debug!(status = status.as_u16(), error = %self, "request failed"),
        }
        let body = ErrorBody {
            error: ErrorDetail {
                code: self.code(),
                message: self.public_message(),
                line: self.line(),
            },
        };
        let mut resp = (status, axum::Json(body)).into_response();
        if matches!(self, AppError::Unauthorized) {
            resp.headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        if matches!(
            self,
            AppError::TooManyRequests(_) | AppError::Busy(_) | AppError::Unavailable(_)
        ) {
            resp.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
        }
        resp
    }
}

pub type AppResult<T> = Result<T, AppError>;

/// The body of every JSON error: `{"error": {"code", "message", "line"?}}`
/// with the HTTP status.
// The `Error` schema and response of the OpenAPI document.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
#[schema(as = Error)]
pub struct ErrorBody {
    pub error: ErrorDetail,
}

#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
pub struct ErrorDetail {
    /// The kind: bad_request, unauthorized, forbidden, not_found,
    /// method_not_allowed, gone, conflict, payload_too_large,
    /// unsupported_content, unprocessable_content, too_many_requests, busy,
    /// unavailable, internal.
    pub code: &'static str,
    pub message: String,
    /// The line of the input it is about, counted from 1.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 1)]
    pub line: Option<u64>,
}

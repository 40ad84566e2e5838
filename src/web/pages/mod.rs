//! HTML pages: one `*Page` struct per template, next to its handler.
//! Errors render as an HTML page with the same status as the JSON API.

pub mod catalog;
pub mod compare;
pub mod culprits;
pub mod heatmap;
pub mod history;
pub mod home;
pub mod import;
pub mod permalinks;
pub mod runs;
pub mod simulations;
pub mod validation;
pub mod variant;

use askama::Template;
use askama_web::WebTemplate;
use axum::response::{IntoResponse, Response};

use crate::error::AppError;

/// An [`AppError`] rendered as HTML.
pub struct PageError(pub AppError);

impl<E: Into<AppError>> From<E> for PageError {
    fn from(e: E) -> Self {
        PageError(e.into())
    }
}

#[derive(Template, WebTemplate)]
#[template(path = "pages/error.html")]
struct ErrorPage {
    status: u16,
    title: String,
    message: String,
}

impl IntoResponse for PageError {
    fn into_response(self) -> Response {
        let status = self.0.status();
        if status.is_server_error() {
            tracing::error!(error = ?self.0, "page failed");
        }
        let page = ErrorPage {
            status: status.as_u16(),
            title: status.canonical_reason().unwrap_or("Error").to_string(),
            message: self.0.public_message(),
        };
        (status, page).into_response()
    }
}

pub type PageResult<T> = Result<T, PageError>;

/// No route: the JSON error under `/api`, the HTML error page elsewhere.
pub async fn not_found(uri: axum::http::Uri) -> Response {
    if is_api(&uri) {
        AppError::NotFound(format!("no endpoint at {}", uri.path())).into_response()
    } else {
        PageError(AppError::NotFound("no page at this address".into())).into_response()
    }
}

/// A route exists but not for this method.
pub async fn method_not_allowed(method: axum::http::Method, uri: axum::http::Uri) -> Response {
    let e = AppError::MethodNotAllowed(format!("{} does not answer {method}", uri.path()));
    if is_api(&uri) {
        e.into_response()
    } else {
        PageError(e).into_response()
    }
}

fn is_api(uri: &axum::http::Uri) -> bool {
    uri.path() == "/api" || uri.path().starts_with("/api/")
}

//! The cross-site check of every state-changing HTML form.

use axum::http::{HeaderMap, header};

use crate::error::AppError;

/// State-changing forms accept only same-origin posts (CSRF).
pub fn same_origin(headers: &HeaderMap) -> Result<(), AppError> {
    if let Some(site) = headers.get("sec-fetch-site").and_then(|v| v.to_str().ok()) {
        if site != "same-origin" && site != "none" {
            return Err(AppError::Forbidden(
                "cross-site form posts are refused".into(),
            ));
        }
        return Ok(());
    }
    if let (Some(origin), Some(host)) = (
        headers.get(header::ORIGIN).and_then(|v| v.to_str().ok()),
        headers.get(header::HOST).and_then(|v| v.to_str().ok()),
    ) {
        let o = origin
            .trim_start_matches("http://")
            .trim_start_matches("https://");
        if o != host {
            return Err(AppError::Forbidden(
                "cross-site form posts are refused".into(),
            ));
        }
    }
    Ok(())
}

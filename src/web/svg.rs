//! SVG answers: the chart of a comparison, a heatmap, a histogram, a plot.

use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};

pub fn svg_response(svg: String, immutable: bool) -> Response {
    let mut r = ([(header::CONTENT_TYPE, "image/svg+xml")], svg).into_response();
    if immutable {
        r.headers_mut().insert(
            header::CACHE_CONTROL,
            HeaderValue::from_static("public, max-age=31536000, immutable"),
        );
    }
    r
}

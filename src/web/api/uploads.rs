//! `POST /api/v1/uploads` (token with upload scope) and `POST /api/v1/parse`
//! (no token; parses and returns the document without storing anything).
//!
//! The body is the raw result text (any content type), or
//! `multipart/form-data` with a file part and metadata fields. Metadata may
//! also come in the query string. `Content-Encoding: gzip` is accepted with
//! its own limit on the decoded size.

use std::io::Read;

use axum::Json;
use axum::body::{Body, Bytes};
use axum::extract::{FromRequest, Multipart, Query, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;

use crate::auth::{Caller, Scope};
use crate::error::{AppError, AppResult};
use crate::ingest::{self, Cancel, RawUpload, UploadMeta};
use crate::storage::runs;
use crate::web::AppState;

/// Metadata in the query string.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UploadParams {
    pub board: Option<String>,
    pub kernel: Option<String>,
    pub variant: Option<String>,
    pub parent: Option<String>,
    pub message_id: Option<String>,
    pub tool_args: Option<String>,
    pub direction: Option<String>,
    pub variant_prefix: Option<String>,
    pub filename: Option<String>,
    pub unlisted: Option<bool>,
}

impl UploadParams {
    fn into_meta(self) -> UploadMeta {
        UploadMeta {
            board: self.board,
            kernel: self.kernel,
            variant: self.variant,
            parent: self.parent,
            message_id: self.message_id,
            tool_args: self.tool_args,
            direction: self.direction,
            variant_prefix: self.variant_prefix,
            filename: self.filename,
            unlisted: self.unlisted.unwrap_or(false),
            blocks: Vec::new(),
        }
    }
}

#[tracing::instrument(skip_all)]
pub async fn create_upload(
    State(state): State<AppState>,
    caller: Caller,
    params: Result<Query<UploadParams>, axum::extract::rejection::QueryRejection>,
    req: Request,
) -> AppResult<Response> {
    caller.require(Scope::Upload)?;
    let Query(params) =
        params.map_err(|e| AppError::BadRequest(format!("bad query string: {e}")))?;
    let idempotency_key = req
        .headers()
        .get("idempotency-key")
        .map(|v| {
            v.to_str()
                .map(str::to_string)
                .map_err(|_| AppError::BadRequest("Idempotency-Key must be ASCII".into()))
        })
        .transpose()?;
    let limits = BodyLimits {
        raw: state.limits.max_upload_bytes,
        decoded: state.limits.max_decoded_bytes,
    };
    let (parts, raw) = read_body(req, limits).await?;
    // The permit covers decoding, parsing and storing: the memory of one
    // upload is held only while it has one.
    let permit = state
        .parse_gate
        .acquire(decoded_estimate(&parts.headers, &raw, limits.decoded))
        .await?;
    let cancel = Cancel::default();
    let _guard = cancel.on_drop();
    let (content, content_type, meta) =
        split_upload(params.into_meta(), &parts, raw, limits, &cancel).await?;
    let (stored, doc) = ingest::ingest_with(
        &state.pool,
        RawUpload {
            content,
            content_type,
            meta,
            idempotency_key,
            token_id: Some(caller.token.id),
        },
        permit,
        cancel,
    )
    .await?;
    let summaries = runs::summaries(&state.pool, &stored.run_ids).await?;
    let status = if stored.created {
        state
            .metrics
            .uploads_created
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        StatusCode::CREATED
    } else {
        state
            .metrics
            .uploads_replayed
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        StatusCode::OK
    };
    let runs: Vec<_> = summaries
        .iter()
        .map(|r| {
            json!({
                "id": r.id,
                "url": state.url(&format!("/runs/{}", r.id)),
                "api_url": state.url(&format!("/api/v1/runs/{}", r.id)),
                "board": r.board, "kernel": r.kernel, "variant": r.variant,
                "kind": r.block_kind, "label": r.label,
            })
        })
        .collect();
    let body = json!({
        "upload_id": stored.upload_id,
        "created": stored.created,
        "runs": runs,
        "format": doc.format,
        "blocks": doc.blocks,
        "warnings": doc.warnings,
    });
    Ok((status, Json(body)).into_response())
}

/// `POST /api/v1/parse`. Without a token it is limited in size
/// ([`ParseGate::anonymous_max_bytes`], as sent and decoded) and rate
/// ([`ParseGate::anonymous_per_minute`] per client address); with a valid
/// token of any scope the upload limits apply.
#[tracing::instrument(skip_all)]
pub async fn parse_upload(
    State(state): State<AppState>,
    peer: crate::auth::ClientAddr,
    req: Request,
) -> AppResult<Response> {
    let gate = state.parse_gate.clone();
    let secret = crate::web::auth::bearer(req.headers());
    let mut limits = BodyLimits {
        raw: state.limits.max_upload_bytes,
        decoded: state.limits.max_decoded_bytes,
    };
    if secret.is_some() {
        crate::auth::authenticate(&state.pool, &state.auth_failures, peer, secret.as_deref())
            .await?;
    } else {
        gate.anonymous_allowed(peer.0)?;
        limits.raw = limits.raw.min(gate.anonymous_max_bytes);
        limits.decoded = limits.decoded.min(gate.anonymous_max_bytes);
    }
    let (parts, raw) = read_body(req, limits).await?;
    let permit = gate
        .acquire(decoded_estimate(&parts.headers, &raw, limits.decoded))
        .await?;
    let cancel = Cancel::default();
    let _guard = cancel.on_drop();
    let (content, _ct, meta) =
        split_upload(UploadMeta::default(), &parts, raw, limits, &cancel).await?;
    let json = ingest::parse_to_json(content, meta.filename, permit, cancel).await?;
    Ok((
        [(header::CONTENT_TYPE, "application/json")],
        Body::from(json),
    )
        .into_response())
}

/// The size of the text a body decodes to, for the parse's memory share:
/// the body's size, or for gzip the decoded size its trailer gives (the
/// last member's, within the decoded limit).
fn decoded_estimate(headers: &HeaderMap, raw: &[u8], max_decoded: usize) -> usize {
    let gzip = headers
        .get(header::CONTENT_ENCODING)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|e| matches!(e.trim().to_ascii_lowercase().as_str(), "gzip" | "x-gzip"));
    if !gzip {
        return raw.len();
    }
    gzip_size_hint(raw)
        .max(raw.len())
        .min(max_decoded.max(raw.len()))
}

/// ISIZE of the last gzip member (RFC 1952: decoded size mod 2^32).
fn gzip_size_hint(raw: &[u8]) -> usize {
    match raw.len().checked_sub(4).and_then(|i| raw.get(i..)) {
        Some(t) => u32::from_le_bytes([t[0], t[1], t[2], t[3]]) as usize,
        None => 0,
    }
}

#[derive(Debug, Clone, Copy)]
struct BodyLimits {
    raw: usize,
    decoded: usize,
}

/// Read the body as sent, within the limit.
async fn read_body(req: Request, limits: BodyLimits) -> AppResult<(Parts, Bytes)> {
    let (parts, body) = req.into_parts();
    let raw = axum::body::to_bytes(body, limits.raw).await.map_err(|_| {
        AppError::PayloadTooLarge(format!("request body is larger than {} bytes", limits.raw))
    })?;
    Ok((parts, raw))
}

/// Undo gzip, split multipart, refuse binary content.
async fn split_upload(
    mut meta: UploadMeta,
    parts: &Parts,
    raw: Bytes,
    limits: BodyLimits,
    cancel: &Cancel,
) -> AppResult<(Bytes, Option<String>, UploadMeta)> {
    let decoded = decode(&parts.headers, raw, limits.decoded, cancel).await?;
    let content_type = parts
        .headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    if content_type
        .as_deref()
        .is_some_and(|c| c.starts_with("multipart/form-data"))
    {
        let mut headers = parts.headers.clone();
        headers.remove(header::CONTENT_ENCODING);
        let mut req = Request::new(Body::from(decoded));
        *req.headers_mut() = headers;
        let mut mp = Multipart::from_request(req, &())
            .await
            .map_err(|e| AppError::BadRequest(format!("bad multipart body: {e}")))?;
        let mut file: Option<(Bytes, Option<String>)> = None;
        while let Some(field) = mp
            .next_field()
            .await
            .map_err(|e| AppError::BadRequest(format!("bad multipart body: {e}")))?
        {
            let name = field.name().unwrap_or("").to_string();
            let fname = field.file_name().map(str::to_string);
            let ftype = field.content_type().map(str::to_string);
            let data = field
                .bytes()
                .await
                .map_err(|e| AppError::BadRequest(format!("bad multipart field '{name}': {e}")))?;
            if name == "file" || (fname.is_some() && file.is_none()) {
                if meta.filename.is_none() {
                    meta.filename = fname;
                }
                file = Some((data, ftype));
                continue;
            }
            let text = String::from_utf8(data.to_vec()).map_err(|_| {
                AppError::BadRequest(format!("multipart field '{name}' is not UTF-8"))
            })?;
            match name.as_str() {
                "board" => meta.board = Some(text),
                "kernel" => meta.kernel = Some(text),
                "variant" => meta.variant = Some(text),
                "parent" => meta.parent = Some(text),
                "message_id" => meta.message_id = Some(text),
                "tool_args" => meta.tool_args = Some(text),
                "direction" => meta.direction = Some(text),
                "variant_prefix" => meta.variant_prefix = Some(text),
                "filename" => meta.filename = Some(text),
                "unlisted" => meta.unlisted = matches!(text.trim(), "true" | "1" | "on" | "yes"),
                "blocks" => {
                    meta.blocks = serde_json::from_str(&text).map_err(|e| {
                        AppError::BadRequest(format!(
                            "multipart field 'blocks' is not valid JSON: {e}"
                        ))
                    })?
                }
                other => {
                    return Err(AppError::BadRequest(format!(
                        "unknown multipart field '{other}' (expected file, board, kernel, variant, parent, message_id, tool_args, filename, unlisted, blocks)"
                    )));
                }
            }
        }
        let (data, ftype) =
            file.ok_or_else(|| AppError::BadRequest("multipart body has no 'file' part".into()))?;
        return Ok((data, ftype, meta));
    }
    if let Some(ct) = content_type.as_deref() {
        let t = ct
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        let binary = t.starts_with("image/")
            || t.starts_with("audio/")
            || t.starts_with("video/")
            || t.starts_with("font/")
            || matches!(
                t.as_str(),
                "application/zip" | "application/gzip" | "application/pdf" | "application/x-tar"
            );
        if binary {
            return Err(AppError::UnsupportedContent(format!(
                "Content-Type {t} is not a text result; send the text as printed (text/plain)"
            )));
        }
    }
    if decoded.is_empty() {
        return Err(AppError::BadRequest(
            "empty body: send the result text".into(),
        ));
    }
    Ok((decoded, content_type, meta))
}

/// Undo `Content-Encoding`. gzip is decoded on the blocking pool, in
/// chunks (a large body takes real CPU time, which must not stall the
/// async threads; a cancelled request stops it).
async fn decode(
    headers: &HeaderMap,
    raw: Bytes,
    max_decoded: usize,
    cancel: &Cancel,
) -> AppResult<Bytes> {
    let enc = headers
        .get(header::CONTENT_ENCODING)
        .and_then(|v| v.to_str().ok())
        .map(|s| s.trim().to_ascii_lowercase());
    match enc.as_deref() {
        None | Some("identity") | Some("") => Ok(raw),
        Some("gzip") | Some("x-gzip") => {
            let cancel = cancel.clone();
            ingest::blocking(move || {
                gunzip_cancellable(&raw, max_decoded, &cancel).map(Bytes::from)
            })
            .await
        }
        Some(other) => Err(AppError::UnsupportedContent(format!(
            "Content-Encoding '{other}' is not supported (use gzip or none)"
        ))),
    }
}

/// Decode a gzip body: every member of a multi-member stream (RFC 1952
/// section 2.2, as `cat a.gz b.gz` makes), at most `max` bytes in all.
/// Bytes after the last member that are not another member are refused
/// (400), not dropped: a truncated or padded upload is not silently cut.
pub fn gunzip(raw: &[u8], max: usize) -> AppResult<Vec<u8>> {
    gunzip_chunks(raw, max, &Cancel::default(), false)
}

/// Decoded bytes are produced this many at a time; the limit, binary
/// content and cancellation are checked after each chunk.
const GUNZIP_CHUNK: usize = 256 * 1024;

/// [`gunzip`] for an upload: `cancel` is checked between chunks, and a
/// NUL byte in the decoded text ends the decode at once with 415 (binary
/// content is not a result, and need not be decoded to its end to know it).
pub fn gunzip_cancellable(raw: &[u8], max: usize, cancel: &Cancel) -> AppResult<Vec<u8>> {
    gunzip_chunks(raw, max, cancel, true)
}

fn gunzip_chunks(
    raw: &[u8],
    max: usize,
    cancel: &Cancel,
    refuse_binary: bool,
) -> AppResult<Vec<u8>> {
    let mut rest: &[u8] = raw;
    let mut out = Vec::new();
    // The last member's trailer holds its decoded size (mod 2^32): for the
    // usual single member stream, the whole output is allocated once.
    out.reserve_exact(gzip_size_hint(raw).min(max.saturating_add(1)));
    let mut members = 0usize;
    loop {
        let offset = raw.len() - rest.len();
        if members > 0 {
            if rest.is_empty() {
                return Ok(out);
            }
            if !rest.starts_with(&[0x1f, 0x8b]) {
                return Err(AppError::BadRequest(format!(
                    "body is not valid gzip: {} bytes after the end of gzip member {members} (at byte {offset}) are not another gzip member; send the gzip stream and nothing after it",
                    rest.len()
                )));
            }
        }
        let mut dec = flate2::bufread::GzDecoder::new(&mut rest);
        loop {
            cancel.check()?;
            let start = out.len();
            let budget = (max + 1).saturating_sub(start).min(GUNZIP_CHUNK);
            out.resize(start + budget, 0);
            let n = match dec.read(&mut out[start..]) {
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {
                    out.truncate(start);
                    continue;
                }
                Err(e) => {
                    return Err(AppError::BadRequest(format!(
                        "body is not valid gzip: member {} at byte {offset}: {e}",
                        members + 1
                    )));
                }
            };
            out.truncate(start + n);
            if out.len() > max {
                return Err(AppError::PayloadTooLarge(format!(
                    "decompressed body is larger than {max} bytes"
                )));
            }
            if refuse_binary && out[start..].contains(&0) {
                return Err(ingest::binary_content());
            }
            if n == 0 && budget > 0 {
                break;
            }
        }
        members += 1;
    }
}

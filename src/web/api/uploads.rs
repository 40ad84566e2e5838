//! `POST /api/v1/uploads` (token with upload scope) and `POST /api/v1/parse`
//! (no token; parses and returns the document without storing anything).
//!
//! The body is the raw result text (any content type), or
//! `multipart/form-data` with a file part and metadata fields. Metadata may
//! also come in the query string. `Content-Encoding: gzip` is accepted with
//! its own limit on the decoded size.
//!
//! A body is never held whole but a small raw one (at most
//! [`SMALL_BODY_BYTES`], as a rig posts): it is spooled as it arrives
//! (gunzipped in chunks on the blocking pool, multipart split as it
//! streams), hashed on the way, and the spool is parsed and stored
//! ([`crate::blob`]).

use std::sync::{Arc, Mutex};

use axum::Json;
use axum::body::{Body, Bytes};
use axum::extract::{Query, Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures_util::stream::BoxStream;
use futures_util::{Stream, StreamExt};

use crate::auth::{Caller, Scope};
use crate::blob::{self, Spool, SpoolSink};
use crate::error::{AppError, AppResult, ErrorBody};
use crate::ingest::{self, Cancel, Content, RawUpload, UploadMeta};
use crate::storage::ids::{RunId, UploadId};
use crate::storage::ingest::StoredRun;
use crate::storage::runs;
use crate::web::AppState;

pub use crate::blob::gunzip;

/// Metadata in the query string.
#[derive(Debug, Default, serde::Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct UploadParams {
    /// Board name.
    pub board: Option<String>,
    /// Full kernel version.
    pub kernel: Option<String>,
    /// Patch variant.
    pub variant: Option<String>,
    /// Parent variant in a chain.
    pub parent: Option<String>,
    /// lore Message-ID.
    pub message_id: Option<String>,
    /// Load recipe / command line.
    pub tool_args: Option<String>,
    /// Which way is better for this upload's metrics: higher, lower,
    /// neutral, or NAME:higher,NAME2:lower (docs/COMPARING.md).
    pub direction: Option<String>,
    /// Put in front of every variant name the document gives (labels,
    /// table columns), so one thread's before/after never merge with
    /// another's.
    pub variant_prefix: Option<String>,
    /// Label of the file.
    pub filename: Option<String>,
    /// true: reachable by link only.
    pub unlisted: Option<bool>,
}

/// A `multipart/form-data` upload: the file part and the metadata of
/// [`UploadParams`] as fields (read by [`split_multipart`]).
#[derive(utoipa::ToSchema)]
#[expect(
    dead_code,
    reason = "split_multipart reads the form field by field; this type is its schema"
)]
pub struct UploadForm {
    /// The result text.
    #[schema(value_type = String, format = Binary)]
    file: Vec<u8>,
    board: Option<String>,
    kernel: Option<String>,
    variant: Option<String>,
    parent: Option<String>,
    message_id: Option<String>,
    tool_args: Option<String>,
    /// Which way is better: higher, lower, neutral, or
    /// NAME:higher,NAME2:lower.
    direction: Option<String>,
    /// Put in front of every variant name the document gives (labels,
    /// table columns).
    variant_prefix: Option<String>,
    /// Label of the file (default: the file part's name).
    filename: Option<String>,
    /// true, 1, on or yes: reachable by link only.
    unlisted: Option<bool>,
    /// JSON array of per-block corrections.
    blocks: Option<String>,
}

/// The fields [`split_multipart`] reads: those of [`UploadForm`].
const MULTIPART_FIELDS: &[&str] = &[
    "file",
    "board",
    "kernel",
    "variant",
    "parent",
    "message_id",
    "tool_args",
    "direction",
    "variant_prefix",
    "filename",
    "unlisted",
    "blocks",
];

/// A run an upload stored.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
pub struct UploadRun {
    #[schema(value_type = i64)]
    pub id: RunId,
    /// The run's page.
    pub url: String,
    /// The run as JSON.
    pub api_url: String,
    pub board: String,
    pub kernel: String,
    pub variant: String,
    /// The run's block kind.
    pub kind: String,
    pub label: Option<String>,
}

/// What an upload stored (or, replayed, had stored).
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
#[schema(as = Upload)]
pub struct UploadResponse {
    #[schema(value_type = i64)]
    pub upload_id: UploadId,
    /// false when the same content and metadata were already stored.
    pub created: bool,
    pub runs: Vec<UploadRun>,
    /// The format the text was recognized as.
    pub format: String,
    /// Result blocks in the document.
    pub blocks: usize,
    #[schema(schema_with = crate::web::api::doc::warnings)]
    pub warnings: Vec<reclaimlab_formats::Warning>,
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

/// Upload a result (raw text, or multipart).
///
/// 201 created, 200 replay of the live upload with the same key; after a
/// delete the same content is stored again (201).
#[utoipa::path(
    post,
    path = "/api/v1/uploads",
    params(UploadParams),
    request_body(content(
        (String = "text/plain"),
        (UploadForm = "multipart/form-data"),
    )),
    security(("bearer" = [])),
    responses(
        (status = 201, description = "Stored", body = UploadResponse),
        (status = 200, description = "Same content and metadata already stored; same ids", body = UploadResponse),
        (status = 400, response = ErrorBody),
        (status = 401, response = ErrorBody),
        (status = 403, response = ErrorBody),
        (status = 409, response = ErrorBody),
        (status = 413, response = ErrorBody),
        (status = 415, response = ErrorBody),
        (status = 422, response = ErrorBody),
        (status = 429, response = ErrorBody),
    )
)]
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
    let cancel = Cancel::default();
    let _guard = cancel.on_drop();
    let (content, content_type, meta) = receive(params.into_meta(), req, limits, &cancel).await?;
    // The permit covers the parse and the store. A body is spooled, or
    // small and in memory: the permit counts those bytes.
    let permit = state.parse_gate.acquire(content.held_bytes()).await?;
    let (stored, doc) = ingest::ingest_known(
        &state.pool,
        &state.catalogue,
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
    // A new upload knows its runs' names; a replay reads them back.
    let summaries = if stored.created {
        stored.runs
    } else {
        runs::summaries(&state.pool, &stored.run_ids)
            .await?
            .into_iter()
            .map(|r| StoredRun {
                id: r.id,
                board: r.board,
                kernel: r.kernel,
                variant: r.variant,
                block_kind: r.block_kind,
                label: r.label,
            })
            .collect()
    };
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
    let runs = summaries
        .into_iter()
        .map(|r| UploadRun {
            url: state.url(&format!("/runs/{}", r.id)),
            api_url: state.url(&format!("/api/v1/runs/{}", r.id)),
            id: r.id,
            board: r.board,
            kernel: r.kernel,
            variant: r.variant,
            kind: r.block_kind,
            label: r.label,
        })
        .collect();
    let body = UploadResponse {
        upload_id: stored.upload_id,
        created: stored.created,
        runs,
        format: doc.format,
        blocks: doc.blocks,
        warnings: doc.warnings,
    };
    Ok((status, Json(body)).into_response())
}

/// `POST /api/v1/parse`. Without a token it is limited in size
/// ([`ParseGate::anonymous_max_bytes`], as sent and decoded) and rate
/// ([`ParseGate::anonymous_per_minute`] per client address); with a valid
/// token of any scope the upload limits apply.
#[utoipa::path(
    post,
    path = "/api/v1/parse",
    summary = "Parse without storing: the parse document (docs/FORMATS.md).",
    request_body(content(
        (String = "text/plain"),
        (UploadForm = "multipart/form-data"),
    )),
    responses(
        (status = 200, description = "The parse document (docs/FORMATS.md)", body = inline(crate::web::api::doc::ParseDocument)),
        (status = 400, response = ErrorBody),
        (status = 401, response = ErrorBody),
        (status = 413, response = ErrorBody),
        (status = 415, response = ErrorBody),
        (status = 422, response = ErrorBody),
        (status = 429, response = ErrorBody),
    )
)]
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
    let cancel = Cancel::default();
    let _guard = cancel.on_drop();
    let (content, _ct, meta) = receive(UploadMeta::default(), req, limits, &cancel).await?;
    let permit = gate.acquire(content.held_bytes()).await?;
    let json = ingest::parse_to_json(content, meta.filename, permit, cancel).await?;
    Ok((
        [(header::CONTENT_TYPE, "application/json")],
        Body::from(json),
    )
        .into_response())
}

#[derive(Debug, Clone, Copy)]
struct BodyLimits {
    raw: usize,
    decoded: usize,
}

fn too_large(limit: usize) -> AppError {
    AppError::PayloadTooLarge(format!("request body is larger than {limit} bytes"))
}

/// Largest metadata field of a multipart body.
const MAX_FIELD_BYTES: usize = 1024 * 1024;

/// Receive a body into a spool as it arrives: undo gzip, split multipart,
/// refuse binary content, within the limits. Nothing of it is held whole;
/// on any error the spool is dropped (it has no name on disk).
async fn receive(
    meta: UploadMeta,
    req: Request,
    limits: BodyLimits,
    cancel: &Cancel,
) -> AppResult<(Content, Option<String>, UploadMeta)> {
    let (parts, body) = req.into_parts();
    let gzip = is_gzip(&parts.headers)?;
    let content_type = parts
        .headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let multipart = content_type
        .as_deref()
        .is_some_and(|c| c.starts_with("multipart/form-data"));
    if !multipart && let Some(ct) = content_type.as_deref() {
        refuse_binary_type(ct)?;
    }
    let declared = parts
        .headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if declared.is_some_and(|n| n > limits.raw as u64) {
        return Err(too_large(limits.raw));
    }
    let raw = raw_stream(body, limits.raw);
    let decoded: BoxStream<'static, Result<Bytes, AppError>> = if gzip {
        blob::gunzip_stream(raw, limits.decoded, cancel).boxed()
    } else {
        raw.boxed()
    };
    if multipart {
        let ct = content_type.unwrap_or_default();
        let (spool, content_type, meta) = split_multipart(meta, &ct, decoded, cancel).await?;
        return Ok((spool.into(), content_type, meta));
    }
    let content: Content = match declared {
        // A small body (a rig's result) is kept in memory: a temporary file
        // would cost more system calls than the rest of its upload.
        Some(n) if !gzip && n <= SMALL_BODY_BYTES => {
            Content::Bytes(collect_small(decoded, n as usize).await?)
        }
        _ => blob::spool_stream(decoded, cancel).await?.into(),
    };
    if content.is_empty() {
        return Err(AppError::BadRequest(
            "empty body: send the result text".into(),
        ));
    }
    Ok((content, content_type, meta))
}

/// Raw bodies declared at most this long are received in memory; longer
/// ones, gzip and multipart are spooled ([`blob::spool_stream`]).
pub const SMALL_BODY_BYTES: u64 = blob::INSERT_AT_MOST;

/// The whole body of `declared` bytes, refused as the spool would refuse
/// it: binary content (a NUL byte) is not a text result.
async fn collect_small(
    mut chunks: BoxStream<'static, Result<Bytes, AppError>>,
    declared: usize,
) -> AppResult<Bytes> {
    let mut buf = bytes::BytesMut::with_capacity(declared);
    while let Some(chunk) = chunks.next().await {
        let chunk = chunk?;
        if chunk.contains(&0) {
            return Err(ingest::binary_content());
        }
        if buf.len() + chunk.len() > declared {
            return Err(AppError::BadRequest(format!(
                "the body is longer than its Content-Length ({declared} bytes)"
            )));
        }
        buf.extend_from_slice(&chunk);
    }
    Ok(buf.freeze())
}

/// True for `Content-Encoding: gzip`, false for none; 415 for others.
fn is_gzip(headers: &HeaderMap) -> AppResult<bool> {
    let enc = headers
        .get(header::CONTENT_ENCODING)
        .and_then(|v| v.to_str().ok())
        .map(|s| s.trim().to_ascii_lowercase());
    match enc.as_deref() {
        None | Some("identity") | Some("") => Ok(false),
        Some("gzip") | Some("x-gzip") => Ok(true),
        Some(other) => Err(AppError::UnsupportedContent(format!(
            "Content-Encoding '{other}' is not supported (use gzip or none)"
        ))),
    }
}

fn refuse_binary_type(ct: &str) -> AppResult<()> {
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
    Ok(())
}

/// The body's chunks as they arrive, at most `limit` bytes in all.
fn raw_stream(
    body: Body,
    limit: usize,
) -> impl Stream<Item = Result<Bytes, AppError>> + Send + Unpin + 'static {
    let mut seen = 0usize;
    body.into_data_stream().map(move |chunk| {
        let chunk = chunk
            .map_err(|e| AppError::BadRequest(format!("cannot read the request body: {e}")))?;
        seen = seen.saturating_add(chunk.len());
        if seen > limit {
            return Err(too_large(limit));
        }
        Ok(chunk)
    })
}

/// Split a `multipart/form-data` stream: the file part is spooled as it
/// streams, metadata fields are read (each at most [`MAX_FIELD_BYTES`]).
async fn split_multipart(
    mut meta: UploadMeta,
    content_type: &str,
    decoded: BoxStream<'static, Result<Bytes, AppError>>,
    cancel: &Cancel,
) -> AppResult<(Spool, Option<String>, UploadMeta)> {
    let boundary = multer::parse_boundary(content_type)
        .map_err(|e| AppError::BadRequest(format!("bad multipart body: {e}")))?;
    // An error of the stream itself (a limit, bad gzip) is the answer, not
    // the parser's rewording of it.
    let upstream: Arc<Mutex<Option<AppError>>> = Arc::default();
    let slot = upstream.clone();
    let stream = decoded.map(move |item| {
        item.map_err(|e| {
            let msg = e.to_string();
            if let Ok(mut s) = slot.lock() {
                *s = Some(e);
            }
            std::io::Error::other(msg)
        })
    });
    let bad = |what: String, e: multer::Error| {
        upstream
            .lock()
            .ok()
            .and_then(|mut s| s.take())
            .unwrap_or_else(|| AppError::BadRequest(format!("{what}: {e}")))
    };
    let mut mp = multer::Multipart::new(stream, boundary);
    let mut file: Option<(Spool, Option<String>)> = None;
    while let Some(mut field) = mp
        .next_field()
        .await
        .map_err(|e| bad("bad multipart body".into(), e))?
    {
        let name = field.name().unwrap_or("").to_string();
        let fname = field.file_name().map(str::to_string);
        let ftype = field.content_type().map(|m| m.to_string());
        if name == "file" || (fname.is_some() && file.is_none()) {
            if file.is_some() {
                return Err(AppError::BadRequest(
                    "multipart body has more than one file part".into(),
                ));
            }
            let mut sink = SpoolSink::start(cancel);
            while let Some(chunk) = field
                .chunk()
                .await
                .map_err(|e| bad(format!("bad multipart field '{name}'"), e))?
            {
                sink.push(chunk).await?;
            }
            let spool = sink.finish().await?;
            if meta.filename.is_none() {
                meta.filename = fname;
            }
            file = Some((spool, ftype));
            continue;
        }
        let mut data = Vec::new();
        while let Some(chunk) = field
            .chunk()
            .await
            .map_err(|e| bad(format!("bad multipart field '{name}'"), e))?
        {
            data.extend_from_slice(&chunk);
            if data.len() > MAX_FIELD_BYTES {
                return Err(AppError::PayloadTooLarge(format!(
                    "multipart field '{name}' is larger than {MAX_FIELD_BYTES} bytes"
                )));
            }
        }
        let text = String::from_utf8(data)
            .map_err(|_| AppError::BadRequest(format!("multipart field '{name}' is not UTF-8")))?;
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
                    AppError::BadRequest(format!("multipart field 'blocks' is not valid JSON: {e}"))
                })?
            }
            other => {
                return Err(AppError::BadRequest(format!(
                    "unknown multipart field '{other}' (expected {})",
                    MULTIPART_FIELDS.join(", ")
                )));
            }
        }
    }
    let (spool, ftype) =
        file.ok_or_else(|| AppError::BadRequest("multipart body has no 'file' part".into()))?;
    Ok((spool, ftype, meta))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The documented multipart form is the one read.
    #[test]
    fn the_form_schema_names_the_fields_read() {
        let schema = serde_json::to_value(<UploadForm as utoipa::PartialSchema>::schema()).unwrap();
        let mut documented: Vec<&str> = schema["properties"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        let mut read = MULTIPART_FIELDS.to_vec();
        documented.sort_unstable();
        read.sort_unstable();
        assert_eq!(documented, read);
    }
}

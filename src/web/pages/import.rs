//! `/import`: paste a whole mail or thread, see the result blocks the
//! formats crate found (with guessed labels, boards and kernels), correct
//! them, and store the runs plus a comparison permalink in one step.
//!
//! The upload token travels in the form body, not a header: these are
//! plain HTML forms that work without JavaScript. The token also makes the
//! form immune to cross-site posting (a forger does not know it), and it is
//! never put in a URL or a log line.

use std::collections::BTreeMap;

use askama::Template;
use askama_web::WebTemplate;
use axum::extract::State;
use axum::response::{IntoResponse, Redirect, Response};
use reclaimlab_formats::{BlockBody, Document};

use super::PageError;
use crate::compare::{ColumnSpec, CompareRequest};
use crate::error::AppError;
use crate::ingest::{self, BlockOverride, RawUpload, UploadMeta};
use crate::storage::ids::RunId;
use crate::web::AppState;
use crate::web::auth::SignedForm;
use crate::web::extract::page::Form;
use crate::web::numbers::fmt_us;

const MAX_MAIL_BYTES: usize = 8 * 1024 * 1024;

#[derive(Template, WebTemplate)]
#[template(path = "pages/import.html")]
pub struct ImportPage {
    pub error: Option<String>,
    pub mail: String,
}

#[tracing::instrument(skip_all)]
pub async fn show_import() -> ImportPage {
    ImportPage {
        error: None,
        mail: String::new(),
    }
}

pub struct BlockView {
    pub index: usize,
    pub kind: String,
    pub lines: String,
    pub summary: String,
    pub label: String,
    pub board: String,
    pub kernel: String,
    /// Input lines the board and the kernel were guessed from (none when
    /// the block names them itself).
    pub board_line: Option<u64>,
    pub kernel_line: Option<u64>,
    pub quote: u32,
    pub duplicate_of: Option<usize>,
    /// Whether the form skips the block unless the user keeps it: copies,
    /// and quoted blocks when the paste has unquoted ones of its own (a
    /// reply that only quotes results keeps them: they are all there is).
    pub skip: bool,
    /// The message of the thread the block is in: `patch 2/4`, or its
    /// subject and sender.
    pub message: String,
}

#[derive(Template, WebTemplate)]
#[template(path = "pages/import_preview.html")]
pub struct PreviewPage {
    pub mail: String,
    /// Prefix of the variant names of this thread (from its subject).
    pub prefix: String,
    pub subject: String,
    pub message_id: String,
    pub blocks: Vec<BlockView>,
    pub warnings: Vec<String>,
    pub board: String,
    pub kernel: String,
}

fn summary(body: &BlockBody) -> String {
    match body {
        BlockBody::Cyclictest(c) => {
            let max = c.threads.iter().map(|t| t.max_us).fold(f64::NAN, f64::max);
            format!(
                "cyclictest, {} threads, worst Max {} us{}",
                c.threads.len(),
                if max.is_nan() {
                    "-".into()
                } else {
                    fmt_us(max)
                },
                if c.histogram.is_some() {
                    ", with histogram"
                } else {
                    ""
                }
            )
        }
        BlockBody::FtraceLatency(t) => format!(
            "{} latency {} us{}",
            t.tracer,
            fmt_us(t.latency_us),
            t.culprit
                .as_ref()
                .map(|c| format!(", culprit {c}"))
                .unwrap_or_default()
        ),
        BlockBody::Rtla(r) => format!("rtla {} {}, {} CPUs", r.tool, r.mode, r.per_cpu.len()),
        BlockBody::Table(t) => format!(
            "{} table{}: {} columns ({}), {} rows",
            t.style,
            t.title
                .as_ref()
                .map(|x| format!(" \"{x}\""))
                .unwrap_or_default(),
            t.columns.len(),
            t.columns.join(", "),
            t.rows.len()
        ),
        BlockBody::Time(t) => format!(
            "time: real {}{}{}",
            t.real_s
                .map(|r| format!("{r} s"))
                .unwrap_or_else(|| "not printed".into()),
            t.user_s
                .map(|u| format!(", user {u} s"))
                .unwrap_or_default(),
            t.sys_s.map(|s| format!(", sys {s} s")).unwrap_or_default()
        ),
        BlockBody::Metrics(m) => format!("{} metrics: {}", m.tool, m.metrics.len()),
        BlockBody::Counters(c) => format!(
            "{} counters: {}{}",
            c.source,
            c.counters.len(),
            if c.columns.len() >= 2 {
                format!(" in columns {}", c.columns.join(", "))
            } else {
                String::new()
            }
        ),
        BlockBody::LockContention(l) => {
            let top = l
                .rows
                .iter()
                .max_by(|a, b| a.total_wait_us.total_cmp(&b.total_wait_us));
            format!(
                "{} by {}: {} rows{}",
                l.tool,
                l.key,
                l.rows.len(),
                top.map(|r| format!(
                    ", most waited {} us ({})",
                    fmt_us(r.total_wait_us),
                    r.caller
                        .clone()
                        .or_else(|| r.lock.clone())
                        .or_else(|| r.task.clone())
                        .unwrap_or_default()
                ))
                .unwrap_or_default()
            )
        }
        BlockBody::Distribution(d) => format!(
            "{} {} histogram{}: {} buckets, {} events",
            d.tool,
            d.name,
            d.key
                .as_ref()
                .map(|k| format!(" [{k}]"))
                .unwrap_or_default(),
            d.buckets.len(),
            d.buckets.iter().map(|b| b.count).sum::<u64>()
        ),
        BlockBody::Profile(p) => format!(
            "{}: {} rows{}",
            p.tool,
            p.rows.len(),
            p.rows
                .first()
                .map(|r| { format!(", top {} {}%", r.key(), r.overhead_pct) })
                .unwrap_or_default()
        ),
    }
}

/// A thread's variant-name prefix: its subject without `Re:` / `[PATCH
/// ...]`, as a short slug (`mm-vmscan-limit-isolate_lru_folios-irq/`), else
/// its Message-ID's local part, else `pasted/`.
pub fn thread_prefix(ctx: &reclaimlab_formats::MailContext) -> String {
    let mut subject = ctx.subject.clone().unwrap_or_default();
    loop {
        let t = subject.trim_start();
        let lower = t.to_ascii_lowercase();
        if let Some(rest) = ["re:", "fwd:", "fw:"]
            .iter()
            .find_map(|p| lower.starts_with(p).then(|| t[p.len()..].to_string()))
        {
            subject = rest;
        } else if t.starts_with('[') {
            subject = t.split_once(']').map_or(String::new(), |x| x.1.to_string());
        } else {
            subject = t.to_string();
            break;
        }
    }
    let mut slug = String::new();
    for ch in subject.chars() {
        if ch.is_ascii_alphanumeric() || ch == '_' {
            slug.push(ch.to_ascii_lowercase());
        } else if !slug.ends_with('-') && !slug.is_empty() {
            slug.push('-');
        }
        if slug.len() > 40 {
            break;
        }
    }
    // At most 40 characters, cut between words (`...-in-rmqueue_bulk`
    // loses whole words, never half of one).
    if slug.len() > 40 {
        let cut = slug[..=40].rfind('-').filter(|&i| i >= 16).unwrap_or(40);
        slug.truncate(cut);
    }
    let slug = slug.trim_matches('-').to_string();
    if !slug.is_empty() {
        return format!("{slug}/");
    }
    if let Some(m) = ctx.message_id.as_deref().and_then(|m| m.split('@').next()) {
        let m: String = m
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || *c == '.' || *c == '-')
            .take(40)
            .collect();
        if !m.is_empty() {
            return format!("{m}/");
        }
    }
    "pasted/".to_string()
}

fn preview(doc: &Document, mail: String, f: &BTreeMap<String, String>) -> PreviewPage {
    let ctx = doc.context.clone().unwrap_or_default();
    let has_own = doc
        .blocks
        .iter()
        .any(|b| b.duplicate_of.is_none() && b.quote_level.unwrap_or(0) == 0);
    PreviewPage {
        mail,
        prefix: f
            .get("variant_prefix")
            .cloned()
            .unwrap_or_else(|| thread_prefix(&ctx)),
        subject: ctx.subject.clone().unwrap_or_default(),
        message_id: ctx.message_id.clone().unwrap_or_default(),
        blocks: doc
            .blocks
            .iter()
            .enumerate()
            .map(|(i, b)| BlockView {
                index: i,
                kind: b.kind().to_string(),
                lines: format!("{}–{}", b.lines[0], b.lines[1]),
                summary: summary(&b.body),
                label: b.label.clone().unwrap_or_default(),
                board: b
                    .board
                    .as_deref()
                    .map(crate::boards::canonical)
                    .unwrap_or_default(),
                kernel: b.kernel.clone().unwrap_or_default(),
                board_line: b.board_line.filter(|_| b.board.is_some()),
                kernel_line: b.kernel_line.filter(|_| b.kernel.is_some()),
                quote: b.quote_level.unwrap_or(0),
                duplicate_of: b.duplicate_of,
                skip: b.duplicate_of.is_some() || (has_own && b.quote_level.unwrap_or(0) > 0),
                message: b
                    .message
                    .and_then(|m| ctx.messages.get(m))
                    .map(|m| {
                        let subject = m.subject.as_deref().unwrap_or_default();
                        let mut s = match ingest::patch_number(subject) {
                            Some(n) => format!("patch {n}"),
                            None => subject.chars().take(60).collect(),
                        };
                        // The sender's name, not the address.
                        let name = m.from.as_deref().map(|f| {
                            let n = f.split('<').next().unwrap_or_default().trim();
                            n.trim_matches('"').to_string()
                        });
                        if let Some(n) = name.filter(|n| !n.is_empty()) {
                            s.push_str(&format!(", from {n}"));
                        }
                        s
                    })
                    .unwrap_or_default(),
            })
            .collect(),
        warnings: doc
            .warnings
            .iter()
            .map(|w| match w.line {
                Some(l) => format!("line {l}: {}", w.message),
                None => w.message.clone(),
            })
            .collect(),
        board: f
            .get("board")
            .map(|b| crate::boards::canonical(b))
            .unwrap_or_default(),
        kernel: f.get("kernel").cloned().unwrap_or_default(),
    }
}

#[tracing::instrument(skip_all)]
pub async fn preview_import(
    State(state): State<AppState>,
    Form(form): Form,
) -> Result<Response, PageError> {
    if form.raw.len() > MAX_MAIL_BYTES * 3 {
        return Err(
            AppError::PayloadTooLarge(format!("a mail of at most {MAX_MAIL_BYTES} bytes")).into(),
        );
    }
    let f = form.map;
    let mail = f.get("mail").cloned().unwrap_or_default();
    if mail.trim().is_empty() {
        return Ok(ImportPage {
            error: Some("paste a mail or a thread first".into()),
            mail,
        }
        .into_response());
    }
    match ingest::parse_blocking(&state.parse_gate, mail.clone().into_bytes().into(), None).await {
        Ok(doc) => Ok(preview(&doc, mail, &f).into_response()),
        Err(e @ (AppError::UnsupportedContent(_) | AppError::Unprocessable { .. })) => Ok((
            e.status(),
            ImportPage {
                error: Some(e.public_message()),
                mail,
            },
        )
            .into_response()),
        Err(e) => Err(e.into()),
    }
}

#[tracing::instrument(skip_all)]
pub async fn commit_import(
    State(state): State<AppState>,
    SignedForm {
        caller,
        fields: form,
    }: SignedForm,
) -> Result<Response, PageError> {
    let f = form.map;
    let token = caller.token;
    let mail = f.get("mail").cloned().unwrap_or_default();
    let get = |k: String| {
        f.get(&k)
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
    };
    let mut blocks = Vec::new();
    for i in 0..1000usize {
        if !f.contains_key(&format!("b{i}_kind")) {
            continue;
        }
        blocks.push(BlockOverride {
            index: i,
            board: get(format!("b{i}_board")).map(|b| crate::boards::canonical(&b)),
            kernel: get(format!("b{i}_kernel")),
            variant: get(format!("b{i}_variant")),
            label: get(format!("b{i}_variant")),
            skip: f.contains_key(&format!("b{i}_skip")),
        });
    }
    let meta = UploadMeta {
        board: get("board".into()).map(|b| crate::boards::canonical(&b)),
        kernel: get("kernel".into()),
        message_id: get("message_id".into()),
        variant_prefix: get("variant_prefix".into()),
        filename: Some("pasted-mail.txt".into()),
        blocks,
        ..UploadMeta::default()
    };
    let (stored, _doc) = ingest::ingest(
        &state.pool,
        &state.parse_gate,
        RawUpload {
            content: mail.into_bytes().into(),
            content_type: Some("message/rfc822".into()),
            meta: meta.clone(),
            idempotency_key: None,
            token_id: Some(token.id),
        },
    )
    .await?;
    // One column per named variant, in order of appearance. Runs no
    // variant was named for (the trace that motivated a patch, say) stand
    // beside the comparison rather than in a column of their own, which
    // would compare them with the baseline on a guess; unless nothing was
    // named at all.
    let runs = crate::storage::runs::summaries(&state.pool, &stored.run_ids).await?;
    let unnamed = |variant: &str| variant.rsplit('/').next() == Some(ingest::UNKNOWN);
    let any_named = runs.iter().any(|r| !unnamed(&r.variant));
    // Runs of different kernels are never pooled: a variant that ran on
    // several kernels gets a column per kernel (an unnamed one is called
    // by its kernel alone).
    let compared: Vec<&crate::storage::runs::RunSummary> = runs
        .iter()
        .filter(|r| !(any_named && unnamed(&r.variant)))
        .collect();
    let several_kernels = |variant: &str| {
        let mut k = compared
            .iter()
            .filter(|r| r.variant == variant)
            .map(|r| r.kernel.as_str());
        let first = k.next();
        k.any(|x| Some(x) != first)
    };
    let mut columns: Vec<ColumnSpec> = Vec::new();
    let mut context: Vec<RunId> = Vec::new();
    for r in &runs {
        if any_named && unnamed(&r.variant) {
            context.push(r.id);
            continue;
        }
        let label = match (several_kernels(&r.variant), unnamed(&r.variant)) {
            (false, _) => r.variant.clone(),
            (true, true) => r.kernel.clone(),
            (true, false) => format!("{} on {}", r.variant, r.kernel),
        };
        match columns
            .iter_mut()
            .find(|c| c.label.as_deref() == Some(label.as_str()))
        {
            Some(c) => c.runs.push(r.id),
            None => columns.push(ColumnSpec {
                label: Some(label),
                runs: vec![r.id],
                ..ColumnSpec::default()
            }),
        }
    }
    let req = CompareRequest {
        title: get("title".into()),
        columns: columns
            .into_iter()
            .take(crate::compare::MAX_COLUMNS)
            .collect(),
        baseline: 0,
        chain_previous: Some(false),
        context: context
            .into_iter()
            .take(crate::compare::MAX_CONTEXT_RUNS)
            .collect(),
    };
    // The same thread imported again (the upload already stored) with the
    // same choices: its permalink is the one made the first time.
    if !stored.created {
        let spec = serde_json::to_value(&req).map_err(|e| AppError::Internal(e.into()))?;
        if let Some(slug) = crate::storage::snapshots::find_same(&state.pool, &spec).await? {
            return Ok(Redirect::to(&format!("/c/{slug}")).into_response());
        }
    }
    let slug =
        crate::web::permalink_html::freeze(&state, req, Some(token.id), meta.message_id.as_deref())
            .await?;
    Ok(Redirect::to(&format!("/c/{slug}")).into_response())
}

//! Ingest planning: turns a parsed [`Document`] plus the uploader's metadata
//! into the runs to store. No SQL here (see `storage::ingest`), no IO.
//!
//! Mapping rules (also in docs/ARCHITECTURE.md):
//! - one run per result block; quoted duplicates (`duplicate_of`) are skipped;
//! - a table whose columns are kernels/variants (mmtests, LKP, duration, and
//!   plain tables with variant-like headers) gives one run per column, and the
//!   column's variant gets the previous column's variant as chain parent;
//! - board/kernel/variant: per-block override > upload metadata > hints the
//!   parser found near the block > "unknown" (column kernels/variants win for
//!   tables, since they are printed in the table itself).

use reclaimlab_formats::{Block, BlockBody, CyclictestThread, Document, FtraceLatency, Histogram};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::error::AppError;

pub const UNKNOWN: &str = "unknown";
const MAX_NAME_LEN: usize = 200;

/// Metadata a client sends with an upload (query string, multipart fields
/// or JSON). Serialized canonically (field order fixed) for the idempotency key.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UploadMeta {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub board: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    /// Parent variant of `variant` in a chain.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// lore Message-ID of the patch series / thread.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_args: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filename: Option<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unlisted: bool,
    /// Corrections per block (mail import page).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub blocks: Vec<BlockOverride>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BlockOverride {
    pub index: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub board: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub skip: bool,
}

impl UploadMeta {
    /// Trim fields, turn empty strings into None, and check names.
    pub fn normalize(mut self) -> Result<Self, AppError> {
        fn clean(field: &str, v: &mut Option<String>) -> Result<(), AppError> {
            if let Some(s) = v.as_mut() {
                let t = s.trim();
                if t.is_empty() {
                    *v = None;
                    return Ok(());
                }
                if t.len() > MAX_NAME_LEN || t.chars().any(|c| c.is_control()) {
                    return Err(AppError::BadRequest(format!(
                        "metadata field '{field}' must be printable text of at most {MAX_NAME_LEN} bytes"
                    )));
                }
                *s = t.to_string();
            }
            Ok(())
        }
        clean("board", &mut self.board)?;
        clean("kernel", &mut self.kernel)?;
        clean("variant", &mut self.variant)?;
        clean("parent", &mut self.parent)?;
        clean("filename", &mut self.filename)?;
        if let Some(m) = self.message_id.as_mut() {
            *m = m
                .trim()
                .trim_start_matches('<')
                .trim_end_matches('>')
                .to_string();
        }
        clean("message_id", &mut self.message_id)?;
        if let Some(t) = self.tool_args.as_mut() {
            *t = t.trim().to_string();
            if t.len() > 4096 {
                return Err(AppError::BadRequest(
                    "metadata field 'tool_args' is longer than 4096 bytes".into(),
                ));
            }
        }
        for b in &mut self.blocks {
            clean("blocks[].board", &mut b.board)?;
            clean("blocks[].kernel", &mut b.kernel)?;
            clean("blocks[].variant", &mut b.variant)?;
            clean("blocks[].label", &mut b.label)?;
        }
        if self.parent.is_some() && self.parent == self.variant {
            return Err(AppError::BadRequest(
                "metadata 'parent' must differ from 'variant'".into(),
            ));
        }
        Ok(self)
    }

    pub fn canonical_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// sha256 over the content hash and the canonical metadata.
pub fn fingerprint(content_sha: &[u8], meta: &UploadMeta) -> Vec<u8> {
    let mut h = Sha256::new();
    h.update(content_sha);
    h.update(b"\0");
    h.update(meta.canonical_json().as_bytes());
    h.finalize().to_vec()
}

pub fn sha256(bytes: &[u8]) -> Vec<u8> {
    Sha256::digest(bytes).to_vec()
}

/// One metric value of a run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MetricRow {
    pub name: String,
    pub stat: Option<String>,
    pub value: f64,
    pub unit: Option<String>,
    pub printed_delta_pct: Option<f64>,
    pub spread_pct: Option<f64>,
}

/// A run about to be stored.
#[derive(Debug, Clone)]
pub struct RunSpec {
    pub block_index: usize,
    pub column_index: usize,
    pub board: String,
    pub kernel: String,
    pub variant: String,
    pub parent: Option<String>,
    /// The parent was guessed (table column order, simulator variant
    /// order), not named by the client: dropped rather than refused when it
    /// would make the chain a cycle.
    pub parent_inferred: bool,
    pub label: Option<String>,
    pub block_kind: &'static str,
    pub lines: [u64; 2],
    pub block: serde_json::Value,
    pub threads: Vec<CyclictestThread>,
    pub histogram: Option<Histogram>,
    pub trace: Option<FtraceLatency>,
    pub metrics: Vec<MetricRow>,
}

impl RunSpec {
    /// The worst latency the run shows: its largest thread Max or its
    /// latency-tracer report, whichever is larger.
    pub fn worst_us(&self) -> Option<f64> {
        let threads = self
            .threads
            .iter()
            .map(|t| t.max_us)
            .filter(|v| v.is_finite());
        let trace = self
            .trace
            .iter()
            .map(|t| t.latency_us)
            .filter(|v| v.is_finite());
        threads.chain(trace).reduce(f64::max)
    }
}

/// Column headers of plain tables that are not a variant of their own.
fn is_derived_column(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    matches!(
        n.as_str(),
        "delta" | "diff" | "change" | "%change" | "%" | "ratio" | "gain" | "speedup"
    ) || n.starts_with("%stddev")
}

pub fn plan_runs(doc: &Document, meta: &UploadMeta) -> Result<Vec<RunSpec>, AppError> {
    let mut specs = Vec::new();
    for (index, block) in doc.blocks.iter().enumerate() {
        if block.duplicate_of.is_some() {
            continue;
        }
        let ov = meta.blocks.iter().find(|b| b.index == index);
        if ov.is_some_and(|o| o.skip) {
            continue;
        }
        let pick = |o: Option<&String>, m: &Option<String>, hint: &Option<String>| {
            o.cloned()
                .or_else(|| m.clone())
                .or_else(|| hint.clone())
                .unwrap_or_else(|| UNKNOWN.to_string())
        };
        let board = pick(ov.and_then(|o| o.board.as_ref()), &meta.board, &block.board);
        let kernel = pick(
            ov.and_then(|o| o.kernel.as_ref()),
            &meta.kernel,
            &block.kernel,
        );
        let label = ov
            .and_then(|o| o.label.clone())
            .or_else(|| block.label.clone());
        let variant = pick(ov.and_then(|o| o.variant.as_ref()), &meta.variant, &label);
        let block_json = serde_json::to_value(block)
            .map_err(|e| AppError::Internal(anyhow::anyhow!("serialize block: {e}")))?;
        let base = RunSpec {
            block_index: index,
            column_index: 0,
            board,
            kernel,
            variant,
            parent: meta.parent.clone(),
            parent_inferred: false,
            label,
            block_kind: block.kind(),
            lines: block.lines,
            block: block_json,
            threads: Vec::new(),
            histogram: None,
            trace: None,
            metrics: Vec::new(),
        };
        plan_block(
            block,
            base,
            ov.and_then(|o| o.variant.as_ref())
                .or(meta.variant.as_ref()),
            &mut specs,
        );
    }
    if specs.is_empty() {
        return Err(AppError::Unprocessable {
            message: "the document holds no result block to store (all skipped or duplicates)"
                .into(),
            line: None,
        });
    }
    Ok(specs)
}

fn plan_block(
    block: &Block,
    mut base: RunSpec,
    forced_variant: Option<&String>,
    out: &mut Vec<RunSpec>,
) {
    match &block.body {
        BlockBody::Cyclictest(c) => {
            base.threads = c.threads.clone();
            base.histogram = c.histogram.clone();
            out.push(base);
        }
        BlockBody::FtraceLatency(t) => {
            if let Some(k) = t.kernel.as_ref().filter(|_| base.kernel == UNKNOWN) {
                base.kernel = k.clone();
            }
            base.trace = Some(t.clone());
            out.push(base);
        }
        BlockBody::Rtla(r) => {
            for c in &r.per_cpu {
                let mut push = |what: &str, v: Option<f64>| {
                    if let Some(value) = v {
                        base.metrics.push(metric(
                            format!("cpu{}.{}", c.cpu, what),
                            None,
                            value,
                            Some("us"),
                        ));
                    }
                };
                push("irq_max_us", c.irq_max_us);
                push("irq_avg_us", c.irq_avg_us);
                push("thread_max_us", c.thread_max_us);
                push("thread_avg_us", c.thread_avg_us);
                for (name, v) in &c.fields {
                    base.metrics
                        .push(metric(format!("cpu{}.{}", c.cpu, name), None, *v, None));
                }
            }
            out.push(base);
        }
        BlockBody::Time(t) => {
            base.metrics
                .push(metric("real".into(), None, t.real_s, Some("s")));
            if let Some(u) = t.user_s {
                base.metrics.push(metric("user".into(), None, u, Some("s")));
            }
            if let Some(s) = t.sys_s {
                base.metrics.push(metric("sys".into(), None, s, Some("s")));
            }
            for (name, v) in &t.fields {
                base.metrics.push(metric(name.clone(), None, *v, None));
            }
            out.push(base);
        }
        BlockBody::Metrics(m) => {
            for x in &m.metrics {
                base.metrics
                    .push(metric(x.name.clone(), None, x.value, x.unit.as_deref()));
            }
            out.push(base);
        }
        BlockBody::Table(t) => plan_table(t, base, forced_variant, out),
    }
}

fn metric(name: String, stat: Option<String>, value: f64, unit: Option<&str>) -> MetricRow {
    MetricRow {
        name,
        stat,
        value,
        unit: unit.map(str::to_string),
        printed_delta_pct: None,
        spread_pct: None,
    }
}

fn plan_table(
    t: &reclaimlab_formats::Table,
    base: RunSpec,
    forced_variant: Option<&String>,
    out: &mut Vec<RunSpec>,
) {
    let ncols = t.rows.iter().map(|r| r.values.len()).max().unwrap_or(0);
    // Column names aligned with `values`: plain tables may name the key
    // column too (e.g. "size pristine patched delta").
    let offset = t.columns.len().saturating_sub(ncols);
    let names: Vec<String> = (0..ncols)
        .map(|c| {
            t.columns
                .get(c + offset)
                .cloned()
                .unwrap_or_else(|| format!("column {}", c + 1))
        })
        .collect();
    let per_column = ncols > 1 && forced_variant.is_none();
    if !per_column {
        let mut run = base;
        for row in &t.rows {
            for (c, v) in row.values.iter().enumerate() {
                if let Some(value) = v {
                    let name = if ncols > 1 {
                        format!("{} [{}]", row.metric, names[c])
                    } else {
                        row.metric.clone()
                    };
                    run.metrics.push(table_metric(t, row, c, name, *value));
                }
            }
        }
        out.push(run);
        return;
    }
    let mut prev_variant: Option<String> = None;
    for (c, name) in names.iter().enumerate() {
        if t.style == "plain" && is_derived_column(name) {
            continue;
        }
        let mut run = base.clone();
        run.column_index = c;
        if let Some(v) = t.column_variants.get(c).filter(|v| !v.is_empty()) {
            run.variant = v.clone();
        } else {
            run.variant = name.clone();
        }
        if let Some(k) = t.column_kernels.get(c).filter(|k| !k.is_empty()) {
            run.kernel = k.clone();
        }
        run.parent = prev_variant.clone().filter(|p| *p != run.variant);
        run.parent_inferred = true;
        prev_variant = Some(run.variant.clone());
        for row in &t.rows {
            if let Some(Some(value)) = row.values.get(c) {
                run.metrics
                    .push(table_metric(t, row, c, row.metric.clone(), *value));
            }
        }
        out.push(run);
    }
}

fn table_metric(
    t: &reclaimlab_formats::Table,
    row: &reclaimlab_formats::TableRow,
    c: usize,
    name: String,
    value: f64,
) -> MetricRow {
    MetricRow {
        name,
        stat: row.stat.clone(),
        value,
        unit: row.unit.clone().or_else(|| t.unit.clone()),
        printed_delta_pct: row.printed_deltas_pct.get(c).copied().flatten(),
        spread_pct: row.spread_pct.get(c).copied().flatten(),
    }
}

/// An upload as received: decoded bytes plus metadata.
pub struct RawUpload {
    pub content: bytes::Bytes,
    pub content_type: Option<String>,
    pub meta: UploadMeta,
    pub idempotency_key: Option<String>,
    pub token_id: Option<i64>,
}

/// Parse an input off the async runtime (big traces are CPU-heavy).
pub async fn parse_blocking(
    content: bytes::Bytes,
    name: Option<String>,
) -> Result<Document, AppError> {
    if content.contains(&0) {
        return Err(AppError::UnsupportedContent(
            "binary content (NUL bytes) is not a text result; send the text as printed".into(),
        ));
    }
    let span = tracing::Span::current();
    tokio::task::spawn_blocking(move || {
        let _g = span.enter();
        reclaimlab_formats::parse(&content, name.as_deref())
    })
    .await
    .map_err(|e| AppError::Internal(anyhow::anyhow!("parser task failed: {e}")))?
    .map_err(AppError::from)
}

/// The whole ingest: parse, plan runs, store in one transaction.
pub async fn ingest(
    pool: &sqlx::PgPool,
    up: RawUpload,
) -> Result<(crate::storage::ingest::StoredUpload, Document), AppError> {
    let meta = up.meta.normalize()?;
    let content_sha = sha256(&up.content);
    let fp = fingerprint(&content_sha, &meta);
    let key = up
        .idempotency_key
        .clone()
        .unwrap_or_else(|| hex::encode(&fp));
    if key.is_empty() || key.len() > 200 {
        return Err(AppError::BadRequest(
            "Idempotency-Key must be 1 to 200 characters".into(),
        ));
    }
    let doc = parse_blocking(up.content.clone(), meta.filename.clone()).await?;
    let runs = plan_runs(&doc, &meta)?;
    let document = serde_json::to_value(&doc)
        .map_err(|e| AppError::Internal(anyhow::anyhow!("serialize document: {e}")))?;
    let message_id = meta
        .message_id
        .clone()
        .or_else(|| doc.context.as_ref().and_then(|c| c.message_id.clone()));
    let subject = doc.context.as_ref().and_then(|c| c.subject.clone());
    let stored = crate::storage::ingest::store(
        pool,
        crate::storage::ingest::NewUpload {
            content: &up.content,
            content_sha: &content_sha,
            fingerprint: &fp,
            idempotency_key: &key,
            content_type: up.content_type.as_deref(),
            meta: &meta,
            token_id: up.token_id,
            parser_version: &doc.source.parser_version,
            document: &document,
            message_id: message_id.as_deref(),
            subject: subject.as_deref(),
            runs: &runs,
            kind: "measured",
        },
    )
    .await?;
    Ok((stored, doc))
}

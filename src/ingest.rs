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
use reclaimlab_report::compare::DeltaConvention;
use reclaimlab_report::direction;
use reclaimlab_report::model::Metric;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

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
    /// Which way is better for this upload's metrics: `higher`, `lower`,
    /// `neutral`, or `NAME:higher,NAME2:lower`. Wins over the direction
    /// table and over an mmtests table's printed gain.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direction: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filename: Option<String>,
    /// Put in front of every variant name the document gives (labels,
    /// table columns), so that one thread's "before" / "vanilla" never
    /// merge with another's: `mm-vmscan-limit-isolate/` + `before`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant_prefix: Option<String>,
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
        clean("variant_prefix", &mut self.variant_prefix)?;
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
        if let Some(d) = self.direction.as_mut() {
            *d = d.trim().to_string();
            if d.is_empty() {
                self.direction = None;
            } else if d.len() > 4096 {
                return Err(AppError::BadRequest(
                    "metadata field 'direction' is longer than 4096 bytes".into(),
                ));
            } else {
                direction::parse_overrides(d).map_err(|e| {
                    AppError::BadRequest(format!("metadata field 'direction': {e}"))
                })?;
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

/// The table or test a run's metrics belong to (their identity scope).
#[derive(Debug, Clone, PartialEq)]
pub enum Scope {
    /// One printed table: scoped to its upload and block, known once the
    /// upload is stored.
    Table,
    /// A tool whose runs are repeated measurements of one test (`time` of
    /// a command, `stress-ng`, `perf-stat`, ...).
    Tool(String),
}

impl Scope {
    pub fn resolve(&self, upload_id: i64, block_index: usize) -> String {
        match self {
            Scope::Table => format!("upload {upload_id} block {block_index}"),
            Scope::Tool(t) => t.clone(),
        }
    }
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
    pub metrics: Vec<Metric>,
    /// `perf lock contention` rows, for the run page's lock table.
    pub locks: Vec<reclaimlab_formats::LockRow>,
    pub scope: Scope,
    /// What a reader calls the table or test (title, tool, message).
    pub section: String,
}

impl RunSpec {
    /// The worst latency the run shows and its kind: a cyclictest run's
    /// largest thread maximum (summary lines, histogram footers and the
    /// highest bucket all count), or a tracer report's latency named by
    /// its tracer. A run is one block, so one kind.
    pub fn worst(&self) -> Option<(f64, String)> {
        if let Some(t) = self.trace.as_ref().filter(|t| t.latency_us.is_finite()) {
            return Some((t.latency_us, t.tracer.clone()));
        }
        // Only cyclictest's latency is cyclictest latency: a bpftrace or
        // BCC distribution stored as a histogram is not.
        if self.block_kind != "cyclictest" {
            return None;
        }
        let threads = self.threads.iter().map(|t| t.max_us);
        let hist = self.histogram.iter().flat_map(|h| {
            h.per_thread.iter().flat_map(|p| {
                p.max_us
                    .into_iter()
                    .chain(p.buckets.iter().filter(|b| b.1 > 0).map(|b| b.0))
            })
        });
        threads
            .chain(hist)
            .filter(|v| v.is_finite())
            .reduce(f64::max)
            .map(|w| (w, "cyclictest".to_string()))
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
    let digests: Vec<Option<TraceDigest>> = doc
        .blocks
        .iter()
        .map(|b| match &b.body {
            BlockBody::FtraceLatency(t) => Some(trace_digest(t)),
            _ => None,
        })
        .collect();
    plan_runs_digested(doc, meta, &digests)
}

/// [`plan_runs`] with the trace digests of [`compact_traces`] (taken before
/// the events were cut down).
pub fn plan_runs_digested(
    doc: &Document,
    meta: &UploadMeta,
    digests: &[Option<TraceDigest>],
) -> Result<Vec<RunSpec>, AppError> {
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
        let mut block_json = serde_json::to_value(block)
            .map_err(|e| AppError::Internal(anyhow::anyhow!("serialize block: {e}")))?;
        if let Some(Some(d)) = digests.get(index) {
            block_json[DIGEST_KEY] = serde_json::to_value(d)
                .map_err(|e| AppError::Internal(anyhow::anyhow!("serialize digest: {e}")))?;
        }
        let size = json_size(&block_json);
        if size > MAX_BLOCK_JSON_BYTES {
            return Err(AppError::PayloadTooLarge(format!(
                "block {index} ({} at lines {}-{}) is {size} bytes of JSON once parsed; at most {MAX_BLOCK_JSON_BYTES} bytes are stored per block",
                block.kind(),
                block.lines[0],
                block.lines[1]
            )));
        }
        let (scope, section) = scope_of(doc, block);
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
            locks: Vec::new(),
            scope,
            section,
        };
        plan_block(
            block,
            base,
            ov.and_then(|o| o.variant.as_ref())
                .or(meta.variant.as_ref()),
            &mut specs,
        );
    }
    if let Some(prefix) = meta
        .variant_prefix
        .as_deref()
        .filter(|_| meta.variant.is_none())
    {
        let named = |v: &str| {
            if v.starts_with(prefix) {
                v.to_string()
            } else {
                format!("{prefix}{v}")
            }
        };
        for spec in &mut specs {
            spec.variant = named(&spec.variant);
            spec.parent = spec.parent.as_deref().map(named);
        }
    }
    if let Some(d) = &meta.direction {
        let (all, per) = direction::parse_overrides(d).map_err(AppError::BadRequest)?;
        for spec in &mut specs {
            for m in &mut spec.metrics {
                let named = per.iter().find(|(n, _)| *n == m.name).map(|(_, b)| *b);
                if let Some(b) = named.or(all) {
                    m.direction = Some(b);
                    m.direction_source = Some("upload".into());
                }
            }
        }
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
            if let Some(r) = t.real_s {
                base.metrics.push(metric("real".into(), None, r, Some("s")));
            }
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
                let mut row = metric(x.name.clone(), None, x.value, x.unit.as_deref());
                row.spread_pct = x.spread_pct;
                base.metrics.push(row);
            }
            out.push(base);
        }
        BlockBody::Table(t) => plan_table(t, base, forced_variant, out),
        BlockBody::Counters(c) => plan_counters(c, base, forced_variant, out),
        BlockBody::LockContention(l) => {
            // Comparable metrics per lock key, and the typed rows for the
            // run page's table.
            let mut seen: std::collections::BTreeMap<String, usize> = Default::default();
            for r in &l.rows {
                // Two rows may print the same key (two locks taken from one
                // caller): each keeps its own identity.
                let mut key = lock_key(r);
                let n = seen.entry(key.clone()).or_default();
                *n += 1;
                if *n > 1 {
                    key = format!("{key} #{n}");
                }
                let mut push = |what: &str, v: Option<f64>, unit: Option<&str>| {
                    if let Some(v) = v {
                        base.metrics
                            .push(metric(format!("{what} [{key}]"), None, v, unit));
                    }
                };
                push("contended", Some(r.contended as f64), None);
                push("total_wait", Some(r.total_wait_us), Some("us"));
                push("max_wait", r.max_wait_us, Some("us"));
                push("avg_wait", r.avg_wait_us, Some("us"));
            }
            base.locks = l.rows.clone();
            out.push(base);
        }
        BlockBody::Distribution(d) => {
            // A whole distribution: stored as a histogram (bucket lower
            // bounds in us for time units), summarised as percentiles.
            let factor = us_factor(d.unit.as_deref());
            let scale = factor.unwrap_or(1.0);
            let buckets: Vec<(f64, u64)> = d
                .buckets
                .iter()
                .filter(|b| b.count > 0)
                .map(|b| (b.low.or(b.high).unwrap_or(0.0) * scale, b.count))
                .collect();
            let unit = if factor.is_some() {
                Some("us".to_string())
            } else {
                d.unit.clone()
            };
            // Percentiles of a log2 histogram are known only to their
            // bucket: each is stored as the upper bound of the bucket that
            // holds it ("p99 <= 16384 us"), never as its lower bound, which
            // would understate it by up to 2x. An open-ended top bucket has
            // no upper bound: that percentile is not stored.
            let uppers: Vec<(Option<f64>, u64)> = d
                .buckets
                .iter()
                .filter(|b| b.count > 0)
                .map(|b| {
                    let hi = b.high.map(|h| if d.high_inclusive { h + 1.0 } else { h });
                    (hi.map(|h| h * scale), b.count)
                })
                .collect();
            let total: u64 = uppers.iter().map(|u| u.1).sum();
            let at = |q: f64| -> Option<f64> {
                let rank = ((total as f64) * q).ceil().max(1.0) as u64;
                let mut seen = 0;
                for (hi, c) in &uppers {
                    seen += c;
                    if seen >= rank {
                        return *hi;
                    }
                }
                None
            };
            if total > 0 {
                for (name, q) in [
                    ("p50 <=", 0.5),
                    ("p99 <=", 0.99),
                    ("p99.9 <=", 0.999),
                    ("max <=", 1.0),
                ] {
                    if let Some(v) = at(q) {
                        base.metrics
                            .push(metric(name.into(), None, v, unit.as_deref()));
                    }
                }
                base.metrics
                    .push(metric("count".into(), None, total as f64, None));
            }
            if let (Some(avg), Some(f)) = (d.avg, us_factor(d.summary_unit.as_deref())) {
                base.metrics
                    .push(metric("avg".into(), None, avg * f, Some("us")));
            }
            base.histogram = Some(Histogram {
                bucket_us: 0.0,
                per_thread: vec![reclaimlab_formats::HistogramThread {
                    thread: 0,
                    buckets,
                    ..Default::default()
                }],
            });
            out.push(base);
        }
        BlockBody::Profile(p) => {
            for r in p.rows.iter().take(MAX_PROFILE_ROWS) {
                let name = r.name();
                base.metrics
                    .push(metric(name, None, r.overhead_pct, Some("%")));
            }
            out.push(base);
        }
    }
}

/// Rows of a profile kept as metrics: the top of the profile is what a
/// comparison reads ("native_queued_spin_lock_slowpath 31% -> 4%").
const MAX_PROFILE_ROWS: usize = 50;

/// Kernel counters: one run for a dump, one run per column for a table of
/// two or more columns (each column a variant, as for printed tables).
fn plan_counters(
    c: &reclaimlab_formats::Counters,
    base: RunSpec,
    forced_variant: Option<&String>,
    out: &mut Vec<RunSpec>,
) {
    let counter_metric = |x: &reclaimlab_formats::Counter, col: usize| -> Option<Metric> {
        let value = x.values.get(col).copied().flatten()?;
        let mut m = metric(x.name.clone(), None, value, x.unit.as_deref());
        m.printed_delta_pct = x.printed_delta_pct.get(col).copied().flatten();
        m.spread_pct = x.spread_pct.get(col).copied().flatten();
        m.delta_convention = m.printed_delta_pct.map(|_| DeltaConvention::Change);
        Some(m)
    };
    if c.columns.len() < 2 {
        let mut run = base;
        for x in &c.counters {
            for col in 0..x.values.len().max(1) {
                if let Some(mut m) = counter_metric(x, col) {
                    if x.values.len() > 1 {
                        let label = c.columns.get(col).filter(|s| !s.is_empty());
                        m.name = match label {
                            Some(l) => format!("{} [{l}]", x.name),
                            None => format!("{} [column {}]", x.name, col + 1),
                        };
                    }
                    run.metrics.push(m);
                }
            }
        }
        out.push(run);
        return;
    }
    let mut prev_variant: Option<String> = None;
    for (col, name) in c.columns.iter().enumerate() {
        let mut run = base.clone();
        run.column_index = col;
        let own = if name.is_empty() {
            format!("column {}", col + 1)
        } else {
            name.clone()
        };
        run.variant = column_variant(forced_variant, &own);
        run.parent = prev_variant.clone().filter(|p| *p != run.variant);
        prev_variant = Some(run.variant.clone());
        run.metrics = c
            .counters
            .iter()
            .filter_map(|x| counter_metric(x, col))
            .collect();
        out.push(run);
    }
}

/// The variant of one column of a table: the column's own name, under the
/// variant the upload names when it names one (`{variant}/{column}`).
fn column_variant(forced: Option<&String>, own: &str) -> String {
    match forced {
        Some(f) => format!("{f}/{own}"),
        None => own.to_string(),
    }
}

fn metric(name: String, stat: Option<String>, value: f64, unit: Option<&str>) -> Metric {
    Metric {
        name,
        stat,
        value,
        unit: unit.map(str::to_string),
        printed_delta_pct: None,
        spread_pct: None,
        direction: None,
        direction_source: None,
        delta_convention: None,
    }
}

/// `2/4` from a subject tagged `[PATCH 2/4]`, `[RFC PATCH v3 02/13]` or
/// `Re: [PATCH 2/4]`: how a list reader names the message.
pub fn patch_number(subject: &str) -> Option<String> {
    let mut rest = subject;
    while let Some(open) = rest.find('[') {
        let after = &rest[open + 1..];
        let close = after.find(']')?;
        let tag = &after[..close];
        if tag.to_ascii_uppercase().contains("PATCH") {
            for word in tag.split_whitespace() {
                if let Some((a, b)) = word.split_once('/') {
                    let num = |x: &str| !x.is_empty() && x.bytes().all(|c| c.is_ascii_digit());
                    if num(a) && num(b) {
                        let a = a.trim_start_matches('0');
                        return Some(format!("{}/{b}", if a.is_empty() { "0" } else { a }));
                    }
                }
            }
        }
        rest = &after[close..];
    }
    None
}

/// The identity scope of a block's metrics and what a reader calls it.
///
/// A printed table is its own scope (two tables never pool, even with the
/// same metric names: seed 004's xfs_io on spinning storage and on a
/// ramdisk); repeated measurements of one tool share the tool's scope, so
/// runs uploaded one by one compare with each other. A labelled block
/// printed under a heading (`numa01:` above `mm-unstable: 146.88 s`) is a
/// measurement of what the heading names: `perf-stat: numa01`, never
/// pooled with `perf-stat: numa02`; headings that differ only in a
/// repetition number (`run 1:`, `run 2:`) keep one scope.
fn scope_of(doc: &Document, block: &Block) -> (Scope, String) {
    let (scope, section) = tool_scope_of(doc, block);
    let heading = block
        .heading
        .as_deref()
        .and_then(reclaimlab_formats::hints::heading_identity);
    match (scope, heading) {
        (Scope::Tool(s), Some(h)) => (Scope::Tool(format!("{s}: {h}")), format!("{section}: {h}")),
        (scope, _) => (scope, section),
    }
}

/// [`scope_of`] by the block's tool alone.
fn tool_scope_of(doc: &Document, block: &Block) -> (Scope, String) {
    let message = block
        .message
        .and_then(|m| doc.context.as_ref()?.messages.get(m))
        .and_then(|m| m.subject.clone());
    let posted = |s: String| match &message {
        Some(subj) => match patch_number(subj) {
            Some(n) => format!("{s} (patch {n})"),
            None => {
                let subj: String = subj.chars().take(60).collect();
                format!("{s}, in \"{subj}\"")
            }
        },
        None => s,
    };
    match &block.body {
        BlockBody::Table(t) => {
            // Its title, else the heading it is printed under (`[quiet]`).
            let name = t
                .title
                .clone()
                .or_else(|| block.heading.clone())
                .unwrap_or_else(|| {
                    format!(
                        "{} table at lines {}-{}",
                        t.style, block.lines[0], block.lines[1]
                    )
                });
            (Scope::Table, posted(name))
        }
        BlockBody::Time(t) => match &t.command {
            Some(c) => (Scope::Tool(format!("time: {c}")), format!("time: {c}")),
            None => (Scope::Tool("time".into()), "time".into()),
        },
        BlockBody::Metrics(m) => (Scope::Tool(m.tool.clone()), m.tool.clone()),
        BlockBody::Rtla(r) => {
            let s = format!("rtla {} {}", r.tool, r.mode);
            (Scope::Tool(s.clone()), s)
        }
        BlockBody::Cyclictest(_) => (Scope::Tool("cyclictest".into()), "cyclictest".into()),
        BlockBody::FtraceLatency(t) => (Scope::Tool(t.tracer.clone()), t.tracer.clone()),
        // A dump of counters (a vmstat delta a rig takes after each run) is
        // a repeated measurement of its source; a hand-made table of them
        // is its own scope, like any printed table.
        BlockBody::Counters(c) if c.columns.len() >= 2 => (
            Scope::Table,
            posted(format!(
                "{} counters at lines {}-{}",
                c.source, block.lines[0], block.lines[1]
            )),
        ),
        BlockBody::Counters(c) => (Scope::Tool(c.source.clone()), c.source.clone()),
        BlockBody::LockContention(l) => {
            let s = format!("{} contention by {}", l.tool, l.key);
            (Scope::Tool(s.clone()), s)
        }
        BlockBody::Distribution(d) => {
            let s = match &d.key {
                Some(k) => format!("{} {} [{k}]", d.tool, d.name),
                None => format!("{} {}", d.tool, d.name),
            };
            (Scope::Tool(s.clone()), s)
        }
        BlockBody::Profile(p) => {
            let s = match &p.event {
                Some(e) => format!("{} {e}", p.tool),
                None => p.tool.clone(),
            };
            (Scope::Tool(s.clone()), s)
        }
    }
}

/// The key a `perf lock contention` row is printed under.
fn lock_key(r: &reclaimlab_formats::LockRow) -> String {
    // A lock's address changes from boot to boot: with its symbol printed,
    // the symbol alone names it.
    let address = if r.lock.is_some() { &None } else { &r.address };
    let mut parts: Vec<String> = Vec::new();
    for v in [&r.lock, &r.caller, address, &r.cgroup]
        .into_iter()
        .flatten()
    {
        parts.push(v.clone());
    }
    if let Some(t) = &r.task {
        parts.push(match r.pid {
            Some(p) => format!("{t}-{p}"),
            None => t.clone(),
        });
    }
    if parts.is_empty() {
        parts.push(r.lock_type.clone().unwrap_or_else(|| "lock".into()));
    }
    parts.join(" ")
}

/// A time-like unit as microseconds: the factor, or `None` for other units
/// (the formats crate's table of time units).
fn us_factor(unit: Option<&str>) -> Option<f64> {
    reclaimlab_formats::units::time_unit_pow10(unit?).map(|p| 10f64.powi(p + 6))
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
    // A column without a name is called by its place; two columns of one
    // name stay two (a run each), told apart by their place.
    let mut names: Vec<String> = (0..ncols)
        .map(|c| {
            t.columns
                .get(c + offset)
                .map(|n| n.trim().to_string())
                .filter(|n| !n.is_empty())
                .unwrap_or_else(|| format!("column {}", c + 1))
        })
        .collect();
    let repeated: Vec<bool> = names
        .iter()
        .map(|n| names.iter().filter(|m| *m == n).count() > 1)
        .collect();
    for (c, name) in names.iter_mut().enumerate() {
        if repeated[c] {
            *name = format!("{name} (column {})", c + 1);
        }
    }
    // A row printed twice under one name (a table pasted with a line
    // repeated, or two runs of one test) stays two rows: `name #2`.
    let mut seen: std::collections::HashMap<(&str, Option<&str>), usize> =
        std::collections::HashMap::new();
    let row_names: Vec<String> = t
        .rows
        .iter()
        .map(|row| {
            let n = seen
                .entry((row.metric.as_str(), row.stat.as_deref()))
                .or_insert(0);
            *n += 1;
            if *n == 1 {
                row.metric.clone()
            } else {
                format!("{} #{n}", row.metric)
            }
        })
        .collect();
    // will-it-scale's columns are its measurements (processes, threads,
    // their idle share, the linear ideal), not variants: one run, a metric
    // per column and tasks count.
    let measurement_columns = t.style == "will-it-scale";
    // A table of several result columns is a run per column even when the
    // upload names a variant: the columns are the sides of a comparison,
    // named `{variant}/{column}`, never metrics of one run.
    let per_column = ncols > 1 && !measurement_columns;
    if measurement_columns {
        let mut run = base;
        for row in &t.rows {
            for (c, v) in row.values.iter().enumerate() {
                if let Some(value) = v {
                    let name = format!("{} [{}]", names[c], row.metric);
                    run.metrics.push(table_metric(t, row, c, name, *value));
                }
            }
        }
        out.push(run);
        return;
    }
    if !per_column {
        let mut run = base;
        for (row, row_name) in t.rows.iter().zip(&row_names) {
            for (c, v) in row.values.iter().enumerate() {
                if let Some(value) = v {
                    run.metrics
                        .push(table_metric(t, row, c, row_name.clone(), *value));
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
        let own = t
            .column_variants
            .get(c)
            .filter(|v| !v.is_empty())
            .unwrap_or(name);
        run.variant = column_variant(forced_variant, own);
        if let Some(k) = t.column_kernels.get(c).filter(|k| !k.is_empty()) {
            run.kernel = k.clone();
        } else if t.style == "lkp"
            && run.kernel == UNKNOWN
            && let Some(k) = reclaimlab_formats::hints::kernel_of_token(name)
        {
            // LKP's base column is often a release tag (`v6.18-rc3`).
            run.kernel = k;
        }
        run.parent = prev_variant.clone().filter(|p| *p != run.variant);
        run.parent_inferred = true;
        prev_variant = Some(run.variant.clone());
        for (row, row_name) in t.rows.iter().zip(&row_names) {
            if let Some(Some(value)) = row.values.get(c) {
                run.metrics
                    .push(table_metric(t, row, c, row_name.clone(), *value));
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
) -> Metric {
    let printed_delta_pct = row.printed_deltas_pct.get(c).copied().flatten();
    let gain = matches!(t.style.as_str(), "mmtests" | "duration");
    // mmtests prints each column's gain over the first with the test's own
    // sign: that tells the direction of the whole row.
    let direction = gain
        .then(|| {
            let first = row.values.first().copied().flatten()?;
            row.values
                .iter()
                .zip(&row.printed_deltas_pct)
                .skip(1)
                .find_map(|(v, d)| direction::from_printed_gain(first, (*v)?, (*d)?))
        })
        .flatten();
    Metric {
        name,
        stat: row.stat.clone(),
        value,
        unit: row.unit.clone().or_else(|| t.unit.clone()),
        printed_delta_pct,
        // A `stddev` column's absolute spread is kept as the share of the
        // value it is, as LKP's `± N%` is.
        spread_pct: row.spread_pct.get(c).copied().flatten().or_else(|| {
            let sd = row.spread.get(c).copied().flatten()?;
            (value != 0.0).then(|| 100.0 * sd / value.abs())
        }),
        direction,
        direction_source: direction.map(|_| "printed".to_string()),
        delta_convention: printed_delta_pct.map(|_| {
            if gain {
                DeltaConvention::Gain
            } else {
                DeltaConvention::Change
            }
        }),
    }
}

/// An upload as received: decoded content plus metadata.
pub struct RawUpload {
    pub content: Content,
    pub content_type: Option<String>,
    pub meta: UploadMeta,
    pub idempotency_key: Option<String>,
    pub token_id: Option<i64>,
}

/// Decoded input: bytes in memory (a pasted mail, a demo file), or a
/// request body spooled to a temporary file as it arrived
/// ([`crate::blob::Spool`]). Both are parsed by the same streaming parser.
pub enum Content {
    Bytes(bytes::Bytes),
    Spool(crate::blob::Spool),
}

impl Content {
    pub fn len(&self) -> u64 {
        match self {
            Content::Bytes(b) => b.len() as u64,
            Content::Spool(s) => s.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes of the input held in memory while it is parsed and stored.
    pub fn held_bytes(&self) -> usize {
        match self {
            Content::Bytes(b) => b.len(),
            Content::Spool(_) => 0,
        }
    }

    fn blob(&self) -> crate::blob::Blob<'_> {
        match self {
            Content::Bytes(b) => crate::blob::Blob::Bytes(b),
            Content::Spool(s) => crate::blob::Blob::Spool(s),
        }
    }

    fn sha256(&self) -> Vec<u8> {
        match self {
            Content::Bytes(b) => sha256(b),
            Content::Spool(s) => s.sha256().to_vec(),
        }
    }
}

impl From<bytes::Bytes> for Content {
    fn from(b: bytes::Bytes) -> Self {
        Content::Bytes(b)
    }
}

impl From<Vec<u8>> for Content {
    fn from(b: Vec<u8>) -> Self {
        Content::Bytes(b.into())
    }
}

impl From<crate::blob::Spool> for Content {
    fn from(s: crate::blob::Spool) -> Self {
        Content::Spool(s)
    }
}

/// The most JSON stored for one block (`runs.block`), far below
/// PostgreSQL's jsonb limits (255 MiB per container, 1 GiB per value).
pub const MAX_BLOCK_JSON_BYTES: usize = 16 * 1024 * 1024;
/// The most JSON stored for an upload's outline (`uploads.document`).
pub const MAX_OUTLINE_JSON_BYTES: usize = 16 * 1024 * 1024;
/// A trace with at most this many events keeps them all.
pub const KEEP_ALL_EVENTS: usize = 4096;
/// Events a cut-down trace keeps from its start and from its end.
const KEEP_EDGE_EVENTS: usize = 32;
/// Longest gaps a digest keeps, and the events around each.
pub const DIGEST_GAPS: usize = 16;
pub const DIGEST_WINDOW: usize = 32;
/// Distinct functions a digest counts; the rest are summed as one.
const DIGEST_FUNCTIONS: usize = 10_000;
/// `<stack trace>` blocks a trace keeps (the last ones).
const KEEP_STACKS: usize = 64;
/// Key of the digest in a stored trace block.
pub const DIGEST_KEY: &str = "digest";

/// What the run page shows of a function trace, however long: the longest
/// gaps between consecutive events with the events around each, and the
/// time per function. Computed from every event before the trace is cut
/// down to [`KEEP_ALL_EVENTS`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TraceDigest {
    /// Events the report printed.
    pub events_total: u64,
    /// Events kept in the stored block (`events`).
    pub events_kept: u64,
    /// Longest first.
    pub gaps: Vec<TraceGap>,
    /// Most time first.
    pub functions: Vec<FunctionTotal>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TraceGap {
    /// Index of the event the gap follows (0-based, in the report's order).
    pub event: u64,
    pub time_us: f64,
    pub gap_us: f64,
    /// Function (or event text) of the event the gap follows.
    pub function: String,
    /// Index of the window's first event.
    pub window_start: u64,
    pub window: Vec<reclaimlab_formats::TraceEvent>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FunctionTotal {
    pub name: String,
    pub count: u64,
    /// Time until the next event, summed.
    pub time_us: f64,
}

fn event_name(e: &reclaimlab_formats::TraceEvent) -> String {
    if let Some(f) = &e.function {
        return f.clone();
    }
    let t = e.text.trim();
    let end = t
        .find(|c: char| c == ':' || c == '(' || c.is_whitespace())
        .unwrap_or(t.len());
    let mut name: String = t[..end].chars().take(80).collect();
    if name.is_empty() {
        name = "(event)".into();
    }
    name
}

/// The digest of a trace. The parser keeps the longest gaps and the time
/// per function of every event it read (its block holds only the first
/// events of a long trace), so those are taken as they are; a block without
/// them (stored before the parser kept them, or built by hand) is digested
/// from its events.
pub fn trace_digest(t: &FtraceLatency) -> TraceDigest {
    if t.gaps.is_empty() && t.functions.is_empty() {
        return digest_of_events(t);
    }
    let gaps = t
        .gaps
        .iter()
        .map(|g| {
            let pos = g
                .events
                .iter()
                .position(|e| g.line != 0 && e.line == Some(g.line))
                .unwrap_or_else(|| (DIGEST_WINDOW / 2 - 1).min(g.events.len().saturating_sub(1)));
            let event = g.event.saturating_sub(1);
            TraceGap {
                event,
                time_us: g.events.get(pos).map_or(f64::NAN, |e| e.time_us),
                gap_us: g.gap_us,
                function: g
                    .function
                    .clone()
                    .or_else(|| g.events.get(pos).map(event_name))
                    .unwrap_or_else(|| "(event)".into()),
                window_start: event.saturating_sub(pos as u64),
                window: g.events.clone(),
            }
        })
        .collect();
    let mut functions: Vec<FunctionTotal> = t
        .functions
        .iter()
        .map(|f| FunctionTotal {
            name: f.function.clone(),
            count: f.count,
            time_us: f.self_us,
        })
        .collect();
    if let Some(o) = &t.functions_other {
        functions.push(FunctionTotal {
            name: "(other functions)".into(),
            count: o.count + o.untracked_events,
            time_us: o.self_us,
        });
    }
    TraceDigest {
        events_total: t
            .events_total
            .unwrap_or(t.events.len() as u64)
            .max(t.events.len() as u64),
        events_kept: t.events.len() as u64,
        gaps,
        functions,
    }
}

/// The digest of a trace from its events: one pass, bounded state.
fn digest_of_events(t: &FtraceLatency) -> TraceDigest {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    let ev = &t.events;
    // (gap as ordered bits, index): the DIGEST_GAPS largest in a min-heap.
    let mut top: BinaryHeap<Reverse<(u64, usize)>> = BinaryHeap::new();
    let mut funcs: HashMap<String, (u64, f64)> = HashMap::new();
    let other = "(other functions)".to_string();
    for (i, e) in ev.iter().enumerate() {
        let gap = ev
            .get(i + 1)
            .map(|n| n.time_us - e.time_us)
            .filter(|g| g.is_finite() && *g >= 0.0)
            .unwrap_or(0.0);
        let name = event_name(e);
        let slot = if funcs.len() < DIGEST_FUNCTIONS || funcs.contains_key(&name) {
            funcs.entry(name).or_default()
        } else {
            funcs.entry(other.clone()).or_default()
        };
        slot.0 += 1;
        slot.1 += gap;
        if i + 1 < ev.len() {
            let key = (gap.to_bits(), i);
            if top.len() < DIGEST_GAPS {
                top.push(Reverse(key));
            } else if top.peek().is_some_and(|Reverse(m)| key.0 > m.0) {
                top.pop();
                top.push(Reverse(key));
            }
        }
    }
    let mut picked: Vec<(u64, usize)> = top.into_iter().map(|Reverse(k)| k).collect();
    picked.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let gaps = picked
        .into_iter()
        .map(|(bits, i)| {
            let start = i.saturating_sub(DIGEST_WINDOW / 2 - 1);
            let end = (start + DIGEST_WINDOW).min(ev.len());
            TraceGap {
                event: i as u64,
                time_us: ev[i].time_us,
                gap_us: f64::from_bits(bits),
                function: event_name(&ev[i]),
                window_start: start as u64,
                window: ev[start..end].to_vec(),
            }
        })
        .collect();
    let mut functions: Vec<FunctionTotal> = funcs
        .into_iter()
        .map(|(name, (count, time_us))| FunctionTotal {
            name,
            count,
            time_us,
        })
        .collect();
    functions.sort_by(|a, b| {
        b.time_us
            .total_cmp(&a.time_us)
            .then(b.count.cmp(&a.count))
            .then(a.name.cmp(&b.name))
    });
    TraceDigest {
        events_total: t
            .events_total
            .unwrap_or(ev.len() as u64)
            .max(ev.len() as u64),
        events_kept: ev.len() as u64,
        gaps,
        functions,
    }
}

/// Digest every trace of `doc`, then cut long traces down (their first and
/// last events, the last stacks): what a stored block keeps is bounded. The
/// raw text stays in the blob store.
pub fn compact_traces(doc: &mut Document) -> Vec<Option<TraceDigest>> {
    doc.blocks
        .iter_mut()
        .map(|b| match &mut b.body {
            BlockBody::FtraceLatency(t) => {
                let mut d = trace_digest(t);
                let n = t.events.len();
                if n > KEEP_ALL_EVENTS {
                    t.events_total = Some(d.events_total);
                    t.events.drain(KEEP_EDGE_EVENTS..n - KEEP_EDGE_EVENTS);
                    t.events.shrink_to_fit();
                    d.events_kept = t.events.len() as u64;
                }
                if t.stacks.len() > KEEP_STACKS {
                    let cut = t.stacks.len() - KEEP_STACKS;
                    t.stacks.drain(..cut);
                }
                Some(d)
            }
            _ => None,
        })
        .collect()
}

/// Bytes of `v` serialized as JSON, without building the string.
pub fn json_size(v: &serde_json::Value) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0 += b.len();
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut c = Count(0);
    let _ = serde_json::to_writer(&mut c, v);
    c.0
}

/// The number of parses (and ingests) a process runs at once, with a
/// bounded queue in front: beyond it a request is answered 503 with
/// `Retry-After`, so memory and CPU stay bounded by design
/// (docs/RELIABILITY.md). One gate per service, in `AppState`.
#[derive(Debug)]
pub struct ParseGate {
    sem: Arc<tokio::sync::Semaphore>,
    permits: usize,
    /// Requests allowed to wait for a permit.
    max_waiting: usize,
    waiting: AtomicUsize,
    /// How long a request waits for a permit before its 503.
    wait: Duration,
    /// Memory the parses in flight may take, in MiB: each takes
    /// [`ParseGate::parse_mib`] plus [`ParseGate::memory_factor`] times the
    /// input it holds in memory (at least 1, at most all), so inputs held
    /// whole run one after the other while streamed ones share the budget.
    mem: Arc<tokio::sync::Semaphore>,
    memory_mib: u32,
    /// Peak memory of one streaming parse and store, whatever the input's
    /// size (measured on the release build: docs/PERFORMANCE.md).
    pub parse_mib: u32,
    /// Memory per byte of input held in memory (the input and the copy the
    /// database driver makes of it).
    pub memory_factor: f64,
    /// Anonymous `POST /api/v1/parse`: requests per client address per minute.
    pub anonymous_per_minute: u32,
    /// Anonymous `POST /api/v1/parse`: largest body, as sent and decoded.
    pub anonymous_max_bytes: usize,
    anonymous_seen: Mutex<HashMap<Option<IpAddr>, (Instant, u32)>>,
}

/// Two parses per core: a parse is CPU-bound, and two let one wait on the
/// database while the other runs.
pub fn default_parse_permits() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get() * 2)
}

/// Memory budget of the parses in flight, in MiB.
pub const DEFAULT_PARSE_MEMORY_MIB: u32 = 1024;
/// Memory of one streamed upload's parse and store, in MiB, by design: the
/// parser's windows (4 MiB) and accumulators, a mail read whole (at most
/// 32 MiB), the document and planned runs (bounded blocks, at most
/// [`MAX_BLOCK_JSON_BYTES`] of JSON each), the spool's chunks in flight
/// and the driver's buffers. Measured, a 200 MB trace upload peaks 9 MB
/// above idle and four at once 38 MB (docs/PERFORMANCE.md).
pub const DEFAULT_PARSE_BOUND_MIB: u32 = 64;
/// Memory per byte of an input held in memory: the bytes, and the copy the
/// database driver makes when it binds them.
pub const DEFAULT_PARSE_MEMORY_FACTOR: f64 = 2.0;

/// A parse's permits: one of the parses at once, and its share of the
/// memory budget. Both go back when it is dropped.
#[derive(Debug)]
pub struct ParsePermit {
    _count: tokio::sync::OwnedSemaphorePermit,
    _memory: tokio::sync::OwnedSemaphorePermit,
}

impl Default for ParseGate {
    fn default() -> Self {
        ParseGate::new(default_parse_permits(), Duration::from_secs(10))
    }
}

impl ParseGate {
    pub fn new(permits: usize, wait: Duration) -> Self {
        let permits = permits.max(1);
        ParseGate {
            sem: Arc::new(tokio::sync::Semaphore::new(permits)),
            permits,
            max_waiting: permits * 4,
            waiting: AtomicUsize::new(0),
            wait,
            mem: Arc::new(tokio::sync::Semaphore::new(
                DEFAULT_PARSE_MEMORY_MIB as usize,
            )),
            memory_mib: DEFAULT_PARSE_MEMORY_MIB,
            parse_mib: DEFAULT_PARSE_BOUND_MIB,
            memory_factor: DEFAULT_PARSE_MEMORY_FACTOR,
            anonymous_per_minute: 30,
            anonymous_max_bytes: 8 * 1024 * 1024,
            anonymous_seen: Mutex::new(HashMap::new()),
        }
    }

    pub fn permits(&self) -> usize {
        self.permits
    }

    /// Set the memory budget (MiB, at least 1) and the memory per byte of
    /// input held in memory.
    pub fn with_memory(mut self, mib: u32, factor: f64) -> Self {
        self.memory_mib = mib.max(1);
        self.mem = Arc::new(tokio::sync::Semaphore::new(self.memory_mib as usize));
        if factor.is_finite() && factor > 0.0 {
            self.memory_factor = factor;
        }
        self
    }

    /// Set the memory of one streaming parse (MiB).
    pub fn with_parse_bound(mut self, mib: u32) -> Self {
        self.parse_mib = mib;
        self
    }

    /// MiB of the budget a parse takes that holds `held_bytes` of input in
    /// memory (0 for a spooled body: its size does not matter).
    pub fn weight(&self, held_bytes: usize) -> u32 {
        let held = (held_bytes as f64 * self.memory_factor / (1024.0 * 1024.0)).ceil();
        let mib = self.parse_mib as f64 + held;
        (mib.min(u32::MAX as f64) as u32).clamp(1, self.memory_mib)
    }

    /// Parses running now.
    pub fn running(&self) -> usize {
        self.permits - self.sem.available_permits()
    }

    /// Permits for a parse holding `held_bytes` of input in memory, after
    /// waiting a bounded time in a bounded queue.
    pub async fn acquire(&self, held_bytes: usize) -> Result<ParsePermit, AppError> {
        let weight = self.weight(held_bytes);
        if let Ok(c) = self.sem.clone().try_acquire_owned() {
            if let Ok(m) = self.mem.clone().try_acquire_many_owned(weight) {
                return Ok(ParsePermit {
                    _count: c,
                    _memory: m,
                });
            }
            drop(c);
        }
        let busy = || {
            AppError::Busy(format!(
                "the server is parsing as much as it runs at once ({} parses, {} MiB); retry later",
                self.permits, self.memory_mib
            ))
        };
        if self.waiting.fetch_add(1, Ordering::AcqRel) >= self.max_waiting {
            self.waiting.fetch_sub(1, Ordering::AcqRel);
            return Err(busy());
        }
        let both = async {
            let c = self.sem.clone().acquire_owned().await?;
            let m = self.mem.clone().acquire_many_owned(weight).await?;
            Ok::<_, tokio::sync::AcquireError>(ParsePermit {
                _count: c,
                _memory: m,
            })
        };
        let got = tokio::time::timeout(self.wait, both).await;
        self.waiting.fetch_sub(1, Ordering::AcqRel);
        match got {
            Ok(Ok(p)) => Ok(p),
            _ => Err(busy()),
        }
    }

    /// MiB of the memory budget free now.
    pub fn memory_free(&self) -> usize {
        self.mem.available_permits()
    }

    /// Count an anonymous parse of `addr`; 429 over the rate.
    pub fn anonymous_allowed(&self, addr: Option<IpAddr>) -> Result<(), AppError> {
        let Ok(mut seen) = self.anonymous_seen.lock() else {
            return Ok(());
        };
        let window = Duration::from_secs(60);
        if seen.len() > 100_000 {
            seen.retain(|_, (start, _)| start.elapsed() < window);
        }
        let e = seen.entry(addr).or_insert((Instant::now(), 0));
        if e.0.elapsed() >= window {
            *e = (Instant::now(), 0);
        }
        e.1 = e.1.saturating_add(1);
        if e.1 > self.anonymous_per_minute {
            return Err(AppError::TooManyRequests(format!(
                "anonymous parses are limited to {} a minute per address; send a token (any scope) for more",
                self.anonymous_per_minute
            )));
        }
        Ok(())
    }
}

/// Set when the request that asked for a parse is gone (answered by the
/// timeout, or its client closed the connection): the blocking work checks
/// it between chunks and steps and stops.
#[derive(Debug, Clone, Default)]
pub struct Cancel(Arc<AtomicBool>);

impl Cancel {
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// A guard that cancels when dropped: held by the request's future, it
    /// is dropped when the future is (timeout, closed connection).
    pub fn on_drop(&self) -> CancelOnDrop {
        CancelOnDrop(self.clone())
    }

    pub fn check(&self) -> Result<(), AppError> {
        if self.is_cancelled() {
            return Err(AppError::Busy("the request was cancelled".into()));
        }
        Ok(())
    }
}

#[derive(Debug)]
pub struct CancelOnDrop(Cancel);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

/// Run CPU-heavy work on the blocking pool, keeping the current span.
pub async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, AppError> + Send + 'static,
) -> Result<T, AppError> {
    let span = tracing::Span::current();
    tokio::task::spawn_blocking(move || {
        let _g = span.enter();
        f()
    })
    .await
    .map_err(|e| AppError::Internal(anyhow::anyhow!("blocking task failed: {e}")))?
}

/// A reader that fails once the request is cancelled: the parser reads in
/// chunks, so a cancelled parse stops within one chunk.
struct CancelRead<'a, R> {
    inner: R,
    cancel: &'a Cancel,
}

impl<R: std::io::Read> std::io::Read for CancelRead<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.cancel.is_cancelled() {
            return Err(std::io::Error::other("the request was cancelled"));
        }
        self.inner.read(buf)
    }
}

/// The one place the service calls the parser: the streaming
/// `parse_reader`, over a spooled body or bytes in memory, read in
/// [`crate::blob::CHUNK`]s. Runs on the blocking pool (callers go through
/// [`parse_blocking`], [`parse_to_json`] or [`prepare`]); a cancelled
/// request stops it within a chunk.
fn parse_document(
    content: &Content,
    name: Option<&str>,
    cancel: &Cancel,
) -> Result<Document, AppError> {
    use std::io::BufReader;
    cancel.check()?;
    let limits = reclaimlab_formats::Limits::default();
    let cap = crate::blob::CHUNK;
    let parsed = match content {
        Content::Bytes(b) => {
            if b.contains(&0) {
                return Err(binary_content());
            }
            let r = CancelRead {
                inner: &b[..],
                cancel,
            };
            reclaimlab_formats::parse_reader(BufReader::with_capacity(cap, r), name, &limits)
        }
        // The spool refused NUL bytes as it was written.
        Content::Spool(s) => {
            let r = CancelRead {
                inner: s.reader(),
                cancel,
            };
            reclaimlab_formats::parse_reader(BufReader::with_capacity(cap, r), name, &limits)
        }
    };
    cancel.check()?;
    Ok(parsed?)
}

pub fn binary_content() -> AppError {
    AppError::UnsupportedContent(
        "binary content (NUL bytes) is not a text result; send the text as printed".into(),
    )
}

/// Parse an input off the async runtime (big traces are CPU-heavy), under
/// `gate`.
pub async fn parse_blocking(
    gate: &ParseGate,
    content: Content,
    name: Option<String>,
) -> Result<Document, AppError> {
    let permit = gate.acquire(content.held_bytes()).await?;
    let cancel = Cancel::default();
    let _guard = cancel.on_drop();
    blocking(move || {
        let _permit = permit;
        parse_document(&content, name.as_deref(), &cancel)
    })
    .await
}

/// Parse and serialize the document as JSON on the blocking pool (for
/// `POST /api/v1/parse`: a big document's serialization is CPU work too).
pub async fn parse_to_json(
    content: Content,
    name: Option<String>,
    permit: ParsePermit,
    cancel: Cancel,
) -> Result<Vec<u8>, AppError> {
    blocking(move || {
        let _permit = permit;
        let doc = parse_document(&content, name.as_deref(), &cancel)?;
        drop(content);
        cancel.check()?;
        serde_json::to_vec(&doc)
            .map_err(|e| AppError::Internal(anyhow::anyhow!("serialize document: {e}")))
    })
    .await
}

/// What an ingest reports about the parsed document.
#[derive(Debug, Clone)]
pub struct ParsedSummary {
    pub format: String,
    pub blocks: usize,
    pub warnings: Vec<reclaimlab_formats::Warning>,
}

/// Everything the store needs, computed on the blocking pool.
struct Prepared {
    summary: ParsedSummary,
    outline: serde_json::Value,
    runs: Vec<RunSpec>,
    parser_version: String,
    message_id: Option<String>,
    subject: Option<String>,
}

fn prepare(content: &Content, meta: &UploadMeta, cancel: &Cancel) -> Result<Prepared, AppError> {
    let mut doc = parse_document(content, meta.filename.as_deref(), cancel)?;
    let digests = compact_traces(&mut doc);
    cancel.check()?;
    let runs = plan_runs_digested(&doc, meta, &digests)?;
    cancel.check()?;
    let outline = document_outline(&doc);
    let size = json_size(&outline);
    if size > MAX_OUTLINE_JSON_BYTES {
        return Err(AppError::PayloadTooLarge(format!(
            "the document's outline ({} blocks) is {size} bytes of JSON; at most {MAX_OUTLINE_JSON_BYTES} bytes are stored per upload",
            doc.blocks.len()
        )));
    }
    let message_id = meta
        .message_id
        .clone()
        .or_else(|| doc.context.as_ref().and_then(|c| c.message_id.clone()));
    let subject = doc.context.as_ref().and_then(|c| c.subject.clone());
    Ok(Prepared {
        summary: ParsedSummary {
            format: doc.source.format.clone(),
            blocks: doc.blocks.len(),
            warnings: doc.warnings.clone(),
        },
        outline,
        runs,
        parser_version: doc.source.parser_version.clone(),
        message_id,
        subject,
    })
}

/// The whole ingest: parse, plan runs, store in one transaction, under
/// `gate` (the service's, from `AppState`).
pub async fn ingest(
    pool: &sqlx::PgPool,
    gate: &ParseGate,
    up: RawUpload,
) -> Result<(crate::storage::ingest::StoredUpload, ParsedSummary), AppError> {
    let permit = gate.acquire(up.content.held_bytes()).await?;
    let cancel = Cancel::default();
    let _guard = cancel.on_drop();
    ingest_with(pool, up, permit, cancel).await
}

/// [`ingest`] with a permit the caller holds and the request's
/// cancellation flag. The content is read twice, never copied whole: once
/// by the parser, once by the store (a spool goes to the blob table with
/// `COPY`, in chunks).
pub async fn ingest_with(
    pool: &sqlx::PgPool,
    up: RawUpload,
    permit: ParsePermit,
    cancel: Cancel,
) -> Result<(crate::storage::ingest::StoredUpload, ParsedSummary), AppError> {
    let catalogue = crate::storage::catalog::KnownCache::default();
    ingest_known(pool, &catalogue, up, permit, cancel).await
}

/// [`ingest_with`], with the catalogue ids the process has seen
/// ([`crate::storage::catalog::KnownCache`]).
pub async fn ingest_known(
    pool: &sqlx::PgPool,
    catalogue: &crate::storage::catalog::KnownCache,
    up: RawUpload,
    permit: ParsePermit,
    cancel: Cancel,
) -> Result<(crate::storage::ingest::StoredUpload, ParsedSummary), AppError> {
    let meta = up.meta.normalize()?;
    let content = up.content;
    let (content_sha, fp, key, meta, prepared, content) = blocking(move || {
        let content_sha = content.sha256();
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
        let prepared = prepare(&content, &meta, &cancel)?;
        Ok((content_sha, fp, key, meta, prepared, content))
    })
    .await?;
    let stored = crate::storage::ingest::store_with(
        pool,
        catalogue,
        crate::storage::ingest::NewUpload {
            content: content.blob(),
            content_sha: &content_sha,
            fingerprint: &fp,
            idempotency_key: &key,
            content_type: up.content_type.as_deref(),
            meta: &meta,
            token_id: up.token_id,
            parser_version: &prepared.parser_version,
            document: &prepared.outline,
            message_id: prepared.message_id.as_deref(),
            subject: prepared.subject.as_deref(),
            runs: &prepared.runs,
            kind: crate::storage::runs::RunKind::Measured,
        },
    )
    .await?;
    drop(permit);
    Ok((stored, prepared.summary))
}

/// What `uploads.document` keeps: the source, context and warnings, and
/// for each block a reference (kind, lines, label, hints, duplicate).
/// Block bodies are stored once, with their runs (`runs.block`).
pub fn document_outline(doc: &Document) -> serde_json::Value {
    let blocks: Vec<serde_json::Value> = doc
        .blocks
        .iter()
        .enumerate()
        .map(|(index, b)| {
            let mut o = serde_json::json!({"index": index, "kind": b.kind(), "lines": b.lines});
            // An ftrace report's kernel is the one its header prints, kept
            // in the report (`Block::settle_kernel`): the block's `kernel`
            // as the parse document shows it.
            let kernel = match &b.body {
                BlockBody::FtraceLatency(t) if b.kernel.is_none() => &t.kernel,
                _ => &b.kernel,
            };
            for (k, v) in [("label", &b.label), ("board", &b.board), ("kernel", kernel)] {
                if let Some(v) = v {
                    o[k] = serde_json::json!(v);
                }
            }
            if let Some(d) = b.duplicate_of {
                o["duplicate_of"] = serde_json::json!(d);
            }
            if let Some(m) = b.message {
                o["message"] = serde_json::json!(m);
            }
            if let Some(q) = b.quote_level {
                o["quote_level"] = serde_json::json!(q);
            }
            o
        })
        .collect();
    serde_json::json!({
        "source": doc.source,
        "context": doc.context,
        "warnings": doc.warnings,
        "blocks": blocks,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use reclaimlab_report::compare::Better;

    #[test]
    fn a_message_is_named_by_its_patch_number() {
        for (subject, want) in [
            ("[PATCH 1/4] mm, vmscan: Batch removal", Some("1/4")),
            ("Re: [RFC PATCH v3 02/13] mm: x", Some("2/13")),
            ("[PATCH 0/1] mm/madvise: add cond_resched()", Some("0/1")),
            ("Re: [PATCH RFC] mm: madvise: pageout", None),
            ("[linux-next:master] [mm] 1/2 speedup", None),
            ("no tag 3/4 here", None),
        ] {
            assert_eq!(patch_number(subject).as_deref(), want, "{subject}");
        }
    }

    #[test]
    fn profile_rows_are_named_by_symbol_or_by_their_sort_keys() {
        let row = |symbol: &str, command: Option<&str>, object: Option<&str>| {
            reclaimlab_formats::ProfileRow {
                symbol: symbol.into(),
                command: command.map(Into::into),
                object: object.map(Into::into),
                ..Default::default()
            }
            .name()
        };
        assert_eq!(
            row("clear_page", Some("usemem"), Some("[kernel.kallsyms]")),
            "clear_page [usemem]"
        );
        assert_eq!(row("clear_page", None, None), "clear_page");
        assert_eq!(row("", Some("sort"), Some("libc.so.6")), "libc.so.6 [sort]");
        assert_eq!(row("", None, Some("libdw-0.186.so")), "libdw-0.186.so");
        assert_eq!(row("", Some("gzip"), None), "gzip");
    }

    fn doc_of(text: &str) -> Document {
        reclaimlab_formats::parse(text.as_bytes(), None).expect("parses")
    }

    fn identities(runs: &[RunSpec]) -> Vec<(String, String, Option<String>)> {
        runs.iter()
            .flat_map(|r| {
                r.metrics.iter().map(|m| {
                    (
                        r.scope.resolve(1, r.block_index),
                        m.name.clone(),
                        m.unit.clone(),
                    )
                })
            })
            .collect()
    }

    #[test]
    fn a_measured_vmstat_dump_and_the_simulators_counters_share_identities() {
        let measured =
            doc_of("pgscan_kswapd 1200\npgscan_direct 30\nallocstall 4\npgsteal_kswapd 1100\n");
        let meta = UploadMeta::default();
        let m = identities(&plan_runs(&measured, &meta).unwrap());
        let simulated = Document {
            source: reclaimlab_formats::Source {
                format: "simulated".into(),
                ..Default::default()
            },
            context: None,
            blocks: vec![Block::new(
                [0, 0],
                BlockBody::Metrics(reclaimlab_formats::Metrics {
                    tool: "vmstat".into(),
                    metrics: vec![reclaimlab_formats::Metric::new(
                        "pgscan_kswapd",
                        900.0,
                        None,
                    )],
                    runs: None,
                }),
            )],
            warnings: vec![],
        };
        let s = identities(&plan_runs(&simulated, &meta).unwrap());
        assert_eq!(s[0], ("vmstat".into(), "pgscan_kswapd".into(), None));
        assert!(m.contains(&s[0]), "{m:?}");
    }

    #[test]
    fn simulated_lock_contention_meets_perf_lock_by_lock() {
        let measured = doc_of(
            " contended   total wait     max wait     avg wait            address   symbol\n\n         5     10.00 us      4.00 us      2.00 us   ffff8881234 &lruvec->lru_lock\n         2      3.00 us      2.00 us      1.50 us   ffff8881999 &zone->lock\n",
        );
        let m = identities(&plan_runs(&measured, &UploadMeta::default()).unwrap());
        let want = (
            "perf-lock contention by lock".to_string(),
            "total_wait [&lruvec->lru_lock]".to_string(),
            Some("us".to_string()),
        );
        assert!(m.contains(&want), "{m:?}");
        let sc = reclaimlab_sim::load_scenario("toy-lock").expect("toy-lock");
        let opts = reclaimlab_sim::RunOptions {
            replications: 1,
            duration_ns: Some(200_000_000),
            ..Default::default()
        };
        let sim = reclaimlab_sim::run(&sc, &opts, &mut |_| reclaimlab_sim::Control::Continue)
            .expect("toy-lock runs");
        let doc = &sim.variants[0].document;
        let s = identities(&plan_runs(doc, &UploadMeta::default()).unwrap());
        assert!(
            s.iter()
                .any(|(scope, name, _)| scope == "perf-lock contention by lock"
                    && name.starts_with("total_wait [")),
            "{s:?}"
        );
    }

    #[test]
    fn printed_tables_are_scoped_to_themselves_and_label_columns_are_not_variants() {
        let text = "Measurement of SyS_munmap() execution time:\n  size        pristine        patched        delta\n  80GB       5008377 us      4905841 us       -2%\n";
        let runs = plan_runs(&doc_of(text), &UploadMeta::default()).unwrap();
        let variants: Vec<&str> = runs.iter().map(|r| r.variant.as_str()).collect();
        assert_eq!(variants, ["pristine", "patched"]);
        assert_eq!(runs[1].parent.as_deref(), Some("pristine"));
        assert!(runs.iter().all(|r| r.scope == Scope::Table));
        assert_eq!(
            runs[0].scope.resolve(7, runs[0].block_index),
            format!("upload 7 block {}", runs[0].block_index)
        );
        let m = &runs[1].metrics[0];
        assert_eq!(m.name, "size=80GB");
        assert_eq!(m.unit.as_deref(), Some("us"));
        assert_eq!(m.printed_delta_pct, Some(-2.0));
        assert_eq!(m.delta_convention, Some(DeltaConvention::Change));
    }

    #[test]
    fn mmtests_gains_give_the_direction_and_uploads_override_it() {
        let text = "                              4.8.0-rc5             4.8.0-rc5\n                                vanilla              batch-v1\nAmean    System-1      260.53 (  0.00%)      192.98 ( 25.93%)\n";
        let runs = plan_runs(&doc_of(text), &UploadMeta::default()).unwrap();
        let m = &runs[1].metrics[0];
        assert_eq!(m.direction, Some(Better::Lower));
        assert_eq!(m.direction_source.as_deref(), Some("printed"));
        assert_eq!(m.delta_convention, Some(DeltaConvention::Gain));
        let meta = UploadMeta {
            direction: Some("System-1:higher".into()),
            ..UploadMeta::default()
        }
        .normalize()
        .unwrap();
        let runs = plan_runs(&doc_of(text), &meta).unwrap();
        assert_eq!(runs[1].metrics[0].direction, Some(Better::Higher));
        assert_eq!(
            runs[1].metrics[0].direction_source.as_deref(),
            Some("upload")
        );
        let bad = UploadMeta {
            direction: Some("sideways".into()),
            ..UploadMeta::default()
        };
        assert!(bad.normalize().is_err());
    }
}

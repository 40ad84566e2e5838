//! The parse document contract: what every parser produces and what the
//! simulator emits. This is a public interface (documented in
//! `docs/FORMATS.md` with a JSON Schema): fields may be added, never renamed
//! or removed without a migration path.
//!
//! Owns only types and serde shape. No parsing logic lives here.

use serde::{Deserialize, Serialize};

/// One parsed input: a file, a paste, a mail, a thread, or a simulation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Document {
    pub source: Source,
    /// Mail headers when the input was a mail or a thread.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<MailContext>,
    pub blocks: Vec<Block>,
    #[serde(default)]
    pub warnings: Vec<Warning>,
}

/// Where the document came from.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Source {
    /// File name or other label given by the caller; never used as a path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The detected top-level format, e.g. `"cyclictest"`, `"mail"`, `"simulated"`.
    pub format: String,
    /// Size of the decoded input in bytes.
    pub bytes: u64,
    /// Number of lines of the input.
    pub lines: u64,
    /// Version of the parser (or simulator) that produced the document.
    pub parser_version: String,
}

/// Headers of a mail, or of the first message of a thread, plus every message.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MailContext {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    /// Without the angle brackets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub in_reply_to: Option<String>,
    /// Every message found in a thread (a single mail has one).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub messages: Vec<MailMessage>,
}

/// One message of a thread, with the line span it occupies in the input.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MailMessage {
    pub lines: [u64; 2],
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub in_reply_to: Option<String>,
}

/// A non-fatal problem: a block inside a mail that did not parse, a value
/// that was out of range, a quoted duplicate, ...
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Warning {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
    pub message: String,
}

impl Warning {
    /// A claim that could not be parsed, as a warning at its line.
    pub fn from_error(e: &crate::error::ParseError) -> Self {
        Warning {
            line: (e.line > 0).then_some(e.line),
            message: e.to_string(),
        }
    }
}

/// One result block found in the input.
///
/// The serde derives are `remote = "Self"`: they define
/// `Block::serialize` / `Block::deserialize`, and the trait impls below
/// call them, deserializing through [`Block::settle_kernel`] so that a
/// `kernel` key on an ftrace block lands in the report, where serializing
/// put it: the JSON round trip is exact.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self")]
pub struct Block {
    /// First and last line (1-based, inclusive) in the input.
    pub lines: [u64; 2],
    #[serde(flatten)]
    pub body: BlockBody,
    /// Guessed or given label: "before", "after", "vanilla", "patched", ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Heading a labelled block is printed under (`numa01`, `Results for
    /// hackbench`, `Test: stream`): the short line above its label lines
    /// (the side labels of its run of labelled blocks, or the prose line
    /// its label was read from) that is not itself a label. Labelled
    /// blocks under different headings measure different things.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heading: Option<String>,
    /// Number of `>` quote markers in front of the block's lines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quote_level: Option<u32>,
    /// Board named near the block (e.g. "LicheePi 4A", "i7-4790").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub board: Option<String>,
    /// Kernel version named near or inside the block.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel: Option<String>,
    /// Input line the board was guessed from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub board_line: Option<u64>,
    /// Input line the kernel was guessed from (absent when the block names
    /// its kernel itself: an ftrace header, an mmtests column).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel_line: Option<u64>,
    /// Index into `blocks` of the first block with the same content, when
    /// this one is a (quoted) copy of it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duplicate_of: Option<usize>,
    /// Index into `context.messages` of the message that holds this block.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<usize>,
}

impl Serialize for Block {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        Block::serialize(self, s)
    }
}

impl<'de> Deserialize<'de> for Block {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut b = Block::deserialize(d)?;
        b.settle_kernel();
        Ok(b)
    }
}

impl Block {
    /// A block with only a span and a body; hints empty.
    pub fn new(lines: [u64; 2], body: BlockBody) -> Self {
        Block {
            lines,
            body,
            label: None,
            heading: None,
            quote_level: None,
            board: None,
            kernel: None,
            board_line: None,
            kernel_line: None,
            duplicate_of: None,
            message: None,
        }
    }

    /// The `kind` string of the body, as serialized.
    pub fn kind(&self) -> &'static str {
        self.body.kind()
    }

    /// An ftrace report names its kernel in its own header, and the body is
    /// flattened into the block, so the block-level `kernel` hint and the
    /// report's `kernel` would be the same JSON key. Keep one: the printed
    /// header wins; a hint from the prose fills it when the header has none.
    pub fn settle_kernel(&mut self) {
        if let BlockBody::FtraceLatency(t) = &mut self.body {
            let hint = self.kernel.take();
            if t.kernel.is_none() {
                t.kernel = hint;
            }
        }
    }
}

/// The typed content of a block. Serialized with a `kind` tag.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum BlockBody {
    Cyclictest(Cyclictest),
    FtraceLatency(FtraceLatency),
    Rtla(Rtla),
    Table(Table),
    Time(Time),
    Metrics(Metrics),
    Counters(Counters),
    LockContention(LockContention),
    Distribution(Distribution),
    Profile(Profile),
}

impl BlockBody {
    pub fn kind(&self) -> &'static str {
        match self {
            BlockBody::Cyclictest(_) => "cyclictest",
            BlockBody::FtraceLatency(_) => "ftrace_latency",
            BlockBody::Rtla(_) => "rtla",
            BlockBody::Table(_) => "table",
            BlockBody::Time(_) => "time",
            BlockBody::Metrics(_) => "metrics",
            BlockBody::Counters(_) => "counters",
            BlockBody::LockContention(_) => "lock_contention",
            BlockBody::Distribution(_) => "distribution",
            BlockBody::Profile(_) => "profile",
        }
    }
}

// ---------------------------------------------------------------- cyclictest

/// cyclictest summary (`T:` lines), optionally with its `-h` histogram.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Cyclictest {
    pub threads: Vec<CyclictestThread>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub histogram: Option<Histogram>,
    /// Unit the tool printed: "us" or "ns" (`-N`). Values below are always us.
    #[serde(default = "default_unit_us")]
    pub printed_unit: String,
    /// Command line, when the output names it (`--json` `cmdline`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cmdline: Option<String>,
    /// rt-tests version, when the output names it (`--json` `rt_test_version`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rt_tests_version: Option<String>,
}

fn default_unit_us() -> String {
    "us".to_string()
}

/// One `T:` line. All latencies in microseconds (ns inputs divided by 1000).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CyclictestThread {
    pub thread: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tid: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval_us: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cycles: Option<u64>,
    pub min_us: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub act_us: Option<f64>,
    pub avg_us: f64,
    pub max_us: f64,
    /// CPU the thread was bound to, when printed (`-a` / `--smp` layouts).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu: Option<u32>,
    /// Scheduling policy when printed (e.g. "fifo", "other").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<String>,
    /// Extra printed fields kept verbatim (e.g. the original ns numbers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub original: Option<serde_json::Value>,
}

/// cyclictest `-h` histogram, every bucket of every thread.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Histogram {
    /// Width of one bucket in microseconds (1 for cyclictest in us mode).
    pub bucket_us: f64,
    pub per_thread: Vec<HistogramThread>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HistogramThread {
    pub thread: u32,
    /// `[lower_bound_us, count]`, only non-empty buckets need be present.
    pub buckets: Vec<(f64, u64)>,
    #[serde(default)]
    pub overflows: u64,
    /// Cycle numbers of overflows when printed (`# Thread N:` lists).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub overflow_cycles: Vec<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_us: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub avg_us: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_us: Option<f64>,
    /// Set when the thread had more than 2048 non-empty buckets: from this
    /// latency on, buckets are merged, 64 per power of two of the bucket
    /// index; a merged bucket's count covers `[lower, next bound)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coarse_from_us: Option<f64>,
}

// ------------------------------------------------------------------- ftrace

/// An ftrace latency-tracer report (irqsoff, preemptoff, preemptirqsoff,
/// wakeup, wakeup_rt, wakeup_dl).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FtraceLatency {
    pub tracer: String,
    pub latency_us: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nr_cpus: Option<u32>,
    /// `M:` field as printed: "preempt_rt", "desktop", "server", "unknown", ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preempt_model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel: Option<String>,
    /// `#x/y`: entries shown / entries total.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entries: Option<(u64, u64)>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TraceTask>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_at: Option<String>,
    /// Number of flag characters per event line (6, 7 or 8).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flag_columns: Option<u32>,
    #[serde(default)]
    pub events: Vec<TraceEvent>,
    /// Every `<stack trace>` block, innermost frame first, offsets stripped.
    #[serde(default)]
    pub stacks: Vec<Vec<String>>,
    /// Most specific frame that is not tracing/scheduler/lock plumbing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub culprit: Option<String>,
    /// The culprit and the frames below it (its callers), innermost first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub culprit_path: Vec<String>,
    /// Number of event lines read when fewer were kept in `events` (the
    /// first 256 are kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub events_total: Option<u64>,
    /// The longest time gaps between consecutive events (at most 16),
    /// longest first, each with the events around it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gaps: Vec<TraceGap>,
    /// Function-trace events per function: count and self time (the gap
    /// after each of its events), most time first, at most 256 rows.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub functions: Vec<FunctionTotal>,
    /// Everything beyond the rows of `functions`, summed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub functions_other: Option<FunctionOther>,
    /// `true` when the report was pasted without its `latency:` line (from
    /// `=> started at:` on): `latency_us` is then the time of its last event,
    /// not a printed latency.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_from_trace: Option<bool>,
}

/// One of the longest gaps of a trace: the CPU printed nothing for `gap_us`
/// after the event at `line`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TraceGap {
    pub gap_us: f64,
    /// 1-based ordinal, among the report's events, of the event the gap follows.
    pub event: u64,
    /// Input line of that event.
    pub line: u64,
    /// Its function, when it is a function-trace event.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function: Option<String>,
    /// Up to 16 events up to and including that one, then up to 16 from
    /// the event that ends the gap, each with its `line`.
    pub events: Vec<TraceEvent>,
}

/// One row of a trace's per-function summary.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FunctionTotal {
    pub function: String,
    /// Events of this function.
    pub count: u64,
    /// Sum of the gaps that follow its events, in us.
    pub self_us: f64,
}

/// The functions of a trace summary that did not get a row of their own.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FunctionOther {
    /// Distinct functions folded into this row (a lower bound when
    /// `untracked_events` is not zero).
    pub functions: u64,
    pub count: u64,
    pub self_us: f64,
    /// Events of names beyond the 16384 distinct ones counted one by one.
    #[serde(default)]
    pub untracked_events: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TraceTask {
    pub comm: String,
    pub pid: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uid: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nice: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rt_prio: Option<u32>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TraceEvent {
    pub comm: String,
    pub pid: u32,
    pub cpu: u32,
    /// The flag characters as printed, e.g. "dn.h511".
    pub flags: String,
    pub time_us: f64,
    /// Delay marker as printed: one of `+ ! # * @ $` or empty.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub delay_marker: String,
    /// Text after the `:` (function, sched switch, marker, ...).
    pub text: String,
    /// Function name when the event is a function entry, offsets stripped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub caller: Option<String>,
    /// Input line of the event.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
}

// --------------------------------------------------------------------- rtla

/// rtla timerlat / osnoise, top or hist output.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Rtla {
    /// "timerlat" or "osnoise".
    pub tool: String,
    /// "top" or "hist".
    pub mode: String,
    #[serde(default)]
    pub per_cpu: Vec<RtlaCpu>,
    /// hist mode: `[lower_bound_us, counts per cpu in `per_cpu` order]`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub histogram: Vec<(f64, Vec<u64>)>,
    /// hist mode: the printed name of each count column of `histogram`
    /// (`IRQ-000`, `Thr-000`, `Usr-000` for timerlat, `CPU-000` for
    /// osnoise), because timerlat prints two or three columns per CPU.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub columns: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub analysis: Option<RtlaAnalysis>,
}

/// One CPU's row. For timerlat, `irq_*` and `thread_*` are the two contexts;
/// for osnoise, `fields` holds the printed columns by name.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RtlaCpu {
    pub cpu: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub irq_min_us: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub irq_avg_us: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub irq_max_us: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread_min_us: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread_avg_us: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread_max_us: Option<f64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<(String, f64)>,
}

/// timerlat auto-analysis (`## CPU N hit stop tracing, analyzing it ##`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RtlaAnalysis {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub irq_handler_delay_us: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub irq_latency_us: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocking_thread: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_latency_us: Option<f64>,
    #[serde(default)]
    pub stack: Vec<String>,
    /// Every `name: value us (pct %)` line of the analysis, in order.
    #[serde(default)]
    pub items: Vec<(String, f64)>,
}

// -------------------------------------------------------------------- table

/// A table of numbers: mmtests compare-kernels, LKP robot, a duration block
/// (`User / System / Elapsed`), or an ad-hoc whitespace table.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Table {
    /// "mmtests" | "lkp" | "plain" | "duration"
    pub style: String,
    /// Title line printed above the table (e.g. "xfsio Time"), when present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Column names: for mmtests the kernel and variant joined with a space
    /// ("4.8.0-rc5 vanilla"), for LKP the commits, for plain the header words.
    pub columns: Vec<String>,
    /// For mmtests/duration: the kernel line and the variant line separately.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub column_kernels: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub column_variants: Vec<String>,
    pub rows: Vec<TableRow>,
    /// Unit of the values when the whole table has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit: Option<String>,
    /// Headers of columns that hold row labels (`size` with `80GB`,
    /// `threads`): dimensions of the experiment, joined into each row's
    /// `metric`, never result columns.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub label_columns: Vec<String>,
    /// Headers of columns that held a printed change (`delta`, `%change`):
    /// their values are in the rows' `printed_deltas_pct`, never columns.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub delta_columns: Vec<String>,
    /// plain: headers of columns that held the absolute spread (`stddev`,
    /// `std`, `sd`) of the result column before them: their values are in
    /// `rows[].spread`, never a column of their own.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub spread_columns: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TableRow {
    /// Statistic: "Amean", "Hmean", "Min", "Stddev", "CoeffVar", "BAmean-99", ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stat: Option<String>,
    /// Metric: "System-1", "vm-scalability.throughput", "User", "size", ...
    pub metric: String,
    /// One value per column; `None` where the cell was empty or not a number.
    pub values: Vec<Option<f64>>,
    /// The change printed for each column, one per column (None where
    /// absent): mmtests' `( x.xx%)` gain (positive = better), or the raw
    /// change of a `delta` / `%change` column (LKP, hand-made tables).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub printed_deltas_pct: Vec<Option<f64>>,
    /// `± N%` spreads (LKP `%stddev`), one per column.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub spread_pct: Vec<Option<f64>>,
    /// Absolute spreads (a `stddev` column's values), one per column, in
    /// the row's unit.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub spread: Vec<Option<f64>>,
    /// Cells as printed, for values with units ("80GB", "5008377 us").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub printed: Vec<String>,
    /// Unit recognised in this row's cells, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit: Option<String>,
}

// --------------------------------------------------------------------- time

/// Output of `time` (bash builtin, GNU default, GNU `-v`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Time {
    /// Elapsed (wall-clock) time; absent only for a `-v` report cut
    /// without its `Elapsed (wall clock) time` line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub real_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sys_s: Option<f64>,
    /// "bash" | "bsd" | "fish" | "gnu" | "gnu-verbose" | "tcsh" | "zsh"
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub style: Option<String>,
    /// Further `-v` fields by their printed name (e.g. "Maximum resident set size (kbytes)").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<(String, f64)>,
    /// Command line, when printed (`-v` "Command being timed").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// The command's exit status when GNU time printed one: `Command exited
    /// with non-zero status N` above the report, or `-v`'s `Exit status`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_status: Option<i32>,
    /// The signal that ended the command (`Command terminated by signal N`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
}

impl Time {
    /// Whether the timed command failed: a non-zero exit or a signal.
    pub fn failed(&self) -> bool {
        self.signal.is_some() || self.exit_status.is_some_and(|s| s != 0)
    }
}

// ------------------------------------------------------------------ metrics

/// Named metrics: stress-ng, vm-scalability, perf stat, simulator counters.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Metrics {
    /// "stress-ng" | "vm-scalability" | "perf-stat" | "vmstat" | "lockstat" | ...
    pub tool: String,
    pub metrics: Vec<Metric>,
    /// How many runs each value summarises, when the tool says so (`perf
    /// stat -r N`: the N of `(N runs)`). Not a metric of its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runs: Option<u64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Metric {
    pub name: String,
    pub value: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit: Option<String>,
    /// The spread over the runs in percent of the value, as printed (`perf
    /// stat -r N`: `( +- 2.40% )`, `-x,` and `-j` variance).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spread_pct: Option<f64>,
    /// The spread in the metric's own unit, as printed (`0.1200 +- 0.0155
    /// seconds time elapsed`: 0.0155).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spread: Option<f64>,
}

impl Metric {
    /// A metric without a spread.
    pub fn new(name: impl Into<String>, value: f64, unit: Option<&str>) -> Metric {
        Metric {
            name: name.into(),
            value,
            unit: unit.map(str::to_string),
            ..Metric::default()
        }
    }
}

// ----------------------------------------------------------------- counters

/// Kernel counters: `/proc/vmstat`, cgroup v2 `memory.stat` /
/// `memory.events`, PSI (`/proc/pressure/*`), `/proc/meminfo`,
/// `smaps_rollup`, or a hand-made table of counters in two or more columns.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Counters {
    /// "vmstat" | "meminfo" | "memory.stat" | "memory.events" | "psi" |
    /// "smaps_rollup" | "table"
    pub source: String,
    /// PSI: "memory" | "io" | "cpu" | "irq", when the paste names it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource: Option<String>,
    /// Column names of a table (`["base", "patched"]`); empty for a single
    /// dump. A table without a header has empty strings here.
    #[serde(default)]
    pub columns: Vec<String>,
    pub counters: Vec<Counter>,
}

/// One counter with one value per column (a single value for a dump).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Counter {
    /// As printed (`pgscan_kswapd`, `MemFree`, `Active(anon)`), PSI as
    /// `some.avg10`, `full.total`.
    pub name: String,
    /// `null` where a table cell was empty or not a number (`-`, `n/a`).
    pub values: Vec<Option<f64>>,
    /// "kB" (meminfo, smaps_rollup), "%" (PSI avg), "us" (PSI total).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit: Option<String>,
    /// Percent change printed next to a value, one per column.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub printed_delta_pct: Vec<Option<f64>>,
    /// Absolute difference printed in a `delta` / `diff` column.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub printed_delta: Option<f64>,
    /// `± N%` printed next to a value, one per column.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub spread_pct: Vec<Option<f64>>,
}

// ---------------------------------------------------------- lock contention

/// A `perf lock contention` table.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LockContention {
    /// "perf-lock"
    pub tool: String,
    /// Which key columns were printed: "caller" (`type caller`, the
    /// default), "task" (`pid comm`, `-t`), "owner" (`pid owner`, `-o`),
    /// "lock" (`address symbol`, `-l`), "cgroup" (`--lock-cgroup`).
    pub key: String,
    pub rows: Vec<LockRow>,
}

/// One row. Waits in microseconds whatever unit each cell was printed in.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LockRow {
    pub contended: u64,
    pub total_wait_us: f64,
    /// Absent only when `-F` left the column out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_wait_us: Option<f64>,
    /// `min wait` is printed only when asked for (`-F ...,wait_min`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_wait_us: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub avg_wait_us: Option<f64>,
    /// Lock type: "spinlock", "rwlock:W", "mutex", "rwsem:R", ...
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub lock_type: Option<String>,
    /// `caller` key: the caller as printed (`pipe_read+0x57`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub caller: Option<String>,
    /// `lock` key: the lock symbol (`&zone->lock`, `&task_struct`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lock: Option<String>,
    /// `lock` key: the lock address in hex, as printed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub address: Option<String>,
    /// `task` / `owner` key: the comm.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<String>,
    /// `task` / `owner` key: the pid (-1 when the owner is unknown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cgroup: Option<String>,
    /// Call-stack lines printed under the row (`-v`, `-S`), innermost first,
    /// `symbol+offset` as printed without the address.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stack: Vec<String>,
}

// ------------------------------------------------------------- distribution

/// One histogram of a bpftrace map (`@usecs:` / `@ns[comm]:`) or of a BCC
/// tool (`usecs : count distribution`). Buckets exactly as printed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Distribution {
    /// "bpftrace" | "bcc"
    pub tool: String,
    /// Map name with its `@` (`@usecs`) or the BCC column name (`usecs`).
    pub name: String,
    /// The map key or the BCC section line (`disk = sda`), as printed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// Unit of the bucket bounds: "ns" | "us" | "ms" | "s" when the name
    /// says so (`usecs`, `@ns`), "kB" for BCC `kbytes`, else absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit: Option<String>,
    /// Whether `high` belongs to the bucket: BCC prints `2 -> 3`
    /// (inclusive), bpftrace `[2, 4)` (exclusive).
    #[serde(default)]
    pub high_inclusive: bool,
    pub buckets: Vec<DistBucket>,
    /// Events counted, when printed (BCC funclatency `count:`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
    /// Sum of the values, when printed (BCC funclatency `total:`), in
    /// `summary_unit`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sum: Option<f64>,
    /// Mean, when printed (BCC funclatency `avg =`), in `summary_unit`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub avg: Option<f64>,
    /// Unit of `sum` and `avg` as funclatency prints it, which is not
    /// always the histogram's (`-u` prints buckets in usecs, avg in nsecs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary_unit: Option<String>,
}

/// One bucket. `low` is absent for bpftrace's `(..., x)` underflow bucket,
/// `high` for its `[x, ...)` overflow bucket. `K`/`M`/`G` suffixes of
/// bpftrace are expanded (powers of 1024).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DistBucket {
    pub low: Option<f64>,
    pub high: Option<f64>,
    pub count: u64,
}

// ------------------------------------------------------------------ profile

/// A `perf report` / `perf top` flat profile.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Profile {
    /// "perf-report" | "perf-top"
    pub tool: String,
    /// `# Samples: 11K of event 'cpu-clock'` -> "cpu-clock".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event: Option<String>,
    /// Sample count as printed with its suffix expanded (`11K` -> 11000,
    /// so approximate when a suffix was printed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub samples: Option<u64>,
    /// `# Event count (approx.): N`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event_count: Option<u64>,
    pub rows: Vec<ProfileRow>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ProfileRow {
    /// `Overhead`, or `Self` when `Children` was printed too.
    pub overhead_pct: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub children_pct: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// Shared object: `[kernel.kallsyms]`, `libc.so.6`, ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<String>,
    /// `k` (kernel) or `.` (user) from the `[k]` / `[.]` marker.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub space: Option<String>,
    /// Empty (and left out of the JSON) when the report was sorted by
    /// other keys only (`--sort comm,dso`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub symbol: String,
    /// Level in a call graph pasted as the profile (`- 18.75% compact_zone`
    /// is 0, the entries indented under it 1, ...); absent for flat rows.
    /// Such a row's `overhead_pct` is the share perf printed on the entry,
    /// which includes its callees.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
}

impl ProfileRow {
    /// What the row is the share of: its symbol, else its shared object
    /// (`--sort dso`), else its command (`--sort comm`).
    pub fn key(&self) -> &str {
        [
            Some(self.symbol.as_str()),
            self.object.as_deref(),
            self.command.as_deref(),
        ]
        .into_iter()
        .flatten()
        .find(|k| !k.is_empty())
        .unwrap_or("")
    }

    /// The row as a metric's name: its [key](Self::key), with its command
    /// in brackets when the key is not the command (`clear_page [usemem]`,
    /// `libc.so.6 [sort]`, `gzip`).
    pub fn name(&self) -> String {
        let key = self.key();
        match self.command.as_deref() {
            Some(c) if !self.symbol.is_empty() || self.object.is_some() => format!("{key} [{c}]"),
            _ => key.to_string(),
        }
    }
}

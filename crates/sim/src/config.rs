//! Scenario, board and kernel-preset data: parsing TOML into typed
//! configuration with errors that name the offending field.
//!
//! Each file is read into `*File` structs (serde derive, unknown keys
//! refused) whose fields are checked value types (`Positive`, `AtMost<N>`,
//! `Pair`, `Duration`, ...); `serde_path_to_error` gives the full path of
//! a bad field (`workload.file_lru.normal_band_mb[1]`). Knobs and costs
//! are tables read through the knob and cost tables, which build the same
//! paths. Defaults that depend on the board are applied after reading.
//!
//! Boards (per-operation costs, spec §4) and kernel presets (structural
//! knobs, spec §6) are data files under `crates/sim/data/`, compiled in with
//! `include_str!`; a scenario names one of each and may override any value.
//! Owns no simulation logic.

use serde::{Deserialize, Serialize};
use toml::{Table, Value};

/// A scenario file could not be used; `field` is a dotted path with indices
/// (`variants[1].knobs.isolate_time_cap_us`).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{field}: {reason}")]
pub struct ScenarioError {
    pub field: String,
    pub reason: String,
}

impl ScenarioError {
    pub(crate) fn new(field: impl Into<String>, reason: impl Into<String>) -> Self {
        ScenarioError {
            field: field.into(),
            reason: reason.into(),
        }
    }
}

type R<T> = Result<T, ScenarioError>;

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

fn show(v: &Value) -> String {
    match v {
        Value::String(s) => format!("{s:?}"),
        other => other.to_string(),
    }
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::String(_) => "a string",
        Value::Integer(_) => "an integer",
        Value::Float(_) => "a number",
        Value::Boolean(_) => "a boolean",
        Value::Datetime(_) => "a date",
        Value::Array(_) => "an array",
        Value::Table(_) => "a table",
    }
}

fn as_num(v: &Value) -> Option<f64> {
    match v {
        Value::Integer(i) => Some(*i as f64),
        Value::Float(f) => Some(*f),
        _ => None,
    }
}

// ------------------------------------------------------------ value checks

/// The checks of one TOML value. Each says what it expected and what it
/// found; the path is added by whoever knows it ([`from_toml`] through
/// `serde_path_to_error`, or the knob and cost tables).
fn positive_num(v: &Value) -> Result<f64, String> {
    match as_num(v) {
        Some(x) if x > 0.0 && x.is_finite() => Ok(x),
        _ => Err(format!("expected a positive number, found {}", show(v))),
    }
}

fn non_negative_num(v: &Value) -> Result<f64, String> {
    match as_num(v) {
        Some(x) if x >= 0.0 && x.is_finite() => Ok(x),
        _ => Err(format!("expected a number >= 0, found {}", show(v))),
    }
}

fn whole(v: &Value) -> Result<u64, String> {
    match v {
        Value::Integer(i) if *i >= 0 => Ok(*i as u64),
        _ => Err(format!(
            "expected a non-negative integer, found {}",
            show(v)
        )),
    }
}

fn whole_in(v: &Value, min: u64, max: u64) -> Result<u64, String> {
    let n = whole(v)?;
    if (min..=max).contains(&n) {
        Ok(n)
    } else {
        Err(format!("expected {min}..={max}, found {n}"))
    }
}

fn text(v: &Value) -> Result<String, String> {
    match v {
        Value::String(s) => Ok(s.clone()),
        _ => Err(format!("expected a string, found {}", type_name(v))),
    }
}

fn non_negative(v: &Value, path: &str) -> R<f64> {
    non_negative_num(v).map_err(|r| ScenarioError::new(path, r))
}

/// A value type checked by a function of the TOML value: its
/// `Deserialize` reads any value and runs the check.
macro_rules! checked {
    ($($(#[doc = $doc:literal])* $name:ident($t:ty) = $check:expr;)*) => {$(
        $(#[doc = $doc])*
        #[derive(Debug, Clone, PartialEq)]
        struct $name($t);
        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let check: fn(&Value) -> Result<$t, String> = $check;
                check(&Value::deserialize(d)?)
                    .map($name)
                    .map_err(serde::de::Error::custom)
            }
        }
    )*};
}

checked! {
    /// A finite number > 0.
    Positive(f64) = positive_num;
    /// A finite number >= 0.
    NonNegative(f64) = non_negative_num;
    /// An integer >= 0.
    Whole(u64) = whole;
    /// A string.
    Text(String) = text;
    /// A share, 0..=1.
    Fraction(f64) = |v| {
        let x = non_negative_num(v)?;
        if x > 1.0 { Err(format!("expected 0..=1, found {x}")) } else { Ok(x) }
    };
    /// A size in GiB, at most 10^6 (a zone, an unmapped range).
    Gib(f64) = |v| {
        let x = positive_num(v)?;
        if x > 1.0e6 { Err("expected at most 1000000".into()) } else { Ok(x) }
    };
    /// A real-time priority.
    Prio(u64) = |v| whole_in(v, 1, 99);
    /// A CPU count.
    Cpus(u64) = |v| whole_in(v, 1, 1024);
    /// A usemem instance count.
    Instance(u64) = |v| whole_in(v, 1, 1024);
    /// usemem's passes over its memory (`-r`).
    Loops(u64) = |v| whole_in(v, 1, 1000);
    /// A tick rate.
    Hz(u64) = |v| match whole(v)? {
        0 => Err("expected a positive integer, found 0".into()),
        n => Ok(n),
    };
    /// "30m", "20s", "500ms", ... or a number of seconds.
    Duration(u64) = duration_ns;
    /// The swap device.
    Swap(SwapKind) = |v| {
        let s = text(v)?;
        match s.as_str() {
            "none" => Ok(SwapKind::None),
            "zram" => Ok(SwapKind::Zram),
            "brd" => Ok(SwapKind::Brd),
            _ => Err(format!("expected one of none | zram | brd, found {s:?}")),
        }
    };
}

/// An integer in 0..=MAX (keeps a hostile scenario from asking for
/// unbounded memory).
#[derive(Debug, Clone, Copy, PartialEq)]
struct AtMost<const MAX: u64>(u64);

impl<'de, const MAX: u64> Deserialize<'de> for AtMost<MAX> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let n = whole(&Value::deserialize(d)?).map_err(serde::de::Error::custom)?;
        if n > MAX {
            return Err(serde::de::Error::custom(format!(
                "expected at most {MAX}, found {n}"
            )));
        }
        Ok(AtMost(n))
    }
}

/// `[min, max]` with min <= max.
#[derive(Debug, Clone, PartialEq)]
struct Pair<T>([T; 2]);

impl<'de, T: Deserialize<'de> + PartialOrd + Clone> Deserialize<'de> for Pair<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de> + PartialOrd + Clone> serde::de::Visitor<'de> for V<T> {
            type Value = Pair<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("[min, max]")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Pair<T>, A::Error> {
                use serde::de::Error;
                let lo: T = seq
                    .next_element()?
                    .ok_or_else(|| A::Error::invalid_length(0, &self))?;
                let hi: T = seq
                    .next_element()?
                    .ok_or_else(|| A::Error::invalid_length(1, &self))?;
                if seq.next_element::<Value>()?.is_some() {
                    return Err(A::Error::invalid_length(3, &self));
                }
                if hi < lo {
                    return Err(A::Error::custom("expected min <= max"));
                }
                Ok(Pair([lo, hi]))
            }
        }
        d.deserialize_seq(V(std::marker::PhantomData))
    }
}

impl PartialOrd for Positive {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        self.0.partial_cmp(&o.0)
    }
}

impl PartialOrd for Whole {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        self.0.partial_cmp(&o.0)
    }
}

/// The sizes unmapped: one size, or an array of 1 to 16.
#[derive(Debug, Clone, PartialEq)]
struct Sizes(Vec<f64>);

impl<'de> Deserialize<'de> for Sizes {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Sizes;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a size in GiB or an array of 1 to 16 sizes")
            }
            fn visit_i64<E: serde::de::Error>(self, x: i64) -> Result<Sizes, E> {
                self.visit_f64(x as f64)
            }
            fn visit_u64<E: serde::de::Error>(self, x: u64) -> Result<Sizes, E> {
                self.visit_f64(x as f64)
            }
            fn visit_f64<E: serde::de::Error>(self, x: f64) -> Result<Sizes, E> {
                let Gib(g) = Gib::deserialize(serde::de::value::F64Deserializer::<E>::new(x))?;
                Ok(Sizes(vec![g]))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Sizes, A::Error> {
                let mut v = Vec::new();
                while let Some(Gib(g)) = seq.next_element()? {
                    v.push(g);
                }
                if v.is_empty() || v.len() > 16 {
                    return Err(serde::de::Error::custom("expected 1 to 16 sizes"));
                }
                Ok(Sizes(v))
            }
        }
        d.deserialize_any(V)
    }
}

/// usemem's instance counts: a non-empty array.
#[derive(Debug, Clone, PartialEq)]
struct Instances(Vec<u32>);

impl<'de> Deserialize<'de> for Instances {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Instances;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an array of positive integers")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Instances, A::Error> {
                let mut v = Vec::new();
                while let Some(Instance(n)) = seq.next_element()? {
                    v.push(n as u32);
                }
                if v.is_empty() {
                    return Err(serde::de::Error::custom(
                        "expected at least one instance count",
                    ));
                }
                Ok(Instances(v))
            }
        }
        d.deserialize_seq(V)
    }
}

/// Deserialize a TOML table into `T`, with errors that name the full path
/// of the field (`prefix` first: `board x86-server.costs`), in the words of
/// the checks above; serde's own messages (a wrong type, a missing or
/// unknown field) are put the same way.
fn from_toml<T: serde::de::DeserializeOwned>(t: Table, prefix: &str) -> R<T> {
    serde_path_to_error::deserialize(Value::Table(t)).map_err(|e| {
        let mut path = match e.path().to_string() {
            p if p == "." => prefix.to_string(),
            p => join(prefix, &p),
        };
        let msg = e.inner().message().trim().to_string();
        let reason = if let Some(rest) = msg.strip_prefix("missing field `") {
            path = join(&path, rest.trim_end_matches('`'));
            "missing field".to_string()
        } else if let Some(rest) = msg.strip_prefix("unknown field `") {
            let (key, expected) = rest.split_once('`').unwrap_or((rest, ""));
            if !path.ends_with(key) {
                path = join(&path, key);
            }
            let names = expected
                .trim_start_matches(", expected one of ")
                .trim_start_matches(", expected ")
                .replace("` or `", ", ")
                .replace('`', "");
            format!("unknown field; expected one of: {names}")
        } else if let Some((got, expected)) = msg
            .strip_prefix("invalid type: ")
            .or_else(|| msg.strip_prefix("invalid value: "))
            .and_then(|r| r.split_once(", expected "))
        {
            format!(
                "expected {}, found {}",
                toml_words(expected),
                value_words(got)
            )
        } else if let Some((n, expected)) = msg
            .strip_prefix("invalid length ")
            .and_then(|r| r.split_once(", expected "))
        {
            format!("expected {expected}, found {n} items")
        } else {
            msg
        };
        ScenarioError::new(path, reason)
    })
}

/// serde's name of an expected type in TOML's words.
fn toml_words(expected: &str) -> &str {
    match expected {
        "a sequence" => "an array",
        "a map" => "a table",
        other => other,
    }
}

/// serde's description of a value found (`integer \`3\``, `string "x"`,
/// `map`) as the value or TOML's name of its type.
fn value_words(got: &str) -> String {
    for kind in ["integer ", "floating point ", "boolean ", "string "] {
        if let Some(v) = got.strip_prefix(kind) {
            return v.trim_matches('`').to_string();
        }
    }
    match got {
        "map" => "a table".into(),
        "sequence" => "an array".into(),
        other => other.into(),
    }
}

/// Parses "30m", "20s", "500ms", "250us", "1h" or a bare number of seconds.
pub fn parse_duration(s: &str) -> Option<u64> {
    let s = s.trim();
    let (num, mul) = if let Some(n) = s.strip_suffix("ms") {
        (n, 1e6)
    } else if let Some(n) = s.strip_suffix("us") {
        (n, 1e3)
    } else if let Some(n) = s.strip_suffix("ns") {
        (n, 1.0)
    } else if let Some(n) = s.strip_suffix('s') {
        (n, 1e9)
    } else if let Some(n) = s.strip_suffix('m') {
        (n, 60e9)
    } else if let Some(n) = s.strip_suffix('h') {
        (n, 3600e9)
    } else {
        (s, 1e9)
    };
    let x: f64 = num.trim().parse().ok()?;
    if x.is_finite() && x > 0.0 {
        Some((x * mul).round() as u64)
    } else {
        None
    }
}

fn duration_ns(v: &Value) -> Result<u64, String> {
    let parsed = match v {
        Value::String(s) => parse_duration(s),
        other => as_num(other).filter(|x| *x > 0.0).map(|x| (x * 1e9) as u64),
    };
    parsed.ok_or_else(|| {
        format!(
            "expected a positive duration like \"30m\", \"20s\" or \"500ms\", found {}",
            show(v)
        )
    })
}

// ------------------------------------------------------------------ costs

macro_rules! costs {
    ($($(#[doc = $doc:literal])* $name:ident),* $(,)?) => {
        /// Per-operation costs in nanoseconds per item (spec §4.2). Values
        /// come from the board file, then the scenario's `[costs]` table.
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
        pub struct Costs { $($(#[doc = $doc])* pub $name: f64,)* }
        impl Costs {
            pub(crate) const NAMES: &'static [&'static str] = &[$(stringify!($name)),*];
            fn set(&mut self, key: &str, v: &Value, path: &str) -> R<()> {
                match key {
                    $(stringify!($name) => { self.$name = non_negative(v, path)?; Ok(()) })*
                    _ => Err(ScenarioError::new(path, format!(
                        "unknown cost; expected one of: {}", Self::NAMES.join(", ")))),
                }
            }
            fn scale(&mut self, f: f64) { $(self.$name *= f;)* }
        }
    };
}

costs! {
    /// isolate_lru_folios: visit a folio of an ineligible zone and move it to the skipped list.
    lru_visit_skip,
    /// extra per eligible folio taken (try_get, clear LRU).
    lru_isolate_take,
    /// move_folios_to_lru per folio (lru_lock held, IRQs off).
    lru_putback,
    /// lru_add_drain per folio (lru_lock irqsave).
    lru_add_drain,
    /// uncontended spin lock + unlock.
    spin_lock,
    /// contended handoff (cache-line transfer).
    lock_handoff,
    /// shrink_folio_list fixed part per folio.
    shrink_folio_fixed,
    /// folio_referenced: rmap walk, young test/clear.
    folio_referenced,
    /// madvise pageout walk per present PTE, without the young clear.
    madvise_pte,
    /// madvise: young clear + PTE rewrite + TLB gather per PTE.
    madvise_young_clear,
    /// swap-cache insert (the tree_lock / xa_lock hold portion of add_to_swap).
    swapcache_insert,
    /// swap slot allocation, SSD cluster allocator.
    swap_slot_ssd,
    /// swap slot allocation, rotational scan_swap_map (swap_info lock held).
    swap_slot_rotational,
    /// try_to_unmap, anon, one mapping.
    try_to_unmap,
    /// zram compress of 4 KiB.
    zram_compress,
    /// brd ramdisk write of 4 KiB.
    brd_write,
    /// __remove_mapping hold portion under the mapping's xa_lock.
    remove_mapping,
    /// page free (batched free_unref_folios).
    page_free,
    /// zap per 4 KiB page under the PTE lock (munmap).
    zap_page,
    /// release_pages/free_unref_page_list per page in the munmap free path.
    munmap_free_page,
    /// local TLB flush.
    tlb_flush_local,
    /// timer IRQ entry + hrtimer + try_to_wake_up.
    irq_wakeup,
    /// context switch to the RT task + return to user + clock_gettime.
    ctx_switch_user,
    /// cond_resched / need_resched check.
    cond_resched,
    /// anon page fault + zero fill of 4 KiB.
    page_fault,
    /// move_expired_inodes per inode (wb->list_lock held).
    inode_move,
    /// buffered write of 4 KiB: copy + page cache insert.
    file_write_page,
    /// rwsem down/up, uncontended.
    rwsem_op,
    /// /proc/pid/cmdline read under mmap_lock (read).
    proc_read,
    /// munmap VMA lookup/split/detach under the write lock.
    munmap_detach,
    /// user-space work of a stress or usemem loop per 4 KiB page touched.
    user_touch_page,
}

/// A board class: platform constants plus costs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Board {
    pub name: String,
    pub description: String,
    pub cpus: u32,
    pub hz: u32,
    /// Coefficient of variation of per-item costs (spec §2.3, default 0.3).
    pub cost_cv: f64,
    pub costs: Costs,
}

/// A kernel preset: structural knobs of a kernel version.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Preset {
    pub name: String,
    pub description: String,
    pub kernel: String,
    pub knobs: Knobs,
}

// ------------------------------------------------------------------ knobs

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Preempt {
    None,
    Voluntary,
    Full,
    Lazy,
    Rt,
}

impl Preempt {
    /// The `M:` name ftrace prints (kernel/trace/trace.c).
    pub fn trace_name(self) -> &'static str {
        match self {
            Preempt::None => "server",
            Preempt::Voluntary => "desktop",
            Preempt::Full | Preempt::Lazy => "preempt",
            Preempt::Rt => "preempt_rt",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LruBackend {
    Classic,
    Mglru,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MadviseResched {
    None,
    Unconditional,
    NeedResched,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MunmapMode {
    WriteWhole,
    Section,
    Downgrade,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DropIf {
    Contended,
    ContendedAndNeedResched,
}

/// Every variant knob of the spec (§2.4) plus the kernel-model switches.
/// A preset sets a full `Knobs`; a scenario's `[knobs]` and each variant's
/// `knobs` table change individual fields on top.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Knobs {
    pub preempt: Preempt,
    /// Reproduces 6.5-rt6's behaviour in S1: spinlock_t sections were not
    /// preemptible for an RT wakeup (switch at rt_spin_unlock), spec §1.12.
    pub rt_sleeping_spinlock_defers_preemption: bool,
    pub lru: LruBackend,
    /// Pre-791b48b64232: skipped folios count toward nr_to_scan.
    pub isolate_skip_counts: bool,
    /// liuye: stop after this many skipped folios (SWAP_CLUSTER_MAX_SKIPPED).
    pub isolate_max_skipped: Option<u64>,
    /// Mike Galbraith RFC: break after this long, checked every N pages.
    pub isolate_time_cap_us: Option<f64>,
    pub isolate_time_cap_every: u64,
    pub madvise_resched: MadviseResched,
    pub madvise_resched_every: u64,
    /// S3: MADV_PAGEOUT ignores references instead of clearing young.
    pub madvise_ignore_references: bool,
    pub munmap_mode: MunmapMode,
    pub munmap_section_gb: f64,
    pub munmap_drop_if: DropIf,
    /// S5 patch 1: batch __remove_mapping under one tree_lock hold.
    pub remove_mapping_batched: bool,
    /// S5 patch 2 clears this (brd becomes non-rotational).
    pub swap_rotational: bool,
    /// 4b3ef9daa4fc (v4.11): one swap address_space per 64 MiB of swap.
    pub swapcache_trunk_pages: Option<u64>,
    /// S5 patch 3: kswapd stalls up to this long when its batched tree_lock
    /// trylock fails and another node is the exclusive one.
    pub kswapd_backoff_on_tree_lock_ms: Option<f64>,
    /// S5 patch 4: patch 3's stalling kswapd marks its node PGDAT_CONGESTED.
    pub direct_congest_on_tree_lock: bool,
    /// S4 patch 2: move_expired_inodes breaks after 100 inodes when
    /// need_resched and this long has passed.
    pub writeback_move_expired_cap_us: Option<f64>,
}

impl Default for Knobs {
    fn default() -> Self {
        Knobs {
            preempt: Preempt::Voluntary,
            rt_sleeping_spinlock_defers_preemption: false,
            lru: LruBackend::Classic,
            isolate_skip_counts: false,
            isolate_max_skipped: None,
            isolate_time_cap_us: None,
            isolate_time_cap_every: 1024,
            madvise_resched: MadviseResched::None,
            madvise_resched_every: 32,
            madvise_ignore_references: false,
            munmap_mode: MunmapMode::Downgrade,
            munmap_section_gb: 1.0,
            munmap_drop_if: DropIf::ContendedAndNeedResched,
            remove_mapping_batched: false,
            swap_rotational: false,
            swapcache_trunk_pages: Some(16384),
            kswapd_backoff_on_tree_lock_ms: None,
            direct_congest_on_tree_lock: false,
            writeback_move_expired_cap_us: None,
        }
    }
}

/// The type and range of a knob's value.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum KnobType {
    Bool,
    Choice {
        options: &'static [&'static str],
    },
    /// A whole number in `min..=max`.
    Count {
        min: u64,
        max: u64,
    },
    /// A number greater than 0 and at most `max`.
    Number {
        max: f64,
    },
    /// An optional whole number in `min..=max`; `false` or 0 turns it off.
    OptCount {
        min: u64,
        max: u64,
    },
    /// An optional number greater than 0 and at most `max`; `false` or 0
    /// turns it off.
    OptNumber {
        max: f64,
    },
}

/// One knob: the single description used by scenario TOML, the API's
/// numeric overrides and sweeps (see [`knob_table`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct KnobSpec {
    pub name: &'static str,
    #[serde(flatten)]
    pub ty: KnobType,
    /// Unit of a numeric value ("" for booleans and choices).
    pub unit: &'static str,
    /// What it models, with the spec section or commit.
    pub models: &'static str,
}

const PREEMPT_OPTS: &[&str] = &["none", "voluntary", "full", "lazy", "rt"];
const LRU_OPTS: &[&str] = &["classic", "mglru"];
const MADV_OPTS: &[&str] = &["none", "unconditional", "need_resched"];
const MUNMAP_OPTS: &[&str] = &["write_whole", "section", "downgrade"];
const DROP_OPTS: &[&str] = &["contended", "contended_and_need_resched"];

/// Every knob, in the order the documentation lists them.
pub(crate) const KNOBS: &[KnobSpec] = &[
    KnobSpec {
        name: "preempt",
        ty: KnobType::Choice {
            options: PREEMPT_OPTS,
        },
        unit: "",
        models: "preemption model (spec §1.12)",
    },
    KnobSpec {
        name: "rt_sleeping_spinlock_defers_preemption",
        ty: KnobType::Bool,
        unit: "",
        models: "6.5-rt6 of S1: spinlock_t sections not preemptible for an RT wakeup (spec §1.12)",
    },
    KnobSpec {
        name: "lru",
        ty: KnobType::Choice { options: LRU_OPTS },
        unit: "",
        models: "MGLRU: at most MAX_LRU_BATCH = 4096 folios visited per lock hold (spec §1.1)",
    },
    KnobSpec {
        name: "isolate_skip_counts",
        ty: KnobType::Bool,
        unit: "",
        models: "pre-791b48b64232: skipped folios count toward nr_to_scan (spec §1.3)",
    },
    KnobSpec {
        name: "isolate_max_skipped",
        ty: KnobType::OptCount {
            min: 1,
            max: 1 << 40,
        },
        unit: "folios",
        models: "SWAP_CLUSTER_MAX_SKIPPED: stop the isolate walk after this many skips (spec §1.3)",
    },
    KnobSpec {
        name: "isolate_time_cap_us",
        ty: KnobType::OptNumber { max: 1e6 },
        unit: "us",
        models: "isolate_lru_folios time cap of the S4 RFC PATCH1 (spec §1.3)",
    },
    KnobSpec {
        name: "isolate_time_cap_every",
        ty: KnobType::Count {
            min: 1,
            max: 1 << 20,
        },
        unit: "folios",
        models: "how often the time cap reads local_clock() (spec §1.3)",
    },
    KnobSpec {
        name: "madvise_resched",
        ty: KnobType::Choice { options: MADV_OPTS },
        unit: "",
        models: "PTE-lock break in the MADV_PAGEOUT walk: S1 v1, b2f557a21bc8 (spec §1.7)",
    },
    KnobSpec {
        name: "madvise_resched_every",
        ty: KnobType::Count { min: 1, max: 512 },
        unit: "PTEs",
        models: "batch between the walk's break checks (SWAP_CLUSTER_MAX = 32, spec §1.7)",
    },
    KnobSpec {
        name: "madvise_ignore_references",
        ty: KnobType::Bool,
        unit: "",
        models: "S3: no young clear / TLB flush in the walk, no folio_check_references (spec §1.7)",
    },
    KnobSpec {
        name: "munmap_mode",
        ty: KnobType::Choice {
            options: MUNMAP_OPTS,
        },
        unit: "",
        models: "mmap_lock over munmap: whole, S2 RFC sections, dd2283f2605e downgrade (spec §1.8)",
    },
    KnobSpec {
        name: "munmap_section_gb",
        ty: KnobType::Number { max: 1e6 },
        unit: "GiB",
        models: "section size of the S2 RFC (HPAGE_PUD_SIZE = 1 GiB, spec §1.8)",
    },
    KnobSpec {
        name: "munmap_drop_if",
        ty: KnobType::Choice { options: DROP_OPTS },
        unit: "",
        models: "when a section boundary drops mmap_lock (spec §1.8)",
    },
    KnobSpec {
        name: "remove_mapping_batched",
        ty: KnobType::Bool,
        unit: "",
        models: "S5 patch 1: one tree_lock hold per batch in __remove_mapping (spec §1.11)",
    },
    KnobSpec {
        name: "swap_rotational",
        ty: KnobType::Bool,
        unit: "",
        models: "scan_swap_map (one cursor, si->lock) vs SSD per-CPU clusters; S5 patch 2 (spec §1.11)",
    },
    KnobSpec {
        name: "swapcache_trunk_pages",
        ty: KnobType::OptCount {
            min: 1,
            max: 1 << 30,
        },
        unit: "pages",
        models: "4b3ef9daa4fc: one swap-cache address_space (tree_lock) per trunk (spec §1.11)",
    },
    KnobSpec {
        name: "kswapd_backoff_on_tree_lock_ms",
        ty: KnobType::OptNumber { max: 1e5 },
        unit: "ms",
        models: "S5 patch 3: a kswapd other than the exclusive node's stalls up to this long when its batch trylock of tree_lock fails; woken when the exclusive node is balanced (spec §1.6)",
    },
    KnobSpec {
        name: "direct_congest_on_tree_lock",
        ty: KnobType::Bool,
        unit: "",
        models: "S5 patch 4: a kswapd about to stall in patch 3 sets PGDAT_CONGESTED on its node, read by direct reclaim's wait_iff_congested() (sleeps only while a backing device is congested; brd never is) (spec §1.6)",
    },
    KnobSpec {
        name: "writeback_move_expired_cap_us",
        ty: KnobType::OptNumber { max: 1e6 },
        unit: "us",
        models: "S4 patch 2: move_expired_inodes breaks after 100 inodes once need_resched and this long passed",
    },
];

/// Every knob with its type, range, unit and what it models: the one
/// table behind scenario TOML, API overrides and sweeps.
pub fn knob_table() -> &'static [KnobSpec] {
    KNOBS
}

/// A knob value as a caller gives it: TOML gives any of these, the API's
/// numeric overrides and sweeps give `Number` (booleans as 0 / 1).
#[derive(Debug, Clone, PartialEq)]
pub enum KnobValue {
    Bool(bool),
    Number(f64),
    Text(String),
}

impl std::fmt::Display for KnobValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KnobValue::Bool(b) => write!(f, "{b}"),
            KnobValue::Number(x) => write!(f, "{x}"),
            KnobValue::Text(s) => write!(f, "{s:?}"),
        }
    }
}

/// A validated value.
enum Typed {
    Bool(bool),
    Choice(&'static str),
    Num(Option<f64>),
}

impl KnobSpec {
    fn range_text(&self) -> String {
        match self.ty {
            KnobType::Bool => "true or false (1 or 0)".into(),
            KnobType::Choice { options } => format!("one of {}", options.join(" | ")),
            KnobType::Count { min, max } => format!("a whole number in {min}..={max}"),
            KnobType::Number { max } => format!("a positive number (at most {max})"),
            KnobType::OptCount { min, max } => {
                format!("a whole number in {min}..={max}, or false (0) for off")
            }
            KnobType::OptNumber { max } => {
                format!("a positive number (at most {max}), or false (0) for off")
            }
        }
    }

    fn check(&self, v: &KnobValue, path: &str) -> R<Typed> {
        let bad = || ScenarioError::new(path, format!("expected {}, found {v}", self.range_text()));
        let num = |x: f64, max: f64| {
            if x.is_finite() && x > 0.0 && x <= max {
                Ok(x)
            } else {
                Err(bad())
            }
        };
        let whole = |x: f64, min: u64, max: u64| {
            if x.is_finite() && x.fract() == 0.0 && x >= min as f64 && x <= max as f64 {
                Ok(x)
            } else {
                Err(bad())
            }
        };
        Ok(match (self.ty, v) {
            (KnobType::Bool, KnobValue::Bool(b)) => Typed::Bool(*b),
            (KnobType::Bool, KnobValue::Number(x)) if *x == 0.0 || *x == 1.0 => {
                Typed::Bool(*x == 1.0)
            }
            (KnobType::Choice { options }, KnobValue::Text(s)) => Typed::Choice(
                options
                    .iter()
                    .find(|o| **o == s.as_str())
                    .copied()
                    .ok_or_else(bad)?,
            ),
            (KnobType::Count { min, max }, KnobValue::Number(x)) => {
                Typed::Num(Some(whole(*x, min, max)?))
            }
            (KnobType::Number { max }, KnobValue::Number(x)) => Typed::Num(Some(num(*x, max)?)),
            (KnobType::OptCount { .. } | KnobType::OptNumber { .. }, KnobValue::Bool(false)) => {
                Typed::Num(None)
            }
            (KnobType::OptCount { .. } | KnobType::OptNumber { .. }, KnobValue::Number(x))
                if *x == 0.0 =>
            {
                Typed::Num(None)
            }
            (KnobType::OptCount { min, max }, KnobValue::Number(x)) => {
                Typed::Num(Some(whole(*x, min, max)?))
            }
            (KnobType::OptNumber { max }, KnobValue::Number(x)) => Typed::Num(Some(num(*x, max)?)),
            _ => return Err(bad()),
        })
    }
}

fn knob_value(v: &Value) -> KnobValue {
    match v {
        Value::Boolean(b) => KnobValue::Bool(*b),
        Value::Integer(i) => KnobValue::Number(*i as f64),
        Value::Float(f) => KnobValue::Number(*f),
        Value::String(s) => KnobValue::Text(s.clone()),
        other => KnobValue::Text(other.to_string()),
    }
}

impl Knobs {
    /// Set one knob after validating it against [`knob_table`]; `path`
    /// names the field in errors (`variants[1].knobs.isolate_time_cap_us`).
    pub fn set(&mut self, name: &str, v: &KnobValue, path: &str) -> Result<(), ScenarioError> {
        let Some(spec) = KNOBS.iter().find(|k| k.name == name) else {
            let names: Vec<&str> = KNOBS.iter().map(|k| k.name).collect();
            return Err(ScenarioError::new(
                path,
                format!("unknown knob; expected one of: {}", names.join(", ")),
            ));
        };
        let t = spec.check(v, path)?;
        let (b, c, n) = match t {
            Typed::Bool(b) => (b, "", None),
            Typed::Choice(c) => (false, c, None),
            Typed::Num(n) => (false, "", n),
        };
        let whole = n.map(|x| x as u64);
        match name {
            "preempt" => {
                self.preempt = match c {
                    "none" => Preempt::None,
                    "voluntary" => Preempt::Voluntary,
                    "full" => Preempt::Full,
                    "lazy" => Preempt::Lazy,
                    _ => Preempt::Rt,
                }
            }
            "rt_sleeping_spinlock_defers_preemption" => {
                self.rt_sleeping_spinlock_defers_preemption = b
            }
            "lru" => {
                self.lru = match c {
                    "classic" => LruBackend::Classic,
                    _ => LruBackend::Mglru,
                }
            }
            "isolate_skip_counts" => self.isolate_skip_counts = b,
            "isolate_max_skipped" => self.isolate_max_skipped = whole,
            "isolate_time_cap_us" => self.isolate_time_cap_us = n,
            "isolate_time_cap_every" => self.isolate_time_cap_every = whole.unwrap_or(1),
            "madvise_resched" => {
                self.madvise_resched = match c {
                    "none" => MadviseResched::None,
                    "unconditional" => MadviseResched::Unconditional,
                    _ => MadviseResched::NeedResched,
                }
            }
            "madvise_resched_every" => self.madvise_resched_every = whole.unwrap_or(1),
            "madvise_ignore_references" => self.madvise_ignore_references = b,
            "munmap_mode" => {
                self.munmap_mode = match c {
                    "write_whole" => MunmapMode::WriteWhole,
                    "section" => MunmapMode::Section,
                    _ => MunmapMode::Downgrade,
                }
            }
            "munmap_section_gb" => self.munmap_section_gb = n.unwrap_or(1.0),
            "munmap_drop_if" => {
                self.munmap_drop_if = match c {
                    "contended" => DropIf::Contended,
                    _ => DropIf::ContendedAndNeedResched,
                }
            }
            "remove_mapping_batched" => self.remove_mapping_batched = b,
            "swap_rotational" => self.swap_rotational = b,
            "swapcache_trunk_pages" => self.swapcache_trunk_pages = whole,
            "kswapd_backoff_on_tree_lock_ms" => self.kswapd_backoff_on_tree_lock_ms = n,
            "direct_congest_on_tree_lock" => self.direct_congest_on_tree_lock = b,
            "writeback_move_expired_cap_us" => self.writeback_move_expired_cap_us = n,
            other => {
                return Err(ScenarioError::new(
                    path,
                    format!("knob {other} has no setter (internal)"),
                ));
            }
        }
        Ok(())
    }

    /// A numeric override (the API's `"variant.knob": value` and sweep
    /// points), through the same validation as TOML.
    pub fn set_number(&mut self, name: &str, value: f64) -> Result<(), ScenarioError> {
        self.set(name, &KnobValue::Number(value), name)
    }

    fn apply_table(&mut self, t: &Table, path: &str) -> R<()> {
        for (k, v) in t {
            self.set(k, &knob_value(v), &join(path, k))?;
        }
        Ok(())
    }
}

// ----------------------------------------------------------------- data files

const BOARD_FILES: &[(&str, &str)] = &[
    ("x86-server", include_str!("../data/boards/x86-server.toml")),
    (
        "x86-desktop",
        include_str!("../data/boards/x86-desktop.toml"),
    ),
    (
        "riscv-small",
        include_str!("../data/boards/riscv-small.toml"),
    ),
];

const PRESET_FILES: &[(&str, &str)] = &[
    ("v4_8", include_str!("../data/presets/v4_8.toml")),
    ("v4_9", include_str!("../data/presets/v4_9.toml")),
    ("v6_5_rt", include_str!("../data/presets/v6_5_rt.toml")),
    ("v6_10", include_str!("../data/presets/v6_10.toml")),
    ("v6_12", include_str!("../data/presets/v6_12.toml")),
];

pub(crate) const SCENARIO_FILES: &[(&str, &str)] = &[
    ("toy-lock", include_str!("../data/scenarios/toy-lock.toml")),
    (
        "v1-madvise-pte-walk",
        include_str!("../data/scenarios/v1-madvise-pte-walk.toml"),
    ),
    (
        "v2-munmap-sections",
        include_str!("../data/scenarios/v2-munmap-sections.toml"),
    ),
    (
        "v3-pageout-ignore-refs",
        include_str!("../data/scenarios/v3-pageout-ignore-refs.toml"),
    ),
    (
        "v4-isolate-irq-holdoff",
        include_str!("../data/scenarios/v4-isolate-irq-holdoff.toml"),
    ),
    (
        "v5-tree-lock-contention",
        include_str!("../data/scenarios/v5-tree-lock-contention.toml"),
    ),
];

fn parse_toml(text: &str, what: &str) -> R<Table> {
    text.parse::<Table>()
        .map_err(|e| ScenarioError::new(what, format!("invalid TOML: {}", e.message())))
}

/// A board file as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "a table")]
struct BoardFile {
    name: Text,
    description: Text,
    cpus: Whole,
    hz: Whole,
    cost_cv: NonNegative,
    /// Every cost of [`Costs`], checked by its own table.
    costs: Table,
}

fn parse_board(name: &str, text: &str) -> R<Board> {
    let p = format!("board {name}");
    let f: BoardFile = from_toml(parse_toml(text, &p)?, &p)?;
    let mut costs = Costs::default();
    for n in Costs::NAMES {
        if !f.costs.contains_key(*n) {
            return Err(ScenarioError::new(
                join(&p, &format!("costs.{n}")),
                "missing cost",
            ));
        }
    }
    for (k, v) in &f.costs {
        costs.set(k, v, &join(&p, &format!("costs.{k}")))?;
    }
    Ok(Board {
        name: f.name.0,
        description: f.description.0,
        cpus: f.cpus.0 as u32,
        hz: f.hz.0 as u32,
        cost_cv: f.cost_cv.0,
        costs,
    })
}

/// A kernel preset file as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "a table")]
struct PresetFile {
    name: Text,
    description: Text,
    kernel: Text,
    /// Knobs, checked by the knob table.
    knobs: Option<Table>,
}

fn parse_preset(name: &str, text: &str) -> R<Preset> {
    let p = format!("preset {name}");
    let f: PresetFile = from_toml(parse_toml(text, &p)?, &p)?;
    let mut knobs = Knobs::default();
    if let Some(k) = &f.knobs {
        knobs.apply_table(k, &join(&p, "knobs"))?;
    }
    Ok(Preset {
        name: f.name.0,
        description: f.description.0,
        kernel: f.kernel.0,
        knobs,
    })
}

/// Built-in boards (name, description).
pub fn boards() -> Vec<Board> {
    BOARD_FILES
        .iter()
        .map(|(n, t)| parse_board(n, t).expect("built-in board file is valid"))
        .collect()
}

/// Built-in kernel presets.
pub fn presets() -> Vec<Preset> {
    PRESET_FILES
        .iter()
        .map(|(n, t)| parse_preset(n, t).expect("built-in preset file is valid"))
        .collect()
}

// -------------------------------------------------------------- scenario

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ZoneCfg {
    pub name: String,
    pub gb: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SwapKind {
    None,
    Zram,
    Brd,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Machine {
    pub board: String,
    pub cpus: u32,
    pub hz: u32,
    pub nodes: u32,
    pub zones: Vec<ZoneCfg>,
    pub swap: SwapKind,
    /// Size of the swap device in GiB (default: as large as RAM).
    pub swap_gb: Option<f64>,
    /// The swap device's pages are RAM taken at boot (brd filled with
    /// `dd` before the run, mmtests `TESTDISK_RD_PREALLOC`): they are
    /// neither free nor on an LRU.
    pub swap_prealloc: bool,
    pub cost_cv: f64,
    /// Global factor applied to every cost (spec V3: emulated guests).
    pub cost_scale: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CyclictestCfg {
    pub threads: u32,
    pub interval_us: u64,
    pub distance_us: u64,
    pub prio: u32,
    pub histogram_us: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToyLockCfg {
    pub workers: u32,
    pub hold_us: f64,
    pub think_us: f64,
}

/// `make -jN` in outline: each of the `cpu_hogs` is a stream of
/// CPU-bound jobs (compiler processes). A job runs `job_ms` of CPU (uniform
/// in the range), exits, and the next one starts `gap_ms` later (make's
/// fork and exec), on the CPU the scheduler's wakeup placement picks; the
/// CPU left idle meanwhile pulls a queued task (newidle balance).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HogJobsCfg {
    pub job_ms: [f64; 2],
    pub gap_ms: [f64; 2],
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileLruCfg {
    /// Band sizes of the inactive file LRU, in MiB: long Normal-zone bands
    /// separated by short DMA32 bands (the zone mix of the LRU tail, the
    /// calibration knob of spec V4).
    pub normal_band_mb: [f64; 2],
    pub dma32_band_mb: [f64; 2],
    /// Page-cache write rate of the background writer (bonnie), MiB/s.
    pub write_mb_s: f64,
    /// Share of the file LRU bands that start on the active list (bonnie
    /// rewriting a RAM-sized file refaults, so kswapd deactivates from it).
    pub active_fraction: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Dma32Cfg {
    pub period_ms: f64,
    pub pages: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FlusherCfg {
    pub period_ms: f64,
    pub inodes: [u64; 2],
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StressVmCfg {
    pub workers: u32,
    pub bytes_mb: f64,
    pub madvise_fraction: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MunmapCfg {
    /// Sizes unmapped, one simulation each (the rows of S2's table).
    pub size_gb: Vec<f64>,
    pub start_ms: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProcReaderCfg {
    pub period_ms: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PageoutCfg {
    pub size_mb: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UsememCfg {
    pub instances: Vec<u32>,
    /// Total anonymous memory touched, as a multiple of RAM.
    pub ram_factor: f64,
    /// Passes over the memory (`usemem -r`): the first faults it in, each
    /// later one reads a page back (verifying the last write) and writes
    /// it again.
    pub loops: u32,
    /// How many times the measured run repeats the simulated one (its
    /// memory size and iterations when they are not stated): System,
    /// User, Elapsd and kswapd-sys are the simulated run's times this many
    /// times. Per-operation costs and the kernel's time constants (jiffies,
    /// S5 patch 3's 10 ms stall) stay real, so their ratio is kept.
    pub repeat: f64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Workload {
    pub cyclictest: Option<CyclictestCfg>,
    pub cpu_hogs: u32,
    /// The CPU hogs as the jobs of a parallel build instead of loops that
    /// never sleep (`[workload.hog_jobs]`).
    pub hog_jobs: Option<HogJobsCfg>,
    pub toy_lock: Option<ToyLockCfg>,
    pub file_lru: Option<FileLruCfg>,
    pub dma32_trickle: Option<Dma32Cfg>,
    pub flusher: Option<FlusherCfg>,
    pub stress_vm: Option<StressVmCfg>,
    pub munmap: Option<MunmapCfg>,
    pub proc_reader: Option<ProcReaderCfg>,
    pub pageout: Option<PageoutCfg>,
    pub usemem: Option<UsememCfg>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Variant {
    pub name: String,
    pub description: String,
    pub knobs: Knobs,
}

/// A loaded, validated scenario: machine, costs, workload and variants.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Scenario {
    pub name: String,
    pub description: String,
    /// Kernel preset the knobs start from, and the version string it prints.
    pub preset: String,
    pub kernel: String,
    pub machine: Machine,
    pub costs: Costs,
    pub duration_ns: u64,
    pub replications: u32,
    pub workload: Workload,
    pub variants: Vec<Variant>,
}

/// Built-in scenarios (name, one-line description).
pub fn scenarios() -> Vec<(&'static str, &'static str)> {
    SCENARIO_FILES
        .iter()
        .map(|(n, text)| {
            let t: Table = text.parse().expect("built-in scenario is TOML");
            let d = t.get("description").and_then(Value::as_str).unwrap_or("");
            // The description must outlive the call: leak-free because the
            // text is 'static; find the same slice in it.
            let start = text.find(d).unwrap_or(0);
            (*n, &text[start..start + d.len()])
        })
        .collect()
}

/// Load a built-in scenario by name, or parse a full TOML text.
pub fn load(name_or_toml: &str) -> R<Scenario> {
    let key = name_or_toml.trim();
    if let Some((_, text)) = SCENARIO_FILES.iter().find(|(n, _)| *n == key) {
        return parse_scenario(text);
    }
    if !key.contains('=') && !key.contains('[') {
        let names: Vec<&str> = SCENARIO_FILES.iter().map(|(n, _)| *n).collect();
        return Err(ScenarioError::new(
            "scenario",
            format!(
                "{key:?} is neither a built-in scenario ({}) nor TOML text",
                names.join(", ")
            ),
        ));
    }
    parse_scenario(name_or_toml)
}

// The scenario file as written: every table refuses unknown keys, every
// value is a checked type; defaults that depend on the board are applied
// by `parse_scenario`.

#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "a table")]
struct ScenarioFile {
    name: Option<Text>,
    description: Option<Text>,
    machine: Option<MachineFile>,
    kernel: Option<KernelFile>,
    /// Base knobs, checked by the knob table.
    knobs: Option<Table>,
    /// Cost overrides, checked by the cost table.
    costs: Option<Table>,
    run: Option<RunFile>,
    workload: Option<WorkloadFile>,
    variants: Option<Vec<VariantFile>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "a table")]
struct MachineFile {
    board: Text,
    cpus: Option<Cpus>,
    hz: Option<Hz>,
    nodes: Option<AtMost<64>>,
    zones: Option<Vec<ZoneFile>>,
    swap: Option<Swap>,
    swap_gb: Option<Gib>,
    swap_prealloc: Option<bool>,
    cost_scale: Option<Positive>,
    cost_cv: Option<NonNegative>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "a table")]
struct ZoneFile {
    name: Text,
    gb: Gib,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "a table")]
struct KernelFile {
    preset: Option<Text>,
    version: Option<Text>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "a table")]
struct RunFile {
    duration: Option<Duration>,
    replications: Option<Whole>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "a table")]
struct VariantFile {
    name: Text,
    description: Option<Text>,
    /// Knobs on top of the base, checked by the knob table.
    knobs: Option<Table>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "a table")]
struct WorkloadFile {
    cyclictest: Option<CyclictestFile>,
    cpu_hogs: Option<AtMost<4096>>,
    hog_jobs: Option<HogJobsFile>,
    toy_lock: Option<ToyLockFile>,
    file_lru: Option<FileLruFile>,
    dma32_trickle: Option<Dma32File>,
    flusher: Option<FlusherFile>,
    stress_vm: Option<StressVmFile>,
    munmap: Option<MunmapFile>,
    proc_reader: Option<PeriodFile>,
    pageout: Option<PageoutFile>,
    usemem: Option<UsememFile>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "a table")]
struct CyclictestFile {
    threads: Option<AtMost<4096>>,
    interval_us: Option<Positive>,
    distance_us: Option<Whole>,
    prio: Option<Prio>,
    histogram_us: Option<AtMost<1_000_000>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "a table")]
struct ToyLockFile {
    workers: Option<AtMost<4096>>,
    hold_us: Option<Positive>,
    think_us: Option<Positive>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "a table")]
struct HogJobsFile {
    job_ms: Pair<Positive>,
    gap_ms: Pair<Positive>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "a table")]
struct FileLruFile {
    normal_band_mb: Pair<Positive>,
    dma32_band_mb: Pair<Positive>,
    write_mb_s: Option<Positive>,
    active_fraction: Option<Fraction>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "a table")]
struct Dma32File {
    period_ms: Option<Positive>,
    pages: Option<Whole>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "a table")]
struct FlusherFile {
    period_ms: Option<Positive>,
    inodes: Pair<Whole>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "a table")]
struct StressVmFile {
    workers: Option<AtMost<4096>>,
    bytes_mb: Option<Positive>,
    madvise_fraction: Option<Fraction>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "a table")]
struct MunmapFile {
    size_gb: Option<Sizes>,
    start_ms: Option<NonNegative>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "a table")]
struct PeriodFile {
    period_ms: Option<Positive>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "a table")]
struct PageoutFile {
    size_mb: Option<Positive>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "a table")]
struct UsememFile {
    instances: Instances,
    ram_factor: Option<Positive>,
    loops: Option<Loops>,
    repeat: Option<Positive>,
}

/// The value given, or the default.
fn or<T, U>(v: Option<T>, d: U, f: impl FnOnce(T) -> U) -> U {
    v.map_or(d, f)
}

pub(crate) fn parse_scenario(text: &str) -> R<Scenario> {
    let f: ScenarioFile = from_toml(parse_toml(text, "scenario")?, "")?;
    let name = or(f.name, "custom".into(), |t| t.0);
    let description = or(f.description, String::new(), |t| t.0);

    // Machine and board.
    let m = f
        .machine
        .ok_or_else(|| ScenarioError::new("machine", "missing table"))?;
    let board_name = m.board.0;
    let board = boards()
        .into_iter()
        .find(|b| b.name == board_name)
        .ok_or_else(|| {
            ScenarioError::new(
                "machine.board",
                format!(
                    "unknown board {board_name:?}; expected one of: {}",
                    BOARD_FILES
                        .iter()
                        .map(|(n, _)| *n)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
        })?;
    let cpus = or(m.cpus, u64::from(board.cpus), |c| c.0);
    if !(1..=1024).contains(&cpus) {
        return Err(ScenarioError::new(
            "machine.cpus",
            format!("expected 1..=1024, found {cpus}"),
        ));
    }
    let mut zones: Vec<ZoneCfg> = m
        .zones
        .unwrap_or_default()
        .into_iter()
        .map(|z| ZoneCfg {
            name: z.name.0,
            gb: z.gb.0,
        })
        .collect();
    if zones.is_empty() {
        zones.push(ZoneCfg {
            name: "Normal".into(),
            gb: 8.0,
        });
    }
    let cost_scale = or(m.cost_scale, 1.0, |c| c.0);
    let machine = Machine {
        board: board.name.clone(),
        cpus: cpus as u32,
        hz: or(m.hz, u64::from(board.hz), |h| h.0) as u32,
        nodes: or(m.nodes, 1, |n| n.0).max(1) as u32,
        zones,
        swap: or(m.swap, SwapKind::None, |s| s.0),
        swap_gb: m.swap_gb.map(|g| g.0),
        swap_prealloc: m.swap_prealloc.unwrap_or(false),
        cost_cv: or(m.cost_cv, board.cost_cv, |c| c.0),
        cost_scale,
    };
    if machine.hz == 0 {
        return Err(ScenarioError::new(
            "machine.hz",
            "expected a positive integer, found 0",
        ));
    }

    let mut costs = board.costs.clone();
    for (k, v) in f.costs.iter().flatten() {
        costs.set(k, v, &format!("costs.{k}"))?;
    }
    costs.scale(cost_scale);

    // Kernel preset and base knobs.
    let (preset_name, kernel) = match f.kernel {
        Some(k) => (
            or(k.preset, "v6_12".into(), |t| t.0),
            k.version.map(|t| t.0),
        ),
        None => ("v6_12".to_string(), None),
    };
    let preset = presets()
        .into_iter()
        .find(|p| p.name == preset_name)
        .ok_or_else(|| {
            ScenarioError::new(
                "kernel.preset",
                format!(
                    "unknown preset {preset_name:?}; expected one of: {}",
                    PRESET_FILES
                        .iter()
                        .map(|(n, _)| *n)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
        })?;
    let mut base = preset.knobs.clone();
    if let Some(k) = &f.knobs {
        base.apply_table(k, "knobs")?;
    }

    // Run.
    let (duration_ns, replications) = match f.run {
        Some(r) => (
            or(r.duration, 10_000_000_000, |d| d.0),
            or(r.replications, 3, |n| n.0).max(1) as u32,
        ),
        None => (10_000_000_000, 3),
    };

    let workload = workload(f.workload, &machine);
    if workload.usemem.is_some() && machine.swap == SwapKind::None {
        return Err(ScenarioError::new(
            "machine.swap",
            "workload.usemem swaps: expected \"zram\" or \"brd\", found \"none\"",
        ));
    }

    if workload.hog_jobs.is_some() && workload.cpu_hogs == 0 {
        return Err(ScenarioError::new(
            "workload.hog_jobs",
            "jobs of the CPU hogs: expected workload.cpu_hogs >= 1, found 0",
        ));
    }

    // Variants.
    let mut variants: Vec<Variant> = Vec::new();
    for (i, v) in f.variants.into_iter().flatten().enumerate() {
        let vname = v.name.0;
        if variants.iter().any(|x| x.name == vname) {
            return Err(ScenarioError::new(
                format!("variants[{i}].name"),
                format!("duplicate variant name {vname:?}"),
            ));
        }
        let mut knobs = base.clone();
        if let Some(k) = &v.knobs {
            knobs.apply_table(k, &format!("variants[{i}].knobs"))?;
        }
        variants.push(Variant {
            name: vname,
            description: or(v.description, String::new(), |t| t.0),
            knobs,
        });
    }
    if variants.is_empty() {
        variants.push(Variant {
            name: "base".into(),
            description: String::new(),
            knobs: base,
        });
    }

    Ok(Scenario {
        name,
        description,
        preset: preset.name.clone(),
        kernel: kernel.unwrap_or(preset.kernel),
        machine,
        costs,
        duration_ns,
        replications,
        workload,
        variants,
    })
}

/// The workload with its defaults (checked already, as read).
fn workload(f: Option<WorkloadFile>, machine: &Machine) -> Workload {
    let Some(w) = f else {
        return Workload::default();
    };
    Workload {
        cyclictest: w.cyclictest.map(|c| CyclictestCfg {
            threads: or(c.threads, u64::from(machine.cpus), |n| n.0) as u32,
            interval_us: or(c.interval_us, 1000.0, |x| x.0) as u64,
            distance_us: or(c.distance_us, 500, |x| x.0),
            prio: or(c.prio, 99, |x| x.0) as u32,
            histogram_us: or(c.histogram_us, 0, |x| x.0),
        }),
        cpu_hogs: or(w.cpu_hogs, 0, |n| n.0) as u32,
        hog_jobs: w.hog_jobs.map(|h| HogJobsCfg {
            job_ms: h.job_ms.0.map(|x| x.0),
            gap_ms: h.gap_ms.0.map(|x| x.0),
        }),
        toy_lock: w.toy_lock.map(|c| ToyLockCfg {
            workers: or(c.workers, 4, |n| n.0) as u32,
            hold_us: or(c.hold_us, 20.0, |x| x.0),
            think_us: or(c.think_us, 5.0, |x| x.0),
        }),
        file_lru: w.file_lru.map(|c| FileLruCfg {
            normal_band_mb: c.normal_band_mb.0.map(|x| x.0),
            dma32_band_mb: c.dma32_band_mb.0.map(|x| x.0),
            write_mb_s: or(c.write_mb_s, 100.0, |x| x.0),
            active_fraction: or(c.active_fraction, 0.0, |x| x.0),
        }),
        dma32_trickle: w.dma32_trickle.map(|c| Dma32Cfg {
            period_ms: or(c.period_ms, 500.0, |x| x.0),
            pages: or(c.pages, 2048, |x| x.0),
        }),
        flusher: w.flusher.map(|c| FlusherCfg {
            period_ms: or(c.period_ms, 5000.0, |x| x.0),
            inodes: c.inodes.0.map(|x| x.0),
        }),
        stress_vm: w.stress_vm.map(|c| StressVmCfg {
            workers: or(c.workers, 4, |n| n.0) as u32,
            bytes_mb: or(c.bytes_mb, 2048.0, |x| x.0),
            madvise_fraction: or(c.madvise_fraction, 0.5, |x| x.0),
        }),
        munmap: w.munmap.map(|c| MunmapCfg {
            size_gb: or(c.size_gb, vec![320.0], |s| s.0),
            start_ms: or(c.start_ms, 100.0, |x| x.0),
        }),
        proc_reader: w.proc_reader.map(|c| ProcReaderCfg {
            period_ms: or(c.period_ms, 1000.0, |x| x.0),
        }),
        pageout: w.pageout.map(|c| PageoutCfg {
            size_mb: or(c.size_mb, 512.0, |x| x.0),
        }),
        usemem: w.usemem.map(|c| UsememCfg {
            instances: c.instances.0,
            ram_factor: or(c.ram_factor, 1.5, |x| x.0),
            loops: or(c.loops, 2, |x| x.0 as u32),
            repeat: or(c.repeat, 1.0, |x| x.0),
        }),
    }
}

//! Loading everything a comparison needs about a set of runs, and the
//! overview aggregates (heatmap, culprit leaderboard, history).

use std::collections::HashMap;

use sqlx::{FromRow, PgPool};

use crate::compare::{ColumnSpec, MAX_RUNS_PER_COLUMN};
use crate::storage::runs::{BucketRow, HistThreadRow, ThreadRow, TraceRow};

/// One run with its typed results.
#[derive(Debug, Clone)]
pub struct RunData {
    pub id: i64,
    pub upload_id: Option<i64>,
    pub block_index: i32,
    pub column_index: i32,
    pub board: String,
    pub kernel: String,
    pub variant: String,
    pub kind: String,
    pub title: Option<String>,
    /// The block's tool (`stress-ng`, `vmstat`, ...) or table style
    /// (`mmtests`, `lkp`, `plain`), else its kind: an input of the
    /// direction table.
    pub tool: String,
    /// `cyclictest`, `ftrace_latency`, `distribution`, ...
    pub block_kind: String,
    pub threads: Vec<ThreadRow>,
    /// Histogram footers per thread (overflows, printed maximum).
    pub hist_threads: Vec<HistThreadRow>,
    pub trace: Option<TraceRow>,
    /// The run's metric rows in stored order; their strings are in the
    /// column's [`ColumnRuns::metric_idents`].
    pub metrics: Vec<MetricSample>,
}

/// The strings of a metric row, stored once per column for all the rows
/// that share them (a chain comparison has about 10 000 metric rows and a
/// few hundred distinct identities).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MetricIdent {
    pub name: String,
    pub stat: Option<String>,
    pub unit: Option<String>,
    /// The table or test the value belongs to (its identity scope).
    pub scope: String,
    pub section: Option<String>,
    pub direction: Option<String>,
    pub direction_source: Option<String>,
    pub delta_convention: Option<String>,
}

/// One metric row of a run: its numbers and the index of its strings in
/// [`ColumnRuns::metric_idents`].
#[derive(Debug, Clone, Copy)]
pub struct MetricSample {
    pub ident: u32,
    pub value: f64,
    pub printed_delta_pct: Option<f64>,
    pub spread_pct: Option<f64>,
}

/// The runs of one column and their cyclictest histograms, summed per
/// thread and bucket in the database (a column of 500 runs has tens of
/// thousands of bucket rows; the comparison needs only their sums).
#[derive(Debug, Clone, Default)]
pub struct ColumnRuns {
    /// Oldest first: the newest [`MAX_RUNS_PER_COLUMN`] runs that match.
    pub runs: Vec<RunData>,
    /// More runs matched than a column holds: the older ones are left out.
    pub more: bool,
    /// Ordered by thread, then bucket.
    pub cyclictest_buckets: Vec<BucketRow>,
    /// The distinct strings of the runs' metric rows.
    pub metric_idents: Vec<MetricIdent>,
}

const HEAD_SELECT: &str =
    "SELECT r.id, r.upload_id, r.block_index, r.column_index, b.name AS board, k.version AS kernel,
            v.name AS variant, r.kind, r.title, r.tool, r.block_kind
     FROM runs r JOIN boards b ON b.id = r.board_id JOIN kernels k ON k.id = r.kernel_id
     JOIN variants v ON v.id = r.variant_id
     WHERE r.deleted_at IS NULL";

#[derive(FromRow)]
struct RunHead {
    id: i64,
    upload_id: Option<i64>,
    block_index: i32,
    column_index: i32,
    board: String,
    kernel: String,
    variant: String,
    kind: String,
    title: Option<String>,
    tool: String,
    block_kind: String,
}

/// The runs a column selects: the newest [`MAX_RUNS_PER_COLUMN`], listed
/// oldest first. Explicit run ids may name unlisted runs; filters only
/// match listed ones.
///
/// The statement is built from constant fragments, one per filter given
/// (never `$1 IS NULL OR ...`), so each filter set has a plan that uses
/// its indexes.
pub async fn column_runs(pool: &PgPool, spec: &ColumnSpec) -> sqlx::Result<ColumnRuns> {
    let mut q = sqlx::QueryBuilder::<sqlx::Postgres>::new(HEAD_SELECT);
    if spec.runs.is_empty() {
        q.push(" AND NOT r.unlisted");
    } else {
        q.push(" AND r.id = ANY(").push_bind(&spec.runs).push(")");
    }
    if let Some(b) = &spec.board {
        q.push(" AND b.name = ")
            .push_bind(crate::boards::canonical(b));
    }
    if let Some(k) = &spec.kernel {
        q.push(" AND k.version = ").push_bind(k);
    }
    if let Some(v) = &spec.variant {
        // The variant's id as a constant, so the newest runs come in order
        // from `runs_variant_newest_idx` instead of being sorted.
        q.push(" AND r.variant_id = (SELECT id FROM variants WHERE name = ")
            .push_bind(v)
            .push(")");
    }
    if let Some(kind) = &spec.kind {
        q.push(" AND r.kind = ").push_bind(kind);
    }
    if let Some(sim) = spec.simulation {
        q.push(" AND r.simulation_id = ").push_bind(sim);
    }
    q.push(" ORDER BY r.created_at DESC, r.id DESC LIMIT ")
        .push_bind(MAX_RUNS_PER_COLUMN + 1);
    let mut heads: Vec<RunHead> = q.build_query_as().fetch_all(pool).await?;
    let more = heads.len() as i64 > MAX_RUNS_PER_COLUMN;
    heads.truncate(MAX_RUNS_PER_COLUMN as usize);
    heads.reverse();
    let ids: Vec<i64> = heads.iter().map(|h| h.id).collect();
    #[derive(FromRow)]
    struct T {
        run_id: i64,
        #[sqlx(flatten)]
        row: ThreadRow,
    }
    #[derive(FromRow)]
    struct Tr {
        run_id: i64,
        #[sqlx(flatten)]
        row: TraceRow,
    }
    // `JOIN unnest($1)` rather than `run_id = ANY($1)`: with hundreds of
    // ids the planner otherwise scans the whole table comparing every row
    // with every id (27 ms instead of 1 ms per column at 10^5 runs).
    let threads: Vec<T> = sqlx::query_as(
        "SELECT run_id, thread, tid, priority, interval_us, cycles, cpu, min_us, act_us, avg_us, max_us
         FROM unnest($1::bigint[]) AS q(run) JOIN latency_threads ON run_id = q.run
         ORDER BY run_id, thread",
    )
    .bind(&ids)
    .fetch_all(pool)
    .await?;
    // The rows' strings are read in place from the rows as received and
    // interned: only each distinct identity is copied into a String.
    let metric_rows: Vec<sqlx::postgres::PgRow> = sqlx::query(
        "SELECT run_id, value, printed_delta_pct, spread_pct, name, stat, unit, scope, section,
                direction, direction_source, delta_convention
         FROM unnest($1::bigint[]) AS q(run) JOIN metrics ON run_id = q.run ORDER BY run_id, id",
    )
    .bind(&ids)
    .fetch_all(pool)
    .await?;
    let (metric_idents, metric_samples) = intern_metrics(&metric_rows)?;
    drop(metric_rows);
    #[derive(FromRow)]
    struct H {
        run_id: i64,
        #[sqlx(flatten)]
        row: HistThreadRow,
    }
    let hist_threads: Vec<H> = sqlx::query_as(
        "SELECT run_id, thread, bucket_us, overflows, total, min_us, avg_us, max_us
         FROM unnest($1::bigint[]) AS q(run) JOIN histogram_threads ON run_id = q.run
         ORDER BY run_id, thread",
    )
    .bind(&ids)
    .fetch_all(pool)
    .await?;
    let cyclictest: Vec<i64> = heads
        .iter()
        .filter(|h| h.block_kind == "cyclictest")
        .map(|h| h.id)
        .collect();
    let cyclictest_buckets: Vec<BucketRow> = if cyclictest.is_empty() {
        Vec::new()
    } else {
        sqlx::query_as(
            "SELECT thread, lower_us, sum(count)::bigint AS count FROM histogram_buckets
             WHERE run_id = ANY($1) GROUP BY thread, lower_us ORDER BY thread, lower_us",
        )
        .bind(&cyclictest)
        .fetch_all(pool)
        .await?
    };
    let traces: Vec<Tr> = sqlx::query_as(
        "SELECT run_id, tracer, latency_us, cpu, nr_cpus, preempt_model, task_comm, task_pid, culprit,
                culprit_path, stack
         FROM unnest($1::bigint[]) AS q(run) JOIN traces ON run_id = q.run",
    )
    .bind(&ids)
    .fetch_all(pool)
    .await?;
    // Rows arrive ordered by run; group them once instead of scanning every
    // list for every run.
    fn group<T>(rows: Vec<T>, key: impl Fn(&T) -> i64) -> HashMap<i64, Vec<T>> {
        let mut m: HashMap<i64, Vec<T>> = HashMap::new();
        for r in rows {
            m.entry(key(&r)).or_default().push(r);
        }
        m
    }
    let mut threads = group(threads, |t| t.run_id);
    let mut traces = group(traces, |t| t.run_id);
    let mut metrics = group(metric_samples, |m| m.0);
    let mut hist_threads = group(hist_threads, |h| h.run_id);
    let runs = heads
        .into_iter()
        .map(|h| RunData {
            threads: threads
                .remove(&h.id)
                .unwrap_or_default()
                .into_iter()
                .map(|t| t.row)
                .collect(),
            hist_threads: hist_threads
                .remove(&h.id)
                .unwrap_or_default()
                .into_iter()
                .map(|x| x.row)
                .collect(),
            trace: traces
                .remove(&h.id)
                .and_then(|v| v.into_iter().next())
                .map(|t| t.row),
            metrics: metrics
                .remove(&h.id)
                .unwrap_or_default()
                .into_iter()
                .map(|m| m.1)
                .collect(),
            id: h.id,
            upload_id: h.upload_id,
            block_index: h.block_index,
            column_index: h.column_index,
            board: h.board,
            kernel: h.kernel,
            variant: h.variant,
            kind: h.kind,
            title: h.title,
            tool: h.tool,
            block_kind: h.block_kind,
        })
        .collect();
    Ok(ColumnRuns {
        runs,
        more,
        cyclictest_buckets,
        metric_idents,
    })
}

type IdentKey<'r> = (
    &'r str,
    Option<&'r str>,
    Option<&'r str>,
    &'r str,
    Option<&'r str>,
    Option<&'r str>,
    Option<&'r str>,
    Option<&'r str>,
);

/// The distinct identities of metric rows and each row as (run, sample),
/// in the rows' order. Columns are read by position (the statement's
/// order), and the runs of one table repeat the same identities in the
/// same order, so a row is first checked against the identity at its
/// place in the run before: most rows are matched without hashing.
#[allow(clippy::type_complexity)]
fn intern_metrics(
    rows: &[sqlx::postgres::PgRow],
) -> sqlx::Result<(Vec<MetricIdent>, Vec<(i64, MetricSample)>)> {
    use sqlx::Row;
    let mut idents: Vec<MetricIdent> = Vec::new();
    let mut index: HashMap<IdentKey<'_>, u32> = HashMap::new();
    let mut samples = Vec::with_capacity(rows.len());
    // The identities of the previous run's rows, by place, and this run's.
    let (mut previous, mut current): (Vec<u32>, Vec<u32>) = (Vec::new(), Vec::new());
    let mut run: Option<i64> = None;
    for row in rows {
        let run_id: i64 = row.try_get(0)?;
        if run != Some(run_id) {
            run = Some(run_id);
            std::mem::swap(&mut previous, &mut current);
            current.clear();
        }
        let key: IdentKey<'_> = (
            row.try_get(4)?,
            row.try_get(5)?,
            row.try_get(6)?,
            row.try_get(7)?,
            row.try_get(8)?,
            row.try_get(9)?,
            row.try_get(10)?,
            row.try_get(11)?,
        );
        let same_place = previous
            .get(current.len())
            .copied()
            .filter(|&i| idents[i as usize].is(&key));
        let ident = match same_place {
            Some(i) => i,
            None => *index.entry(key).or_insert_with(|| {
                idents.push(MetricIdent {
                    name: key.0.to_string(),
                    stat: key.1.map(str::to_string),
                    unit: key.2.map(str::to_string),
                    scope: key.3.to_string(),
                    section: key.4.map(str::to_string),
                    direction: key.5.map(str::to_string),
                    direction_source: key.6.map(str::to_string),
                    delta_convention: key.7.map(str::to_string),
                });
                (idents.len() - 1) as u32
            }),
        };
        current.push(ident);
        samples.push((
            run_id,
            MetricSample {
                ident,
                value: row.try_get(1)?,
                printed_delta_pct: row.try_get(2)?,
                spread_pct: row.try_get(3)?,
            },
        ));
    }
    Ok((idents, samples))
}

impl MetricIdent {
    /// Whether this identity has exactly the strings of `key`.
    fn is(&self, key: &IdentKey<'_>) -> bool {
        self.name == key.0
            && self.stat.as_deref() == key.1
            && self.unit.as_deref() == key.2
            && self.scope == key.3
            && self.section.as_deref() == key.4
            && self.direction.as_deref() == key.5
            && self.direction_source.as_deref() == key.6
            && self.delta_convention.as_deref() == key.7
    }
}

/// The chain of a variant: root ancestor first, the variant last.
pub async fn variant_chain(pool: &PgPool, variant: &str) -> sqlx::Result<Vec<String>> {
    sqlx::query_scalar(
        "WITH RECURSIVE up(id, name, parent_id, depth) AS (
             SELECT id, name, parent_id, 0 FROM variants WHERE name = $1
             UNION ALL
             SELECT v.id, v.name, v.parent_id, up.depth + 1 FROM variants v JOIN up ON v.id = up.parent_id
             WHERE up.depth < 50)
         SELECT name FROM up ORDER BY depth DESC",
    )
    .bind(variant)
    .fetch_all(pool)
    .await
}

/// Boards x kernels of the worst latency of one kind (or of the mean of a
/// metric), each cell of one variant: the given one, or the variant
/// measured last on that board and kernel.
#[derive(Debug, Clone, FromRow)]
pub struct Cell {
    pub board: String,
    pub kernel: String,
    pub variant: String,
    pub value: Option<f64>,
    pub runs: i64,
}

/// The latency kinds with heatmap cells, the most common first.
pub async fn heatmap_kinds(pool: &PgPool) -> sqlx::Result<Vec<String>> {
    sqlx::query_scalar(
        "SELECT kind FROM heatmap_cells GROUP BY kind
         ORDER BY (kind = 'cyclictest') DESC, count(*) DESC, kind LIMIT 50",
    )
    .fetch_all(pool)
    .await
}

pub async fn heatmap_worst_latency(
    pool: &PgPool,
    kind: &str,
    variant: Option<&str>,
) -> sqlx::Result<Vec<Cell>> {
    // Two constant statements rather than an optional filter, so each keeps
    // its own plan.
    let sql_latest = "SELECT DISTINCT ON (c.board_id, c.kernel_id)
                b.name AS board, k.version AS kernel, v.name AS variant, c.worst_us AS value, c.runs
         FROM heatmap_cells c JOIN boards b ON b.id = c.board_id JOIN kernels k ON k.id = c.kernel_id
         JOIN variants v ON v.id = c.variant_id
         WHERE c.kind = $1
         ORDER BY c.board_id, c.kernel_id, c.last_run DESC";
    let sql_variant = "SELECT b.name AS board, k.version AS kernel, v.name AS variant,
                c.worst_us AS value, c.runs
         FROM heatmap_cells c JOIN boards b ON b.id = c.board_id JOIN kernels k ON k.id = c.kernel_id
         JOIN variants v ON v.id = c.variant_id
         WHERE c.kind = $1 AND v.name = $2";
    let mut cells: Vec<Cell> = match variant {
        None => {
            sqlx::query_as(sql_latest)
                .bind(kind)
                .fetch_all(pool)
                .await?
        }
        Some(v) => {
            sqlx::query_as(sql_variant)
                .bind(kind)
                .bind(v)
                .fetch_all(pool)
                .await?
        }
    };
    cells.sort_by(|a, b| (&a.board, &a.kernel).cmp(&(&b.board, &b.kernel)));
    Ok(cells)
}

pub async fn heatmap_metric(
    pool: &PgPool,
    metric: &str,
    variant: Option<&str>,
) -> sqlx::Result<Vec<Cell>> {
    let sql_latest = "SELECT DISTINCT ON (c.board_id, c.kernel_id)
                b.name AS board, k.version AS kernel, v.name AS variant, c.total / c.n AS value,
                c.n AS runs
         FROM metric_cells c JOIN boards b ON b.id = c.board_id JOIN kernels k ON k.id = c.kernel_id
         JOIN variants v ON v.id = c.variant_id
         WHERE c.name = $1 AND c.n > 0
         ORDER BY c.board_id, c.kernel_id, c.last_run DESC";
    let sql_variant = "SELECT b.name AS board, k.version AS kernel, v.name AS variant,
                c.total / c.n AS value, c.n AS runs
         FROM metric_cells c JOIN boards b ON b.id = c.board_id JOIN kernels k ON k.id = c.kernel_id
         JOIN variants v ON v.id = c.variant_id
         WHERE c.name = $1 AND c.n > 0 AND v.name = $2";
    let mut cells: Vec<Cell> = match variant {
        None => {
            sqlx::query_as(sql_latest)
                .bind(metric)
                .fetch_all(pool)
                .await?
        }
        Some(v) => {
            sqlx::query_as(sql_variant)
                .bind(metric)
                .bind(v)
                .fetch_all(pool)
                .await?
        }
    };
    cells.sort_by(|a, b| (&a.board, &a.kernel).cmp(&(&b.board, &b.kernel)));
    Ok(cells)
}

/// The metric names with heatmap cells, sorted (at most 500). One probe of
/// the primary key per name (a loose index scan) instead of a `DISTINCT`
/// over every cell: 0.5 ms instead of 40 ms for 40 000 cells.
pub async fn metric_names(pool: &PgPool) -> sqlx::Result<Vec<String>> {
    sqlx::query_scalar(
        "WITH RECURSIVE n(name) AS (
             (SELECT name FROM metric_cells ORDER BY name LIMIT 1)
             UNION ALL
             SELECT (SELECT m.name FROM metric_cells m WHERE m.name > n.name ORDER BY m.name LIMIT 1)
             FROM n WHERE n.name IS NOT NULL)
         SELECT name FROM n WHERE name IS NOT NULL LIMIT 500",
    )
        .fetch_all(pool)
        .await
}

#[derive(Debug, Clone, FromRow, serde::Serialize)]
pub struct CulpritRow {
    pub culprit: String,
    pub traces: i64,
    pub worst_us: f64,
    pub boards: Vec<String>,
    pub kernels: Vec<String>,
    pub worst_run: i64,
}

pub async fn culprits(
    pool: &PgPool,
    board: Option<&str>,
    kernel: Option<&str>,
) -> sqlx::Result<Vec<CulpritRow>> {
    let mut q = sqlx::QueryBuilder::<sqlx::Postgres>::new(
        "SELECT c.culprit, sum(c.traces)::bigint AS traces, max(c.worst_us) AS worst_us,
                array_agg(DISTINCT b.name) AS boards, array_agg(DISTINCT k.version) AS kernels,
                (array_agg(c.worst_run ORDER BY c.worst_us DESC, c.worst_run))[1] AS worst_run
         FROM culprit_cells c JOIN boards b ON b.id = c.board_id JOIN kernels k ON k.id = c.kernel_id
         WHERE true",
    );
    if let Some(b) = board {
        q.push(" AND b.name = ").push_bind(b);
    }
    if let Some(k) = kernel {
        q.push(" AND k.version = ").push_bind(k);
    }
    q.push(" GROUP BY c.culprit ORDER BY worst_us DESC LIMIT 100");
    q.build_query_as().fetch_all(pool).await
}

/// One UTC day x kernel of a board's history (a row of `history_cells`).
#[derive(Debug, Clone, FromRow)]
pub struct HistoryPoint {
    pub day: chrono::NaiveDate,
    pub kernel: String,
    /// Listed runs of that day and kernel.
    pub runs: i64,
    /// Mean over those runs of their value.
    pub mean: f64,
    /// The highest value of the day, with its run and that run's variant.
    pub max_value: f64,
    pub max_run: i64,
    pub max_variant: String,
}

/// The most days a history shows (the newest ones).
pub const HISTORY_DAYS: i64 = 730;

/// A metric (or, for `metric = None`, the worst latency of one `kind`:
/// cyclictest or a tracer, never mixed) on a board, per UTC day and kernel,
/// oldest first, read from the per-day aggregates. Only the newest
/// [`HISTORY_DAYS`] days are returned; the flag says whether older days
/// were left out.
pub async fn history(
    pool: &PgPool,
    board: &str,
    metric: Option<&str>,
    kind: &str,
) -> sqlx::Result<(Vec<HistoryPoint>, bool)> {
    let (metric, kind) = match metric {
        None => ("", kind),
        Some(m) => (m, ""),
    };
    let mut days: Vec<chrono::NaiveDate> = sqlx::query_scalar(
        "SELECT DISTINCT c.day FROM history_cells c JOIN boards b ON b.id = c.board_id
         WHERE b.name = $1 AND c.metric = $2 AND c.kind = $3
         ORDER BY c.day DESC LIMIT $4",
    )
    .bind(board)
    .bind(metric)
    .bind(kind)
    .bind(HISTORY_DAYS + 1)
    .fetch_all(pool)
    .await?;
    let cut = days.len() as i64 > HISTORY_DAYS;
    days.truncate(HISTORY_DAYS as usize);
    let Some(first) = days.last().copied() else {
        return Ok((Vec::new(), false));
    };
    let points = sqlx::query_as(
        "SELECT c.day, k.version AS kernel, c.runs, c.total / c.runs AS mean, c.max_value,
                c.max_run, v.name AS max_variant
         FROM history_cells c JOIN boards b ON b.id = c.board_id
         JOIN kernels k ON k.id = c.kernel_id
         JOIN variants v ON v.id = c.max_variant_id
         WHERE b.name = $1 AND c.metric = $2 AND c.kind = $3 AND c.day >= $4
         ORDER BY c.day, k.version",
    )
    .bind(board)
    .bind(metric)
    .bind(kind)
    .bind(first)
    .fetch_all(pool)
    .await?;
    Ok((points, cut))
}

/// The board of all listed runs of a variant, when there is exactly one.
pub async fn only_board_of_variant(pool: &PgPool, variant: &str) -> sqlx::Result<Option<String>> {
    let boards: Vec<String> = sqlx::query_scalar(
        "SELECT DISTINCT b.name FROM runs r JOIN boards b ON b.id = r.board_id JOIN variants v ON v.id = r.variant_id
         WHERE v.name = $1 AND r.deleted_at IS NULL AND NOT r.unlisted LIMIT 2",
    )
    .bind(variant)
    .fetch_all(pool)
    .await?;
    Ok(if boards.len() == 1 {
        boards.into_iter().next()
    } else {
        None
    })
}

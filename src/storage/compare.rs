//! Loading everything a comparison needs about a set of runs, and the
//! overview aggregates (heatmap, culprit leaderboard, history).

use std::collections::HashMap;

use reclaimlab_report::compare::{ThreadLatency, TraceSummary};
use reclaimlab_report::model::{
    BucketSum, ColumnRuns, HistFooter, MetricIdent, MetricSample, RunData, RunLatency,
};
use sqlx::postgres::PgRow;
use sqlx::{FromRow, PgPool, Row};

use crate::compare::{ColumnSpec, MAX_RUNS_PER_COLUMN};
use crate::storage::runs;

const HEAD_SELECT: &str =
    "SELECT r.id, r.created_at, r.upload_id, r.block_index, r.column_index, b.name AS board,
            k.version AS kernel, v.name AS variant, r.kind, r.title, r.tool, r.block_kind
     FROM runs r JOIN boards b ON b.id = r.board_id JOIN kernels k ON k.id = r.kernel_id
     JOIN variants v ON v.id = r.variant_id
     WHERE r.deleted_at IS NULL";

/// Each selected run with its child rows as arrays, one row per run: the
/// per-row cost of reading (about 1.5 us of the server's CPU a row)
/// dominated a comparison when every thread, footer and metric was a row.
/// The threads are aggregated in the order of a sorted subquery, which
/// their primary key gives: an `array_agg(... ORDER BY thread)` sorts each
/// run's rows again, once per array (PostgreSQL 15), about half of each
/// aggregate's time.
const WITH_RESULTS: &str = ")
    SELECT h.id, h.upload_id, h.block_index, h.column_index, h.board, h.kernel, h.variant,
           h.kind, h.title, h.tool, h.block_kind,
           lt.thread AS lt_thread, lt.min_us AS lt_min, lt.avg_us AS lt_avg, lt.max_us AS lt_max,
           ht.thread AS ht_thread, ht.bucket_us AS ht_bucket, ht.overflows AS ht_overflows,
           ht.max_us AS ht_max,
           t.tracer, t.latency_us AS trace_latency_us, t.culprit, t.culprit_path,
           mv.idents AS metric_idents, mv.vals AS metric_vals,
           mv.printed_delta_pct AS metric_deltas, mv.spread_pct AS metric_spreads,
           rh.buckets AS hist_buckets
    FROM h
    LEFT JOIN LATERAL (
        SELECT array_agg(thread) AS thread, array_agg(min_us) AS min_us,
               array_agg(avg_us) AS avg_us, array_agg(max_us) AS max_us
        FROM (SELECT thread, min_us, avg_us, max_us FROM latency_threads WHERE run_id = h.id
              ORDER BY thread) x) lt ON true
    LEFT JOIN LATERAL (
        SELECT array_agg(thread) AS thread, array_agg(bucket_us) AS bucket_us,
               array_agg(overflows) AS overflows, array_agg(max_us) AS max_us
        FROM (SELECT thread, bucket_us, overflows, max_us FROM histogram_threads
              WHERE run_id = h.id ORDER BY thread) x) ht ON true
    LEFT JOIN traces t ON t.run_id = h.id
    LEFT JOIN run_metric_values mv ON mv.run_id = h.id
    LEFT JOIN run_histograms rh ON rh.run_id = h.id AND h.block_kind = 'cyclictest'
    ORDER BY h.created_at, h.id";

#[derive(FromRow)]
struct RunRow {
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
    lt_thread: Option<Vec<i32>>,
    lt_min: Option<Vec<f64>>,
    lt_avg: Option<Vec<f64>>,
    lt_max: Option<Vec<f64>>,
    ht_thread: Option<Vec<i32>>,
    ht_bucket: Option<Vec<f64>>,
    ht_overflows: Option<Vec<i64>>,
    ht_max: Option<Vec<Option<f64>>>,
    tracer: Option<String>,
    trace_latency_us: Option<f64>,
    culprit: Option<String>,
    culprit_path: Option<Vec<String>>,
    metric_idents: Option<Vec<i64>>,
    metric_vals: Option<Vec<f64>>,
    metric_deltas: Option<Vec<Option<f64>>>,
    metric_spreads: Option<Vec<Option<f64>>>,
    hist_buckets: Option<Vec<u8>>,
}

/// One bucket of `run_histograms.buckets`: thread (int4), lower bound
/// (float8), count (int8), in network byte order.
const HIST_BUCKET_BYTES: usize = 20;

fn unpack_bucket(b: &[u8]) -> (i32, f64, i64) {
    let mut thread = [0u8; 4];
    let mut lower = [0u8; 8];
    let mut count = [0u8; 8];
    thread.copy_from_slice(&b[..4]);
    lower.copy_from_slice(&b[4..12]);
    count.copy_from_slice(&b[12..20]);
    (
        i32::from_be_bytes(thread),
        f64::from_be_bytes(lower),
        i64::from_be_bytes(count),
    )
}

/// Arrays that are one row each: they must line up.
fn same_len(run: i64, what: &str, lens: &[usize]) -> sqlx::Result<usize> {
    let n = lens.first().copied().unwrap_or(0);
    if lens.iter().any(|&l| l != n) {
        return Err(sqlx::Error::Protocol(format!(
            "run {run}: {what} arrays of unequal length"
        )));
    }
    Ok(n)
}

/// The runs a column selects: the newest [`MAX_RUNS_PER_COLUMN`], listed
/// oldest first. Explicit run ids may name unlisted runs; filters only
/// match listed ones.
///
/// The statement is built from constant fragments, one per filter given
/// (never `$1 IS NULL OR ...`), so each filter set has a plan that uses
/// its indexes. Two statements a column: the runs with their child rows
/// (a cyclictest run's buckets packed in one value, summed here), and the
/// distinct metric identities.
pub async fn column_runs(pool: &PgPool, spec: &ColumnSpec) -> sqlx::Result<ColumnRuns> {
    let mut q = sqlx::QueryBuilder::<sqlx::Postgres>::new("WITH h AS (");
    q.push(HEAD_SELECT);
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
    q.push(WITH_RESULTS);
    // One connection for the column's statements: each checkout of the
    // pool costs a round trip (its stale-transaction check).
    let mut conn = pool.acquire().await?;
    let mut rows: Vec<RunRow> = q.build_query_as().fetch_all(&mut *conn).await?;
    // Oldest first; one more than a column holds says older ones exist.
    let more = rows.len() as i64 > MAX_RUNS_PER_COLUMN;
    if more {
        rows.remove(0);
    }
    // The cyclictest runs' buckets, summed per thread and lower bound.
    let mut buckets: HashMap<(i32, u64), (f64, i64)> = HashMap::new();
    // Stored identity ids to places in the column's list, in order of
    // first use.
    let mut place: HashMap<i64, u32> = HashMap::new();
    let mut wanted: Vec<i64> = Vec::new();
    let mut runs = Vec::with_capacity(rows.len());
    for h in rows {
        let id = h.id;
        let (thread, min, avg, max) = (
            h.lt_thread.unwrap_or_default(),
            h.lt_min.unwrap_or_default(),
            h.lt_avg.unwrap_or_default(),
            h.lt_max.unwrap_or_default(),
        );
        same_len(
            id,
            "latency thread",
            &[thread.len(), min.len(), avg.len(), max.len()],
        )?;
        let threads = (0..thread.len())
            .map(|i| ThreadLatency {
                thread: thread[i].max(0) as u32,
                min_us: min[i],
                avg_us: avg[i],
                max_us: max[i],
                n_runs: 1,
            })
            .collect();
        let (thread, bucket, overflows, max) = (
            h.ht_thread.unwrap_or_default(),
            h.ht_bucket.unwrap_or_default(),
            h.ht_overflows.unwrap_or_default(),
            h.ht_max.unwrap_or_default(),
        );
        same_len(
            id,
            "histogram footer",
            &[thread.len(), bucket.len(), overflows.len(), max.len()],
        )?;
        let hist_footers = (0..thread.len())
            .map(|i| HistFooter {
                thread: thread[i].max(0) as u32,
                bucket_us: bucket[i],
                overflows: overflows[i].max(0) as u64,
                max_us: max[i],
            })
            .collect();
        let trace = match (h.tracer, h.trace_latency_us) {
            (Some(tracer), Some(latency_us)) => Some(TraceSummary {
                tracer,
                latency_us,
                culprit: h.culprit,
                culprit_path: h.culprit_path.unwrap_or_default(),
                n_runs: 1,
            }),
            _ => None,
        };
        let (idents, vals, deltas, spreads) = (
            h.metric_idents.unwrap_or_default(),
            h.metric_vals.unwrap_or_default(),
            h.metric_deltas.unwrap_or_default(),
            h.metric_spreads.unwrap_or_default(),
        );
        let n = same_len(
            id,
            "metric value",
            &[idents.len(), vals.len(), deltas.len(), spreads.len()],
        )?;
        let packed = h.hist_buckets.unwrap_or_default();
        if packed.len() % HIST_BUCKET_BYTES != 0 {
            return Err(sqlx::Error::Protocol(format!(
                "run {id}: packed histogram of {} bytes",
                packed.len()
            )));
        }
        for b in packed.chunks_exact(HIST_BUCKET_BYTES) {
            let (thread, lower, count) = unpack_bucket(b);
            // `+ 0.0` makes -0 the key of 0, as they are one value in SQL.
            let lower = lower + 0.0;
            let e = buckets
                .entry((thread, lower.to_bits()))
                .or_insert((lower, 0));
            e.1 = e.1.saturating_add(count);
        }
        let metrics = (0..n)
            .map(|i| MetricSample {
                ident: *place.entry(idents[i]).or_insert_with(|| {
                    wanted.push(idents[i]);
                    (wanted.len() - 1) as u32
                }),
                value: vals[i],
                printed_delta_pct: deltas[i],
                spread_pct: spreads[i],
            })
            .collect();
        runs.push(RunData {
            id,
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
            latency: RunLatency {
                threads,
                hist_footers,
                trace,
            },
            metrics,
        });
    }
    let metric_idents = metric_idents(&mut conn, &wanted, &place).await?;
    let mut cyclictest_buckets: Vec<(i32, f64, i64)> = buckets
        .into_iter()
        .map(|((thread, _), (lower, count))| (thread, lower, count))
        .collect();
    cyclictest_buckets.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
    Ok(ColumnRuns {
        runs,
        more,
        cyclictest_buckets: cyclictest_buckets
            .into_iter()
            .map(|(thread, lower_us, count)| BucketSum {
                thread: thread.max(0) as u32,
                lower_us,
                count: count.max(0) as u64,
            })
            .collect(),
        metric_idents,
    })
}

/// The strings of the metric identities `wanted`, in that order (`place`
/// maps each id to its index).
async fn metric_idents(
    conn: &mut sqlx::PgConnection,
    wanted: &[i64],
    place: &HashMap<i64, u32>,
) -> sqlx::Result<Vec<MetricIdent>> {
    if wanted.is_empty() {
        return Ok(Vec::new());
    }
    let found: Vec<(i64, MetricIdent)> = sqlx::query(
        "SELECT id, name, stat, unit, scope, section, direction, direction_source, delta_convention
         FROM metric_idents WHERE id = ANY($1)",
    )
    .bind(wanted)
    .try_map(|row: PgRow| Ok((row.try_get("id")?, runs::metric_ident(&row)?)))
    .fetch_all(conn)
    .await?;
    let mut idents: Vec<Option<MetricIdent>> = vec![None; wanted.len()];
    for (id, ident) in found {
        if let Some(&p) = place.get(&id) {
            idents[p as usize] = Some(ident);
        }
    }
    idents
        .into_iter()
        .zip(wanted)
        .map(|(i, id)| {
            i.ok_or_else(|| sqlx::Error::Protocol(format!("metric identity {id} is missing")))
        })
        .collect()
}

/// The statement that packs an upload's histogram buckets, one row per run
/// (`$1`: the upload), alone or inside the metric values' statement.
macro_rules! pack_histograms_sql {
    () => {
        "INSERT INTO run_histograms (run_id, buckets)
         SELECT b.run_id,
                string_agg(int4send(b.thread) || float8send(b.lower_us) || int8send(b.count),
                           ''::bytea ORDER BY b.thread, b.lower_us)
         FROM runs r JOIN histogram_buckets b ON b.run_id = r.id
         WHERE r.upload_id = $1
         GROUP BY b.run_id
         ON CONFLICT (run_id) DO NOTHING"
    };
}

/// The packed histograms of freshly stored runs, alone: for an upload
/// without metrics ([`add_upload_metric_values`] stores them with the
/// metric values otherwise).
pub async fn add_upload_histograms(
    conn: &mut sqlx::PgConnection,
    upload_id: i64,
) -> sqlx::Result<()> {
    sqlx::query(pack_histograms_sql!())
        .bind(upload_id)
        .execute(&mut *conn)
        .await?;
    Ok(())
}

/// Store what [`column_runs`] reads of the metric rows of freshly stored
/// runs: their identities (once each) and per run the arrays of identity
/// ids and numbers, in the rows' order; and each run's histogram buckets
/// packed in one value (`run_histograms`). Called in the transaction that
/// stores the runs, after their `metrics` and `histogram_buckets` rows. Two
/// statements: the second sees identities another upload committed while
/// the first waited.
///
/// The runs are the upload's (`upload_id`): selected by upload, each
/// statement keeps one generic plan across uploads.
pub async fn add_upload_metric_values(
    conn: &mut sqlx::PgConnection,
    upload_id: i64,
) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO metric_idents (key, scope, name, stat, unit, section, direction,
                                    direction_source, delta_convention)
         SELECT DISTINCT ON (k) k, scope, name, stat, unit, section, direction, direction_source,
                delta_convention
         FROM (SELECT metric_ident_key(scope, name, stat, unit, section, direction,
                                       direction_source, delta_convention) AS k, *
               FROM runs r JOIN metrics ON run_id = r.id WHERE r.upload_id = $1) m
         ORDER BY k
         ON CONFLICT (key) DO NOTHING",
    )
    .bind(upload_id)
    .execute(&mut *conn)
    .await?;
    sqlx::query(concat!(
        "WITH hist AS (",
        pack_histograms_sql!(),
        ")
         INSERT INTO run_metric_values (run_id, idents, vals, printed_delta_pct, spread_pct)
         SELECT m.run_id, array_agg(i.id ORDER BY m.id), array_agg(m.value ORDER BY m.id),
                array_agg(m.printed_delta_pct ORDER BY m.id), array_agg(m.spread_pct ORDER BY m.id)
         FROM runs r JOIN metrics m ON m.run_id = r.id
         LEFT JOIN metric_idents i
             ON i.key = metric_ident_key(m.scope, m.name, m.stat, m.unit, m.section, m.direction,
                                         m.direction_source, m.delta_convention)
         WHERE r.upload_id = $1
         GROUP BY m.run_id"
    ))
    .bind(upload_id)
    .execute(&mut *conn)
    .await?;
    Ok(())
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
/// Read from the catalogue's counts (`run_cells`: listed, not deleted
/// runs per board, kernel and variant), not from the runs: a variant's
/// runs were 14-18 ms to read at 10^6 runs, its cells 0.1 ms.
pub async fn only_board_of_variant(pool: &PgPool, variant: &str) -> sqlx::Result<Option<String>> {
    let boards: Vec<String> = sqlx::query_scalar(
        "SELECT DISTINCT b.name FROM run_cells c JOIN boards b ON b.id = c.board_id
         JOIN variants v ON v.id = c.variant_id
         WHERE v.name = $1 AND c.runs > 0 LIMIT 2",
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

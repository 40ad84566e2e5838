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

/// Each selected run with its `run_compare` row: one index probe a run.
/// Numbers come packed in `bytea` values (layouts in the migration that
/// creates the table), which PostgreSQL sends as they are; arrays cost a
/// call per element on each side, and one probe per child table cost six
/// a run.
const WITH_RESULTS: &str = ")
    SELECT h.id, h.upload_id, h.block_index, h.column_index, h.board, h.kernel, h.variant,
           h.kind, h.title, h.tool, h.block_kind, c.run_id IS NOT NULL AS kept,
           c.threads, c.footers, c.metrics,
           CASE WHEN h.block_kind = 'cyclictest' THEN c.buckets ELSE ''::bytea END,
           c.tracer, c.trace_latency_us,
           c.culprit, c.culprit_path
    FROM h LEFT JOIN run_compare c ON c.run_id = h.id
    ORDER BY h.created_at, h.id";

/// Record sizes of the packed values.
const THREAD_BYTES: usize = 28;
const FOOTER_BYTES: usize = 29;
const METRIC_BYTES: usize = 34;
const HIST_BUCKET_BYTES: usize = 20;

/// Big-endian numbers read one after another from a packed record.
struct Packed<'a>(&'a [u8]);

impl Packed<'_> {
    fn take<const N: usize>(&mut self) -> [u8; N] {
        let (head, rest) = self.0.split_at(N);
        self.0 = rest;
        let mut out = [0u8; N];
        out.copy_from_slice(head);
        out
    }
    fn i32(&mut self) -> i32 {
        i32::from_be_bytes(self.take())
    }
    fn i64(&mut self) -> i64 {
        i64::from_be_bytes(self.take())
    }
    fn f64(&mut self) -> f64 {
        f64::from_be_bytes(self.take())
    }
    /// A flag byte, then the number (present when the flag is 1).
    fn opt_f64(&mut self) -> Option<f64> {
        let [flag] = self.take::<1>();
        let v = self.f64();
        (flag == 1).then_some(v)
    }
}

/// The records of a packed value of `size` bytes each.
fn records<'a>(
    run: i64,
    what: &str,
    bytes: &'a [u8],
    size: usize,
) -> sqlx::Result<impl Iterator<Item = Packed<'a>>> {
    if !bytes.len().is_multiple_of(size) {
        return Err(sqlx::Error::Protocol(format!(
            "run {run}: packed {what} of {} bytes, not records of {size}",
            bytes.len()
        )));
    }
    Ok(bytes.chunks_exact(size).map(Packed))
}

/// The runs a column selects: the newest [`MAX_RUNS_PER_COLUMN`], listed
/// oldest first. Explicit run ids may name unlisted runs; filters only
/// match listed ones.
///
/// The statement is built from constant fragments, one per filter given
/// (never `$1 IS NULL OR ...`), so each filter set has a plan that uses
/// its indexes. Up to three statements a column: the ids of the names it
/// filters by, the runs with their `run_compare` rows (a cyclictest run's
/// buckets are summed here), and the distinct metric identities.
pub async fn column_runs(pool: &PgPool, spec: &ColumnSpec) -> sqlx::Result<ColumnRuns> {
    // One connection for the column's statements: each checkout of the
    // pool costs a round trip (its stale-transaction check).
    let mut conn = pool.acquire().await?;
    // A board's or kernel's name to its id first. A name that names
    // nothing is an empty column at once; joined by name, the statement
    // below walked every run newest first looking for it (88-440 ms at
    // 10^5 runs), and did the same for a board or kernel of a few runs. A
    // variant alone needs none of this: its id, from a subquery, leads
    // `runs_variant_newest_idx`, which gives its runs newest first (and
    // none at once for an unknown name) whatever the plan.
    let named = spec.board.is_some() || spec.kernel.is_some();
    let ids = if named {
        crate::storage::catalog::filter_ids(
            &mut *conn,
            spec.board.as_deref(),
            spec.kernel.as_deref(),
            spec.variant.as_deref(),
        )
        .await?
    } else {
        Some([None; 3])
    };
    let unknown = ids.is_none();
    let [board_id, kernel_id, variant_id] = ids.unwrap_or([None; 3]);
    // The runs a column's filters select, newest first, from `runs` alone.
    let filters = |q: &mut sqlx::QueryBuilder<sqlx::Postgres>| {
        if spec.runs.is_empty() {
            q.push(" AND NOT r.unlisted");
        } else {
            q.push(" AND r.id = ANY(")
                .push_bind(spec.runs.clone())
                .push(")");
        }
        crate::storage::catalog::push_id_filters(q, [board_id, kernel_id, variant_id]);
        if let (false, Some(v)) = (named, &spec.variant) {
            q.push(" AND r.variant_id = (SELECT id FROM variants WHERE name = ")
                .push_bind(v.clone())
                .push(")");
        }
        if let Some(kind) = &spec.kind {
            q.push(" AND r.kind = ").push_bind(kind.clone());
        }
        if let Some(sim) = spec.simulation {
            q.push(" AND r.simulation_id = ").push_bind(sim);
        }
        // A constant limit in the statement: bound, a generic plan would
        // not see it (see `storage::overview::run_page`).
        q.push(format!(
            " ORDER BY r.created_at DESC, r.id DESC LIMIT {}",
            MAX_RUNS_PER_COLUMN + 1
        ));
    };
    let mut q = sqlx::QueryBuilder::<sqlx::Postgres>::new("WITH h AS (");
    q.push(HEAD_SELECT);
    if named {
        // Filtered by a board or kernel, the runs are picked by a
        // statement of `runs` alone that is planned for its ids each time
        // (not prepared: cheap to plan, unlike the whole column's): a board
        // of twelve runs is read from an index, one of 10^5 by walking the
        // newest runs, and a generic plan guesses one size for both. The
        // column's statement then reads those runs by id.
        let picked: Vec<i64> = if unknown {
            Vec::new()
        } else {
            let mut pick = sqlx::QueryBuilder::<sqlx::Postgres>::new(
                "SELECT r.id FROM runs r WHERE r.deleted_at IS NULL",
            );
            filters(&mut pick);
            pick.build_query_scalar()
                .persistent(false)
                .fetch_all(&mut *conn)
                .await?
        };
        q.push(" AND r.id = ANY(").push_bind(picked).push(")");
    } else {
        filters(&mut q);
    }
    q.push(WITH_RESULTS);
    let mut rows: Vec<PgRow> = if unknown {
        Vec::new()
    } else {
        q.build().fetch_all(&mut *conn).await?
    };
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
    for row in &rows {
        // By position: by name, each field is a search of the row's columns.
        let id: i64 = row.try_get(0)?;
        let block_kind: String = row.try_get(10)?;
        if !row.try_get::<bool, _>(11)? {
            return Err(sqlx::Error::Protocol(format!(
                "run {id} has no run_compare row"
            )));
        }
        let threads = records(id, "latency threads", row.try_get(12)?, THREAD_BYTES)?
            .map(|mut r| ThreadLatency {
                thread: r.i32().max(0) as u32,
                min_us: r.f64(),
                avg_us: r.f64(),
                max_us: r.f64(),
                n_runs: 1,
            })
            .collect();
        let hist_footers = records(id, "histogram footers", row.try_get(13)?, FOOTER_BYTES)?
            .map(|mut r| HistFooter {
                thread: r.i32().max(0) as u32,
                bucket_us: r.f64(),
                overflows: r.i64().max(0) as u64,
                max_us: r.opt_f64(),
            })
            .collect();
        let metrics = records(id, "metric values", row.try_get(14)?, METRIC_BYTES)?
            .map(|mut r| {
                let ident = r.i64();
                MetricSample {
                    ident: *place.entry(ident).or_insert_with(|| {
                        wanted.push(ident);
                        (wanted.len() - 1) as u32
                    }),
                    value: r.f64(),
                    printed_delta_pct: r.opt_f64(),
                    spread_pct: r.opt_f64(),
                }
            })
            .collect();
        let packed = records(id, "histogram", row.try_get(15)?, HIST_BUCKET_BYTES)?;
        if block_kind == "cyclictest" {
            for mut b in packed {
                let (thread, lower, count) = (b.i32(), b.f64(), b.i64());
                // `+ 0.0` makes -0 the key of 0, as they are one value in SQL.
                let lower = lower + 0.0;
                let e = buckets
                    .entry((thread, lower.to_bits()))
                    .or_insert((lower, 0));
                e.1 = e.1.saturating_add(count);
            }
        }
        let trace = match (
            row.try_get::<Option<String>, _>(16)?,
            row.try_get::<Option<f64>, _>(17)?,
        ) {
            (Some(tracer), Some(latency_us)) => Some(TraceSummary {
                tracer,
                latency_us,
                culprit: row.try_get(18)?,
                culprit_path: row
                    .try_get::<Option<Vec<String>>, _>(19)?
                    .unwrap_or_default(),
                n_runs: 1,
            }),
            _ => None,
        };
        runs.push(RunData {
            id,
            upload_id: row.try_get(1)?,
            block_index: row.try_get(2)?,
            column_index: row.try_get(3)?,
            board: row.try_get(4)?,
            kernel: row.try_get(5)?,
            variant: row.try_get(6)?,
            kind: row.try_get(7)?,
            title: row.try_get(8)?,
            tool: row.try_get(9)?,
            block_kind,
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

/// Store the metric identities of a freshly stored upload's metric rows
/// (`upload_id`), each once, in `metric_idents`: before
/// [`UPLOAD_COMPARE_ROWS`] packs the rows with their identities. Its own
/// statement, so that the packing sees identities another upload committed
/// while this one waited. Selected by upload, it keeps one generic plan.
pub async fn add_upload_metric_idents(
    conn: &mut sqlx::PgConnection,
    upload_id: i64,
) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO metric_idents (key, scope, name, stat, unit, section, direction,
                                    direction_source, delta_convention)
         SELECT DISTINCT ON (k) k, scope, name, stat, unit, section, direction,
                direction_source, delta_convention
         FROM (SELECT metric_ident_key(scope, name, stat, unit, section, direction,
                                       direction_source, delta_convention) AS k, *
               FROM runs r JOIN metrics ON run_id = r.id WHERE r.upload_id = $1) m
         ORDER BY k
         ON CONFLICT (key) DO NOTHING",
    )
    .bind(upload_id)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// What [`column_runs`] reads of each run of a freshly stored upload
/// (`$1`: an array whose first element is the upload): one `run_compare`
/// row per run, packed from the child rows just stored (the layouts are in
/// the migration that creates the table), their metric identities stored
/// before by [`add_upload_metric_idents`]. A part of the statement that
/// folds the upload into the overview aggregates
/// (`storage::overview::add_upload`): no round trip of its own.
pub const UPLOAD_COMPARE_ROWS: &str =
    "INSERT INTO run_compare (run_id, threads, footers, metrics, buckets, tracer,
                                  trace_latency_us, culprit, culprit_path)
         SELECT r.id,
                coalesce((SELECT string_agg(int4send(thread) || float8send(min_us)
                                            || float8send(avg_us) || float8send(max_us),
                                            ''::bytea ORDER BY thread)
                          FROM latency_threads WHERE run_id = r.id), ''::bytea),
                coalesce((SELECT string_agg(int4send(thread) || float8send(bucket_us)
                                            || int8send(overflows) || pack_opt_float8(max_us),
                                            ''::bytea ORDER BY thread)
                          FROM histogram_threads WHERE run_id = r.id), ''::bytea),
                coalesce((SELECT string_agg(int8send(metric_ident_required(i.id))
                                            || float8send(m.value)
                                            || pack_opt_float8(m.printed_delta_pct)
                                            || pack_opt_float8(m.spread_pct),
                                            ''::bytea ORDER BY m.id)
                          FROM metrics m
                          LEFT JOIN metric_idents i
                              ON i.key = metric_ident_key(m.scope, m.name, m.stat, m.unit,
                                                          m.section, m.direction,
                                                          m.direction_source, m.delta_convention)
                          WHERE m.run_id = r.id), ''::bytea),
                coalesce((SELECT string_agg(int4send(thread) || float8send(lower_us)
                                            || int8send(count), ''::bytea
                                            ORDER BY thread, lower_us)
                          FROM histogram_buckets WHERE run_id = r.id), ''::bytea),
                t.tracer, t.latency_us, t.culprit, t.culprit_path
         FROM runs r LEFT JOIN traces t ON t.run_id = r.id
         WHERE r.upload_id = ($1::bigint[])[1]";

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
    /// The newest run the cell counts (ids grow with time).
    pub last_run: i64,
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
                b.name AS board, k.version AS kernel, v.name AS variant, c.worst_us AS value, c.runs,
                c.last_run
         FROM heatmap_cells c JOIN boards b ON b.id = c.board_id JOIN kernels k ON k.id = c.kernel_id
         JOIN variants v ON v.id = c.variant_id
         WHERE c.kind = $1
         ORDER BY c.board_id, c.kernel_id, c.last_run DESC";
    let sql_variant = "SELECT b.name AS board, k.version AS kernel, v.name AS variant,
                c.worst_us AS value, c.runs, c.last_run
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
                c.n AS runs, c.last_run
         FROM metric_cells c JOIN boards b ON b.id = c.board_id JOIN kernels k ON k.id = c.kernel_id
         JOIN variants v ON v.id = c.variant_id
         WHERE c.name = $1 AND c.n > 0
         ORDER BY c.board_id, c.kernel_id, c.last_run DESC";
    let sql_variant = "SELECT b.name AS board, k.version AS kernel, v.name AS variant,
                c.total / c.n AS value, c.n AS runs, c.last_run
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
    /// The kernel of the worst trace.
    pub worst_kernel: String,
    pub worst_run: i64,
}

/// The culprit leaderboard, worst first (100 culprits at most). Without a
/// kernel it reads the per-board cells (culprits x boards rows, however
/// many kernels were tested); with one, that kernel's cells.
pub async fn culprits(
    pool: &PgPool,
    board: Option<&str>,
    kernel: Option<&str>,
) -> sqlx::Result<Vec<CulpritRow>> {
    let mut q = match kernel {
        None => sqlx::QueryBuilder::<sqlx::Postgres>::new(
            "SELECT c.culprit, sum(c.traces)::bigint AS traces, max(c.worst_us) AS worst_us,
                    array_agg(b.name ORDER BY b.name) AS boards,
                    (array_agg(k.version ORDER BY c.worst_us DESC, c.worst_run))[1] AS worst_kernel,
                    (array_agg(c.worst_run ORDER BY c.worst_us DESC, c.worst_run))[1] AS worst_run
             FROM culprit_board_cells c JOIN boards b ON b.id = c.board_id
             JOIN kernels k ON k.id = c.worst_kernel
             WHERE true",
        ),
        Some(k) => {
            let mut q = sqlx::QueryBuilder::<sqlx::Postgres>::new(
                "SELECT c.culprit, sum(c.traces)::bigint AS traces, max(c.worst_us) AS worst_us,
                        array_agg(b.name ORDER BY b.name) AS boards,
                        min(k.version) AS worst_kernel,
                        (array_agg(c.worst_run ORDER BY c.worst_us DESC, c.worst_run))[1] AS worst_run
                 FROM culprit_cells c JOIN boards b ON b.id = c.board_id
                 JOIN kernels k ON k.id = c.kernel_id
                 WHERE k.version = ",
            );
            q.push_bind(k);
            q
        }
    };
    if let Some(b) = board {
        q.push(" AND b.name = ").push_bind(b);
    }
    q.push(" GROUP BY c.culprit ORDER BY worst_us DESC LIMIT 100");
    q.build_query_as().fetch_all(pool).await
}

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

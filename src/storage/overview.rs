//! The aggregates behind the overview pages (`heatmap_cells`,
//! `culprit_cells` and `culprit_board_cells`, `metric_cells`, `run_cells` for the catalogue and
//! `history_cells` for /history): updated in the transaction that stores
//! runs, rebuilt for the affected boards x kernels when runs are deleted.
//! Only listed, not deleted runs count; the heatmap, culprit and metric
//! cells count measured runs only.

use sqlx::PgConnection;

const LISTED: &str = "r.deleted_at IS NULL AND NOT r.unlisted AND r.kind = 'measured'";

/// Add freshly stored runs to the aggregates.
pub async fn add_runs(conn: &mut PgConnection, run_ids: &[i64]) -> sqlx::Result<()> {
    upsert_cells(conn, "r.id = ANY($1)", run_ids, None).await
}

/// Add the runs of a freshly stored upload (all of them) to the
/// aggregates: [`add_runs`] by upload, a filter PostgreSQL keeps one plan
/// for (a list of ids makes it plan the statement again on every call).
/// The same statement stores the runs' `run_compare` rows
/// ([`crate::storage::compare::UPLOAD_COMPARE_ROWS`]).
pub async fn add_upload(conn: &mut PgConnection, upload_id: i64) -> sqlx::Result<()> {
    upsert_cells(
        conn,
        "r.upload_id = ($1::bigint[])[1]",
        &[upload_id],
        Some(crate::storage::compare::UPLOAD_COMPARE_ROWS),
    )
    .await
}

/// Recompute the aggregates of every board x kernel the given runs touch
/// (after they were deleted): deletions cannot be subtracted from a max.
pub async fn rebuild_for_runs(conn: &mut PgConnection, run_ids: &[i64]) -> sqlx::Result<()> {
    let pairs = "SELECT DISTINCT board_id, kernel_id FROM runs WHERE id = ANY($1)";
    for table in [
        "heatmap_cells",
        "culprit_cells",
        "metric_cells",
        "run_cells",
        "history_cells",
    ] {
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "DELETE FROM {table} c USING ({pairs}) p
             WHERE c.board_id = p.board_id AND c.kernel_id = p.kernel_id"
        )))
        .bind(run_ids)
        .execute(&mut *conn)
        .await?;
    }
    upsert_cells(
        conn,
        &format!("(r.board_id, r.kernel_id) IN ({pairs})"),
        run_ids,
        None,
    )
    .await?;
    // The per-board culprit cells of those boards, from their kernels'
    // cells (just rebuilt): what the upsert added to them above counted
    // the rebuilt kernels only.
    let boards = "SELECT DISTINCT board_id FROM runs WHERE id = ANY($1)";
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "DELETE FROM culprit_board_cells WHERE board_id IN ({boards})"
    )))
    .bind(run_ids)
    .execute(&mut *conn)
    .await?;
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "INSERT INTO culprit_board_cells (culprit, board_id, traces, worst_us, worst_run,
                                          worst_kernel)
         SELECT culprit, board_id, sum(traces), max(worst_us),
                (array_agg(worst_run ORDER BY worst_us DESC, worst_run))[1],
                (array_agg(kernel_id ORDER BY worst_us DESC, worst_run))[1]
         FROM culprit_cells WHERE board_id IN ({boards})
         GROUP BY culprit, board_id"
    )))
    .bind(run_ids)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// Recompute every aggregate from the stored runs (one transaction).
pub async fn rebuild_all(conn: &mut PgConnection) -> sqlx::Result<()> {
    sqlx::query(
        "TRUNCATE heatmap_cells, culprit_cells, culprit_board_cells, metric_cells, run_cells,
                  history_cells",
    )
    .execute(&mut *conn)
    .await?;
    // `$1` is bound but unused: every run counts.
    upsert_cells(conn, "cardinality($1::bigint[]) = 0", &[], None).await
}

/// Folding new runs into a history cell: counts and sums add, the run with
/// the highest value is kept (the older one on a tie, as a rebuild keeps
/// the lowest id).
const HISTORY_UPSERT: &str = "ON CONFLICT (board_id, metric, kind, day, kernel_id) DO UPDATE SET
         runs = history_cells.runs + EXCLUDED.runs,
         total = history_cells.total + EXCLUDED.total,
         max_run = CASE WHEN EXCLUDED.max_value > history_cells.max_value
                        THEN EXCLUDED.max_run ELSE history_cells.max_run END,
         max_variant_id = CASE WHEN EXCLUDED.max_value > history_cells.max_value
                               THEN EXCLUDED.max_variant_id ELSE history_cells.max_variant_id END,
         max_value = GREATEST(history_cells.max_value, EXCLUDED.max_value)";

/// Fold the listed runs matching `filter` (which binds `$1`) into the cells,
/// and run `also` (a data-modifying statement binding the same `$1`) as a
/// part of the same statement.
async fn upsert_cells(
    conn: &mut PgConnection,
    filter: &str,
    run_ids: &[i64],
    also: Option<&str>,
) -> sqlx::Result<()> {
    let statements = [
        // Every listed run, measured or simulated: the catalogue's counts.
        format!(
            "INSERT INTO run_cells (board_id, kernel_id, variant_id, runs, last_run_at)
             SELECT r.board_id, r.kernel_id, r.variant_id, count(*), max(r.created_at)
             FROM runs r
             WHERE {filter} AND r.deleted_at IS NULL AND NOT r.unlisted
             GROUP BY r.board_id, r.kernel_id, r.variant_id
             ON CONFLICT (board_id, kernel_id, variant_id) DO UPDATE SET
                 runs = run_cells.runs + EXCLUDED.runs,
                 last_run_at = GREATEST(run_cells.last_run_at, EXCLUDED.last_run_at)"
        ),
        format!(
            "INSERT INTO heatmap_cells (board_id, kernel_id, variant_id, kind, worst_us, runs, last_run)
             SELECT r.board_id, r.kernel_id, r.variant_id, r.worst_kind, max(r.worst_us), count(*),
                    max(r.id)
             FROM runs r
             WHERE {filter} AND {LISTED} AND r.worst_us IS NOT NULL AND r.worst_kind IS NOT NULL
             GROUP BY r.board_id, r.kernel_id, r.variant_id, r.worst_kind
             ON CONFLICT (board_id, kernel_id, variant_id, kind) DO UPDATE SET
                 worst_us = GREATEST(heatmap_cells.worst_us, EXCLUDED.worst_us),
                 runs = heatmap_cells.runs + EXCLUDED.runs,
                 last_run = GREATEST(heatmap_cells.last_run, EXCLUDED.last_run)"
        ),
        format!(
            "INSERT INTO culprit_cells (culprit, board_id, kernel_id, traces, worst_us, worst_run)
             SELECT t.culprit, r.board_id, r.kernel_id, count(*), max(t.latency_us),
                    (array_agg(r.id ORDER BY t.latency_us DESC, r.id))[1]
             FROM traces t JOIN runs r ON r.id = t.run_id
             WHERE {filter} AND {LISTED} AND t.culprit IS NOT NULL
             GROUP BY t.culprit, r.board_id, r.kernel_id
             ON CONFLICT (culprit, board_id, kernel_id) DO UPDATE SET
                 traces = culprit_cells.traces + EXCLUDED.traces,
                 worst_run = CASE WHEN EXCLUDED.worst_us > culprit_cells.worst_us
                                  THEN EXCLUDED.worst_run ELSE culprit_cells.worst_run END,
                 worst_us = GREATEST(culprit_cells.worst_us, EXCLUDED.worst_us)"
        ),
        format!(
            "INSERT INTO culprit_board_cells (culprit, board_id, traces, worst_us, worst_run,
                                              worst_kernel)
             SELECT t.culprit, r.board_id, count(*), max(t.latency_us),
                    (array_agg(r.id ORDER BY t.latency_us DESC, r.id))[1],
                    (array_agg(r.kernel_id ORDER BY t.latency_us DESC, r.id))[1]
             FROM traces t JOIN runs r ON r.id = t.run_id
             WHERE {filter} AND {LISTED} AND t.culprit IS NOT NULL
             GROUP BY t.culprit, r.board_id
             ON CONFLICT (culprit, board_id) DO UPDATE SET
                 traces = culprit_board_cells.traces + EXCLUDED.traces,
                 worst_run = CASE WHEN EXCLUDED.worst_us > culprit_board_cells.worst_us
                                  THEN EXCLUDED.worst_run ELSE culprit_board_cells.worst_run END,
                 worst_kernel = CASE WHEN EXCLUDED.worst_us > culprit_board_cells.worst_us
                                     THEN EXCLUDED.worst_kernel
                                     ELSE culprit_board_cells.worst_kernel END,
                 worst_us = GREATEST(culprit_board_cells.worst_us, EXCLUDED.worst_us)"
        ),
        format!(
            "INSERT INTO metric_cells (name, unit, board_id, kernel_id, variant_id, total, n, last_run)
             SELECT m.name, coalesce(m.unit, ''), r.board_id, r.kernel_id, r.variant_id,
                    sum(m.value), count(*), max(r.id)
             FROM metrics m JOIN runs r ON r.id = m.run_id
             WHERE {filter} AND {LISTED} AND m.value = m.value AND r.block_kind <> 'table'
             GROUP BY m.name, coalesce(m.unit, ''), r.board_id, r.kernel_id, r.variant_id
             ON CONFLICT (name, unit, board_id, kernel_id, variant_id) DO UPDATE SET
                 total = metric_cells.total + EXCLUDED.total, n = metric_cells.n + EXCLUDED.n,
                 last_run = GREATEST(metric_cells.last_run, EXCLUDED.last_run)"
        ),
        // Per UTC day x kernel of a board: the worst latency of each kind,
        // and each metric (a run's value being the mean of its rows).
        format!(
            "INSERT INTO history_cells (board_id, metric, kind, day, kernel_id, runs, total,
                                        max_value, max_run, max_variant_id)
             SELECT r.board_id, '', r.worst_kind, (r.created_at AT TIME ZONE 'UTC')::date,
                    r.kernel_id, count(*), sum(r.worst_us), max(r.worst_us),
                    (array_agg(r.id ORDER BY r.worst_us DESC, r.id))[1],
                    (array_agg(r.variant_id ORDER BY r.worst_us DESC, r.id))[1]
             FROM runs r
             WHERE {filter} AND r.deleted_at IS NULL AND NOT r.unlisted
               AND r.worst_us IS NOT NULL AND r.worst_kind IS NOT NULL
             GROUP BY 1, 2, 3, 4, 5
             {HISTORY_UPSERT}"
        ),
        format!(
            "INSERT INTO history_cells (board_id, metric, kind, day, kernel_id, runs, total,
                                        max_value, max_run, max_variant_id)
             SELECT p.board_id, p.name, '', p.day, p.kernel_id, count(*), sum(p.value),
                    max(p.value), (array_agg(p.id ORDER BY p.value DESC, p.id))[1],
                    (array_agg(p.variant_id ORDER BY p.value DESC, p.id))[1]
             FROM (SELECT r.id, r.board_id, r.kernel_id, r.variant_id,
                          (r.created_at AT TIME ZONE 'UTC')::date AS day, m.name,
                          avg(m.value) AS value
                   FROM metrics m JOIN runs r ON r.id = m.run_id
                   WHERE {filter} AND r.deleted_at IS NULL AND NOT r.unlisted
                     AND m.value = m.value
                   GROUP BY r.id, m.name) p
             GROUP BY 1, 2, 3, 4, 5
             {HISTORY_UPSERT}"
        ),
    ];
    // One statement, one round trip: each upsert is a data-modifying
    // `WITH` part (each runs once; they write different cells, and the two
    // history parts different keys: `metric = ''` with a latency kind,
    // a metric's name with `kind = ''`).
    let parts: Vec<String> = statements
        .iter()
        .map(String::as_str)
        .chain(also)
        .enumerate()
        .map(|(i, sql)| format!("u{i} AS ({sql})"))
        .collect();
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "WITH {} SELECT 1",
        parts.join(",\n")
    )))
    .bind(run_ids)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// One page of the run listing (home page and `GET /api/v1/runs`): newest
/// first, keyset-paged by run id.
#[derive(Debug, Clone, Default, serde::Deserialize)]
pub struct RunListing {
    pub board: Option<String>,
    pub kernel: Option<String>,
    pub variant: Option<String>,
    /// `measured` or `simulated`.
    pub kind: Option<String>,
    /// The tool of the block: `cyclictest`, `ftrace_latency`, `table`, ...
    pub block_kind: Option<String>,
    /// Only runs with a smaller id (the last id of the previous page).
    pub before: Option<i64>,
}

/// At most `limit` runs of the listing, plus whether more follow. The SQL
/// is built from one constant fragment per filter that is set, so each
/// combination is its own plan and no filter costs anything when unset;
/// nothing counts all runs.
pub async fn run_page(
    db: &sqlx::PgPool,
    q: &RunListing,
    limit: i64,
) -> sqlx::Result<(Vec<crate::storage::runs::RunSummary>, bool)> {
    // A filter's name is looked up first (a board under any of its
    // spellings, as uploads store it). A name that names nothing is an
    // empty page at once: with its id unknown to the planner, the listing
    // below would walk every run looking for it (57 ms at 10^5 runs).
    let filtered = q.board.is_some() || q.kernel.is_some() || q.variant.is_some();
    let Some([board_id, kernel_id, variant_id]) = crate::storage::catalog::filter_ids(
        db,
        q.board.as_deref(),
        q.kernel.as_deref(),
        q.variant.as_deref(),
    )
    .await?
    else {
        return Ok((Vec::new(), false));
    };
    // The page's runs are picked from `runs` alone and only those rows are
    // joined with their names and traces: joining first would join every
    // run of a board or variant before the limit.
    let mut b = sqlx::QueryBuilder::<sqlx::Postgres>::new(
        "SELECT r.id, r.upload_id, b.name AS board, k.version AS kernel, v.name AS variant,
                r.kind, r.block_kind, r.label, r.created_at, r.unlisted, r.worst_us, t.culprit
         FROM (SELECT id, upload_id, board_id, kernel_id, variant_id, kind, block_kind, label,
                      created_at, unlisted, worst_us
               FROM runs r WHERE r.deleted_at IS NULL AND NOT r.unlisted",
    );
    crate::storage::catalog::push_id_filters(&mut b, [board_id, kernel_id, variant_id]);
    let kinds = [
        (" AND r.kind = ", &q.kind),
        (" AND r.block_kind = ", &q.block_kind),
    ];
    for (fragment, value) in kinds {
        if let Some(v) = value {
            b.push(fragment).push_bind(v.clone());
        }
    }
    if let Some(before) = q.before {
        b.push(" AND r.id < ").push_bind(before);
    }
    // The limit is written into the statement, not bound: in a generic
    // plan PostgreSQL cannot see a bound limit and plans the joins below
    // for a tenth of the runs, with a sequential scan of every trace (42 ms
    // at 10^5 runs, growing with them, where the page needs 0.6 ms). The
    // callers' limits are a few constants (and the API's `limit` clamped
    // to 1..=1000), each its own prepared statement.
    b.push(format!(" ORDER BY r.id DESC LIMIT {}", limit.max(0) + 1));
    b.push(
        ") r
         JOIN boards b ON b.id = r.board_id
         JOIN kernels k ON k.id = r.kernel_id
         JOIN variants v ON v.id = r.variant_id
         LEFT JOIN traces t ON t.run_id = r.id
         ORDER BY r.id DESC",
    );
    // Filtered by an id, the statement is planned for that id each time
    // (not prepared): whether a board's newest runs are found faster in
    // its own index or by walking all runs newest first depends on how
    // many runs it has, which a generic plan cannot know (it guesses one
    // board in nine, and walks every run for a board of twelve).
    let mut rows: Vec<crate::storage::runs::RunSummary> = b
        .build_query_as()
        .persistent(!filtered)
        .fetch_all(db)
        .await?;
    let more = rows.len() as i64 > limit;
    rows.truncate(limit.max(0) as usize);
    Ok((rows, more))
}

/// A permalink as listed on the compare page.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct PermalinkRow {
    pub slug: String,
    pub title: String,
    pub created_at: chrono::DateTime<chrono::Utc>,
}

/// The newest permalinks that are not removed.
pub async fn recent_permalinks(
    db: impl sqlx::PgExecutor<'_>,
    limit: i64,
) -> sqlx::Result<Vec<PermalinkRow>> {
    sqlx::query_as(
        "SELECT slug, title, created_at FROM snapshots WHERE removed_at IS NULL
         ORDER BY id DESC LIMIT $1",
    )
    .bind(limit)
    .fetch_all(db)
    .await
}

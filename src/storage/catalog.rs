//! Boards, kernels, series and variants: upserts by name and listings.

use chrono::{DateTime, Utc};
use sqlx::{FromRow, PgConnection, PgExecutor};

use crate::error::AppError;
use crate::storage::ids::{BoardId, KernelId, VariantId};

// Catalogue rows are shared by every upload that names them. They are
// created with `INSERT ... ON CONFLICT DO NOTHING` and read back with a
// plain `SELECT`, so an upload never takes a row lock on them (an
// `ON CONFLICT DO UPDATE` would hold one until its transaction commits, and
// every upload for the same kernel would wait for the one before). The
// upload path also creates them before its transaction ([`ensure`]), so a
// new name does not make concurrent uploads wait on an uncommitted insert.

/// The id of a board, stored under its canonical name
/// ([`crate::boards::canonical`]: one row for `licheepi-4a` and `LicheePi
/// 4A`) whichever spelling comes in.
pub async fn board_id(conn: &mut PgConnection, name: &str) -> sqlx::Result<BoardId> {
    let name = crate::boards::canonical(name);
    let name = name.as_str();
    let inserted: Option<BoardId> = sqlx::query_scalar(
        "INSERT INTO boards (name) VALUES ($1) ON CONFLICT (name) DO NOTHING RETURNING id",
    )
    .bind(name)
    .fetch_optional(&mut *conn)
    .await?;
    match inserted {
        Some(id) => Ok(id),
        None => {
            sqlx::query_scalar("SELECT id FROM boards WHERE name = $1")
                .bind(name)
                .fetch_one(&mut *conn)
                .await
        }
    }
}

pub async fn kernel_id(conn: &mut PgConnection, version: &str) -> sqlx::Result<KernelId> {
    let inserted: Option<KernelId> = sqlx::query_scalar(
        "INSERT INTO kernels (version) VALUES ($1) ON CONFLICT (version) DO NOTHING RETURNING id",
    )
    .bind(version)
    .fetch_optional(&mut *conn)
    .await?;
    match inserted {
        Some(id) => Ok(id),
        None => {
            sqlx::query_scalar("SELECT id FROM kernels WHERE version = $1")
                .bind(version)
                .fetch_one(&mut *conn)
                .await
        }
    }
}

/// Ids of boards (by canonical name), kernels (by version) and variants
/// (by name) looked up before an upload's transaction.
#[derive(Debug, Clone, Default)]
pub struct Known {
    pub boards: std::collections::HashMap<String, BoardId>,
    pub kernels: std::collections::HashMap<String, KernelId>,
    pub variants: std::collections::HashMap<String, VariantId>,
}

impl Known {
    /// The id of board `name` (any spelling), from the map or the database.
    pub async fn board_id(&self, conn: &mut PgConnection, name: &str) -> sqlx::Result<BoardId> {
        match self.boards.get(&crate::boards::canonical(name)) {
            Some(id) => Ok(*id),
            None => board_id(conn, name).await,
        }
    }

    /// The id of kernel `version`, from the map or the database.
    pub async fn kernel_id(
        &self,
        conn: &mut PgConnection,
        version: &str,
    ) -> sqlx::Result<KernelId> {
        match self.kernels.get(version) {
            Some(id) => Ok(*id),
            None => kernel_id(conn, version).await,
        }
    }
}

/// Create the boards, kernels and variants (names only) an upload will
/// name outside the upload's transaction, and return their ids: one
/// statement. Rows are never deleted, so they are there when the
/// transaction looks. A name created by a concurrent upload after this
/// statement's snapshot is left out of the map (the statement cannot see
/// it); [`Known`] then looks it up on its own.
///
/// A variant's id from here is only the id of the row by that name: a run
/// that names a parent, a series or a Message-ID still goes through
/// [`variant_id`], which records them.
pub async fn ensure(
    conn: &mut PgConnection,
    boards: &[&str],
    kernels: &[&str],
    variants: &[&str],
) -> sqlx::Result<Known> {
    let boards: Vec<String> = boards.iter().map(|b| crate::boards::canonical(b)).collect();
    let rows: Vec<(String, i64, String)> = sqlx::query_as(
        "WITH nb AS (INSERT INTO boards (name) SELECT DISTINCT unnest($1::text[]) ORDER BY 1
                     ON CONFLICT (name) DO NOTHING RETURNING id, name),
              nk AS (INSERT INTO kernels (version) SELECT DISTINCT unnest($2::text[]) ORDER BY 1
                     ON CONFLICT (version) DO NOTHING RETURNING id, version),
              nv AS (INSERT INTO variants (name) SELECT DISTINCT unnest($3::text[]) ORDER BY 1
                     ON CONFLICT (name) DO NOTHING RETURNING id, name)
         SELECT 'b', id, name FROM nb
         UNION ALL SELECT 'b', id, name FROM boards WHERE name = ANY($1)
         UNION ALL SELECT 'k', id, version FROM nk
         UNION ALL SELECT 'k', id, version FROM kernels WHERE version = ANY($2)
         UNION ALL SELECT 'v', id, name FROM nv
         UNION ALL SELECT 'v', id, name FROM variants WHERE name = ANY($3)",
    )
    .bind(&boards)
    .bind(kernels)
    .bind(variants)
    .fetch_all(&mut *conn)
    .await?;
    let mut known = Known::default();
    for (table, id, name) in rows {
        match table.as_str() {
            "b" => {
                known.boards.insert(name, BoardId(id));
            }
            "k" => {
                known.kernels.insert(name, KernelId(id));
            }
            _ => {
                known.variants.insert(name, VariantId(id));
            }
        }
    }
    Ok(known)
}

/// Ids of boards, kernels and variants (names only) this process has seen,
/// so that an upload naming only known ones skips [`ensure`] (one round
/// trip). Rows are never deleted and a name never changes its row, so a
/// kept id stays right; a process keeps the ids of its own database only
/// (one cache per service state). At most [`KnownCache::MAX_NAMES`] names
/// are kept; past that the cache starts again empty.
#[derive(Debug, Default)]
pub struct KnownCache(std::sync::Mutex<Known>);

impl KnownCache {
    pub const MAX_NAMES: usize = 100_000;

    /// The ids of all these names, if every one is kept (boards by any
    /// spelling).
    pub fn lookup(&self, boards: &[&str], kernels: &[&str], variants: &[&str]) -> Option<Known> {
        let kept = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let mut known = Known::default();
        for b in boards {
            let name = crate::boards::canonical(b);
            let id = *kept.boards.get(&name)?;
            known.boards.insert(name, id);
        }
        for k in kernels {
            known
                .kernels
                .insert((*k).to_owned(), *kept.kernels.get(*k)?);
        }
        for v in variants {
            known
                .variants
                .insert((*v).to_owned(), *kept.variants.get(*v)?);
        }
        Some(known)
    }

    /// Keep the ids [`ensure`] returned.
    pub fn remember(&self, known: &Known) {
        let mut kept = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let names = kept.boards.len() + kept.kernels.len() + kept.variants.len();
        if names >= Self::MAX_NAMES {
            *kept = Known::default();
        }
        kept.boards
            .extend(known.boards.iter().map(|(k, v)| (k.clone(), *v)));
        kept.kernels
            .extend(known.kernels.iter().map(|(k, v)| (k.clone(), *v)));
        kept.variants
            .extend(known.variants.iter().map(|(k, v)| (k.clone(), *v)));
    }
}

pub async fn series_id(
    conn: &mut PgConnection,
    message_id: &str,
    subject: Option<&str>,
) -> sqlx::Result<i64> {
    let existing: Option<(i64, Option<String>)> =
        sqlx::query_as("SELECT id, subject FROM series WHERE message_id = $1")
            .bind(message_id)
            .fetch_optional(&mut *conn)
            .await?;
    match existing {
        Some((id, Some(_))) => return Ok(id),
        Some((id, None)) if subject.is_none() => return Ok(id),
        Some((id, None)) => {
            // Filling the subject once: a short update that locks the row
            // only when there is something to write.
            sqlx::query("UPDATE series SET subject = $2 WHERE id = $1 AND subject IS NULL")
                .bind(id)
                .bind(subject)
                .execute(&mut *conn)
                .await?;
            return Ok(id);
        }
        None => {}
    }
    let inserted: Option<i64> = sqlx::query_scalar(
        "INSERT INTO series (message_id, subject) VALUES ($1, $2)
         ON CONFLICT (message_id) DO NOTHING RETURNING id",
    )
    .bind(message_id)
    .bind(subject)
    .fetch_optional(&mut *conn)
    .await?;
    match inserted {
        Some(id) => Ok(id),
        None => Box::pin(series_id(conn, message_id, subject)).await,
    }
}

/// Get or create a variant. A parent, series or Message-ID is recorded only
/// when the variant has none yet: the first upload that names them wins, so
/// later uploads cannot silently rewrite a chain.
///
/// Chains stay trees: a parent that already descends from the variant would
/// close a cycle. A parent the client named (`explicit`) is then refused
/// with 409; one guessed from column order or made by the simulator is left
/// out. A trigger in the database (`variants_no_cycle`) holds the same rule
/// for any writer, under a lock, so concurrent uploads cannot close a cycle
/// between them either.
pub async fn variant_id(
    conn: &mut PgConnection,
    name: &str,
    parent: Option<&str>,
    explicit: bool,
    series: Option<i64>,
    message_id: Option<&str>,
) -> Result<VariantId, AppError> {
    let mut parent_id = match parent {
        Some(p) if p != name => {
            Some(Box::pin(variant_id(conn, p, None, false, series, None)).await?)
        }
        _ => None,
    };
    if let Some(pid) = parent_id {
        // Only a variant that exists without a parent can take one now.
        let existing: Option<(VariantId, Option<VariantId>)> =
            sqlx::query_as("SELECT id, parent_id FROM variants WHERE name = $1")
                .bind(name)
                .fetch_optional(&mut *conn)
                .await?;
        if let Some((id, None)) = existing
            && descends_from(conn, pid, id).await?
        {
            if explicit {
                return Err(AppError::Conflict(format!(
                    "variant {name:?} cannot have parent {p:?}: {p:?} already descends from {name:?}, so the chain would be a cycle",
                    p = parent.unwrap_or_default()
                )));
            }
            parent_id = None;
        }
    }
    let cycle = |e: sqlx::Error| match &e {
        sqlx::Error::Database(d) if d.constraint() == Some("variants_no_cycle") => {
            AppError::Conflict(d.message().to_string())
        }
        _ => AppError::from(e),
    };
    type Existing = (VariantId, Option<VariantId>, Option<i64>, Option<String>);
    let existing: Option<Existing> =
        sqlx::query_as("SELECT id, parent_id, series_id, message_id FROM variants WHERE name = $1")
            .bind(name)
            .fetch_optional(&mut *conn)
            .await?;
    let id = match existing {
        Some(row) => row,
        None => {
            let inserted: Option<VariantId> = sqlx::query_scalar(
                "INSERT INTO variants (name, parent_id, series_id, message_id)
                 VALUES ($1, $2, $3, $4) ON CONFLICT (name) DO NOTHING RETURNING id",
            )
            .bind(name)
            .bind(parent_id)
            .bind(series)
            .bind(message_id)
            .fetch_optional(&mut *conn)
            .await
            .map_err(cycle)?;
            if let Some(id) = inserted {
                return Ok(id);
            }
            sqlx::query_as(
                "SELECT id, parent_id, series_id, message_id FROM variants WHERE name = $1",
            )
            .bind(name)
            .fetch_one(&mut *conn)
            .await?
        }
    };
    let (id, old_parent, old_series, old_message) = id;
    // The first upload that names a parent, series or Message-ID records
    // it; the row is written (and locked) only when there is one to fill.
    let fill = (old_parent.is_none() && parent_id.is_some())
        || (old_series.is_none() && series.is_some())
        || (old_message.is_none() && message_id.is_some());
    if fill {
        sqlx::query(
            "UPDATE variants SET
                parent_id = COALESCE(parent_id, $2),
                series_id = COALESCE(series_id, $3),
                message_id = COALESCE(message_id, $4)
             WHERE id = $1",
        )
        .bind(id)
        .bind(parent_id)
        .bind(series)
        .bind(message_id)
        .execute(&mut *conn)
        .await
        .map_err(cycle)?;
    }
    Ok(id)
}

/// Whether `ancestor` is `start` or one of its parents, grandparents, ...
async fn descends_from(
    conn: &mut PgConnection,
    start: VariantId,
    ancestor: VariantId,
) -> sqlx::Result<bool> {
    sqlx::query_scalar(
        "WITH RECURSIVE up(id, depth) AS (
             SELECT $1::bigint, 1
             UNION ALL
             SELECT v.parent_id, up.depth + 1 FROM variants v JOIN up ON v.id = up.id
             WHERE v.parent_id IS NOT NULL AND up.depth < 10000)
         SELECT EXISTS (SELECT 1 FROM up WHERE id = $2)",
    )
    .bind(start)
    .bind(ancestor)
    .fetch_one(conn)
    .await
}

#[derive(Debug, Clone, FromRow, serde::Serialize)]
pub struct BoardRow {
    pub id: BoardId,
    pub name: String,
    pub description: Option<String>,
    pub board_class: Option<String>,
    pub runs: i64,
    pub last_run: Option<DateTime<Utc>>,
}

pub async fn boards(db: impl PgExecutor<'_>) -> sqlx::Result<Vec<BoardRow>> {
    sqlx::query_as(
        "SELECT b.id, b.name, b.description, b.board_class,
                coalesce(sum(c.runs), 0)::bigint AS runs, max(c.last_run_at) AS last_run
         FROM boards b LEFT JOIN run_cells c ON c.board_id = b.id
         GROUP BY b.id ORDER BY b.name",
    )
    .fetch_all(db)
    .await
}

#[derive(Debug, Clone, FromRow, serde::Serialize)]
pub struct KernelRow {
    pub id: KernelId,
    pub version: String,
    pub runs: i64,
    pub boards: i64,
    pub last_run: Option<DateTime<Utc>>,
}

/// Kernels on one page of `/kernels`: at most `limit`, by version, after
/// `after` (the last version of the previous page). A fleet tests a build
/// a night, so the list grows without end; a page costs the same however
/// many there are.
pub async fn kernels_page(
    db: impl PgExecutor<'_>,
    after: Option<&str>,
    limit: i64,
) -> sqlx::Result<Vec<KernelRow>> {
    let mut q = sqlx::QueryBuilder::<sqlx::Postgres>::new(
        "SELECT k.id, k.version, coalesce(sum(c.runs), 0)::bigint AS runs,
                count(DISTINCT c.board_id) AS boards, max(c.last_run_at) AS last_run
         FROM (SELECT id, version FROM kernels",
    );
    if let Some(a) = after {
        q.push(" WHERE version > ").push_bind(a);
    }
    // A constant limit in the statement (see `storage::overview::run_page`).
    q.push(format!(" ORDER BY version LIMIT {}", limit.max(0)));
    q.push(
        ") k LEFT JOIN run_cells c ON c.kernel_id = k.id
         GROUP BY k.id, k.version ORDER BY k.version",
    );
    q.build_query_as().fetch_all(db).await
}

/// The ids of the board, kernel and variant a filter names (each one given
/// or not; a board under any of its spellings), or `None` when a name
/// given names nothing: a filter the caller can answer with no rows at
/// once. Looked up before a listing so its statement filters by ids the
/// planner can see.
pub async fn filter_ids(
    db: impl PgExecutor<'_>,
    board: Option<&str>,
    kernel: Option<&str>,
    variant: Option<&str>,
) -> sqlx::Result<Option<[Option<i64>; 3]>> {
    let board = board.map(crate::boards::canonical);
    if board.is_none() && kernel.is_none() && variant.is_none() {
        return Ok(Some([None; 3]));
    }
    let (b, k, v): (Option<i64>, Option<i64>, Option<i64>) = sqlx::query_as(
        "SELECT (SELECT id FROM boards WHERE name = $1),
                (SELECT id FROM kernels WHERE version = $2),
                (SELECT id FROM variants WHERE name = $3)",
    )
    .bind(&board)
    .bind(kernel)
    .bind(variant)
    .fetch_one(db)
    .await?;
    let found = (board.is_none() || b.is_some())
        && (kernel.is_none() || k.is_some())
        && (variant.is_none() || v.is_some());
    Ok(found.then_some([b, k, v]))
}

/// ` AND r.board_id = $n` (and kernel, variant) for each id of
/// [`filter_ids`] that is set, on a statement whose runs are `r`.
pub fn push_id_filters(q: &mut sqlx::QueryBuilder<sqlx::Postgres>, ids: [Option<i64>; 3]) {
    let columns = [
        " AND r.board_id = ",
        " AND r.kernel_id = ",
        " AND r.variant_id = ",
    ];
    for (fragment, id) in columns.into_iter().zip(ids) {
        if let Some(id) = id {
            q.push(fragment).push_bind(id);
        }
    }
}

/// One kernel with its counts, if it exists.
pub async fn kernel(db: impl PgExecutor<'_>, version: &str) -> sqlx::Result<Option<KernelRow>> {
    sqlx::query_as(
        "SELECT k.id, k.version, coalesce(sum(c.runs), 0)::bigint AS runs,
                count(DISTINCT c.board_id) AS boards, max(c.last_run_at) AS last_run
         FROM kernels k LEFT JOIN run_cells c ON c.kernel_id = k.id
         WHERE k.version = $1
         GROUP BY k.id",
    )
    .bind(version)
    .fetch_optional(db)
    .await
}

#[derive(Debug, Clone, FromRow, serde::Serialize)]
pub struct VariantRow {
    pub id: VariantId,
    pub name: String,
    pub parent: Option<String>,
    pub message_id: Option<String>,
    pub series_message_id: Option<String>,
    pub runs: i64,
}

/// Variants on one page of `/variants`: at most `limit`, by name, after
/// `after` (the last name of the previous page). Each patch series adds
/// its versions, so the list grows without end; a page costs the same
/// however many there are.
pub async fn variants_page(
    db: impl PgExecutor<'_>,
    after: Option<&str>,
    limit: i64,
) -> sqlx::Result<Vec<VariantRow>> {
    let mut q = sqlx::QueryBuilder::<sqlx::Postgres>::new(
        "SELECT v.id, v.name, p.name AS parent, v.message_id, s.message_id AS series_message_id,
                coalesce((SELECT sum(c.runs) FROM run_cells c WHERE c.variant_id = v.id), 0)::bigint
                    AS runs
         FROM (SELECT id, name, parent_id, series_id, message_id FROM variants",
    );
    if let Some(a) = after {
        q.push(" WHERE name > ").push_bind(a);
    }
    // A constant limit in the statement (see `storage::overview::run_page`).
    q.push(format!(" ORDER BY name LIMIT {}", limit.max(0)));
    q.push(
        ") v
         LEFT JOIN variants p ON p.id = v.parent_id
         LEFT JOIN series s ON s.id = v.series_id
         ORDER BY v.name",
    );
    q.build_query_as().fetch_all(db).await
}

/// The Message-ID a variant's page links to: its series', else its own.
pub async fn variant_message_id(
    db: impl PgExecutor<'_>,
    name: &str,
) -> sqlx::Result<Option<String>> {
    let row: Option<Option<String>> = sqlx::query_scalar(
        "SELECT coalesce(s.message_id, v.message_id) FROM variants v
         LEFT JOIN series s ON s.id = v.series_id WHERE v.name = $1",
    )
    .bind(name)
    .fetch_optional(db)
    .await?;
    Ok(row.flatten())
}

/// The newest variant of a patch chain and how many variants the chain
/// has, counting itself.
pub struct ChainHead {
    pub head: String,
    pub variants: usize,
}

/// Variants that end a chain (have a parent, no children), with the chain
/// length: the default comparisons offered on the compare page.
pub async fn chain_heads(db: impl PgExecutor<'_>) -> sqlx::Result<Vec<ChainHead>> {
    let rows: Vec<(String, i32)> = sqlx::query_as(
        "WITH RECURSIVE up(start, id, parent_id, depth) AS (
             SELECT v.name, v.id, v.parent_id, 1 FROM variants v
             WHERE v.parent_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM variants c WHERE c.parent_id = v.id)
             UNION ALL
             SELECT up.start, p.id, p.parent_id, up.depth + 1 FROM variants p JOIN up ON p.id = up.parent_id
             WHERE up.depth < 50)
         SELECT start, max(depth) FROM up GROUP BY start ORDER BY max(depth) DESC, start",
    )
    .fetch_all(db)
    .await?;
    Ok(rows
        .into_iter()
        .map(|(head, d)| ChainHead {
            head,
            variants: d.max(0) as usize,
        })
        .collect())
}

/// Names of the boards, kernels and variants that have at least one listed
/// run, sorted: the home page's filter choices. One index probe per name
/// (`EXISTS`), not a count over every run.
pub async fn names_with_listed_runs(
    db: &sqlx::PgPool,
) -> sqlx::Result<(Vec<String>, Vec<String>, Vec<String>)> {
    let names = |table: &str, name: &str, fk: &str| {
        format!(
            "SELECT {name} FROM {table} x WHERE EXISTS (SELECT 1 FROM runs r
             WHERE r.{fk} = x.id AND r.deleted_at IS NULL AND NOT r.unlisted) ORDER BY {name}"
        )
    };
    let mut out = Vec::with_capacity(3);
    for sql in [
        names("boards", "name", "board_id"),
        names("kernels", "version", "kernel_id"),
        names("variants", "name", "variant_id"),
    ] {
        out.push(
            sqlx::query_scalar(sqlx::AssertSqlSafe(sql))
                .fetch_all(db)
                .await?,
        );
    }
    let variants = out.pop().unwrap_or_default();
    let kernels = out.pop().unwrap_or_default();
    let boards = out.pop().unwrap_or_default();
    Ok((boards, kernels, variants))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known(boards: &[(&str, i64)], kernels: &[(&str, i64)], variants: &[(&str, i64)]) -> Known {
        Known {
            boards: boards
                .iter()
                .map(|(n, i)| ((*n).into(), BoardId(*i)))
                .collect(),
            kernels: kernels
                .iter()
                .map(|(n, i)| ((*n).into(), KernelId(*i)))
                .collect(),
            variants: variants
                .iter()
                .map(|(n, i)| ((*n).into(), VariantId(*i)))
                .collect(),
        }
    }

    #[test]
    fn the_cache_answers_only_when_every_name_is_kept() {
        let c = KnownCache::default();
        assert!(c.lookup(&[], &[], &[]).is_some(), "nothing to look up");
        assert!(c.lookup(&["rpi-5"], &[], &[]).is_none());
        c.remember(&known(
            &[(&crate::boards::canonical("licheepi-4a"), 3)],
            &[("6.5.0-rt6", 7)],
            &[("baseline", 11)],
        ));
        let k = c
            .lookup(&["LicheePi 4A"], &["6.5.0-rt6"], &["baseline"])
            .expect("all kept");
        assert_eq!(
            k.boards[&crate::boards::canonical("licheepi-4a")],
            BoardId(3)
        );
        assert_eq!(k.kernels["6.5.0-rt6"], KernelId(7));
        assert_eq!(k.variants["baseline"], VariantId(11));
        assert!(c.lookup(&["licheepi-4a"], &["6.5.0-rt7"], &[]).is_none());
        assert!(c.lookup(&["licheepi-4a"], &[], &["patched"]).is_none());
    }

    #[test]
    fn the_cache_starts_again_past_its_bound() {
        let c = KnownCache::default();
        let many: Vec<(String, i64)> = (0..KnownCache::MAX_NAMES as i64)
            .map(|i| (format!("6.{i}"), i))
            .collect();
        c.remember(&Known {
            kernels: many
                .iter()
                .map(|(n, i)| (n.clone(), KernelId(*i)))
                .collect(),
            ..Known::default()
        });
        assert!(c.lookup(&[], &["6.0"], &[]).is_some());
        c.remember(&known(&[], &[("7.0", 1)], &[]));
        assert!(c.lookup(&[], &["6.0"], &[]).is_none(), "emptied");
        assert!(c.lookup(&[], &["7.0"], &[]).is_some());
    }
}

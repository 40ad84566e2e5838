-- EXPLAIN ANALYZE of the heaviest statements behind the pages, with the
-- parameters bench/scale.sh measures (psql -f bench/scale/explain.sql).
\pset pager off
\echo '== home: the newest 50 listed runs of a board'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
SELECT r.id, r.upload_id, b.name AS board, k.version AS kernel, v.name AS variant,
       r.kind, r.block_kind, r.label, r.created_at, r.unlisted, r.worst_us, t.culprit
FROM (SELECT id, upload_id, board_id, kernel_id, variant_id, kind, block_kind, label,
             created_at, unlisted, worst_us
      FROM runs r WHERE r.deleted_at IS NULL AND NOT r.unlisted
        AND r.board_id = (SELECT id FROM boards WHERE name = 'rpi-5')
      ORDER BY r.id DESC LIMIT 51) r
JOIN boards b ON b.id = r.board_id
JOIN kernels k ON k.id = r.kernel_id
JOIN variants v ON v.id = r.variant_id
LEFT JOIN traces t ON t.run_id = r.id
ORDER BY r.id DESC;

\echo '== compare: one chain column (the newest 200 runs of a variant, each with its run_compare row)'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
WITH h AS (
    SELECT r.id, r.created_at, r.upload_id, r.block_index, r.column_index, b.name AS board,
           k.version AS kernel, v.name AS variant, r.kind, r.title, r.tool, r.block_kind
    FROM runs r JOIN boards b ON b.id = r.board_id JOIN kernels k ON k.id = r.kernel_id
    JOIN variants v ON v.id = r.variant_id
    WHERE r.deleted_at IS NULL AND NOT r.unlisted
      AND r.variant_id = (SELECT id FROM variants WHERE name = 'rig03-v5')
    ORDER BY r.created_at DESC, r.id DESC LIMIT 201)
SELECT h.id, h.upload_id, h.block_index, h.column_index, h.board, h.kernel, h.variant,
       h.kind, h.title, h.tool, h.block_kind, c.run_id IS NOT NULL AS kept,
       c.threads, c.footers, c.metrics,
       CASE WHEN h.block_kind = 'cyclictest' THEN c.buckets ELSE ''::bytea END,
       c.tracer, c.trace_latency_us, c.culprit, c.culprit_path
FROM h LEFT JOIN run_compare c ON c.run_id = h.id
ORDER BY h.created_at, h.id;

\echo '== culprits: the leaderboard without a kernel (per-board cells)'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
SELECT c.culprit, sum(c.traces)::bigint AS traces, max(c.worst_us) AS worst_us,
       array_agg(b.name ORDER BY b.name) AS boards,
       (array_agg(k.version ORDER BY c.worst_us DESC, c.worst_run))[1] AS worst_kernel,
       (array_agg(c.worst_run ORDER BY c.worst_us DESC, c.worst_run))[1] AS worst_run
FROM culprit_board_cells c JOIN boards b ON b.id = c.board_id
JOIN kernels k ON k.id = c.worst_kernel
GROUP BY c.culprit ORDER BY worst_us DESC LIMIT 100;

\echo '== history: days, then cells of the newest 730 days'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
SELECT DISTINCT c.day FROM history_cells c JOIN boards b ON b.id = c.board_id
WHERE b.name = 'rpi-5' AND c.metric = '' AND c.kind = 'cyclictest'
ORDER BY c.day DESC LIMIT 731;
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
SELECT c.day, k.version AS kernel, c.runs, c.total / c.runs AS mean, c.max_value,
       c.max_run, v.name AS max_variant
FROM history_cells c JOIN boards b ON b.id = c.board_id
JOIN kernels k ON k.id = c.kernel_id JOIN variants v ON v.id = c.max_variant_id
WHERE b.name = 'rpi-5' AND c.metric = '' AND c.kind = 'cyclictest'
  AND c.day >= (SELECT min(day) FROM (
      SELECT DISTINCT c2.day FROM history_cells c2 JOIN boards b2 ON b2.id = c2.board_id
      WHERE b2.name = 'rpi-5' AND c2.metric = '' AND c2.kind = 'cyclictest'
      ORDER BY c2.day DESC LIMIT 730) d)
ORDER BY c.day, k.version;

\echo '== catalogue: runs per board from run_cells'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
SELECT b.name, coalesce(sum(c.runs), 0)::bigint FROM boards b
LEFT JOIN run_cells c ON c.board_id = b.id GROUP BY b.name ORDER BY b.name;

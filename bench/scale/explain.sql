-- EXPLAIN ANALYZE of the heaviest statements behind the pages, with the
-- parameters bench/scale.sh measures (psql -f bench/scale/explain.sql).
\pset pager off
\echo '== home: the newest 50 listed runs'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
SELECT r.id, r.upload_id, b.name AS board, k.version AS kernel, v.name AS variant,
       r.kind, r.block_kind, r.label, r.created_at, r.unlisted, r.worst_us, t.culprit
FROM runs r JOIN boards b ON b.id = r.board_id JOIN kernels k ON k.id = r.kernel_id
JOIN variants v ON v.id = r.variant_id LEFT JOIN traces t ON t.run_id = r.id
WHERE r.deleted_at IS NULL AND NOT r.unlisted AND b.name = 'rpi-5'
ORDER BY r.id DESC LIMIT 51;

\echo '== compare: the runs of one chain column (newest 200 of a variant)'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
SELECT r.id, r.upload_id, r.block_index, r.column_index, b.name AS board, k.version AS kernel,
       v.name AS variant, r.kind, r.title, r.tool, r.block_kind
FROM runs r JOIN boards b ON b.id = r.board_id JOIN kernels k ON k.id = r.kernel_id
JOIN variants v ON v.id = r.variant_id
WHERE r.deleted_at IS NULL AND NOT r.unlisted
  AND r.variant_id = (SELECT id FROM variants WHERE name = 'rig03-v5')
ORDER BY r.created_at DESC, r.id DESC LIMIT 201;

\echo '== compare: the metric rows of that column'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
SELECT run_id, value, printed_delta_pct, spread_pct, name, stat, unit, scope, section,
       direction, direction_source, delta_convention
FROM unnest(ARRAY(
    SELECT r.id FROM runs r
    WHERE r.deleted_at IS NULL AND NOT r.unlisted
      AND r.variant_id = (SELECT id FROM variants WHERE name = 'rig03-v5')
    ORDER BY r.created_at DESC, r.id DESC LIMIT 200)) AS q(run)
JOIN metrics ON run_id = q.run ORDER BY run_id, id;

\echo '== compare: summed cyclictest buckets of a board x kernel column'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
SELECT thread, lower_us, sum(count)::bigint AS count FROM histogram_buckets
WHERE run_id = ANY(ARRAY(
    SELECT r.id FROM runs r JOIN boards b ON b.id = r.board_id JOIN kernels k ON k.id = r.kernel_id
    WHERE r.deleted_at IS NULL AND NOT r.unlisted AND b.name = 'rpi-5' AND k.version = '6.10.14'
      AND r.block_kind = 'cyclictest'
    ORDER BY r.created_at DESC, r.id DESC LIMIT 200))
GROUP BY thread, lower_us ORDER BY thread, lower_us;

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

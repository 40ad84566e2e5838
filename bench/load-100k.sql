-- Synthetic catalogue for the page benchmarks: 100 000 runs over
-- 20 boards x 50 kernels x 100 variants, each with 8 cyclictest threads,
-- every fifth with an irqsoff trace and two metrics.
BEGIN;
INSERT INTO boards (name) SELECT 'bench-board-' || b FROM generate_series(1, 20) b ON CONFLICT DO NOTHING;
INSERT INTO kernels (version) SELECT '6.' || k || '.0-bench' FROM generate_series(1, 50) k ON CONFLICT DO NOTHING;
INSERT INTO variants (name) SELECT 'bench-v' || v FROM generate_series(1, 100) v ON CONFLICT DO NOTHING;
INSERT INTO runs (block_index, board_id, kernel_id, variant_id, kind, block_kind, first_line, last_line, block, created_at)
SELECT 0,
       (SELECT id FROM boards WHERE name = 'bench-board-' || (1 + i % 20)),
       (SELECT id FROM kernels WHERE version = '6.' || (1 + (i / 20) % 50) || '.0-bench'),
       (SELECT id FROM variants WHERE name = 'bench-v' || (1 + (i / 1000) % 100)),
       'measured', 'cyclictest', 1, 8, '{}'::jsonb, now() - make_interval(secs => 100000 - i)
FROM generate_series(1, 100000) i;
INSERT INTO latency_threads (run_id, thread, min_us, act_us, avg_us, max_us)
SELECT r.id, t, 1, 5, 3 + (r.id % 7), 50 + ((r.id * 7919 + t * 104729) % 60000)
FROM runs r CROSS JOIN generate_series(0, 7) t
WHERE r.block->>'bench' IS NULL AND r.upload_id IS NULL AND r.simulation_id IS NULL;
INSERT INTO traces (run_id, tracer, latency_us, cpu, nr_cpus, culprit, culprit_path)
SELECT r.id, 'irqsoff', 100 + (r.id * 31) % 80000, 1, 8,
       (ARRAY['isolate_lru_folios', 'madvise_cold_or_pageout_pte_range', 'free_unref_page_list', 'move_expired_inodes'])[1 + r.id % 4],
       ARRAY['f', 'g']
FROM runs r WHERE r.id % 5 = 0 AND r.upload_id IS NULL AND r.simulation_id IS NULL;
INSERT INTO metrics (run_id, name, value, unit)
SELECT r.id, m, 100 + (r.id * 13) % 50, 's'
FROM runs r CROSS JOIN (VALUES ('Elapsed'), ('System')) AS x(m)
WHERE r.id % 5 = 0 AND r.upload_id IS NULL AND r.simulation_id IS NULL;
COMMIT;
ANALYZE;
UPDATE runs r SET worst_us = GREATEST(
    (SELECT max(lt.max_us) FROM latency_threads lt WHERE lt.run_id = r.id),
    (SELECT t.latency_us FROM traces t WHERE t.run_id = r.id))
WHERE r.upload_id IS NULL AND r.simulation_id IS NULL;
ANALYZE;
-- The overview aggregates, as ingest would have kept them.
DELETE FROM heatmap_cells; DELETE FROM culprit_cells; DELETE FROM metric_cells;
INSERT INTO heatmap_cells (board_id, kernel_id, worst_us, runs)
SELECT board_id, kernel_id, max(worst_us), count(*) FROM runs r
WHERE r.deleted_at IS NULL AND NOT r.unlisted AND r.kind = 'measured' AND r.worst_us IS NOT NULL
GROUP BY board_id, kernel_id;
INSERT INTO culprit_cells (culprit, board_id, kernel_id, traces, worst_us, worst_run)
SELECT t.culprit, r.board_id, r.kernel_id, count(*), max(t.latency_us), (array_agg(r.id ORDER BY t.latency_us DESC, r.id))[1]
FROM traces t JOIN runs r ON r.id = t.run_id
WHERE t.culprit IS NOT NULL AND r.deleted_at IS NULL AND NOT r.unlisted AND r.kind = 'measured'
GROUP BY t.culprit, r.board_id, r.kernel_id;
INSERT INTO metric_cells (name, board_id, kernel_id, total, n)
SELECT m.name, r.board_id, r.kernel_id, sum(m.value), count(*)
FROM metrics m JOIN runs r ON r.id = m.run_id
WHERE r.deleted_at IS NULL AND NOT r.unlisted AND r.kind = 'measured'
GROUP BY m.name, r.board_id, r.kernel_id;
ANALYZE;

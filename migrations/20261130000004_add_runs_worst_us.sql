-- The worst latency of a run (largest cyclictest thread Max, or the
-- latency-tracer report's latency), kept on the run so overviews such as
-- the boards x kernels heatmap aggregate one narrow index instead of every
-- thread row.
ALTER TABLE runs ADD COLUMN worst_us DOUBLE PRECISION;

UPDATE runs r SET worst_us = GREATEST(
    (SELECT max(lt.max_us) FROM latency_threads lt WHERE lt.run_id = r.id),
    (SELECT t.latency_us FROM traces t WHERE t.run_id = r.id));

CREATE INDEX runs_heatmap_idx ON runs (board_id, kernel_id) INCLUDE (worst_us)
    WHERE deleted_at IS NULL AND NOT unlisted AND kind = 'measured' AND worst_us IS NOT NULL;
CREATE INDEX traces_latency_idx ON traces (latency_us DESC);

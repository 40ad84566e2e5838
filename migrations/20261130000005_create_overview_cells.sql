-- Aggregates behind the overview pages (heatmap, culprit leaderboard,
-- metric heatmaps), kept up to date in the transaction that stores or
-- deletes runs, so those pages read a few hundred rows instead of every
-- run. Only listed, measured, not deleted runs count.

CREATE TABLE heatmap_cells (
    board_id  BIGINT NOT NULL REFERENCES boards (id),
    kernel_id BIGINT NOT NULL REFERENCES kernels (id),
    worst_us  DOUBLE PRECISION NOT NULL,
    runs      BIGINT NOT NULL,
    PRIMARY KEY (board_id, kernel_id)
);

CREATE TABLE culprit_cells (
    culprit   TEXT NOT NULL,
    board_id  BIGINT NOT NULL REFERENCES boards (id),
    kernel_id BIGINT NOT NULL REFERENCES kernels (id),
    traces    BIGINT NOT NULL,
    worst_us  DOUBLE PRECISION NOT NULL,
    worst_run BIGINT NOT NULL REFERENCES runs (id),
    PRIMARY KEY (culprit, board_id, kernel_id)
);

CREATE TABLE metric_cells (
    name      TEXT NOT NULL,
    board_id  BIGINT NOT NULL REFERENCES boards (id),
    kernel_id BIGINT NOT NULL REFERENCES kernels (id),
    total     DOUBLE PRECISION NOT NULL,
    n         BIGINT NOT NULL,
    PRIMARY KEY (name, board_id, kernel_id)
);

INSERT INTO heatmap_cells (board_id, kernel_id, worst_us, runs)
SELECT board_id, kernel_id, max(worst_us), count(*) FROM runs
WHERE deleted_at IS NULL AND NOT unlisted AND kind = 'measured' AND worst_us IS NOT NULL
GROUP BY board_id, kernel_id;

INSERT INTO culprit_cells (culprit, board_id, kernel_id, traces, worst_us, worst_run)
SELECT t.culprit, r.board_id, r.kernel_id, count(*), max(t.latency_us),
       (array_agg(r.id ORDER BY t.latency_us DESC, r.id))[1]
FROM traces t JOIN runs r ON r.id = t.run_id
WHERE t.culprit IS NOT NULL AND r.deleted_at IS NULL AND NOT r.unlisted AND r.kind = 'measured'
GROUP BY t.culprit, r.board_id, r.kernel_id;

INSERT INTO metric_cells (name, board_id, kernel_id, total, n)
SELECT m.name, r.board_id, r.kernel_id, sum(m.value), count(*)
FROM metrics m JOIN runs r ON r.id = m.run_id
WHERE r.deleted_at IS NULL AND NOT r.unlisted AND r.kind = 'measured' AND m.value = m.value
GROUP BY m.name, r.board_id, r.kernel_id;

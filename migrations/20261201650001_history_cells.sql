-- Per-day history of each board, kept in the transaction that stores runs
-- (like run_cells): /history reads one row per day x kernel instead of
-- every run of the board. A series is the worst latency of one kind
-- (`metric` = '', `kind` = cyclictest, irqsoff, ...) or one metric
-- (`kind` = '', a run's value being the mean of its rows of that name).
-- Every listed, not deleted run counts, measured or simulated.
CREATE TABLE history_cells (
    board_id  BIGINT NOT NULL REFERENCES boards (id),
    metric    TEXT NOT NULL,
    kind      TEXT NOT NULL,
    day       DATE NOT NULL,
    kernel_id BIGINT NOT NULL REFERENCES kernels (id),
    runs      BIGINT NOT NULL,
    total     DOUBLE PRECISION NOT NULL,
    max_value DOUBLE PRECISION NOT NULL,
    max_run   BIGINT NOT NULL REFERENCES runs (id),
    -- The variant of max_run, so a page needs no lookup of the run.
    max_variant_id BIGINT NOT NULL REFERENCES variants (id),
    PRIMARY KEY (board_id, metric, kind, day, kernel_id)
);
CREATE INDEX history_cells_kernel_idx ON history_cells (kernel_id);

INSERT INTO history_cells (board_id, metric, kind, day, kernel_id, runs, total, max_value, max_run,
                           max_variant_id)
SELECT r.board_id, '', r.worst_kind, (r.created_at AT TIME ZONE 'UTC')::date, r.kernel_id,
       count(*), sum(r.worst_us), max(r.worst_us),
       (array_agg(r.id ORDER BY r.worst_us DESC, r.id))[1],
       (array_agg(r.variant_id ORDER BY r.worst_us DESC, r.id))[1]
FROM runs r
WHERE r.deleted_at IS NULL AND NOT r.unlisted AND r.worst_us IS NOT NULL
  AND r.worst_kind IS NOT NULL
GROUP BY 1, 2, 3, 4, 5;

INSERT INTO history_cells (board_id, metric, kind, day, kernel_id, runs, total, max_value, max_run,
                           max_variant_id)
SELECT p.board_id, p.name, '', p.day, p.kernel_id, count(*), sum(p.value), max(p.value),
       (array_agg(p.id ORDER BY p.value DESC, p.id))[1],
       (array_agg(p.variant_id ORDER BY p.value DESC, p.id))[1]
FROM (SELECT r.id, r.board_id, r.kernel_id, r.variant_id, (r.created_at AT TIME ZONE 'UTC')::date AS day,
             m.name, avg(m.value) AS value
      FROM metrics m JOIN runs r ON r.id = m.run_id
      WHERE r.deleted_at IS NULL AND NOT r.unlisted AND m.value = m.value
      GROUP BY r.id, m.name) p
GROUP BY 1, 2, 3, 4, 5;

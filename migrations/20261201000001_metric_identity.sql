-- One measurement model for comparisons that say only true things.
--
-- * A metric's identity is its scope (the table or test it came from), its
--   printed statistic, its name and its unit: `scope` and `section` (what a
--   reader calls the table) are stored with every value.
-- * Whether higher is better comes from data: `direction` is set where the
--   upload said so or an mmtests table's printed gain tells; otherwise it is
--   looked up in the report crate's direction table when read.
-- * A printed delta keeps its sign convention (`gain`: mmtests, positive =
--   better; `change`: the raw change, LKP and hand-made tables).
-- * Histogram footers keep the real maximum (`# Max Latencies`).
-- * The worst latency of a run names its kind (cyclictest or the tracer),
--   and the heatmap keeps kinds and variants apart.

ALTER TABLE metrics
    ADD COLUMN scope TEXT NOT NULL DEFAULT '',
    ADD COLUMN section TEXT,
    ADD COLUMN direction TEXT
        CONSTRAINT metrics_direction_check CHECK (direction IN ('higher', 'lower', 'neutral')),
    ADD COLUMN direction_source TEXT
        CONSTRAINT metrics_direction_source_check CHECK (direction_source IN ('upload', 'printed')),
    ADD COLUMN delta_convention TEXT
        CONSTRAINT metrics_delta_convention_check CHECK (delta_convention IN ('change', 'gain'));

-- Rows stored before: a table's rows are scoped to their table, other
-- blocks to their kind of block (time, metrics, rtla).
UPDATE metrics m
SET scope = CASE WHEN r.block_kind = 'table'
                 THEN 'upload ' || coalesce(r.upload_id::text, 'none') || ' block ' || r.block_index
                 ELSE r.block_kind END,
    section = CASE WHEN r.block_kind = 'table' THEN coalesce(r.block->>'title', 'untitled table')
                   ELSE r.block_kind END,
    delta_convention = CASE WHEN r.block->>'style' IN ('mmtests', 'duration') THEN 'gain'
                            WHEN m.printed_delta_pct IS NOT NULL THEN 'change' END
FROM runs r WHERE r.id = m.run_id;

ALTER TABLE histogram_threads
    ADD COLUMN min_us DOUBLE PRECISION,
    ADD COLUMN avg_us DOUBLE PRECISION,
    ADD COLUMN max_us DOUBLE PRECISION;

ALTER TABLE runs ADD COLUMN worst_kind TEXT;
UPDATE runs r SET worst_kind = CASE WHEN r.block_kind = 'ftrace_latency'
                                    THEN (SELECT t.tracer FROM traces t WHERE t.run_id = r.id)
                                    ELSE r.block_kind END
WHERE r.worst_us IS NOT NULL;

DROP TABLE heatmap_cells;
CREATE TABLE heatmap_cells (
    board_id   BIGINT NOT NULL REFERENCES boards (id),
    kernel_id  BIGINT NOT NULL REFERENCES kernels (id),
    variant_id BIGINT NOT NULL REFERENCES variants (id),
    -- "cyclictest" or the tracer: kinds are never mixed in one cell.
    kind       TEXT NOT NULL,
    worst_us   DOUBLE PRECISION NOT NULL,
    runs       BIGINT NOT NULL,
    -- The newest run of the cell: the default heatmap shows, per board x
    -- kernel, the variant measured last.
    last_run   BIGINT NOT NULL,
    PRIMARY KEY (board_id, kernel_id, variant_id, kind)
);
INSERT INTO heatmap_cells (board_id, kernel_id, variant_id, kind, worst_us, runs, last_run)
SELECT board_id, kernel_id, variant_id, worst_kind, max(worst_us), count(*), max(id) FROM runs
WHERE deleted_at IS NULL AND NOT unlisted AND kind = 'measured' AND worst_us IS NOT NULL
  AND worst_kind IS NOT NULL
GROUP BY board_id, kernel_id, variant_id, worst_kind;

DROP TABLE metric_cells;
CREATE TABLE metric_cells (
    name       TEXT NOT NULL,
    unit       TEXT NOT NULL DEFAULT '',
    board_id   BIGINT NOT NULL REFERENCES boards (id),
    kernel_id  BIGINT NOT NULL REFERENCES kernels (id),
    variant_id BIGINT NOT NULL REFERENCES variants (id),
    total      DOUBLE PRECISION NOT NULL,
    n          BIGINT NOT NULL,
    last_run   BIGINT NOT NULL,
    PRIMARY KEY (name, unit, board_id, kernel_id, variant_id)
);
-- Only run-to-run metrics (not rows of printed tables, whose scope is their
-- own table) make a boards x kernels heatmap.
INSERT INTO metric_cells (name, unit, board_id, kernel_id, variant_id, total, n, last_run)
SELECT m.name, coalesce(m.unit, ''), r.board_id, r.kernel_id, r.variant_id, sum(m.value), count(*),
       max(r.id)
FROM metrics m JOIN runs r ON r.id = m.run_id
WHERE r.deleted_at IS NULL AND NOT r.unlisted AND r.kind = 'measured' AND m.value = m.value
  AND r.block_kind <> 'table'
GROUP BY m.name, coalesce(m.unit, ''), r.board_id, r.kernel_id, r.variant_id;

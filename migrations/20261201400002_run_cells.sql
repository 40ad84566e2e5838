-- Listed runs per board x kernel x variant, kept in the transaction that
-- stores runs (like heatmap_cells): the catalogue pages count runs per
-- board, kernel and variant from these few rows instead of from every run.
CREATE TABLE run_cells (
    board_id    BIGINT NOT NULL REFERENCES boards (id),
    kernel_id   BIGINT NOT NULL REFERENCES kernels (id),
    variant_id  BIGINT NOT NULL REFERENCES variants (id),
    runs        BIGINT NOT NULL,
    last_run_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (board_id, kernel_id, variant_id)
);
CREATE INDEX run_cells_kernel_idx ON run_cells (kernel_id);
CREATE INDEX run_cells_variant_idx ON run_cells (variant_id);

INSERT INTO run_cells (board_id, kernel_id, variant_id, runs, last_run_at)
SELECT board_id, kernel_id, variant_id, count(*), max(created_at)
FROM runs WHERE deleted_at IS NULL AND NOT unlisted
GROUP BY board_id, kernel_id, variant_id;

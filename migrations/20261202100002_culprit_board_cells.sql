-- The culprit leaderboard per culprit x board, without the kernel: the
-- unfiltered and board-filtered leaderboards read these few rows (culprits
-- x boards) instead of `culprit_cells`, which a fleet that tests a kernel
-- build a night grows by one row per culprit and board every night. Kept
-- with the other overview aggregates in the transaction that stores runs
-- (`storage::overview`); rebuilt per board from `culprit_cells` when runs
-- are deleted.
CREATE TABLE culprit_board_cells (
    culprit      TEXT NOT NULL,
    board_id     BIGINT NOT NULL REFERENCES boards (id),
    traces       BIGINT NOT NULL,
    worst_us     DOUBLE PRECISION NOT NULL,
    worst_run    BIGINT NOT NULL REFERENCES runs (id),
    -- The kernel of the worst run.
    worst_kernel BIGINT NOT NULL REFERENCES kernels (id),
    PRIMARY KEY (culprit, board_id)
);

INSERT INTO culprit_board_cells (culprit, board_id, traces, worst_us, worst_run, worst_kernel)
SELECT culprit, board_id, sum(traces), max(worst_us),
       (array_agg(worst_run ORDER BY worst_us DESC, worst_run))[1],
       (array_agg(kernel_id ORDER BY worst_us DESC, worst_run))[1]
FROM culprit_cells
GROUP BY culprit, board_id;

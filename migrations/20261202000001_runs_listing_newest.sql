-- The run listing (`/`, `/variants/{name}`, `/api/v1/runs`) filtered by a
-- board, kernel or variant reads that one's newest runs by id (keyset
-- pagination on id). The filter's id comes from a subquery, so the planner
-- cannot tell a variant of 200 runs from one of 10^5 and walked the
-- primary key backwards past every other run (417 ms at 10^6 runs for a
-- 200-run variant). With these, each filter reads its own runs, newest
-- first, and stops at the page's end.
CREATE INDEX runs_listed_variant_newest_idx ON runs (variant_id, id DESC)
    WHERE deleted_at IS NULL AND NOT unlisted;
CREATE INDEX runs_listed_kernel_newest_idx ON runs (kernel_id, id DESC)
    WHERE deleted_at IS NULL AND NOT unlisted;
CREATE INDEX runs_listed_board_newest_idx ON runs (board_id, id DESC)
    WHERE deleted_at IS NULL AND NOT unlisted;

-- `perf lock contention` rows of a run, keyed by what the table printed
-- (caller, lock, task or owner, cgroup), for the run page's lock table.
-- Comparisons read the same numbers as metrics (`total_wait [key]`, ...).
CREATE TABLE lock_rows (
    run_id        BIGINT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    position      INT NOT NULL,
    lock_type     TEXT,
    caller        TEXT,
    lock          TEXT,
    address       TEXT,
    task          TEXT,
    pid           BIGINT,
    cgroup        TEXT,
    contended     BIGINT NOT NULL,
    total_wait_us DOUBLE PRECISION NOT NULL,
    max_wait_us   DOUBLE PRECISION,
    min_wait_us   DOUBLE PRECISION,
    avg_wait_us   DOUBLE PRECISION,
    stack         TEXT[] NOT NULL DEFAULT '{}',
    PRIMARY KEY (run_id, position)
);

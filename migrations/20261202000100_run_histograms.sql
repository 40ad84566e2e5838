-- A run's histogram buckets as one value, for comparisons: a column sums
-- the buckets of its cyclictest runs. As rows of `histogram_buckets` that
-- was about 21 000 rows for a column of 50 cyclictest runs at 10^5 runs,
-- and as arrays of numbers each element costs a call to send and to
-- decode it: the buckets were most of the CPU of PostgreSQL and of the
-- server for a chain compare. Packed, a run's buckets are one bytea that
-- is copied as it is. `histogram_buckets` stays the record (the run page
-- reads it); this is written by the transaction that stores the runs
-- (`storage::compare::add_upload_metric_values`) from the rows it stored.
CREATE TABLE run_histograms (
    run_id  BIGINT PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
    -- Per bucket, by thread and then lower bound, 20 bytes in network
    -- byte order: thread (int4), lower bound in us (float8), count (int8).
    buckets BYTEA NOT NULL CONSTRAINT run_histograms_whole CHECK (octet_length(buckets) % 20 = 0)
);

-- Runs stored before.
INSERT INTO run_histograms (run_id, buckets)
SELECT run_id,
       string_agg(int4send(thread) || float8send(lower_us) || int8send(count), ''::bytea
                  ORDER BY thread, lower_us)
FROM histogram_buckets
GROUP BY run_id;

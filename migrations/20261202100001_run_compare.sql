-- Everything a comparison reads of a run, in one row: its latency
-- threads, histogram footers, trace summary, metric values and histogram
-- buckets. A comparison column of 200 runs then makes one index probe a
-- run (six before: the run's latency threads, footers, trace, metric
-- values and buckets), and numbers are packed in `bytea` values copied as
-- they are: in arrays, each element costs PostgreSQL a call to send it and
-- the server one to decode it. The rows of `latency_threads`,
-- `histogram_threads`, `traces`, `metrics` and `histogram_buckets` stay
-- the record (the run page and the API read them); this row is written
-- from them by the transaction that stores the runs
-- (`storage::compare::add_upload_compare_rows`), the only writer of those
-- tables. It replaces `run_metric_values` and `run_histograms`.
--
-- Packed layouts, numbers in network byte order, one record after another
-- in the order given:
--   threads: per latency thread by thread number, 28 bytes: thread
--            (int4), min, avg, max in us (float8 each).
--   footers: per histogram thread by thread number, 29 bytes: thread
--            (int4), bucket width in us (float8), overflows (int8), a
--            byte 1 or 0 (max known or not), max in us (float8, 0 when
--            not known).
--   metrics: per metric row by `metrics.id`, 34 bytes: identity
--            (`metric_idents.id`, int8), value (float8), then the printed
--            delta and the spread in percent, each a byte 1 or 0 and a
--            float8 (0 when absent).
--   buckets: per histogram bucket by thread and lower bound, 20 bytes:
--            thread (int4), lower bound in us (float8), count (int8).
-- A metric row's identity, which the statement that packs the row has
-- just stored: a missing one is an error, never a metric left out.
CREATE FUNCTION metric_ident_required(id BIGINT) RETURNS BIGINT
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
    IF id IS NULL THEN
        RAISE EXCEPTION 'a metric row has no stored identity';
    END IF;
    RETURN id;
END
$$;

-- An optional number: a byte 1 and the float8, or nine zero bytes.
CREATE FUNCTION pack_opt_float8(v DOUBLE PRECISION) RETURNS BYTEA
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN v IS NULL THEN '\x000000000000000000'::bytea
                ELSE '\x01'::bytea || float8send(v) END
$$;

CREATE TABLE run_compare (
    run_id           BIGINT PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
    threads          BYTEA NOT NULL CONSTRAINT run_compare_threads CHECK (octet_length(threads) % 28 = 0),
    footers          BYTEA NOT NULL CONSTRAINT run_compare_footers CHECK (octet_length(footers) % 29 = 0),
    metrics          BYTEA NOT NULL CONSTRAINT run_compare_metrics CHECK (octet_length(metrics) % 34 = 0),
    buckets          BYTEA NOT NULL CONSTRAINT run_compare_buckets CHECK (octet_length(buckets) % 20 = 0),
    tracer           TEXT,
    trace_latency_us DOUBLE PRECISION,
    culprit          TEXT,
    culprit_path     TEXT[]
);

-- Runs stored before, in one pass over each child table (every run has
-- its row, empty values where it has no such rows): 12 s at 10^5 runs,
-- 139 s at 10^6.
INSERT INTO run_compare (run_id, threads, footers, metrics, buckets, tracer, trace_latency_us,
                         culprit, culprit_path)
SELECT r.id,
       coalesce(lt.packed, ''::bytea), coalesce(ht.packed, ''::bytea),
       coalesce(mv.packed, ''::bytea), coalesce(hb.packed, ''::bytea),
       t.tracer, t.latency_us, t.culprit, t.culprit_path
FROM runs r
LEFT JOIN (SELECT run_id,
                  string_agg(int4send(thread) || float8send(min_us) || float8send(avg_us)
                             || float8send(max_us), ''::bytea ORDER BY thread) AS packed
           FROM latency_threads GROUP BY run_id) lt ON lt.run_id = r.id
LEFT JOIN (SELECT run_id,
                  string_agg(int4send(thread) || float8send(bucket_us) || int8send(overflows)
                             || pack_opt_float8(max_us), ''::bytea ORDER BY thread) AS packed
           FROM histogram_threads GROUP BY run_id) ht ON ht.run_id = r.id
LEFT JOIN (SELECT m.run_id,
                  string_agg(int8send(metric_ident_required(i.id)) || float8send(m.value) || pack_opt_float8(m.printed_delta_pct)
                             || pack_opt_float8(m.spread_pct), ''::bytea ORDER BY m.id) AS packed
           FROM metrics m
           LEFT JOIN metric_idents i
               ON i.key = metric_ident_key(m.scope, m.name, m.stat, m.unit, m.section, m.direction,
                                           m.direction_source, m.delta_convention)
           GROUP BY m.run_id) mv ON mv.run_id = r.id
LEFT JOIN (SELECT run_id,
                  string_agg(int4send(thread) || float8send(lower_us) || int8send(count), ''::bytea
                             ORDER BY thread, lower_us) AS packed
           FROM histogram_buckets GROUP BY run_id) hb ON hb.run_id = r.id
LEFT JOIN traces t ON t.run_id = r.id;

DROP TABLE run_metric_values;
DROP TABLE run_histograms;

-- Grow a database filled through the API (bench/scale/gen.py) to a target
-- number of runs by copying its uploads and runs with everything that hangs
-- off them (threads, histogram buckets, traces, metrics, lock rows, ...:
-- every table with a run_id or upload_id column, found in the catalogue,
-- so a new child table is copied without editing this file).
--
-- Copies are a later "night" of the same fleet: created_at moves forward,
-- the kernel moves to a later build of the same version (`6.12.1+n3`, one
-- of KERNEL_BUILDS per copy round), boards and variant chains stay. The
-- overview aggregates are stale afterwards: run `reclaimlab
-- rebuild-overview`.
--
-- psql -v target=100000 -f bench/scale/replicate.sql
--
-- The uploads that are not copies are found with NOT EXISTS (an anti-join):
-- `NOT IN (SELECT ...)` is planned as a subplan scanned for every upload
-- once bench_copies outgrows work_mem (a few 10^5 copied uploads), which
-- stalls a run that starts from 5 x 10^5 runs.

\set ON_ERROR_STOP on
SET client_min_messages = warning;

CREATE OR REPLACE FUNCTION pg_temp.cols(tbl text, skip text[]) RETURNS text LANGUAGE sql AS $$
    SELECT string_agg(quote_ident(column_name), ', ' ORDER BY ordinal_position)
    FROM information_schema.columns
    WHERE table_schema = 'public' AND table_name = tbl AND NOT column_name = ANY(skip)
      AND is_generated = 'NEVER'
      AND coalesce(column_default, '') NOT LIKE 'nextval(%'
$$;

CREATE OR REPLACE FUNCTION pg_temp.replicate(target bigint) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    have bigint;
    round int := 0;
    base_runs bigint;
    t record;
    c text;
BEGIN
    SELECT count(*) INTO base_runs FROM runs r JOIN uploads u ON u.id = r.upload_id
    WHERE r.simulation_id IS NULL
      AND NOT EXISTS (SELECT 1 FROM bench_copies c WHERE c.upload_id = u.id)
      AND NOT EXISTS (SELECT 1 FROM boards b WHERE b.id = r.board_id AND b.name = 'trickle-rig');
    IF base_runs = 0 THEN RAISE EXCEPTION 'no runs to copy: fill through the API first'; END IF;
    SELECT coalesce(max(copy_round), 0) INTO round FROM bench_rounds;
    LOOP
        SELECT count(*) INTO have FROM runs;
        EXIT WHEN have >= target;
        round := round + 1;
        -- The source of every round is the API-filled set (round 0).
        CREATE TEMP TABLE IF NOT EXISTS src_uploads AS
            SELECT id FROM uploads u
            WHERE NOT EXISTS (SELECT 1 FROM bench_copies c WHERE c.upload_id = u.id)
              AND NOT EXISTS (SELECT 1 FROM simulation_results s WHERE s.upload_id = u.id)
              -- A simulation's runs hang off uploads that simulation_results
              -- does not all name; copies would join the job's results.
              AND NOT EXISTS (SELECT 1 FROM runs r
                              WHERE r.upload_id = u.id AND r.simulation_id IS NOT NULL)
              -- The one-run uploads bench/scale/trickle.py makes while pages
              -- are measured are not the fleet's: copied, they would
              -- outnumber its uploads (each holds one cyclictest summary).
              AND NOT EXISTS (SELECT 1 FROM runs r JOIN boards b ON b.id = r.board_id
                              WHERE r.upload_id = u.id AND b.name = 'trickle-rig');
        CREATE TEMP TABLE up_map ON COMMIT DROP AS
            SELECT u.id AS old_id, nextval(pg_get_serial_sequence('uploads', 'id')) AS new_id
            FROM uploads u JOIN src_uploads s ON s.id = u.id
            ORDER BY u.id
            LIMIT greatest(1, (target - have) * (SELECT count(*) FROM src_uploads) / base_runs + 1);
        -- Kernels of this round: a later build of each version.
        INSERT INTO kernels (version)
            SELECT DISTINCT k.version || '+n' || (round % 8)
            FROM runs r JOIN kernels k ON k.id = r.kernel_id JOIN up_map m ON m.old_id = r.upload_id
        ON CONFLICT DO NOTHING;
        CREATE TEMP TABLE k_map ON COMMIT DROP AS
            SELECT k.id AS old_id, k2.id AS new_id FROM kernels k
            JOIN kernels k2 ON k2.version = k.version || '+n' || (round % 8);
        c := pg_temp.cols('uploads', ARRAY['id', 'idempotency_key', 'created_at']);
        EXECUTE format(
            'INSERT INTO uploads (id, idempotency_key, created_at, %s)
             SELECT m.new_id, u.idempotency_key || '' copy '' || %s,
                    u.created_at + make_interval(days => %s), %s
             FROM uploads u JOIN up_map m ON m.old_id = u.id',
            c, round, round, (SELECT string_agg('u.' || x, ', ') FROM unnest(string_to_array(c, ', ')) x));
        CREATE TEMP TABLE run_map ON COMMIT DROP AS
            SELECT r.id AS old_id, nextval(pg_get_serial_sequence('runs', 'id')) AS new_id,
                   m.new_id AS new_upload
            FROM runs r JOIN up_map m ON m.old_id = r.upload_id;
        c := pg_temp.cols('runs', ARRAY['id', 'upload_id', 'kernel_id', 'created_at']);
        EXECUTE format(
            'INSERT INTO runs (id, upload_id, kernel_id, created_at, %s)
             SELECT m.new_id, m.new_upload, coalesce(k.new_id, r.kernel_id),
                    r.created_at + make_interval(days => %s), %s
             FROM runs r JOIN run_map m ON m.old_id = r.id LEFT JOIN k_map k ON k.old_id = r.kernel_id',
            c, round, (SELECT string_agg('r.' || x, ', ') FROM unnest(string_to_array(c, ', ')) x));
        -- Every table hanging off a run or an upload.
        FOR t IN
            SELECT table_name, column_name FROM information_schema.columns
            WHERE table_schema = 'public' AND column_name IN ('run_id', 'upload_id')
              -- Simulation results belong to their job, not to a copy.
              AND table_name NOT IN ('runs', 'uploads', 'bench_copies', 'bench_rounds',
                                     'simulation_results')
              AND table_name NOT LIKE '%\_cells' ESCAPE '\'
              AND table_name IN (SELECT table_name FROM information_schema.tables
                                 WHERE table_schema = 'public' AND table_type = 'BASE TABLE')
        LOOP
            c := pg_temp.cols(t.table_name, ARRAY[t.column_name]);
            EXECUTE format(
                'INSERT INTO %I (%I, %s) SELECT m.new_id, %s FROM %I x JOIN %I m ON m.old_id = x.%I',
                t.table_name, t.column_name, c,
                (SELECT string_agg('x.' || y, ', ') FROM unnest(string_to_array(c, ', ')) y),
                t.table_name, CASE t.column_name WHEN 'run_id' THEN 'run_map' ELSE 'up_map' END,
                t.column_name);
        END LOOP;
        INSERT INTO bench_copies SELECT new_id FROM up_map;
        INSERT INTO bench_rounds VALUES (round);
        DROP TABLE up_map, k_map, run_map;
    END LOOP;
END $$;

CREATE TABLE IF NOT EXISTS bench_copies (upload_id bigint PRIMARY KEY);
CREATE TABLE IF NOT EXISTS bench_rounds (copy_round int);
SELECT pg_temp.replicate(:target);
SELECT count(*) AS runs FROM runs;

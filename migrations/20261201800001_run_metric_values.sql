-- What a comparison reads of a run's metric rows, stored twice over in a
-- form it reads cheaply: each distinct identity (the eight strings of a
-- row) once in `metric_idents`, and per run one row of arrays in the
-- order of the run's `metrics` rows (their ids). A column of 200 runs
-- then reads 200 rows and its few dozen identities instead of about
-- 2 000 rows of eight strings each. `metrics` stays the record; the
-- arrays are written by the transaction that stores the runs
-- (`storage::compare::add_upload_metric_values`), which must run again for
-- any statement that changes a run's metric rows.

-- The identity's strings as one unambiguous value (a JSON array: NULL and
-- '' differ, no separator can be forged), hashed so the unique key stays
-- small whatever the length of a name or title.
CREATE FUNCTION metric_ident_key(scope TEXT, name TEXT, stat TEXT, unit TEXT, section TEXT,
                                 direction TEXT, direction_source TEXT, delta_convention TEXT)
    RETURNS BYTEA LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT sha256(convert_to(jsonb_build_array(scope, name, stat, unit, section, direction,
                                               direction_source, delta_convention)::text, 'UTF8'))
$$;

CREATE TABLE metric_idents (
    id               BIGSERIAL PRIMARY KEY,
    key              BYTEA NOT NULL UNIQUE,
    scope            TEXT NOT NULL,
    name             TEXT NOT NULL,
    stat             TEXT,
    unit             TEXT,
    section          TEXT,
    direction        TEXT,
    direction_source TEXT,
    delta_convention TEXT
);

CREATE TABLE run_metric_values (
    run_id            BIGINT PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
    -- Per metric row of the run, by ascending `metrics.id`:
    idents            BIGINT[] NOT NULL,
    vals              DOUBLE PRECISION[] NOT NULL,
    printed_delta_pct DOUBLE PRECISION[] NOT NULL,
    spread_pct        DOUBLE PRECISION[] NOT NULL,
    -- Every row has its identity, and the arrays line up.
    CONSTRAINT run_metric_values_complete CHECK (
        array_position(idents, NULL) IS NULL
        AND cardinality(vals) = cardinality(idents)
        AND cardinality(printed_delta_pct) = cardinality(idents)
        AND cardinality(spread_pct) = cardinality(idents))
);

-- Runs stored before.
INSERT INTO metric_idents (key, scope, name, stat, unit, section, direction, direction_source,
                           delta_convention)
SELECT DISTINCT ON (k) k, scope, name, stat, unit, section, direction, direction_source,
       delta_convention
FROM (SELECT metric_ident_key(scope, name, stat, unit, section, direction, direction_source,
                              delta_convention) AS k, *
      FROM metrics) m
ORDER BY k;

INSERT INTO run_metric_values (run_id, idents, vals, printed_delta_pct, spread_pct)
SELECT m.run_id, array_agg(i.id ORDER BY m.id), array_agg(m.value ORDER BY m.id),
       array_agg(m.printed_delta_pct ORDER BY m.id), array_agg(m.spread_pct ORDER BY m.id)
FROM metrics m
JOIN metric_idents i ON i.key = metric_ident_key(m.scope, m.name, m.stat, m.unit, m.section,
                                                 m.direction, m.direction_source,
                                                 m.delta_convention)
GROUP BY m.run_id;

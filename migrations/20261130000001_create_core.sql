-- Core schema: credentials, the catalogue (boards, kernels, series,
-- variants), content-addressed raw uploads, runs and their typed results.
-- Append-only: never edit this file once applied; add a new migration.

CREATE TABLE tokens (
    id           BIGSERIAL PRIMARY KEY,
    name         TEXT NOT NULL,
    -- SHA-256 of the whole token; the token itself is never stored.
    hash         BYTEA NOT NULL CONSTRAINT tokens_hash_key UNIQUE,
    -- First characters, shown in listings so people can tell tokens apart.
    prefix       TEXT NOT NULL,
    scope        TEXT NOT NULL CONSTRAINT tokens_scope_check
                 CHECK (scope IN ('read', 'upload', 'admin')),
    created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    expires_at   TIMESTAMPTZ,
    revoked_at   TIMESTAMPTZ,
    last_used_at TIMESTAMPTZ
);
CREATE INDEX tokens_name_idx ON tokens (name);

CREATE TABLE boards (
    id          BIGSERIAL PRIMARY KEY,
    name        TEXT NOT NULL CONSTRAINT boards_name_key UNIQUE,
    description TEXT,
    -- Simulator board class this board resembles (x86-server, riscv-small, ...).
    board_class TEXT,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE kernels (
    id         BIGSERIAL PRIMARY KEY,
    -- Full version string as reported, e.g. 6.5.0-rt6-r1208-00003-g999d221864bf-dirty.
    version    TEXT NOT NULL CONSTRAINT kernels_version_key UNIQUE,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- A patch series: the patches of one mail thread, identified by the
-- Message-ID of its cover letter (or first patch) on lore.
CREATE TABLE series (
    id         BIGSERIAL PRIMARY KEY,
    message_id TEXT NOT NULL CONSTRAINT series_message_id_key UNIQUE,
    subject    TEXT,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- One patch state. parent_id builds chains: vanilla -> batch-v1 -> ...
CREATE TABLE variants (
    id          BIGSERIAL PRIMARY KEY,
    name        TEXT NOT NULL CONSTRAINT variants_name_key UNIQUE,
    series_id   BIGINT REFERENCES series (id),
    message_id  TEXT,
    parent_id   BIGINT REFERENCES variants (id),
    description TEXT,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    CONSTRAINT variants_not_own_parent CHECK (parent_id IS DISTINCT FROM id)
);
CREATE INDEX variants_parent_idx ON variants (parent_id);
CREATE INDEX variants_series_idx ON variants (series_id);

-- Raw bytes, content-addressed. Rows are never updated; a blob is written
-- in the same transaction as the first upload that references it.
CREATE TABLE blobs (
    sha256     BYTEA PRIMARY KEY CONSTRAINT blobs_sha256_len CHECK (length(sha256) = 32),
    size       BIGINT NOT NULL,
    content    BYTEA NOT NULL,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE uploads (
    id              BIGSERIAL PRIMARY KEY,
    -- sha256(content) + canonical metadata, or the client's Idempotency-Key.
    idempotency_key TEXT NOT NULL CONSTRAINT uploads_idempotency_key_key UNIQUE,
    -- sha256 over content and canonical metadata: tells a replay (same)
    -- from a reused key with other content (409).
    fingerprint     BYTEA NOT NULL,
    blob_sha256     BYTEA NOT NULL REFERENCES blobs (sha256),
    content_type    TEXT,
    filename        TEXT,
    metadata        JSONB NOT NULL,
    token_id        BIGINT REFERENCES tokens (id),
    parser_version  TEXT NOT NULL,
    -- The parsed document; derived data, re-creatable from the blob.
    document        JSONB NOT NULL,
    message_id      TEXT,
    unlisted        BOOLEAN NOT NULL DEFAULT false,
    deleted_at      TIMESTAMPTZ,
    created_at      TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX uploads_created_idx ON uploads (created_at DESC);
CREATE INDEX uploads_blob_idx ON uploads (blob_sha256);

CREATE TABLE runs (
    id          BIGSERIAL PRIMARY KEY,
    upload_id   BIGINT REFERENCES uploads (id) ON DELETE CASCADE,
    -- Position of the block in the document, and of the column for tables
    -- whose columns are separate variants (mmtests compare tables).
    block_index INT NOT NULL,
    column_index INT NOT NULL DEFAULT 0,
    board_id    BIGINT NOT NULL REFERENCES boards (id),
    kernel_id   BIGINT NOT NULL REFERENCES kernels (id),
    variant_id  BIGINT NOT NULL REFERENCES variants (id),
    kind        TEXT NOT NULL CONSTRAINT runs_kind_check CHECK (kind IN ('measured', 'simulated')),
    block_kind  TEXT NOT NULL,
    label       TEXT,
    labels      JSONB NOT NULL DEFAULT '{}'::jsonb,
    -- Load recipe / tool command line when known.
    tool_args   TEXT,
    first_line  INT NOT NULL,
    last_line   INT NOT NULL,
    block       JSONB NOT NULL,
    unlisted    BOOLEAN NOT NULL DEFAULT false,
    deleted_at  TIMESTAMPTZ,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    CONSTRAINT runs_upload_block_key UNIQUE (upload_id, block_index, column_index)
);
CREATE INDEX runs_created_idx ON runs (created_at DESC, id DESC);
CREATE INDEX runs_bkv_idx ON runs (board_id, kernel_id, variant_id);
CREATE INDEX runs_variant_idx ON runs (variant_id);
CREATE INDEX runs_kernel_idx ON runs (kernel_id);

-- cyclictest T: lines, one row per thread.
CREATE TABLE latency_threads (
    run_id      BIGINT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    thread      INT NOT NULL,
    tid         INT,
    priority    INT,
    interval_us BIGINT,
    cycles      BIGINT,
    cpu         INT,
    min_us      DOUBLE PRECISION NOT NULL,
    act_us      DOUBLE PRECISION,
    avg_us      DOUBLE PRECISION NOT NULL,
    max_us      DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (run_id, thread)
);

-- cyclictest -h histograms: every non-empty bucket of every thread.
CREATE TABLE histogram_buckets (
    run_id   BIGINT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    thread   INT NOT NULL,
    lower_us DOUBLE PRECISION NOT NULL,
    count    BIGINT NOT NULL,
    PRIMARY KEY (run_id, thread, lower_us)
);
CREATE TABLE histogram_threads (
    run_id    BIGINT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    thread    INT NOT NULL,
    bucket_us DOUBLE PRECISION NOT NULL,
    overflows BIGINT NOT NULL DEFAULT 0,
    total     BIGINT,
    PRIMARY KEY (run_id, thread)
);

-- ftrace latency-tracer maxima with their culprit.
CREATE TABLE traces (
    run_id        BIGINT PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
    tracer        TEXT NOT NULL,
    latency_us    DOUBLE PRECISION NOT NULL,
    cpu           INT,
    nr_cpus       INT,
    preempt_model TEXT,
    task_comm     TEXT,
    task_pid      INT,
    culprit       TEXT,
    culprit_path  TEXT[] NOT NULL DEFAULT '{}',
    stack         TEXT[] NOT NULL DEFAULT '{}'
);
CREATE INDEX traces_culprit_idx ON traces (culprit, latency_us DESC);

-- Benchmark metrics: table rows, time output, stress-ng / perf stat, ...
CREATE TABLE metrics (
    id                BIGSERIAL PRIMARY KEY,
    run_id            BIGINT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    name              TEXT NOT NULL,
    -- Statistic as printed (Amean, Hmean, Min, ...); NULL for a raw sample.
    stat              TEXT,
    value             DOUBLE PRECISION NOT NULL,
    unit              TEXT,
    printed_delta_pct DOUBLE PRECISION,
    spread_pct        DOUBLE PRECISION
);
CREATE INDEX metrics_run_idx ON metrics (run_id);
CREATE INDEX metrics_name_idx ON metrics (name, stat);

-- Simulation jobs, leased by workers; their results become runs of kind
-- 'simulated' through the same upload/runs tables as measurements.

-- Calibrated per-board cost tables (TOML overriding the board class).
CREATE TABLE board_costs (
    board_id    BIGINT PRIMARY KEY REFERENCES boards (id),
    board_class TEXT NOT NULL,
    costs_toml  TEXT NOT NULL,
    updated_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- A sweep: one knob over a range of values, one job per value.
CREATE TABLE sweeps (
    id         BIGSERIAL PRIMARY KEY,
    knob       TEXT NOT NULL,
    variant    TEXT NOT NULL,
    output     TEXT NOT NULL,
    token_id   BIGINT REFERENCES tokens (id),
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE simulations (
    id               BIGSERIAL PRIMARY KEY,
    token_id         BIGINT REFERENCES tokens (id),
    -- Built-in scenario name, when one was used.
    scenario_name    TEXT,
    -- Full scenario text actually simulated (built-ins are expanded).
    scenario_toml    TEXT NOT NULL,
    variants         TEXT[] NOT NULL DEFAULT '{}',
    seed             BIGINT NOT NULL,
    replications     INT NOT NULL,
    duration_ns      BIGINT,
    board_id         BIGINT REFERENCES boards (id),
    board_class      TEXT,
    costs_toml       TEXT,
    sweep_id         BIGINT REFERENCES sweeps (id),
    sweep_value      DOUBLE PRECISION,
    knobs            JSONB NOT NULL DEFAULT '{}'::jsonb,
    -- sha256 of everything above that changes the result.
    input_hash       BYTEA NOT NULL,
    sim_version      TEXT NOT NULL,
    state            TEXT NOT NULL DEFAULT 'queued' CONSTRAINT simulations_state_check
                     CHECK (state IN ('queued', 'running', 'done', 'failed', 'cancelled')),
    cancel_requested BOOLEAN NOT NULL DEFAULT false,
    attempts         INT NOT NULL DEFAULT 0,
    max_attempts     INT NOT NULL DEFAULT 3,
    not_before       TIMESTAMPTZ NOT NULL DEFAULT now(),
    lease_token      UUID,
    lease_until      TIMESTAMPTZ,
    worker           TEXT,
    progress_sim_ns  BIGINT NOT NULL DEFAULT 0,
    progress_events  BIGINT NOT NULL DEFAULT 0,
    error            TEXT,
    created_at       TIMESTAMPTZ NOT NULL DEFAULT now(),
    started_at       TIMESTAMPTZ,
    finished_at      TIMESTAMPTZ
);
CREATE INDEX simulations_claim_idx ON simulations (state, not_before, id);
CREATE INDEX simulations_token_idx ON simulations (token_id, state);
CREATE INDEX simulations_cache_idx ON simulations (input_hash, sim_version, state);
CREATE INDEX simulations_sweep_idx ON simulations (sweep_id);

-- Exactly one result per job, written in the transaction that marks it done.
CREATE TABLE simulation_results (
    simulation_id BIGINT PRIMARY KEY REFERENCES simulations (id),
    upload_id     BIGINT NOT NULL REFERENCES uploads (id),
    report        JSONB NOT NULL,
    report_text   TEXT NOT NULL,
    created_at    TIMESTAMPTZ NOT NULL DEFAULT now()
);

ALTER TABLE runs ADD COLUMN simulation_id BIGINT REFERENCES simulations (id);
CREATE INDEX runs_simulation_idx ON runs (simulation_id);

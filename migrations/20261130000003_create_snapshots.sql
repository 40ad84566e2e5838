-- Permalinks: immutable snapshots of a comparison. Every rendering is
-- stored as it was served the first time, so a permalink's bytes never
-- change after later uploads, deletions or upgrades.

CREATE TABLE snapshots (
    id           BIGSERIAL PRIMARY KEY,
    slug         TEXT NOT NULL CONSTRAINT snapshots_slug_key UNIQUE,
    title        TEXT NOT NULL,
    -- The request (column specs, baseline) and the run ids it resolved to.
    spec         JSONB NOT NULL,
    run_ids      BIGINT[] NOT NULL,
    comparison   JSONB NOT NULL,
    body_html    TEXT NOT NULL,
    body_txt     TEXT NOT NULL,
    body_json    TEXT NOT NULL,
    body_svg     TEXT,
    token_id     BIGINT REFERENCES tokens (id),
    message_id   TEXT,
    created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    -- Removal leaves a tombstone: the slug answers 410 and is never reused.
    removed_at   TIMESTAMPTZ,
    CONSTRAINT snapshots_slug_format CHECK (slug ~ '^[A-Za-z0-9]{8,12}$')
);

-- Who may delete an upload: the token that made it (uploads.token_id).
CREATE INDEX uploads_token_idx ON uploads (token_id);

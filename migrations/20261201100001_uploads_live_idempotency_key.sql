-- An idempotency key belongs to the upload that is live under it: once an
-- upload is deleted, the same content (or the same client key) can be
-- stored again as a new upload instead of replaying the deleted one.
ALTER TABLE uploads DROP CONSTRAINT uploads_idempotency_key_key;
CREATE UNIQUE INDEX uploads_live_idempotency_key ON uploads (idempotency_key)
    WHERE deleted_at IS NULL;
CREATE INDEX uploads_idempotency_key_idx ON uploads (idempotency_key);

-- A repeated import of the same thread finds the permalink it made before
-- (the same request, which names its runs) instead of freezing a second
-- copy. A hash index: a request may be larger than a b-tree entry.
CREATE INDEX snapshots_spec_idx ON snapshots USING hash (spec) WHERE removed_at IS NULL;

-- A comparison column of a variant reads its newest 200 listed runs: with
-- this index that is 201 index entries, not every run of the variant
-- sorted by date (10 000 at 10^6 runs).
CREATE INDEX runs_variant_newest_idx ON runs (variant_id, created_at DESC, id DESC)
    WHERE deleted_at IS NULL AND NOT unlisted;

-- A comparison lists the title and the tool of up to 500 runs per column;
-- reading them out of each run's block document detoasts every block (tens
-- of milliseconds per column at 10^5 runs). Kept beside the block instead,
-- computed by PostgreSQL from it, so no writer can forget them.
ALTER TABLE runs
    ADD COLUMN title TEXT GENERATED ALWAYS AS (block->>'title') STORED,
    ADD COLUMN tool TEXT GENERATED ALWAYS AS
        (COALESCE(block->>'tool', block->>'style', block->>'source', block_kind)) STORED;

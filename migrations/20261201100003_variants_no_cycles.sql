-- Variant chains (parent_id) must stay trees: a parent may not descend from
-- its child. The check takes a transaction-level lock, so two uploads that
-- would close a cycle between them (a -> b and b -> a) are checked one
-- after the other, and the second one sees the first.
CREATE FUNCTION variants_refuse_cycles() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    found BOOLEAN;
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('reclaimlab.variants.parent'));
    WITH RECURSIVE up(id, depth) AS (
        SELECT NEW.parent_id, 1
        UNION ALL
        SELECT v.parent_id, up.depth + 1 FROM variants v JOIN up ON v.id = up.id
        WHERE v.parent_id IS NOT NULL AND up.depth < 10000
    )
    SELECT EXISTS (SELECT 1 FROM up WHERE id = NEW.id) INTO found;
    IF found THEN
        RAISE EXCEPTION 'variant % cannot have parent % : the parent already descends from it',
            NEW.name, (SELECT name FROM variants WHERE id = NEW.parent_id)
            USING ERRCODE = 'check_violation', CONSTRAINT = 'variants_no_cycle';
    END IF;
    RETURN NEW;
END $$;

CREATE TRIGGER variants_no_cycle BEFORE UPDATE OF parent_id ON variants
    FOR EACH ROW
    WHEN (NEW.parent_id IS NOT NULL AND NEW.parent_id IS DISTINCT FROM OLD.parent_id)
    EXECUTE FUNCTION variants_refuse_cycles();

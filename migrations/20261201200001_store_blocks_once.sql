-- Block bodies are stored once, in runs.block: an upload's document keeps
-- its source, context and warnings and a reference per block (kind,
-- lines, label, hints), as the ingest writes it from now on.
UPDATE uploads u SET document = jsonb_build_object(
    'source', u.document->'source',
    'context', u.document->'context',
    'warnings', COALESCE(u.document->'warnings', '[]'::jsonb),
    'blocks', COALESCE((
        SELECT jsonb_agg(jsonb_strip_nulls(jsonb_build_object(
                   'index', b.i - 1,
                   'kind', b.v->'kind',
                   'lines', b.v->'lines',
                   'label', b.v->'label',
                   'board', b.v->'board',
                   'kernel', b.v->'kernel',
                   'duplicate_of', b.v->'duplicate_of',
                   'message', b.v->'message',
                   'quote_level', b.v->'quote_level')) ORDER BY b.i)
        FROM jsonb_array_elements(u.document->'blocks') WITH ORDINALITY AS b(v, i)), '[]'::jsonb))
WHERE jsonb_typeof(u.document->'blocks') = 'array';

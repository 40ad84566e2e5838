-- A permalink's `.txt` is the reply text (the verdict first, at most 40
-- lines); the whole text is kept beside it and served as `.full.txt`.
-- Permalinks made before have no separate full text: their `.txt` is it.
ALTER TABLE snapshots ADD COLUMN body_full_txt TEXT;

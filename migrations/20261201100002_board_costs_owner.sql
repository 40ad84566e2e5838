-- A board's calibrated cost table belongs to the token that stored it
-- first; only that token or an admin may change it. Tables stored before
-- owners were recorded have none and are changed by an admin only.
ALTER TABLE board_costs ADD COLUMN token_id BIGINT REFERENCES tokens (id);

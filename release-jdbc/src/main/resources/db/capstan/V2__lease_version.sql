-- Capstan release store, schema version 2: a version on the operation lease.
-- lease_version changes with every write of the row (a take, a renewal, a release), and a row
-- inserted starts at a random version, so a renewal conditioned on the holder's own last write
-- (UPDATE ... WHERE lease_version = ?) goes through however late it runs while nobody else wrote
-- the row, and never after anyone did. Rows of version 1 start at 0.
ALTER TABLE capstan_release_lease ADD COLUMN lease_version BIGINT DEFAULT 0 NOT NULL;

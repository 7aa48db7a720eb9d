-- Capstan release store, schema version 3: the intent an operation names with the lease.
-- intent holds the opaque text (at most 65,536 characters, Store.MAX_LEASE_INTENT) the holder named
-- when it took the lease: set (or set NULL) by every take, kept by renewals, NULL once released, and
-- read by whoever takes over an expired lease. Rows of version 2 name none.
ALTER TABLE capstan_release_lease ADD COLUMN intent VARCHAR(65536);

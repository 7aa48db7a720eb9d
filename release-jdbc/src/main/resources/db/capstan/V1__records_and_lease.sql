-- Capstan release store, schema version 1: release records and the operation lease.
-- Portable SQL, run as it is on PostgreSQL and H2 by JdbcStore.migrate(); see release-jdbc/README.md.

-- One row per revision of a release. record holds the shared ReleaseRecordCodec's bytes (gzip
-- JSON), the only thing read back; the other columns are copies for queries and reports.
-- row_version is the compare-and-set token (StoredRelease.version): 1 on insert, +1 per update.
CREATE TABLE capstan_release_record (
  namespace   VARCHAR(253)             NOT NULL,
  name        VARCHAR(253)             NOT NULL,
  revision    INTEGER                  NOT NULL,
  status      VARCHAR(32)              NOT NULL,
  version     VARCHAR,
  created_at  TIMESTAMP WITH TIME ZONE NOT NULL,
  updated_at  TIMESTAMP WITH TIME ZONE NOT NULL,
  row_version BIGINT                   NOT NULL,
  record      BYTEA                    NOT NULL,
  PRIMARY KEY (namespace, name, revision)
);

CREATE INDEX capstan_release_record_status ON capstan_release_record (namespace, status);

-- One row per release whose lease was ever taken and not forgotten; holder is NULL once released.
-- Taken and renewed only under the row's lock (SELECT ... FOR UPDATE) or by a conditional UPDATE;
-- the primary key makes the first INSERT of two racing holders fail.
CREATE TABLE capstan_release_lease (
  namespace   VARCHAR(253)             NOT NULL,
  name        VARCHAR(253)             NOT NULL,
  holder      VARCHAR,
  acquired_at TIMESTAMP WITH TIME ZONE NOT NULL,
  expires_at  TIMESTAMP WITH TIME ZONE NOT NULL,
  PRIMARY KEY (namespace, name)
);

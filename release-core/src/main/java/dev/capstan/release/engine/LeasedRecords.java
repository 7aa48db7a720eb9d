package dev.capstan.release.engine;

import static java.util.Objects.requireNonNull;

import dev.capstan.release.port.RecordEntry;
import dev.capstan.release.port.StoredRelease;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A release's records as read under its lease ({@link Housekeeping#readUnderLease}): every
 * revision, newest first ({@code null}: read them again when needed), the latest after recovery
 * ({@link Takeover#recover}), and the latest as {@code read} before it.
 */
record LeasedRecords(
    @Nullable List<RecordEntry> records,
    Optional<StoredRelease> latest,
    Optional<StoredRelease> read) {
  LeasedRecords {
    requireNonNull(latest, "latest");
    requireNonNull(read, "read");
  }
}

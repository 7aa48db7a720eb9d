package dev.capstan.release.engine;

import static java.util.Objects.requireNonNull;

import dev.capstan.release.model.SecretHashKey;
import dev.capstan.release.port.StoredRelease;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What a look at a release found ({@link Planning#planOverRecord}, {@link CastLook#lookAt}): the
 * plan {@code planned}, the {@code record} it is over, the {@code key} its new Secret hashes were
 * keyed with; for a cast's look, whether its checks were {@code deferred} to the lease (a held
 * lease may explain its conflicts) and, once made under the lease, the cast {@code prepared}.
 */
record Look(
    Planned planned,
    Optional<StoredRelease> record,
    SecretHashKey key,
    boolean deferred,
    @Nullable CastAttempt prepared) {
  Look {
    requireNonNull(planned, "planned");
    requireNonNull(record, "record");
    requireNonNull(key, "key");
  }

  /** The plan {@code planned} over {@code record}, keyed with {@code key}. */
  static Look of(Planned planned, Optional<StoredRelease> record, SecretHashKey key) {
    return new Look(planned, record, key, false, null);
  }

  /**
   * This look over {@code recorded}, the latest revision as recorded again under the lease (a
   * taken-over pending revision recorded failed), its plan kept.
   */
  Look over(StoredRelease recorded) {
    return new Look(planned.over(recorded.release()), Optional.of(recorded), key, deferred, null);
  }

  /**
   * This look with its plan {@code judged} (or not yet, when {@code deferred}), and the cast {@code
   * prepared} from it under the lease, if any.
   */
  Look withVerdict(Planned judged, boolean deferred, @Nullable CastAttempt prepared) {
    return new Look(judged, record, key, deferred, prepared);
  }
}

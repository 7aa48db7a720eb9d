package dev.capstan.release.engine;

import dev.capstan.release.error.ReleaseException;
import dev.capstan.release.error.ReleaseLockedException;
import dev.capstan.release.event.ReleaseEvent;
import dev.capstan.release.port.LeaseGrant;
import dev.capstan.release.port.Store;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Waiting for a release's operation lease: asks the store, and while another holder has it, polls
 * ({@link LeaseKeeper.Terms#poll()}, from 200 ms doubling to 2 s) until the wait the terms allow
 * ends, telling once that it waits ({@link ReleaseEvent.WaitingForLease}) and, when the terms say
 * so, asking each holder it finds once to yield ({@link LeaseYield}), then hands the lease to the
 * {@link LeaseKeeper} that keeps it.
 */
final class LeaseWait {
  private LeaseWait() {}

  /**
   * Takes the lease as {@link LeaseKeeper#acquire(LeaseKeeper.Terms, String, String, Consumer)}
   * does, naming {@code intent} when the store keeps intents ({@link Store#keepsLeaseIntents()}),
   * and hands it to a {@link LeaseKeeper}.
   *
   * @throws ReleaseLockedException naming the holder when the wait ends with the lease still held
   */
  static LeaseKeeper acquire(
      LeaseKeeper.Terms terms,
      String namespace,
      String name,
      @Nullable LeaseIntent intent,
      Consumer<ReleaseEvent> events) {
    String text = intent != null && terms.store().keepsLeaseIntents() ? intent.encode() : null;
    LeaseGrant grant = take(terms, namespace, name, text, events);
    events.accept(
        new ReleaseEvent.LeaseAcquired(namespace + "/" + name, terms.holder(), grant.takenOver()));
    String attempt =
        intent != null && intent.attempt() != null ? intent.attempt() : LeaseIntent.newAttempt();
    return new LeaseKeeper(
        terms, namespace, name, grant, text == null ? null : intent, attempt, events);
  }

  /**
   * The lease of {@code namespace/name} for {@code terms.holder()}, naming the encoded {@code
   * intent} (or none).
   *
   * @throws ReleaseLockedException naming the holder when the wait ends with the lease still held
   * @throws ReleaseException when the thread is interrupted while it waits (its status set again)
   */
  private static LeaseGrant take(
      LeaseKeeper.Terms terms,
      String namespace,
      String name,
      @Nullable String intent,
      Consumer<ReleaseEvent> events) {
    String release = namespace + "/" + name;
    Clock clock = terms.clock();
    Instant deadline = clock.instant().plus(terms.maxWait());
    boolean asking = terms.askHolderToYield() && terms.store().carriesYieldRequests();
    try (LeaseYield.Request request =
        LeaseYield.request(terms.store(), namespace, name, terms.holder(), events)) {
      for (int retry = 1; ; retry++) {
        try {
          return terms
              .store()
              .acquireLease(
                  namespace, name, terms.holder(), intent, clock.instant(), terms.duration());
        } catch (ReleaseLockedException e) {
          Instant now = clock.instant();
          if (!now.isBefore(deadline)) {
            throw e;
          }
          if (retry == 1) {
            events.accept(
                new ReleaseEvent.WaitingForLease(
                    release, e.holder(), e.expiresAt(), Duration.between(now, deadline)));
          }
          if (asking) {
            request.ask(e.holder(), clock.instant());
          }
          Duration pause = terms.poll().delay(Math.min(retry, 8));
          Duration left = Duration.between(now, deadline);
          try {
            terms.sleeper().sleep(pause.compareTo(left) < 0 ? pause : left);
          } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new ReleaseException(
                "interrupted while waiting for the lease on " + release, interrupted);
          }
        }
      }
    }
  }
}

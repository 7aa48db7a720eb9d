package dev.capstan.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.common.logging.LogCapture;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

class ListenersTest {
  private static final org.slf4j.Logger LOG = LoggerFactory.getLogger("dev.capstan.test");

  record Ping(int n) {}

  static final class Exploding implements Consumer<Ping> {
    @Override
    public void accept(Ping ping) {
      throw new IllegalStateException("boom " + ping.n());
    }
  }

  @Test
  void aListenerThatThrowsIsLoggedAtWarnWithItsClassAndTheEventTypeAndGoesNoFurther() {
    try (LogCapture logs = LogCapture.open()) {
      boolean delivered = Listeners.deliver(LOG, new Exploding(), new Ping(7), Consumer::accept);

      assertThat(delivered).isFalse();
      assertThat(logs.lines())
          .singleElement()
          .satisfies(
              line -> {
                assertThat(line.level()).isEqualTo(Level.WARN);
                assertThat(line.logger()).isEqualTo("dev.capstan.test");
                assertThat(line.message())
                    .isEqualTo(
                        "listener dev.capstan.common.ListenersTest$Exploding threw on event Ping;"
                            + " the operation goes on without it");
                assertThat(line.error()).hasMessage("boom 7");
              });
    }
  }

  @Test
  void aListenerThatReturnsIsDeliveredTheEventAndNothingIsLogged() {
    List<Ping> seen = new ArrayList<>();
    try (LogCapture logs = LogCapture.open()) {
      Consumer<Ping> listener = seen::add;
      assertThat(Listeners.deliver(LOG, listener, new Ping(1), Consumer::accept)).isTrue();
      assertThat(seen).containsExactly(new Ping(1));
      assertThat(logs.lines()).isEmpty();
    }
  }

  @Test
  void anErrorPropagates() {
    Consumer<Ping> failing =
        p -> {
          throw new AssertionError("an assertion in a test listener");
        };
    assertThatThrownBy(() -> Listeners.deliver(LOG, failing, new Ping(2), Consumer::accept))
        .isInstanceOf(AssertionError.class);
  }

  @Test
  void withinOneOperationAListenerIsLoggedAtWarnOnceAndAtDebugAfter() {
    Listeners.Failures operation = new Listeners.Failures();
    Listeners.Failures next = new Listeners.Failures();
    Exploding exploding = new Exploding();
    List<Ping> seen = new ArrayList<>();
    Consumer<Ping> fine = seen::add;
    try (LogCapture logs = LogCapture.open()) {
      for (int n = 1; n <= 3; n++) {
        assertThat(Listeners.deliver(LOG, exploding, new Ping(n), Consumer::accept, operation))
            .isFalse();
        assertThat(Listeners.deliver(LOG, fine, new Ping(n), Consumer::accept, operation)).isTrue();
      }
      assertThat(Listeners.deliver(LOG, exploding, new Ping(4), Consumer::accept, next)).isFalse();

      assertThat(seen).containsExactly(new Ping(1), new Ping(2), new Ping(3));
      assertThat(logs.lines())
          .extracting(LogCapture.Line::level, LogCapture.Line::message)
          .containsExactly(
              org.assertj.core.groups.Tuple.tuple(
                  Level.WARN,
                  "listener dev.capstan.common.ListenersTest$Exploding threw on event Ping; the"
                      + " operation goes on without it (its further failures in this operation are"
                      + " logged at DEBUG)"),
              org.assertj.core.groups.Tuple.tuple(
                  Level.DEBUG,
                  "listener dev.capstan.common.ListenersTest$Exploding threw again on event Ping:"
                      + " java.lang.IllegalStateException: boom 2"),
              org.assertj.core.groups.Tuple.tuple(
                  Level.DEBUG,
                  "listener dev.capstan.common.ListenersTest$Exploding threw again on event Ping:"
                      + " java.lang.IllegalStateException: boom 3"),
              org.assertj.core.groups.Tuple.tuple(
                  Level.WARN,
                  "listener dev.capstan.common.ListenersTest$Exploding threw on event Ping; the"
                      + " operation goes on without it (its further failures in this operation are"
                      + " logged at DEBUG)"));
      assertThat(logs.lines().get(0).error()).hasMessage("boom 1");
      assertThat(logs.lines().get(1).error()).isNull();
    }
  }
}

package dev.capstan.release.model;

import dev.capstan.common.Escapes;
import java.util.Comparator;

/**
 * The one per-object override of apply order: the annotation {@value #ANNOTATION} with an integer
 * wave from {@value #MIN} to {@value #MAX} (default 0). A cast applies wave by wave, lowest first,
 * and waits for every object written in a wave to be healthy before the next wave starts; within a
 * wave the {@link Kind#rank() rank table} orders. A migration Job annotated {@code
 * capstan.dev/wave: "-1"} completes before the Deployment that needs it is applied. Prune and
 * uninstall ignore waves and go in reverse rank order.
 */
public final class Waves {
  /** The annotation that sets an object's wave. */
  public static final String ANNOTATION = "capstan.dev/wave";

  /** The lowest wave. */
  public static final int MIN = -100;

  /** The highest wave. */
  public static final int MAX = 100;

  /** Execution order of desired objects: wave, then rank, then key. */
  public static final Comparator<DesiredResource> ORDER =
      Comparator.comparingInt(DesiredResource::wave)
          .thenComparing(DesiredResource::ref, ResourceRef.APPLY_ORDER);

  private Waves() {}

  /**
   * The wave {@code object} asks for.
   *
   * @throws IllegalArgumentException naming the object and the value when the annotation is not an
   *     integer in range
   */
  public static int of(Manifest object) {
    String value = object.annotations().get(ANNOTATION);
    if (value == null) {
      return 0;
    }
    int wave;
    try {
      wave = Integer.parseInt(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          object.ref().key()
              + ": annotation "
              + ANNOTATION
              + " must be an integer from "
              + MIN
              + " to "
              + MAX
              + ": "
              + Escapes.quote(value),
          e);
    }
    check(wave, object.ref().key());
    return wave;
  }

  static void check(int wave, String key) {
    if (wave < MIN || wave > MAX) {
      throw new IllegalArgumentException(
          key
              + ": annotation "
              + ANNOTATION
              + " must be an integer from "
              + MIN
              + " to "
              + MAX
              + ": "
              + wave);
    }
  }
}

package dev.capstan.release.model;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/**
 * When a hook's object is deleted, as Helm's {@code helm.sh/hook-delete-policy} says. A hook that
 * names none has {@link #BEFORE_HOOK_CREATION}, as in Helm 3.
 */
public enum HookDeletePolicy {
  /** The object left by an earlier run is deleted (and awaited gone) before it is created. */
  BEFORE_HOOK_CREATION,
  /** Deleted once every hook of its phase has succeeded. */
  HOOK_SUCCEEDED,
  /** Deleted when it failed. */
  HOOK_FAILED;

  /** The name as annotations write it: {@code before-hook-creation}, .... */
  public String annotationValue() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /**
   * The policy an annotation names.
   *
   * @return the policy, or empty when {@code value} names none
   */
  public static Optional<HookDeletePolicy> parse(String value) {
    return Arrays.stream(values()).filter(p -> p.annotationValue().equals(value)).findFirst();
  }

  @Override
  public String toString() {
    return annotationValue();
  }
}

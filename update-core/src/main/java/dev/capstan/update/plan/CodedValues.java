package dev.capstan.update.plan;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * The rule {@link RowReason} and {@link PlanWarning} share: a code names its values, and a reason
 * or warning holds exactly those values, in that order, read back by name.
 */
final class CodedValues {
  private CodedValues() {}

  /**
   * Checks that {@code values} are as many as the code names and copies them.
   *
   * @param what {@code reason} or {@code warning}, for the message
   * @throws IllegalArgumentException when the number of values is not the code's
   */
  static List<String> checked(String what, Enum<?> code, List<String> names, List<String> values) {
    requireNonNull(code, "code");
    List<String> copy = List.copyOf(values);
    if (copy.size() != names.size()) {
      throw new IllegalArgumentException(
          what + " " + code + " takes values " + names + ", got " + copy);
    }
    return copy;
  }

  /**
   * Returns the value of {@code name}.
   *
   * @throws IllegalArgumentException when the code has no value of that name
   */
  static String value(
      String what, Enum<?> code, List<String> names, List<String> values, String name) {
    int i = names.indexOf(name);
    if (i < 0) {
      throw new IllegalArgumentException(
          what + " " + code + " has values " + names + ", not " + name);
    }
    return values.get(i);
  }
}

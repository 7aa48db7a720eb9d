package dev.capstan.release.file;

import dev.capstan.common.Escapes;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/** The values of a release file's element documents: required fields and enum constants. */
final class DocValues {
  private DocValues() {}

  /** {@code value}, which the format requires. */
  static <T> T required(@Nullable T value, String field) {
    if (value == null) {
      throw new IllegalArgumentException(field + " must be set");
    }
    return value;
  }

  /** An enum constant by name, ignoring case; {@code upper} is how the format spells the names. */
  static <E extends Enum<E>> E enumValue(Class<E> type, String value, String field, boolean upper) {
    for (E e : type.getEnumConstants()) {
      if (e.name().equalsIgnoreCase(value)) {
        return e;
      }
    }
    throw new IllegalArgumentException(
        field
            + " must be one of "
            + Arrays.stream(type.getEnumConstants())
                .map(
                    e ->
                        upper
                            ? e.name()
                            : e.name().charAt(0) + e.name().substring(1).toLowerCase(Locale.ROOT))
                .collect(Collectors.joining(", "))
            + ": "
            + Escapes.quote(value));
  }
}

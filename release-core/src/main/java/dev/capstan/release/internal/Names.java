package dev.capstan.release.internal;

import dev.capstan.common.Escapes;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/** Name rules shared by the model. Not API: may change without notice. */
public final class Names {
  private static final Pattern DNS1123_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
  private static final Pattern DNS1035_LABEL = Pattern.compile("[a-z]([-a-z0-9]*[a-z0-9])?");
  private static final Pattern DNS1123_SUBDOMAIN =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

  /** The rule text for a DNS-1123 label, as shown in messages. */
  public static final String LABEL_RULE =
      "must be a DNS-1123 label (lower-case alphanumerics and '-', starting and ending with an"
          + " alphanumeric, at most 63 characters)";

  /** The rule text for a DNS-1035 label, as shown in messages. */
  public static final String DNS1035_RULE =
      "must be a DNS-1035 label (lower-case alphanumerics and '-', starting with a letter, ending"
          + " with an alphanumeric, at most 63 characters)";

  /** The rule text for a DNS-1123 subdomain, as shown in messages. */
  public static final String SUBDOMAIN_RULE =
      "must be a DNS-1123 subdomain (lower-case alphanumerics, '-' and '.', starting and ending"
          + " with an alphanumeric, at most 253 characters)";

  /** The rule text for a path segment name (RBAC objects), as shown in messages. */
  public static final String PATH_SEGMENT_RULE =
      "must be a path segment name (not empty, '.' or '..', without '/' or '%', at most 253"
          + " characters)";

  private Names() {}

  /** Whether {@code s} may name an object whose names are only path segments (RBAC kinds). */
  public static boolean isPathSegment(String s) {
    return !s.isEmpty()
        && s.length() <= 253
        && !s.equals(".")
        && !s.equals("..")
        && s.indexOf('/') < 0
        && s.indexOf('%') < 0
        && s.chars().noneMatch(c -> c < 0x20 || c == 0x7f);
  }

  /** Whether {@code s} is a DNS-1123 label of at most {@code max} characters. */
  public static boolean isLabel(String s, int max) {
    return s.length() <= max && DNS1123_LABEL.matcher(s).matches();
  }

  /** Whether {@code s} is a DNS-1035 label (63 characters at most). */
  public static boolean isDns1035Label(String s) {
    return s.length() <= 63 && DNS1035_LABEL.matcher(s).matches();
  }

  /** Whether {@code s} is a DNS-1123 subdomain (253 characters at most). */
  public static boolean isSubdomain(String s) {
    return s.length() <= 253 && DNS1123_SUBDOMAIN.matcher(s).matches();
  }

  /**
   * Quotes a value for an error message: {@code 'value'} with control characters escaped (see
   * {@link Escapes#quote}), or {@code null}.
   */
  public static String quote(@Nullable Object value) {
    return Escapes.quote(value);
  }

  /**
   * Requires a non-null, non-blank string.
   *
   * @throws IllegalArgumentException naming {@code field} when it is null or blank
   */
  public static String requireText(@Nullable String value, String field) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(field + " must not be empty: " + quote(value));
    }
    return value;
  }
}

package dev.capstan.update.version;

import dev.capstan.common.Escapes;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Semantic Versioning 2.0.0 version. Parsing accepts an optional leading {@code v}. Ordering
 * ({@link #compareTo}) follows semver precedence: major, minor, patch numerically; a version with a
 * prerelease is lower than the same version without; prerelease identifiers compare numerically
 * when both are numeric, lexically (ASCII) otherwise, numeric ones lower than alphanumeric ones,
 * and a shorter list lower when all shared identifiers are equal. Build metadata is kept but does
 * not affect precedence, so {@code compareTo} is not consistent with {@code equals}.
 *
 * @param major the major version
 * @param minor the minor version
 * @param patch the patch version
 * @param prerelease the dot-separated prerelease identifiers, empty for a release
 * @param build the dot-separated build metadata identifiers, usually empty
 */
public record Semver(
    long major, long minor, long patch, List<String> prerelease, List<String> build)
    implements Comparable<Semver> {

  /** The grammar of semver.org, with an optional leading {@code v}. */
  public static final String RULE =
      "semver MAJOR.MINOR.PATCH[-PRERELEASE][+BUILD] with an optional leading v";

  private static final String NUM = "0|[1-9][0-9]*";
  private static final String PRE_ID = "(?:0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)";
  private static final Pattern SEMVER =
      Pattern.compile(
          "v?("
              + NUM
              + ")\\.("
              + NUM
              + ")\\.("
              + NUM
              + ")(?:-("
              + PRE_ID
              + "(?:\\."
              + PRE_ID
              + ")*))?(?:\\+([0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*))?");
  private static final Pattern PRE = Pattern.compile(PRE_ID);
  private static final Pattern BUILD_ID = Pattern.compile("[0-9A-Za-z-]+");

  /** Validates every part. */
  public Semver {
    if (major < 0 || minor < 0 || patch < 0) {
      throw new IllegalArgumentException(
          "version numbers must not be negative: " + major + "." + minor + "." + patch);
    }
    prerelease = List.copyOf(prerelease);
    build = List.copyOf(build);
    for (String id : prerelease) {
      if (!PRE.matcher(id).matches()) {
        throw new IllegalArgumentException(
            "prerelease identifier must match " + PRE_ID + ": " + Escapes.quote(id));
      }
    }
    for (String id : build) {
      if (!BUILD_ID.matcher(id).matches()) {
        throw new IllegalArgumentException(
            "build identifier must match " + BUILD_ID.pattern() + ": " + Escapes.quote(id));
      }
    }
  }

  /**
   * Creates a release version.
   *
   * @param major the major version
   * @param minor the minor version
   * @param patch the patch version
   * @return the version {@code major.minor.patch}
   */
  public static Semver of(long major, long minor, long patch) {
    return new Semver(major, minor, patch, List.of(), List.of());
  }

  /**
   * Parses a version.
   *
   * @param text for example {@code v1.2.3-rc.1+build.5}
   * @return the version
   * @throws IllegalArgumentException naming the rule and the value when {@code text} is not semver
   */
  public static Semver parse(String text) {
    return tryParse(text)
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    "version must be " + RULE + ": " + Escapes.quote(text)));
  }

  /**
   * Parses a version, or returns empty.
   *
   * @param text the candidate
   * @return the version, or empty when {@code text} is not semver
   */
  public static Optional<Semver> tryParse(String text) {
    Matcher m = SEMVER.matcher(text);
    if (!m.matches()) {
      return Optional.empty();
    }
    try {
      String pre = m.group(4);
      String build = m.group(5);
      return Optional.of(
          new Semver(
              Long.parseLong(m.group(1)),
              Long.parseLong(m.group(2)),
              Long.parseLong(m.group(3)),
              pre == null ? List.of() : List.of(pre.split("\\.")),
              build == null ? List.of() : List.of(build.split("\\."))));
    } catch (NumberFormatException tooLarge) {
      return Optional.empty();
    }
  }

  /**
   * Tells whether a string is a semver version.
   *
   * @param text the candidate
   * @return true when {@link #parse} would accept it
   */
  public static boolean isValid(String text) {
    return tryParse(text).isPresent();
  }

  /**
   * Tells whether this version has the same major and minor version as another.
   *
   * @param other the other version
   * @return true for {@code 1.14.2} and {@code 1.14.5}, false for {@code 1.14.5} and {@code 1.15.0}
   */
  public boolean sameMinor(Semver other) {
    return major == other.major && minor == other.minor;
  }

  /**
   * Tells whether this is a prerelease.
   *
   * @return true when there are prerelease identifiers
   */
  public boolean isPrerelease() {
    return !prerelease.isEmpty();
  }

  @Override
  public int compareTo(Semver o) {
    int c = Long.compare(major, o.major);
    if (c == 0) {
      c = Long.compare(minor, o.minor);
    }
    if (c == 0) {
      c = Long.compare(patch, o.patch);
    }
    if (c != 0) {
      return c;
    }
    if (prerelease.isEmpty() || o.prerelease.isEmpty()) {
      return Boolean.compare(prerelease.isEmpty(), o.prerelease.isEmpty());
    }
    for (int i = 0; i < Math.min(prerelease.size(), o.prerelease.size()); i++) {
      c = compareIdentifier(prerelease.get(i), o.prerelease.get(i));
      if (c != 0) {
        return c;
      }
    }
    return Integer.compare(prerelease.size(), o.prerelease.size());
  }

  private static int compareIdentifier(String a, String b) {
    boolean an = isNumeric(a);
    boolean bn = isNumeric(b);
    if (an && bn) {
      int c = Integer.compare(a.length(), b.length());
      return c != 0 ? c : a.compareTo(b);
    }
    if (an != bn) {
      return an ? -1 : 1;
    }
    return a.compareTo(b);
  }

  private static boolean isNumeric(String id) {
    return id.chars().allMatch(ch -> ch >= '0' && ch <= '9');
  }

  /**
   * Renders the version without the leading {@code v}.
   *
   * @return for example {@code 1.2.3-rc.1+build.5}
   */
  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder().append(major).append('.').append(minor).append('.');
    sb.append(patch);
    if (!prerelease.isEmpty()) {
      sb.append('-').append(String.join(".", prerelease));
    }
    if (!build.isEmpty()) {
      sb.append('+').append(String.join(".", build));
    }
    return sb.toString();
  }
}

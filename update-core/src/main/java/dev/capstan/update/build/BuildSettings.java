package dev.capstan.update.build;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.Escapes;
import java.util.regex.Pattern;

/**
 * How images are built.
 *
 * @param platform the target platform, for example {@code linux/amd64}
 * @param source the source checkout to build from
 * @param parallelism how many images are built at once, at least 1
 * @param retries how many more attempts a failed build gets, at least 0
 */
public record BuildSettings(String platform, String source, int parallelism, int retries) {

  /** The platform used when neither the option nor the environment names one. */
  public static final String DEFAULT_PLATFORM = "linux/amd64";

  /** The rule for platforms: {@code os/arch[/variant]}. */
  public static final String PLATFORM_RULE = "[a-z0-9]+/[a-z0-9_]+(/[a-z0-9]+)?";

  private static final Pattern PLATFORM = Pattern.compile(PLATFORM_RULE);

  /** Validates the fields. */
  public BuildSettings {
    requireNonNull(platform, "platform");
    requireNonNull(source, "source");
    if (!PLATFORM.matcher(platform).matches()) {
      throw new IllegalArgumentException(
          "image platform must match " + PLATFORM_RULE + ": " + Escapes.quote(platform));
    }
    if (source.isEmpty()) {
      throw new IllegalArgumentException("build source must not be empty");
    }
    if (parallelism < 1) {
      throw new IllegalArgumentException("build parallelism must be at least 1: " + parallelism);
    }
    if (retries < 0) {
      throw new IllegalArgumentException("build retries must not be negative: " + retries);
    }
  }

  /**
   * Tells whether a string is a valid platform.
   *
   * @param platform the candidate
   * @return true when it matches {@link #PLATFORM_RULE}
   */
  public static boolean isValidPlatform(String platform) {
    return PLATFORM.matcher(platform).matches();
  }
}

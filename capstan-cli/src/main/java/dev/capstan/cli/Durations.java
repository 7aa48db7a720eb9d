package dev.capstan.cli;

import dev.capstan.common.Escapes;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/** Parses durations written like Go's and kubectl's: {@code 90s}, {@code 15m}, {@code 1h30m}. */
final class Durations implements CommandLine.ITypeConverter<Duration> {
  private static final Pattern PART = Pattern.compile("(\\d+)(h|ms|m|s)");

  @Override
  public Duration convert(String value) {
    return parse(value);
  }

  static Duration parse(String value) {
    Matcher m = PART.matcher(value);
    Duration total = Duration.ZERO;
    int end = 0;
    while (m.find() && m.start() == end) {
      long n = Long.parseLong(m.group(1));
      total =
          total.plus(
              switch (m.group(2)) {
                case "h" -> Duration.ofHours(n);
                case "m" -> Duration.ofMinutes(n);
                case "s" -> Duration.ofSeconds(n);
                default -> Duration.ofMillis(n);
              });
      end = m.end();
    }
    if (value.isEmpty() || end != value.length() || total.isZero()) {
      throw new CommandLine.TypeConversionException(
          "must be a positive duration such as 90s, 15m or 1h30m: " + Escapes.quote(value));
    }
    return total;
  }
}

package dev.capstan.cli;

import java.time.Duration;
import picocli.CommandLine;

/**
 * Parses durations written like Go's and kubectl's ({@code 90s}, {@code 15m}, {@code 1h30m}) with
 * {@link dev.capstan.common.Durations#parse}, for picocli.
 */
final class Durations implements CommandLine.ITypeConverter<Duration> {
  @Override
  public Duration convert(String value) {
    return parse(value);
  }

  static Duration parse(String value) {
    try {
      return dev.capstan.common.Durations.parse(value);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.TypeConversionException(e.getMessage());
    }
  }
}

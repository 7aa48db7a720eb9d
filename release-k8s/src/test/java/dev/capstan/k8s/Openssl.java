package dev.capstan.k8s;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The tests' certificates and keys, made by the {@code openssl} command in a folder. */
final class Openssl {
  private Openssl() {}

  /** Runs {@code openssl ARGS} in {@code dir}; it must succeed (its output is the failure's). */
  static void run(Path dir, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of("openssl"));
    command.addAll(List.of(args));
    Process p =
        new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes(), UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(output).isZero();
  }
}

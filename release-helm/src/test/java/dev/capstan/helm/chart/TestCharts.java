package dev.capstan.helm.chart;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Charts a test writes: a folder of files, and packaged charts made by the system's tar. */
final class TestCharts {
  private TestCharts() {}

  /** Writes {@code files} (path in the chart to content) into the folder {@code dir}. */
  static Path chart(Path dir, Map<String, String> files) throws IOException {
    for (Map.Entry<String, String> f : files.entrySet()) {
      Path file = dir.resolve(f.getKey());
      Files.createDirectories(file.getParent());
      Files.writeString(file, f.getValue(), StandardCharsets.UTF_8);
    }
    return dir;
  }

  /** Packs {@code folder} under its own name ({@code tar czf}), with tar's {@code options}. */
  static Path tar(Path archive, Path folder, String... options) throws IOException {
    List<String> command = new ArrayList<>(List.of("tar"));
    command.addAll(List.of(options));
    command.addAll(
        List.of(
            "-czf",
            archive.toString(),
            "-C",
            String.valueOf(folder.toAbsolutePath().getParent()),
            String.valueOf(folder.getFileName())));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    try {
      if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IllegalStateException(
            new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    return archive;
  }
}

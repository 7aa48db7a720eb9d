package dev.capstan.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Properties;
import picocli.CommandLine;

/**
 * The version and commit the CLI was built from. The build writes the version into {@code
 * build.properties} and what git says of the checkout into {@code git.txt} (the commit, then {@code
 * dirty} when it had uncommitted changes); a build from a source tarball without {@code .git} has
 * an empty {@code git.txt}, and takes the commit from {@code commit.txt}, which {@code git archive}
 * fills in ({@code export-subst} in {@code .gitattributes}). A build with neither says {@code
 * unknown}.
 *
 * @param version the project version, e.g. {@code 0.1.0-SNAPSHOT}
 * @param commit the full commit id, or {@code unknown}
 * @param dirty whether the checkout had uncommitted changes when the jar was built
 */
record BuildInfo(String version, String commit, boolean dirty) {
  private static final String UNKNOWN = "unknown";

  /** The build of the running jar (read from its resources). */
  static BuildInfo current() {
    Properties build = new Properties();
    try (InputStream in = BuildInfo.class.getResourceAsStream("build.properties")) {
      if (in != null) {
        build.load(in);
      }
    } catch (IOException e) {
      // a jar without its resources: reported as unknown below
    }
    return of(build.getProperty("version", ""), resource("git.txt"), resource("commit.txt"));
  }

  private static String resource(String name) {
    try (InputStream in = BuildInfo.class.getResourceAsStream(name)) {
      return in == null ? "" : new String(in.readAllBytes(), StandardCharsets.US_ASCII);
    } catch (IOException e) {
      return "";
    }
  }

  /**
   * The build info from the filtered version, git's answer ({@code COMMIT\n[dirty\n]}, or empty)
   * and the archived commit: a value still holding its placeholder ({@code ${...}}, {@code
   * $Format:...$}) was not filled in.
   */
  static BuildInfo of(String version, String git, String archivedCommit) {
    List<String> lines = git.lines().map(String::strip).toList();
    String fromGit = lines.isEmpty() ? "" : lines.get(0);
    String archived = archivedCommit.strip();
    String id = filled(fromGit) ? fromGit : filled(archived) ? archived : UNKNOWN;
    return new BuildInfo(
        filled(version) ? version : UNKNOWN, id, filled(fromGit) && lines.contains("dirty"));
  }

  private static boolean filled(String value) {
    return !value.isBlank() && !value.contains("${") && !value.contains("$Format");
  }

  /** What {@code capstan version} and {@code --version} print, one fact a line. */
  String[] lines() {
    return new String[] {
      "capstan " + version,
      "commit " + commit + (dirty ? " (with uncommitted changes)" : ""),
      "java " + System.getProperty("java.version") + " (" + System.getProperty("java.vendor") + ")"
    };
  }

  /**
   * The version lines for picocli's {@code --version}, read once per process: picocli asks for them
   * while it builds each subcommand (they inherit the root's), not only for {@code --version}.
   */
  static final class Provider implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return Once.LINES.clone();
    }

    private static final class Once {
      static final String[] LINES = current().lines();
    }
  }
}

package dev.capstan.helm.chart;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.capstan.common.Escapes;
import dev.capstan.common.JsonMappers;
import dev.capstan.release.chart.ChartException;
import dev.capstan.release.chart.ChartReference;
import dev.capstan.release.chart.ChartRequest;
import dev.capstan.release.chart.RepositoryAccess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Fetches the chart a request names into the workspace, as Helm fetches it: a directory as it is
 * (its missing dependencies built by {@code helm dependency build} in a copy, never in the caller's
 * folder), a packaged chart as it is, a repository chart and an OCI chart by {@code helm pull}
 * (which resolves a version range as Helm does). The repository's credentials are written to Helm's
 * repository or registry config file in the workspace, never put on a command line. A pulled chart
 * is bounded while it is fetched, by the proxy's budget ({@link EgressProxy#MAX_DOWNLOAD}): Helm
 * holds a download whole in memory and writes the file at once, so there is no file to watch before
 * it is all there; its size is checked again once it is ({@link ChartFiles#MAX_ARCHIVE}).
 */
final class ChartSources {
  /** The name the request's chart repository has in the workspace's repository config. */
  static final String REPO = "capstan";

  /**
   * A chart ready to render.
   *
   * @param path the chart directory or packaged chart Helm renders
   * @param meta its {@code Chart.yaml}
   * @param digest {@code sha256:} of the packaged chart, or of the directory's files
   * @param label the chart as messages name it: its reference
   */
  record Fetched(Path path, ChartFiles.Meta meta, String digest, String label) {}

  private final HelmProcess helm;
  private final HelmVersion version;
  private final Workspace ws;
  private final Map<String, String> env;
  private final Deadline deadline;

  ChartSources(
      HelmProcess helm,
      HelmVersion version,
      Workspace ws,
      Map<String, String> env,
      Deadline deadline) {
    this.helm = helm;
    this.version = version;
    this.ws = ws;
    this.env = env;
    this.deadline = deadline;
  }

  Fetched fetch(ChartRequest request) {
    ChartReference chart = request.chart();
    String label = Escapes.escape(chart.describe());
    if (chart instanceof ChartReference.Directory d) {
      return directory(Path.of(d.path()), label, request.repository());
    }
    if (chart instanceof ChartReference.Archive a) {
      Path archive = Path.of(a.path());
      if (!Files.isRegularFile(archive)) {
        throw new ChartException("chart " + label + ": no such file; nothing was written");
      }
      return packaged(archive, label);
    }
    if (chart instanceof ChartReference.Repository r) {
      return repository(r, request.version(), request.repository(), label);
    }
    return oci((ChartReference.Oci) chart, request.version(), request.repository(), label);
  }

  private Fetched packaged(Path archive, String label) {
    try {
      if (Files.size(archive) > ChartFiles.MAX_ARCHIVE) {
        throw new ChartException(
            "chart "
                + label
                + " is over "
                + (ChartFiles.MAX_ARCHIVE >> 20)
                + " MiB; nothing was written");
      }
    } catch (IOException e) {
      throw new ChartException("chart " + label + ": cannot read it: " + e.getMessage(), e);
    }
    return new Fetched(
        archive, ChartFiles.archive(archive, label), ChartFiles.digest(archive), label);
  }

  private Fetched directory(Path dir, String label, RepositoryAccess access) {
    if (!Files.isDirectory(dir)) {
      throw new ChartException("chart " + label + ": no such directory; nothing was written");
    }
    ChartFiles.Meta meta = ChartFiles.directory(dir, label);
    String digest = ChartFiles.directoryDigest(dir);
    if (ChartFiles.dependenciesPresent(dir, meta)) {
      return new Fetched(dir, meta, digest, label);
    }
    // Build the dependencies in a copy: each file:// dependency copied to where its relative path
    // points from the copy, so the caller's folder is never written.
    Path mirror = ws.dir("mirror");
    Path copy = mirrored(mirror, dir);
    copyTree(dir, copy, label);
    for (ChartFiles.Dependency d : meta.dependencies()) {
      if (d.repository().startsWith("file://")) {
        Path source = dir.resolve(d.repository().substring("file://".length())).normalize();
        if (Files.isDirectory(source)) {
          copyTree(source, mirrored(mirror, source), label);
        }
      }
    }
    writeRepositories(null, access);
    HelmProcess.Result r =
        helm.run(List.of("dependency", "build", copy.toString()), env, ws, deadline);
    if (r.exitCode() != 0) {
      throw new ChartException(
          "chart "
              + label
              + ": its dependencies cannot be built (helm dependency build): "
              + r.reason()
              + "; nothing was written");
    }
    return new Fetched(copy, meta, digest, label);
  }

  private Fetched repository(
      ChartReference.Repository chart,
      @org.jspecify.annotations.Nullable String wanted,
      RepositoryAccess access,
      String label) {
    writeRepositories(chart.url(), access);
    List<String> update = new ArrayList<>(List.of("repo", "update", REPO));
    if (version.major() == 3) {
      update.add("--fail-on-repo-update-fail"); // Helm 4 fails by default
    }
    HelmProcess.Result r = helm.run(update, env, ws, deadline);
    if (r.exitCode() != 0) {
      throw refused(label, "the chart repository", r, access);
    }
    return pull(REPO + "/" + chart.name(), wanted, List.of(), access, label);
  }

  private Fetched oci(
      ChartReference.Oci chart,
      @org.jspecify.annotations.Nullable String wanted,
      RepositoryAccess access,
      String label) {
    String host = chart.reference().substring("oci://".length()).split("/", 2)[0];
    if (access.username() != null) {
      ObjectNode auths = JsonMappers.trees().createObjectNode();
      String pair = access.username() + ":" + (access.password() == null ? "" : access.password());
      auths
          .putObject("auths")
          .putObject(host)
          .put("auth", Base64.getEncoder().encodeToString(pair.getBytes(StandardCharsets.UTF_8)));
      ws.write("config/registry.json", auths.toString());
    }
    List<String> tls = new ArrayList<>();
    if (access.caFile() != null) {
      tls.add("--ca-file");
      tls.add(access.caFile());
    }
    if (access.plainHttp()) {
      tls.add("--plain-http");
    }
    return pull(chart.reference(), wanted, tls, access, label);
  }

  private Fetched pull(
      String ref,
      @org.jspecify.annotations.Nullable String wanted,
      List<String> extra,
      RepositoryAccess access,
      String label) {
    Path into = ws.dir("pulled");
    List<String> args = new ArrayList<>(List.of("pull", ref, "--destination", into.toString()));
    if (wanted != null) {
      args.add("--version");
      args.add(wanted);
    }
    args.addAll(extra);
    HelmProcess.Result r = helm.run(args, env, ws, deadline);
    if (r.exitCode() != 0) {
      throw refused(
          label, ref.startsWith("oci://") ? "the registry" : "the chart repository", r, access);
    }
    try (Stream<Path> files = Files.list(into)) {
      List<Path> archives = files.filter(p -> p.toString().endsWith(".tgz")).toList();
      if (archives.size() != 1) {
        throw new ChartException(
            "chart " + label + ": helm pull left " + archives.size() + " charts, 1 expected");
      }
      return packaged(archives.get(0), label);
    } catch (IOException e) {
      throw new ChartException(
          "chart " + label + ": cannot read what helm pulled: " + e.getMessage(), e);
    }
  }

  /** A failed fetch, in one line: refused credentials said so, with what to give. */
  private static ChartException refused(
      String label, String where, HelmProcess.Result r, RepositoryAccess access) {
    // Helm 3's repo update says why on standard output, the rest on standard error
    String err = (r.out() + "\n" + r.err()).toLowerCase(Locale.ROOT);
    // "basic credential not found": an OCI registry asked for credentials none were given for
    boolean unauthorized =
        err.contains("401") || err.contains("unauthorized") || err.contains("credential not found");
    boolean forbidden = err.contains("403") || err.contains("forbidden");
    // the proxy's own refusal, which Helm prints with its 403 for a plain http:// URL, is no
    // repository's: said as it is, asking for no credentials
    boolean proxy = err.contains("refused by capstan: ");
    if ((unauthorized || forbidden) && !proxy) {
      return new ChartException(
          "chart "
              + label
              + ": "
              + where
              + (access.username() == null
                  ? " asks for credentials (HTTP "
                      + (unauthorized ? 401 : 403)
                      + "): give --username and --password-stdin"
                  : " refused the credentials of user "
                      + Escapes.quote(access.username())
                      + " (HTTP "
                      + (unauthorized ? 401 : 403)
                      + "): check --username and the password given with --password-stdin")
              + "; nothing was written");
    }
    return new ChartException(
        "chart "
            + label
            + ": "
            + where
            + " did not give the chart: "
            + r.reason()
            + "; nothing was written");
  }

  /**
   * Helm's repository config: the request's repository (when there is one) named {@value #REPO},
   * with its credentials and CA, in a file only this user reads. Written as JSON, which Helm reads
   * as the YAML it is.
   */
  private void writeRepositories(
      @org.jspecify.annotations.Nullable String url, RepositoryAccess access) {
    ObjectNode root = JsonMappers.trees().createObjectNode();
    root.put("apiVersion", "");
    root.put("generated", "0001-01-01T00:00:00Z");
    ArrayNode repositories = root.putArray("repositories");
    if (url != null) {
      ObjectNode repo = repositories.addObject();
      repo.put("name", REPO);
      repo.put("url", url);
      if (access.username() != null) {
        repo.put("username", access.username());
        repo.put("password", access.password() == null ? "" : access.password());
      }
      if (access.caFile() != null) {
        repo.put("caFile", access.caFile());
      }
    }
    ws.write("config/repositories.yaml", root.toString());
  }

  private static Path mirrored(Path mirror, Path dir) {
    Path absolute = dir.toAbsolutePath().normalize();
    Path relative = absolute.getRoot() == null ? absolute : absolute.getRoot().relativize(absolute);
    return mirror.resolve(relative.toString());
  }

  private static void copyTree(Path from, Path to, String label) {
    try (Stream<Path> all = Files.walk(from)) {
      for (Path p : (Iterable<Path>) all::iterator) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else if (Files.isRegularFile(p)) {
          Files.createDirectories(target.getParent());
          Files.copy(p, target);
        }
      }
    } catch (IOException e) {
      throw new ChartException(
          "chart " + label + ": cannot copy it to build its dependencies: " + e.getMessage(), e);
    }
  }
}

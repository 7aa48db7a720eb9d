package dev.capstan.release.chart;

import dev.capstan.common.Escapes;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Where a chart comes from: a directory, a packaged chart ({@code .tgz}), a chart repository (its
 * {@code index.yaml} over HTTPS) or an OCI registry. The core reads none of them: the renderer
 * does.
 */
public sealed interface ChartReference {
  /**
   * The chart as a person names it, e.g. {@code ./charts/shop} or {@code oci://host/charts/shop}.
   */
  String describe();

  /**
   * A chart directory (holding {@code Chart.yaml}).
   *
   * @param path the directory, as the caller resolved it
   */
  record Directory(String path) implements ChartReference {
    /** Requires a path. */
    public Directory {
      requireText(path, "chart directory");
    }

    @Override
    public String describe() {
      return path;
    }
  }

  /**
   * A packaged chart, as {@code helm package} writes it.
   *
   * @param path the {@code .tgz} file, as the caller resolved it
   */
  record Archive(String path) implements ChartReference {
    /** Requires a path. */
    public Archive {
      requireText(path, "chart archive");
    }

    @Override
    public String describe() {
      return path;
    }
  }

  /**
   * A chart in a chart repository: an {@code index.yaml} under {@code url} lists its versions.
   *
   * @param url the repository's URL, {@code https://} (or {@code http://} on loopback)
   * @param name the chart's name in the index
   */
  record Repository(String url, String name) implements ChartReference {
    /** Requires an http(s) URL and a chart name. */
    public Repository {
      requireText(url, "--repo");
      if (holdsUserInfo(url)) {
        // never shown or kept: the URL is recorded with the release and shown by release get
        throw new IllegalArgumentException(
            "--repo must not hold a user or password (USER:PASSWORD@): give --username and"
                + " --password-stdin instead: "
                + Escapes.quote(withoutUserInfo(url)));
      }
      if (!url.startsWith("https://") && !url.startsWith("http://")) {
        throw new IllegalArgumentException(
            "--repo must be a chart repository's https:// URL: " + Escapes.quote(url));
      }
      requireText(name, "chart name");
      if (!NAME.matcher(name).matches()) {
        throw new IllegalArgumentException(
            "with --repo, the chart must be a chart's name in the repository's index ("
                + NAME.pattern()
                + "): "
                + Escapes.quote(name));
      }
    }

    @Override
    public String describe() {
      return url + " " + name;
    }
  }

  /**
   * A chart in an OCI registry.
   *
   * @param reference {@code oci://host[:port]/path/name}, without a tag: the version is asked apart
   */
  record Oci(String reference) implements ChartReference {
    /**
     * Possessive repetitions ({@code *+}, {@code ++}), which Java matches in a loop: a greedy
     * repeated group is matched by recursing once per repetition, and a long reference would
     * overflow the stack. Nothing is lost, as no repetition here ever needs to give a character
     * back.
     */
    private static final Pattern OCI =
        Pattern.compile("oci://[A-Za-z0-9.\\-\\[\\]:]+(?:/[a-z0-9]+(?:[._\\-][a-z0-9]+)*+)++");

    /** Requires {@code oci://host/path} without a tag or digest. */
    public Oci {
      requireText(reference, "chart");
      if (!OCI.matcher(reference).matches()) {
        throw new IllegalArgumentException(
            "an OCI chart must be oci://HOST[:PORT]/PATH/NAME, lower-case, without a tag (give"
                + " the version with --chart-version): "
                + Escapes.quote(withoutUserInfo(reference)));
      }
    }

    @Override
    public String describe() {
      return reference;
    }
  }

  /** A chart name in a repository's index. */
  Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.\\-]*");

  /**
   * Whether a URL names a user (and maybe a password) before its host: {@code
   * https://user:password@host/...}.
   *
   * @param url a URL as given
   * @return whether its authority holds an {@code @}
   */
  static boolean holdsUserInfo(String url) {
    return userInfoEnd(url) >= 0;
  }

  /**
   * {@code url} with the user and password before its host, if any, replaced by {@code ***}: what a
   * message may show of it.
   *
   * @param url a URL as given
   * @return {@code https://***@host/...}, or {@code url} when it holds none
   */
  static String withoutUserInfo(String url) {
    int at = userInfoEnd(url);
    return at < 0 ? url : url.substring(0, url.indexOf("//") + 2) + "***" + url.substring(at);
  }

  /** Where the {@code @} that ends a URL's user and password before its host is, or -1. */
  private static int userInfoEnd(String url) {
    int start = url.indexOf("//");
    if (start < 0) {
      return -1;
    }
    int end = start + 2;
    while (end < url.length() && "/?#".indexOf(url.charAt(end)) < 0) {
      end++;
    }
    int at = url.lastIndexOf('@', end - 1);
    return at > start + 1 ? at : -1;
  }

  /**
   * The reference a command line's {@code --chart REF [--repo URL]} names: with {@code repo}, the
   * chart {@code ref} of that repository; else {@code oci://...} an OCI chart, a name ending in
   * {@code .tgz} or {@code .tar.gz} a packaged chart, anything else a directory.
   *
   * @param ref the chart
   * @param repo a chart repository's URL, or {@code null}
   * @return the reference
   * @throws IllegalArgumentException naming the flag and the rule when {@code ref} is none of these
   */
  static ChartReference parse(String ref, @Nullable String repo) {
    requireText(ref, "--chart");
    if (repo != null) {
      return new Repository(repo, ref);
    }
    if (ref.startsWith("oci://")) {
      return new Oci(ref);
    }
    if (ref.startsWith("https://") || ref.startsWith("http://")) {
      throw new IllegalArgumentException(
          "--chart "
              + Escapes.quote(withoutUserInfo(ref))
              + ": a chart from a chart repository is named by --repo URL and the chart's name"
              + " (--chart NAME --repo https://charts.example.com)");
    }
    return ref.endsWith(".tgz") || ref.endsWith(".tar.gz") ? new Archive(ref) : new Directory(ref);
  }

  private static void requireText(@Nullable String value, String what) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(what + " must not be empty: " + Escapes.quote(value));
    }
  }
}

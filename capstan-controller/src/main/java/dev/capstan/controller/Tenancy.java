package dev.capstan.controller;

import dev.capstan.common.Escapes;
import dev.capstan.release.chart.PrivateNetworks;
import java.util.List;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Whose rights a Release is cast with, and which references it may make (docs/controller.md,
 * "Tenants"). A Release naming {@code spec.serviceAccountName} is cast as that service account of
 * its own namespace, by impersonation, for everything the engine does for it: its sources, plan,
 * access reviews, records, lease, writes and health waits. A Release naming none is cast as {@code
 * defaultServiceAccount} of its namespace when one is set (Flux's lockdown), is refused when {@code
 * requireServiceAccount} is, and is otherwise cast with the controller's own rights (one team, one
 * cluster: only for a controller whose Releases only trusted people may write), but for its chart's
 * {@code lookup}, which then reads nothing.
 *
 * @param defaultServiceAccount the account, in each Release's namespace, of a Release that names
 *     none; or null
 * @param requireServiceAccount whether a Release that names no account (and has no default) is
 *     refused rather than cast with the controller's rights
 * @param crossNamespaceRefs whether {@code spec.dependsOn} may name a Release of another namespace
 * @param chartRepositories the chart repositories a Release's {@code spec.chart.repository} may
 *     name ({@code https://} or {@code oci://} URLs: the repository itself or one under it); empty
 *     for any
 */
public record Tenancy(
    @Nullable String defaultServiceAccount,
    boolean requireServiceAccount,
    boolean crossNamespaceRefs,
    List<String> chartRepositories) {

  /** An allowed chart repository: https:// or oci://, a host, then a path without query. */
  private static final Pattern REPOSITORY =
      Pattern.compile("(https|oci)://[A-Za-z0-9.\\[\\]:-]+(/[^?#\\s]*)?");

  /**
   * A {@code .} or {@code ..} path segment, plain or percent-encoded, alone or with {@code ;}
   * parameters (which Tomcat drops before it cleans the path).
   */
  private static final Pattern DOT_SEGMENT = Pattern.compile("/(\\.|%2[eE]){1,2}(/|;|$)");

  /**
   * A percent-encoded {@code /} or {@code \}: a server that decodes the path before it cleans it
   * (Go's ServeMux) reads {@code ..%2F} as a climb out.
   */
  private static final Pattern ENCODED_SEPARATOR = Pattern.compile("%(2[fF]|5[cC])");

  /** The form of a service account's name: a DNS-1123 subdomain of at most 253 characters. */
  static final Pattern ACCOUNT_NAME = Pattern.compile("[a-z0-9]([-a-z0-9.]*[a-z0-9])?");

  /**
   * Checks the default account's name and the chart repositories.
   *
   * @throws IllegalArgumentException naming the bad value
   */
  public Tenancy {
    if (defaultServiceAccount != null && !validAccount(defaultServiceAccount)) {
      throw new IllegalArgumentException(
          "the default service account must be a DNS-1123 subdomain of at most 253 characters: "
              + Escapes.quote(defaultServiceAccount));
    }
    chartRepositories = List.copyOf(chartRepositories);
    for (String repository : chartRepositories) {
      if (!REPOSITORY.matcher(repository).matches()) {
        throw new IllegalArgumentException(
            "a chart repository must be an https:// or oci:// URL with a host, such as"
                + " https://charts.example.com or oci://registry.example.com/charts: "
                + Escapes.quote(repository));
      }
    }
  }

  /** A tenancy of any chart repository. */
  public Tenancy(
      @Nullable String defaultServiceAccount,
      boolean requireServiceAccount,
      boolean crossNamespaceRefs) {
    this(defaultServiceAccount, requireServiceAccount, crossNamespaceRefs, List.of());
  }

  /**
   * No boundary: a Release naming no account is cast with the controller's own rights, and may
   * depend on Releases of any namespace (the default).
   */
  public static Tenancy open() {
    return new Tenancy(null, false, true, List.of());
  }

  /** This tenancy with {@code name} as the account of Releases that name none. */
  public Tenancy withDefaultServiceAccount(String name) {
    return new Tenancy(name, requireServiceAccount, crossNamespaceRefs, chartRepositories);
  }

  /** This tenancy refusing Releases that name no account (and have no default). */
  public Tenancy withServiceAccountRequired(boolean required) {
    return new Tenancy(defaultServiceAccount, required, crossNamespaceRefs, chartRepositories);
  }

  /** This tenancy allowing, or refusing, references to other namespaces. */
  public Tenancy withCrossNamespaceRefs(boolean allowed) {
    return new Tenancy(defaultServiceAccount, requireServiceAccount, allowed, chartRepositories);
  }

  /**
   * This tenancy casting charts from {@code repositories} only: a Release whose {@code
   * spec.chart.repository} is neither one of them nor under one (a path below it) is refused before
   * the controller fetches anything, and its chart's fetch reaches no private address but at these
   * repositories' hosts and ports ({@link #chartNetworks}). Empty: any repository.
   *
   * @throws IllegalArgumentException when one is no {@code https://} or {@code oci://} URL
   */
  public Tenancy withChartRepositories(List<String> repositories) {
    return new Tenancy(
        defaultServiceAccount, requireServiceAccount, crossNamespaceRefs, repositories);
  }

  /**
   * Whether a Release may name {@code repository}: no list, or an entry that is it or a parent of
   * it ({@code https://charts.example.com/team-a} allows {@code
   * https://charts.example.com/team-a/stable}, not {@code https://charts.example.com/team-ab} nor
   * {@code https://charts.example.com.evil.io}, nor a path climbing out with {@code ..}, nor one
   * holding an encoded {@code /} or {@code \}).
   */
  public boolean allowsChartRepository(String repository) {
    if (chartRepositories.isEmpty()) {
      return true;
    }
    String given = trimSlashes(repository);
    if (DOT_SEGMENT.matcher(given).find() || ENCODED_SEPARATOR.matcher(given).find()) {
      return false;
    }
    for (String allowed : chartRepositories) {
      String base = trimSlashes(allowed);
      if (given.equals(base) || given.startsWith(base + "/")) {
        return true;
      }
    }
    return false;
  }

  private static String trimSlashes(String url) {
    String s = url;
    while (s.endsWith("/")) {
      s = s.substring(0, s.length() - 1);
    }
    return s;
  }

  /**
   * Whether this controller serves tenants: Releases are cast as service accounts ({@code
   * --require-service-account}, {@code --default-service-account}) or may name only some chart
   * repositories ({@code --chart-repositories}).
   */
  boolean servesTenants() {
    return requireServiceAccount || defaultServiceAccount != null || !chartRepositories.isEmpty();
  }

  /**
   * Which private addresses a Release's chart may be fetched from: with chart repositories listed,
   * none but theirs (a chart URL of an index, a redirect or a registry's blob location leads no
   * tenant's chart into the cluster's network); else any, a cloud's metadata service excepted.
   */
  PrivateNetworks chartNetworks() {
    return chartRepositories.isEmpty()
        ? PrivateNetworks.reachable()
        : PrivateNetworks.onlyAt(chartRepositories);
  }

  static boolean validAccount(String name) {
    return name.length() <= 253 && ACCOUNT_NAME.matcher(name).matches();
  }

  /**
   * The account a Release of {@code namespace} naming {@code named} (or null) is cast as; null for
   * the controller's own rights.
   */
  @Nullable Account account(String namespace, @Nullable String named) {
    String name = named != null ? named : defaultServiceAccount;
    return name == null ? null : new Account(namespace, name);
  }

  /**
   * A service account a Release is cast as.
   *
   * @param namespace the account's namespace: the Release's
   * @param name its name
   */
  record Account(String namespace, String name) {
    Account {
      java.util.Objects.requireNonNull(namespace, "namespace");
      java.util.Objects.requireNonNull(name, "name");
    }

    /** The user the API server knows it as: {@code system:serviceaccount:NAMESPACE:NAME}. */
    String user() {
      return "system:serviceaccount:" + namespace + ":" + name;
    }
  }
}

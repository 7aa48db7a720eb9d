package dev.capstan.update.cluster;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.Escapes;
import java.util.regex.Pattern;

/**
 * A Deployment, named by namespace and name.
 *
 * @param namespace the namespace, a DNS-1123 label
 * @param deployment the Deployment name, a DNS-1123 subdomain
 */
public record Workload(String namespace, String deployment) implements Comparable<Workload> {

  /** The DNS-1123 label rule (namespaces, container names). */
  public static final String LABEL_RULE = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";

  /** The DNS-1123 subdomain rule (object names). */
  public static final String SUBDOMAIN_RULE = LABEL_RULE + "(\\." + LABEL_RULE + ")*";

  private static final Pattern LABEL = Pattern.compile(LABEL_RULE);
  private static final Pattern SUBDOMAIN = Pattern.compile(SUBDOMAIN_RULE);

  /** Validates both names. */
  public Workload {
    requireNonNull(namespace, "namespace");
    requireNonNull(deployment, "deployment");
    if (!isLabel(namespace)) {
      throw new IllegalArgumentException(
          "namespace must be a DNS-1123 label ("
              + LABEL_RULE
              + ", at most 63): "
              + Escapes.quote(namespace));
    }
    if (!isSubdomain(deployment)) {
      throw new IllegalArgumentException(
          "deployment must be a DNS-1123 subdomain ("
              + SUBDOMAIN_RULE
              + ", at most 253): "
              + Escapes.quote(deployment));
    }
  }

  /**
   * Creates a workload.
   *
   * @param namespace the namespace
   * @param deployment the Deployment name
   * @return the workload
   */
  public static Workload of(String namespace, String deployment) {
    return new Workload(namespace, deployment);
  }

  /**
   * Tells whether a string is a DNS-1123 label.
   *
   * @param s the candidate
   * @return true when valid
   */
  public static boolean isLabel(String s) {
    return s.length() <= 63 && LABEL.matcher(s).matches();
  }

  /**
   * Tells whether a string is a DNS-1123 subdomain.
   *
   * @param s the candidate
   * @return true when valid
   */
  public static boolean isSubdomain(String s) {
    return s.length() <= 253 && SUBDOMAIN.matcher(s).matches();
  }

  /**
   * Returns the workload's key.
   *
   * @return {@code namespace/deployment}
   */
  public String key() {
    return namespace + "/" + deployment;
  }

  @Override
  public int compareTo(Workload o) {
    return key().compareTo(o.key());
  }

  @Override
  public String toString() {
    return key();
  }
}

package dev.capstan.update.catalog;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.Escapes;
import dev.capstan.update.cluster.Workload;
import java.util.regex.Pattern;

/**
 * The label and annotation keys written on a patched Deployment's metadata (never on its pod
 * template): {@code app.kubernetes.io/part-of=<partOf>} and {@code <domain>/component=<name>}
 * labels, and {@code <domain>/platform-version} and {@code <domain>/previous-image.<component>}
 * annotations.
 *
 * @param domain the key prefix, a DNS subdomain, for example {@code mcpruntime.org}
 * @param partOf the value of the {@code app.kubernetes.io/part-of} label
 */
public record MetadataKeys(String domain, String partOf) {

  /** The standard part-of label key. */
  public static final String PART_OF_LABEL = "app.kubernetes.io/part-of";

  /** The rule for label values. */
  public static final String LABEL_VALUE_RULE = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";

  private static final Pattern LABEL_VALUE = Pattern.compile(LABEL_VALUE_RULE);

  /** Validates both parts. */
  public MetadataKeys {
    requireNonNull(domain, "domain");
    requireNonNull(partOf, "partOf");
    if (!Workload.isSubdomain(domain)) {
      throw new IllegalArgumentException(
          "metadata domain must be a DNS-1123 subdomain: " + Escapes.quote(domain));
    }
    if (!isLabelValue(partOf)) {
      throw new IllegalArgumentException(
          "part-of label value must match "
              + LABEL_VALUE_RULE
              + " (at most 63): "
              + Escapes.quote(partOf));
    }
  }

  /**
   * Returns the keys Capstan uses when the host names none.
   *
   * @return domain {@code capstan.dev}, part-of {@code platform}
   */
  public static MetadataKeys defaults() {
    return new MetadataKeys("capstan.dev", "platform");
  }

  static boolean isLabelValue(String s) {
    return s.length() <= 63 && LABEL_VALUE.matcher(s).matches();
  }

  /**
   * Returns the component label key.
   *
   * @return {@code <domain>/component}
   */
  public String componentLabel() {
    return domain + "/component";
  }

  /**
   * Returns the platform-version annotation key.
   *
   * @return {@code <domain>/platform-version}
   */
  public String versionAnnotation() {
    return domain + "/platform-version";
  }

  /**
   * Returns the previous-image annotation key of one component.
   *
   * @param component the component name
   * @return {@code <domain>/previous-image.<component>}
   */
  public String previousImageAnnotation(String component) {
    return domain + "/previous-image." + component;
  }
}

package dev.capstan.helm.chart;

import dev.capstan.common.Escapes;
import dev.capstan.release.chart.ChartException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The version a Helm binary reports ({@code helm version --template '{{.Version}}'}), checked: Helm
 * 3 from 3.13 ({@code template --dry-run=server}, which lets {@code lookup} read the cluster), or
 * Helm 4.
 *
 * @param major 3 or 4
 * @param minor the minor version
 * @param text as reported, e.g. {@code v3.22.0}
 */
record HelmVersion(int major, int minor, String text) {
  /** The oldest Helm 3 rendered with: {@code template --dry-run=server} came with 3.13. */
  static final int MIN_HELM3_MINOR = 13;

  private static final Pattern VERSION = Pattern.compile("v?([0-9]+)\\.([0-9]+)\\.[0-9]+.*");

  /**
   * The version {@code reported}, if it is one Capstan renders with.
   *
   * @throws ChartException naming the binary, the version and the versions taken
   */
  static HelmVersion check(String reported, String binary) {
    String text = reported.strip();
    Matcher m = VERSION.matcher(text);
    if (!m.matches()) {
      throw new ChartException(
          Escapes.quote(binary)
              + " is not Helm: 'version' printed "
              + Escapes.quote(text.length() > 80 ? text.substring(0, 80) + "..." : text)
              + "; install Helm 3.13 or later, or 4 (https://helm.sh/docs/intro/install/), or"
              + " name it with CAPSTAN_HELM=/path/to/helm");
    }
    int major = Integer.parseInt(m.group(1));
    int minor = Integer.parseInt(m.group(2));
    if (major < 3 || (major == 3 && minor < MIN_HELM3_MINOR) || major > 4) {
      throw new ChartException(
          Escapes.quote(binary)
              + " is Helm "
              + Escapes.escape(text)
              + "; Capstan renders charts with Helm 3.13 or later, or Helm 4: install one"
              + " (https://helm.sh/docs/intro/install/) or name it with"
              + " CAPSTAN_HELM=/path/to/helm");
    }
    return new HelmVersion(major, minor, text);
  }

  /** {@code helm v3.22.0}. */
  String describe() {
    return "helm " + text;
  }
}

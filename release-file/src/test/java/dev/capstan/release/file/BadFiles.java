package dev.capstan.release.file;

/**
 * Release files that parse but break an API-server limit, shared by the in-memory test and the
 * control-plane IT (which builds the same files): a 2 MiB configmap value, a 100,000-character
 * value aliased 19 times, and a configmap of 150,000 keys.
 */
final class BadFiles {
  private BadFiles() {}

  private static String head(String namespace) {
    return "apiVersion: capstan.dev/v1\nkind: Release\nmetadata: {name: bad, namespace: "
        + namespace
        + "}\nspec:\n  configMaps:\n";
  }

  /**
   * One configmap value of 2 MiB.
   *
   * @param namespace the release's namespace
   * @return the file
   */
  static String oversizedConfigMap(String namespace) {
    return head(namespace) + "  - name: big\n    data: {blob: " + "x".repeat(2 << 20) + "}\n";
  }

  /**
   * A 102,400-character value anchored once and aliased 19 times: 2,048,000 bytes of data from a
   * 100 KiB file.
   *
   * @param namespace the release's namespace
   * @return the file
   */
  static String aliasedValue(String namespace) {
    StringBuilder sb =
        new StringBuilder(head(namespace))
            .append("  - name: aliased\n    data:\n      v00: &v ")
            .append("x".repeat(100 << 10))
            .append('\n');
    for (int i = 1; i < 20; i++) {
      sb.append(String.format("      v%02d: *v\n", i));
    }
    return sb.toString();
  }

  /**
   * A configmap of 150,000 one-character values.
   *
   * @param namespace the release's namespace
   * @return the file
   */
  static String manyKeys(String namespace) {
    StringBuilder sb = new StringBuilder(head(namespace)).append("  - name: many\n    data:\n");
    for (int i = 0; i < 150_000; i++) {
      sb.append(String.format("      k%06d: v\n", i));
    }
    return sb.toString();
  }
}

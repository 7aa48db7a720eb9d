package dev.capstan.release.file;

import static java.util.Objects.requireNonNull;

import org.jspecify.annotations.Nullable;

/**
 * One input of {@link ReleaseFiles#manifestInputs}: either one document already parsed into a tree
 * (maps, lists and scalars, as {@code StrictDocuments} reads them) or a stream of YAML or JSON
 * documents as text.
 *
 * @param label how problems name the input, for example {@code spec.manifests[2]} or {@code
 *     configmap shop/web key all.yaml}
 * @param tree the document, when the input is one; {@code null} for a text input
 * @param text the documents, when the input is text; {@code null} for a tree input
 * @param hidden whether the input is a Secret's, none of whose text may reach a status, an event or
 *     a log line: its problems then name the rule, the line and column and a value's shape, never a
 *     value, a name or an excerpt of it
 */
public record ManifestInput(
    String label, @Nullable Object tree, @Nullable String text, boolean hidden) {

  /** Requires a label, and a tree or a text (not both). */
  public ManifestInput {
    requireNonNull(label, "label");
    if ((tree == null) == (text == null)) {
      throw new IllegalArgumentException("a manifest input is a tree or a text: " + label);
    }
  }

  /** An input whose problems may show what it holds. */
  public ManifestInput(String label, @Nullable Object tree, @Nullable String text) {
    this(label, tree, text, false);
  }

  /** One parsed document. */
  public static ManifestInput document(String label, Object tree) {
    return new ManifestInput(label, requireNonNull(tree, "tree"), null);
  }

  /** A stream of YAML or JSON documents. */
  public static ManifestInput text(String label, String text) {
    return new ManifestInput(label, null, requireNonNull(text, "text"));
  }

  /**
   * A stream of YAML or JSON documents read from a Secret: its problems show none of its text
   * ({@code (secret db-creds key password#0): a manifest must be a mapping with apiVersion, kind
   * and metadata: a string (the value is not shown)}).
   */
  public static ManifestInput secretText(String label, String text) {
    return new ManifestInput(label, null, requireNonNull(text, "text"), true);
  }
}

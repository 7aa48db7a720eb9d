package dev.capstan.release.file;

import dev.capstan.common.InputLimits;
import dev.capstan.common.InvalidDocumentException;
import dev.capstan.common.StrictDocuments;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.snakeyaml.engine.v2.api.ConstructNode;
import org.snakeyaml.engine.v2.exceptions.ConstructorException;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.Tag;
import org.snakeyaml.engine.v2.resolver.ScalarResolver;
import org.snakeyaml.engine.v2.schema.CoreSchema;

/**
 * Reads Kubernetes manifests from YAML 1.2 (or JSON) text, keeping every scalar as written: the
 * core schema decides the type (quoted scalars are strings, {@code true} a boolean, {@code 80} an
 * integer), and a decimal such as {@code 1.10} stays the {@link BigDecimal} 1.10 rather than the
 * double 1.1. Nothing is coerced afterwards. Documents are read one at a time in one pass, within
 * the limits given ({@link StrictDocuments#readYaml(String, InputLimits,
 * org.snakeyaml.engine.v2.schema.Schema, StrictDocuments.DocumentConsumer)}).
 */
final class ManifestYaml {
  private ManifestYaml() {}

  /** One document of a stream: its tree, or {@code null} for an empty document. */
  record Document(int index, @Nullable Object tree) {}

  /** The schema manifests are read with. */
  private static final ExactSchema SCHEMA = new ExactSchema();

  /** Receives the documents of a stream one at a time. */
  @FunctionalInterface
  interface Documents {
    void accept(Document document);
  }

  /**
   * Every document of {@code text}, empty ones included (as {@code null} trees).
   *
   * @throws IllegalArgumentException describing the first problem by line and column, never quoting
   *     the text around it (it may be a Secret's value)
   */
  static List<Document> loadAll(String text, InputLimits limits) {
    List<Document> docs = new ArrayList<>();
    String error = loadAll(text, limits, docs::add);
    if (error != null) {
      throw new IllegalArgumentException(error);
    }
    return docs;
  }

  /**
   * Hands each document of {@code text} to {@code out} as soon as it is read, in one pass within
   * {@code limits}, up to the first problem, and returns that problem ({@code #index: not valid
   * YAML at line L, column C: ...}, {@code #index: nesting is deeper than ...}), or {@code null}.
   */
  static @Nullable String loadAll(String text, InputLimits limits, Documents out) {
    int[] read = {0};
    try {
      StrictDocuments.readYaml(
          text,
          limits,
          SCHEMA,
          (index, tree) -> {
            out.accept(new Document(index, tree));
            read[0] = index + 1;
            return true;
          });
    } catch (InvalidDocumentException e) {
      return "#" + read[0] + ": " + oneLine(String.valueOf(e.getMessage()));
    }
    return null;
  }

  private static String oneLine(String s) {
    return s.replace('\n', ' ').strip();
  }

  /**
   * The YAML 1.2 core schema, with decimals kept exact and no infinities or NaNs; plain scalars
   * that {@code kubectl} (YAML 1.1) reads differently are refused rather than guessed: {@code yes},
   * {@code no}, {@code on}, {@code off}, {@code y}, {@code n} (booleans there, strings here),
   * integers with a leading zero (octal there, decimal here) and with underscores (numbers there,
   * strings here).
   */
  private static final class ExactSchema extends CoreSchema {
    private static final Tag AMBIGUOUS = new Tag("tag:capstan.dev,2026:yaml11-ambiguous");
    private static final Pattern YAML11_BOOL =
        Pattern.compile("y|Y|yes|Yes|YES|n|N|no|No|NO|on|On|ON|off|Off|OFF");
    private static final Pattern LEADING_ZERO = Pattern.compile("[-+]?0[0-9]+");
    private static final Pattern UNDERSCORE_NUMBER =
        Pattern.compile("[-+]?(0x[0-9a-fA-F_]+|0b[01_]+|[0-9][0-9_]*(\\.[0-9_]*)?)");

    @Override
    public ScalarResolver getScalarResolver() {
      ScalarResolver core = super.getScalarResolver();
      return (value, implicit) ->
          Boolean.TRUE.equals(implicit) && ambiguity(value) != null
              ? AMBIGUOUS
              : core.resolve(value, implicit);
    }

    private static @Nullable String ambiguity(String value) {
      if (YAML11_BOOL.matcher(value).matches()) {
        return "a plain yes, no, on, off, y or n is a boolean to kubectl (YAML 1.1) but a string in"
            + " YAML 1.2: quote it for a string, or write true or false";
      }
      if (LEADING_ZERO.matcher(value).matches()) {
        return "a plain integer with a leading zero is octal to kubectl (YAML 1.1) but decimal in"
            + " YAML 1.2: write 0o… for octal, drop the zero for decimal, or quote it";
      }
      if (value.contains("_") && UNDERSCORE_NUMBER.matcher(value).matches()) {
        return "a plain number with underscores is a number to kubectl (YAML 1.1) but a string in"
            + " YAML 1.2: quote it for a string, or drop the underscores";
      }
      return null;
    }

    @Override
    public Map<Tag, ConstructNode> getSchemaTagConstructors() {
      Map<Tag, ConstructNode> constructors = new HashMap<>(super.getSchemaTagConstructors());
      constructors.put(Tag.FLOAT, ExactSchema::decimal);
      constructors.put(AMBIGUOUS, ExactSchema::ambiguous);
      return constructors;
    }

    private static Object ambiguous(Node node) {
      String problem = ambiguity(((ScalarNode) node).getValue());
      throw new ConstructorException(
          null, Optional.empty(), String.valueOf(problem), node.getStartMark());
    }

    private static Object decimal(Node node) {
      String text = ((ScalarNode) node).getValue();
      try {
        return new BigDecimal(text.startsWith("+") ? text.substring(1) : text);
      } catch (NumberFormatException e) {
        throw new ConstructorException(
            null,
            Optional.empty(),
            "a number must be finite (JSON has no infinity or NaN; quote it for a string): '"
                + text
                + "'",
            node.getStartMark());
      }
    }
  }
}

package dev.capstan.common;

import java.math.BigDecimal;
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
 * The schema Kubernetes manifests are read with ({@link StrictDocuments#readYaml(String,
 * InputLimits, org.snakeyaml.engine.v2.schema.Schema, StrictDocuments.DocumentConsumer)}): the YAML
 * 1.2 core schema, with decimals kept exact ({@link BigDecimal}) and no infinities or NaNs; plain
 * scalars that {@code kubectl} (YAML 1.1) reads differently are refused rather than guessed: {@code
 * yes}, {@code no}, {@code on}, {@code off}, {@code y}, {@code n} (booleans there, strings here),
 * integers with a leading zero (octal there, decimal here) and with underscores (numbers there,
 * strings here).
 */
public final class ManifestSchema extends CoreSchema {
  /** The one instance; it holds no state. */
  public static final ManifestSchema INSTANCE = new ManifestSchema();

  private ManifestSchema() {}

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

  private static final String YAML11_BOOL_PROBLEM =
      "a plain yes, no, on, off, y or n is a boolean to kubectl (YAML 1.1) but a string in"
          + " YAML 1.2: quote it for a string, or write true or false";
  private static final String LEADING_ZERO_PROBLEM =
      "a plain integer with a leading zero is octal to kubectl (YAML 1.1) but decimal in"
          + " YAML 1.2: write 0o… for octal, drop the zero for decimal, or quote it";
  private static final String UNDERSCORE_PROBLEM =
      "a plain number with underscores is a number to kubectl (YAML 1.1) but a string in"
          + " YAML 1.2: quote it for a string, or drop the underscores";
  private static final String FINITE_PROBLEM =
      "a number must be finite (JSON has no infinity or NaN; quote it for a string)";

  /**
   * The problems this schema refuses a scalar with, without the scalar (a finite number's is
   * followed by it, after a colon): what a Secret's text is refused with ({@link
   * StrictDocuments#readYaml(String, InputLimits, org.snakeyaml.engine.v2.schema.Schema, boolean,
   * StrictDocuments.DocumentConsumer)}).
   */
  static final List<String> PROBLEMS =
      List.of(YAML11_BOOL_PROBLEM, LEADING_ZERO_PROBLEM, UNDERSCORE_PROBLEM, FINITE_PROBLEM);

  private static @Nullable String ambiguity(String value) {
    // most scalars are words longer than "off": only a number-like one can then be ambiguous, and
    // skipping the three patterns for the rest is a tenth of reading a large manifest
    char first = value.isEmpty() ? ' ' : value.charAt(0);
    if (value.length() > 3 && first != '-' && first != '+' && (first < '0' || first > '9')) {
      return null;
    }
    if (YAML11_BOOL.matcher(value).matches()) {
      return YAML11_BOOL_PROBLEM;
    }
    if (LEADING_ZERO.matcher(value).matches()) {
      return LEADING_ZERO_PROBLEM;
    }
    if (value.contains("_") && UNDERSCORE_NUMBER.matcher(value).matches()) {
      return UNDERSCORE_PROBLEM;
    }
    return null;
  }

  @Override
  public Map<Tag, ConstructNode> getSchemaTagConstructors() {
    Map<Tag, ConstructNode> constructors = new HashMap<>(super.getSchemaTagConstructors());
    constructors.put(Tag.FLOAT, ManifestSchema::decimal);
    constructors.put(AMBIGUOUS, ManifestSchema::ambiguous);
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
          null, Optional.empty(), FINITE_PROBLEM + ": '" + text + "'", node.getStartMark());
    }
  }
}

package dev.capstan.release.codec;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.capstan.common.Escapes;
import dev.capstan.common.InputLimits;
import dev.capstan.common.InvalidDocumentException;
import dev.capstan.common.StrictDocuments;
import dev.capstan.release.internal.json.Json;
import dev.capstan.release.model.DeleteGate;
import dev.capstan.release.plan.Plan;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;

/**
 * The plan file ({@code capstan release plan --out}): a reviewed plan, kept to be cast later with
 * {@code ReleaseController.cast(Plan, Payloads)}. Indented JSON {@code {"capstanPlan": 1, "plan":
 * {...}}}, keys sorted: the release, the revisions, every change, and the fingerprint (the spec
 * with content hashes, the record's revision and version, the observed uid and resourceVersion of
 * every object looked at). It holds no object content and so no secret value: the payloads are
 * given again at cast, and must hash to the plan's hashes. A spec rendered from a chart keeps its
 * {@code chart} (the values with secret ones masked), which the cast records.
 *
 * <p>Reading is strict: at most {@link #MAX_BYTES}, nesting bounded, duplicate keys, unknown keys,
 * trailing content and other format versions refused with a {@link PlanFormatException}.
 */
public final class PlanCodec {
  /** The format version this library writes and reads. */
  public static final int FORMAT_VERSION = 1;

  /** The largest plan file read: 16 MiB (a 500-object plan is about 0.3 MiB). */
  public static final int MAX_BYTES = 16 << 20;

  /**
   * The deepest nesting read: a plan's own structure is 8 levels deep; the rest is room for the
   * values of a chart the spec was rendered from ({@code fingerprint.spec.chart.values}).
   */
  private static final InputLimits LIMITS =
      InputLimits.oneDocument().withMaxBytes(MAX_BYTES).withMaxDepth(48).withMaxAliases(0);

  private PlanCodec() {}

  /**
   * Encodes a plan that has a fingerprint.
   *
   * @throws IllegalArgumentException if the plan has no fingerprint (it could not be cast)
   */
  public static byte[] encode(Plan plan) {
    if (plan.fingerprint() == null) {
      throw new IllegalArgumentException(
          "plan of release "
              + plan.namespace()
              + "/"
              + plan.name()
              + " has no fingerprint; only plans made by plan or planRollback can be saved");
    }
    ObjectNode root = Json.mapper().createObjectNode();
    root.put("capstanPlan", FORMAT_VERSION);
    ObjectNode tree = Json.mapper().valueToTree(plan);
    // the Secret-hash key of a first cast stays in the process: with it, a plan file would let a
    // reader test guesses of Secret values against the keyed hashes it holds
    if (tree.get("fingerprint") instanceof ObjectNode fingerprint) {
      fingerprint.remove("secretHashKey");
    }
    root.set("plan", tree);
    try {
      return (Json.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(root) + "\n")
          .getBytes(StandardCharsets.UTF_8);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot encode a plan", e);
    }
  }

  /**
   * Decodes a plan file.
   *
   * @throws PlanFormatException if the bytes are not a plan file of {@link #FORMAT_VERSION}
   */
  public static Plan decode(byte[] bytes) {
    try {
      // bounds, encoding, duplicate keys and trailing content, before any tree is bound
      StrictDocuments.readJson(StrictDocuments.decode(checkSize(bytes)), LIMITS);
    } catch (InvalidDocumentException e) {
      throw new PlanFormatException("not a plan file: " + e.getMessage(), e);
    }
    JsonNode root;
    try {
      root = Json.mapper().readTree(bytes);
    } catch (IOException e) {
      throw new PlanFormatException("not a plan file: not JSON", e);
    }
    if (root == null || !root.isObject()) {
      throw new PlanFormatException("not a plan file: a JSON object is expected", null);
    }
    JsonNode version = root.get("capstanPlan");
    if (version == null) {
      throw new PlanFormatException(
          "not a plan file: no capstanPlan version (write one with 'capstan release plan --out')",
          null);
    }
    if (!version.isInt() || version.intValue() != FORMAT_VERSION) {
      throw new PlanFormatException(
          "plan file capstanPlan must be "
              + FORMAT_VERSION
              + ": "
              + Escapes.quote(version.toString())
              + " (written by a different Capstan version; plan again)",
          null);
    }
    for (Iterator<String> names = root.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!name.equals("capstanPlan") && !name.equals("plan")) {
        throw new PlanFormatException("plan file has an unknown key: " + Escapes.quote(name), null);
      }
    }
    JsonNode plan = root.get("plan");
    if (plan == null || !plan.isObject()) {
      throw new PlanFormatException("plan file has no plan object", null);
    }
    if (plan.path("fingerprint").has("secretHashKey")) {
      throw new PlanFormatException(
          "plan file holds a key it must not hold: plan.fingerprint.secretHashKey", null);
    }
    // a plan saved before waitForLoadBalancer existed waited for load balancers; one saved
    // before drift ignore rules and replacements had neither, nor verified its plan on the server
    if (plan.path("fingerprint").path("spec").path("options") instanceof ObjectNode options) {
      if (!options.has("waitForLoadBalancer")) {
        options.put("waitForLoadBalancer", true);
      }
      if (!options.has("driftIgnore")) {
        options.putArray("driftIgnore");
      }
      if (!options.has("replaceOnImmutable")) {
        options.put("replaceOnImmutable", false);
      }
      // one saved before the delete gate had the default gate
      if (!options.has("healthRules")) {
        options.putArray("healthRules");
      }
      if (!options.has("deleteGate")) {
        options.set("deleteGate", Json.mapper().valueToTree(DeleteGate.defaults()));
      }
      if (!options.has("verifyOnServer")) {
        options.put("verifyOnServer", false);
      }
    }
    // a plan saved before hooks existed runs none
    if (plan instanceof ObjectNode p && !p.has("hooks")) {
      p.putArray("hooks");
    }
    for (JsonNode change : plan.path("changes")) {
      if (change instanceof ObjectNode c && !c.has("ignored")) {
        c.putArray("ignored");
      }
    }
    Plan decoded;
    try {
      decoded = Json.mapper().treeToValue(plan, Plan.class);
    } catch (IOException | IllegalArgumentException e) {
      throw new PlanFormatException("plan file is malformed: " + message(e), e);
    }
    if (decoded.fingerprint() == null) {
      throw new PlanFormatException("plan file has no fingerprint: plan.fingerprint", null);
    }
    return decoded;
  }

  private static byte[] checkSize(byte[] bytes) {
    if (bytes.length > MAX_BYTES) {
      throw new PlanFormatException(
          "plan file is "
              + bytes.length
              + " bytes, over the limit of "
              + InputLimits.human(MAX_BYTES),
          null);
    }
    return bytes;
  }

  /** Jackson's message without its source excerpt and Java types. */
  private static String message(Exception e) {
    String text = e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage();
    String message = text == null ? e.getClass().getSimpleName() : text;
    int at = message.indexOf(" (class ");
    return Escapes.escape(at < 0 ? message : message.substring(0, at));
  }
}

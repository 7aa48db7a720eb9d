package dev.capstan.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.capstan.common.Escapes;
import dev.capstan.common.JsonMappers;
import dev.capstan.release.error.ReleaseException;
import dev.capstan.release.model.ChartOrigin;
import dev.capstan.release.model.HookOutcome;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.OwnedResource;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.plan.HookPlan;
import dev.capstan.release.plan.PlannedHook;
import dev.capstan.release.result.OperationInProgress;
import java.io.PrintStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.snakeyaml.engine.v2.api.Dump;
import org.snakeyaml.engine.v2.api.DumpSettings;
import org.snakeyaml.engine.v2.common.FlowStyle;
import org.snakeyaml.engine.v2.nodes.Tag;
import org.snakeyaml.engine.v2.resolver.ScalarResolver;
import org.snakeyaml.engine.v2.schema.JsonSchema;
import org.snakeyaml.engine.v2.schema.Schema;

/**
 * Shows release records as text or JSON. Payloads are never shown (they hold secret values), nor
 * are the content hashes of secrets.
 */
final class ReleaseOutput {
  /** The mapper of JSON output, built on first need: a text listing reads no JSON. */
  static ObjectMapper json() {
    return Json.MAPPER;
  }

  private static final class Json {
    static final ObjectMapper MAPPER =
        JsonMappers.builder().build().enable(SerializationFeature.INDENT_OUTPUT);
  }

  private ReleaseOutput() {}

  static String text(Release r) {
    return text(r, null, Instant.now());
  }

  /**
   * {@code r} as text, with what holds its lease now ({@code inProgress}, or {@code null}), judged
   * at {@code now}.
   */
  static String text(Release r, @Nullable OperationInProgress inProgress, Instant now) {
    StartupTrace.mark("rendering");
    StringBuilder sb = new StringBuilder();
    line(sb, "Release", r.qualifiedName());
    line(sb, "Revision", Integer.toString(r.revision()));
    line(sb, "Status", r.status().id());
    line(sb, "Version", r.version() == null ? "-" : r.version());
    ChartOrigin chart = r.chart();
    if (chart != null) {
      line(
          sb,
          "Chart",
          chart.describe()
              + " from "
              + chart.reference()
              + " ("
              + chart.digest()
              + ", "
              + chart.renderer()
              + "; its values: release get "
              + r.name()
              + " --values)");
    }
    if (r.description() != null) {
      line(sb, "Description", r.description());
    }
    line(sb, "Updated", r.updatedAt().toString());
    if (r.failure() != null) {
      line(sb, "Failure", r.failure());
    }
    if (inProgress != null) {
      line(sb, "Lease", inProgress(inProgress, now));
    } else if (r.lease() != null) {
      line(sb, "In progress", "by " + r.lease().holder() + " until " + r.lease().expiresAt());
    }
    line(sb, "Owns", r.owns().size() + " object(s)");
    r.owns().forEach(o -> sb.append("  ").append(o.ref().key()).append('\n'));
    if (!r.retained().isEmpty()) {
      line(sb, "Retained", retained(r.retained()));
      r.retained()
          .forEach(
              ref ->
                  sb.append("  ").append(ref.key()).append("  (").append(why(ref)).append(")\n"));
    }
    if (!r.hooks().isEmpty()) {
      line(sb, "Hooks", hooks(r));
      for (HookOutcome h : r.hooks()) {
        sb.append("  ")
            .append(Escapes.escape(h.describe()))
            .append("  (")
            .append(dev.capstan.common.Durations.format(h.took()))
            .append(")\n");
      }
    }
    return sb.toString();
  }

  /** {@code 3 run: 2 succeeded, 1 failed}, or {@code -} when the revision ran none. */
  private static String hooks(Release r) {
    if (r.hooks().isEmpty()) {
      return "-";
    }
    long failed = r.hooks().stream().filter(h -> !h.succeeded()).count();
    return r.hooks().size()
        + " run: "
        + (r.hooks().size() - failed)
        + " succeeded"
        + (failed == 0 ? "" : ", " + failed + " failed");
  }

  /**
   * {@code 2 object(s) let go of and kept: 1 CustomResourceDefinition, 1 PersistentVolumeClaim}.
   */
  private static String retained(List<ResourceRef> refs) {
    java.util.Map<String, Integer> byKind = new java.util.TreeMap<>();
    refs.forEach(ref -> byKind.merge(ref.kind().kind(), 1, Integer::sum));
    StringBuilder kinds = new StringBuilder();
    byKind.forEach(
        (kind, n) ->
            kinds.append(kinds.length() == 0 ? "" : ", ").append(n).append(' ').append(kind));
    return refs.size() + " object(s) let go of and kept: " + kinds;
  }

  /** Why a retained object was kept, by its kind. */
  private static String why(ResourceRef ref) {
    if (ref.kind().isCrd()) {
      return "a CRD: kept with its custom resources; uninstall --delete-crds deletes it";
    }
    if (ref.kind().isVolumeClaim()) {
      return "a volume claim: its data kept, re-adopted by a later cast that wants it";
    }
    return "kept, un-stamped";
  }

  private static void line(StringBuilder sb, String label, String value) {
    sb.append(String.format("%-12s %s%n", label + ":", Escapes.escape(value)));
  }

  static String table(List<Release> releases) {
    return table(releases, false, false);
  }

  /**
   * The releases as a table: NAME, REVISION, STATUS, VERSION, UPDATED; NAMESPACE first with {@code
   * namespaces}; with {@code wide} also OBJECTS (how many it owns, and how many it let go of and
   * kept) and DESCRIPTION (or the failure).
   */
  static String table(List<Release> releases, boolean namespaces, boolean wide) {
    StartupTrace.mark("rendering");
    List<String> header = new ArrayList<>();
    if (namespaces) {
      header.add("NAMESPACE");
    }
    header.addAll(List.of("NAME", "REVISION", "STATUS", "VERSION", "UPDATED"));
    if (wide) {
      header.addAll(List.of("OBJECTS", "DESCRIPTION"));
    }
    Table t = new Table(header.toArray(String[]::new));
    for (Release r : releases) {
      List<String> row = new ArrayList<>();
      if (namespaces) {
        row.add(r.namespace());
      }
      row.addAll(
          List.of(
              r.name(),
              Integer.toString(r.revision()),
              r.status().id(),
              r.version() == null ? "-" : r.version(),
              r.updatedAt().toString()));
      if (wide) {
        row.add(
            r.owns().size()
                + (r.retained().isEmpty() ? "" : " (+" + r.retained().size() + " kept)"));
        row.add(description(r));
      }
      t.row(row.toArray(String[]::new));
    }
    return t.render();
  }

  /** A revision's description, else its failure, else {@code -}. */
  private static String description(Release r) {
    if (r.description() != null) {
      return r.description();
    }
    return r.failure() == null ? "-" : "failed: " + r.failure();
  }

  /**
   * The revisions as a table: REVISION, STATUS, VERSION, DESCRIPTION, UPDATED, and HOOKS (how many
   * ran, how many failed) when any revision ran hooks.
   */
  static String history(List<Release> revisions) {
    StartupTrace.mark("rendering");
    boolean hooks = revisions.stream().anyMatch(r -> !r.hooks().isEmpty());
    List<String> header =
        new ArrayList<>(List.of("REVISION", "STATUS", "VERSION", "DESCRIPTION", "UPDATED"));
    if (hooks) {
      header.add("HOOKS");
    }
    Table t = new Table(header.toArray(String[]::new));
    for (Release r : revisions) {
      List<String> row =
          new ArrayList<>(
              List.of(
                  Integer.toString(r.revision()),
                  r.status().id(),
                  r.version() == null ? "-" : r.version(),
                  description(r),
                  r.updatedAt().toString()));
      if (hooks) {
        row.add(hooks(r));
      }
      t.row(row.toArray(String[]::new));
    }
    return t.render();
  }

  /**
   * What holds a release's lease, in words: {@code cast in progress by H since T (lease until T)},
   * or, once the lease has expired, {@code cast by H stopped: its lease expired at T; the next
   * operation takes it over}.
   */
  static String inProgress(OperationInProgress p, Instant now) {
    String what = p.operation() == null ? "an operation" : p.operation().id();
    String holder = Escapes.escape(p.holder());
    if (now.isBefore(p.expiresAt())) {
      return what
          + " in progress by "
          + holder
          + " since "
          + p.since()
          + " (lease until "
          + p.expiresAt()
          + ")";
    }
    return what
        + " by "
        + holder
        + " stopped: its lease expired at "
        + p.expiresAt()
        + "; the next cast or uninstall takes it over";
  }

  /** What holds a release's lease, as JSON. */
  static ObjectNode json(OperationInProgress p, Instant now) {
    ObjectNode n = json().createObjectNode();
    if (p.operation() != null) {
      n.put("operation", p.operation().id());
    }
    n.put("holder", p.holder());
    n.put("since", p.since().toString());
    n.put("expiresAt", p.expiresAt().toString());
    n.put("expired", !now.isBefore(p.expiresAt()));
    return n;
  }

  /** Hook outcomes as JSON: {@code [{phase, key, status, message, startedAt, finishedAt}]}. */
  static ArrayNode json(List<HookOutcome> outcomes, boolean withPhase) {
    ArrayNode hooks = json().createArrayNode();
    for (HookOutcome h : outcomes) {
      ObjectNode hn = hooks.addObject();
      if (withPhase) {
        hn.put("phase", h.phase().annotationValue());
      }
      hn.put("key", h.ref().key());
      hn.put("status", h.succeeded() ? "succeeded" : "failed");
      putIfSet(hn, "message", h.message());
      hn.put("startedAt", h.startedAt().toString());
      hn.put("finishedAt", h.finishedAt().toString());
    }
    return hooks;
  }

  /**
   * The hooks an operation over a record runs, as JSON: {@code [{phase, key, weight,
   * deletePolicies, outside}]}, {@code outside} only on one outside the release's namespace.
   */
  static ArrayNode json(HookPlan plan) {
    ArrayNode hooks = json().createArrayNode();
    for (PlannedHook h : plan.hooks()) {
      ObjectNode hn = hooks.addObject();
      hn.put("phase", h.phase().annotationValue());
      hn.put("key", h.ref().key());
      hn.put("weight", h.weight());
      ArrayNode policies = hn.putArray("deletePolicies");
      h.deletePolicies().forEach(p -> policies.add(p.annotationValue()));
      putIfSet(hn, "outside", h.outside(plan.release().namespace()));
    }
    return hooks;
  }

  /**
   * The hooks an operation over a record runs, shown before it runs (text on stdout; JSON goes with
   * the result), and refused, before anything is written, when one outside the release's namespace
   * is not among {@code allowed} (the CLI's {@code --allow-hook KEY}).
   *
   * @throws ReleaseException naming each refused hook
   */
  static void review(
      HookPlan plan, String operation, List<ResourceRef> allowed, boolean text, PrintStream out) {
    if (text) {
      out.print(plan.text(operation));
    }
    java.util.Optional<String> refused = plan.refusal(operation, allowed);
    if (refused.isPresent()) {
      throw new dev.capstan.release.error.HookRefusedException(
          refused.get() + "; nothing was changed");
    }
  }

  static ArrayNode json(List<Release> releases) {
    ArrayNode arr = json().createArrayNode();
    releases.forEach(r -> arr.add(json(r)));
    return arr;
  }

  static ObjectNode json(Release r) {
    ObjectNode n = json().createObjectNode();
    n.put("namespace", r.namespace());
    n.put("name", r.name());
    n.put("id", r.id());
    n.put("revision", r.revision());
    n.put("status", r.status().id());
    putIfSet(n, "version", r.version());
    putIfSet(n, "source", r.source());
    putIfSet(n, "description", r.description());
    putIfSet(n, "failure", r.failure());
    n.put("createdAt", r.createdAt().toString());
    n.put("updatedAt", r.updatedAt().toString());
    ArrayNode owns = n.putArray("owns");
    for (OwnedResource o : r.owns()) {
      ObjectNode on = owns.addObject();
      on.put("key", o.ref().key());
      if (!o.ref().kind().equals(Kind.SECRET)) {
        on.put("contentHash", o.contentHash());
      }
    }
    ArrayNode refs = n.putArray("references");
    r.references().forEach(ref -> refs.add(ref.key()));
    ArrayNode retained = n.putArray("retained");
    r.retained().stream().map(ResourceRef::key).forEach(retained::add);
    if (!r.hooks().isEmpty()) {
      n.set("hooks", json(r.hooks(), true));
    }
    ChartOrigin chart = r.chart();
    if (chart != null) {
      ObjectNode c = n.putObject("chart");
      c.put("reference", chart.reference());
      c.put("name", chart.name());
      c.put("version", chart.version());
      putIfSet(c, "appVersion", chart.appVersion());
      c.put("digest", chart.digest());
      c.put("renderer", chart.renderer());
    }
    if (r.lease() != null) {
      ObjectNode l = n.putObject("lease");
      l.put("holder", r.lease().holder());
      l.put("expiresAt", r.lease().expiresAt().toString());
    }
    return n;
  }

  /**
   * The values a revision's chart was cast with, secret ones masked: {@code {"chart": "store
   * 1.0.0", "revision": 3, "values": {...}, "maskedValues": [...]}}.
   */
  static ObjectNode values(Release r, ChartOrigin chart) {
    ObjectNode n = json().createObjectNode();
    n.put("release", r.qualifiedName());
    n.put("revision", r.revision());
    n.put("chart", chart.describe());
    n.set("values", json().valueToTree(chart.values()));
    ArrayNode masked = n.putArray("maskedValues");
    chart.maskedValues().forEach(masked::add);
    return n;
  }

  /**
   * The values as {@code helm get values} prints them (YAML), after a comment naming the chart and
   * the masked values.
   */
  static String valuesText(Release r, ChartOrigin chart) {
    StringBuilder sb = new StringBuilder();
    sb.append("# ")
        .append(Escapes.escape(r.qualifiedName()))
        .append(" revision ")
        .append(r.revision())
        .append(": chart ")
        .append(Escapes.escape(chart.describe()))
        .append('\n');
    if (!chart.maskedValues().isEmpty()) {
      sb.append("# masked (secret, not recorded): ")
          .append(Escapes.escape(String.join(", ", chart.maskedValues())))
          .append('\n');
    }
    sb.append(chart.values().isEmpty() ? "{}\n" : yaml(chart.values()));
    return sb.toString();
  }

  /**
   * The JSON document {@code tree} as one YAML document, block style. A string that a YAML 1.1
   * reader (kubectl's, PyYAML's) would read as something else — {@code yes}, {@code on}, {@code
   * 0644}, {@code 1.10}, {@code ~} — is quoted, so every reader gets the tree the JSON has.
   */
  static String yaml(Object tree) {
    Object plain = json().convertValue(tree, Object.class);
    DumpSettings settings =
        DumpSettings.builder()
            .setDefaultFlowStyle(FlowStyle.BLOCK)
            .setIndent(2)
            .setIndicatorIndent(0)
            .setWidth(Integer.MAX_VALUE)
            .setSchema(QUOTING_SCHEMA)
            .build();
    return new Dump(settings).dumpToString(plain);
  }

  /**
   * Plain scalars YAML 1.1 reads as booleans, nulls, numbers or timestamps, which the JSON schema
   * reads as strings: a string of this form is written quoted.
   */
  private static final Pattern YAML_1_1_NOT_A_STRING =
      Pattern.compile(
          "y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF"
              + "|~|null|Null|NULL|"
              + "|[-+]?(0b[01_]+|0x[0-9a-fA-F_]+|0o?[0-7_]+|[0-9][0-9_]*(:[0-5]?[0-9])*)"
              + "|[-+]?([0-9][0-9_]*)?\\.[0-9_]*([eE][-+]?[0-9]+)?|[-+]?\\.(inf|Inf|INF)|\\.(nan|NaN|NAN)"
              + "|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}([Tt ].*)?");

  private static final Schema QUOTING_SCHEMA =
      new JsonSchema() {
        private final ScalarResolver json = super.getScalarResolver();

        @Override
        public ScalarResolver getScalarResolver() {
          return (value, implicit) -> {
            Tag tag = json.resolve(value, implicit);
            return implicit && tag.equals(Tag.STR) && YAML_1_1_NOT_A_STRING.matcher(value).matches()
                ? Tag.NULL
                : tag;
          };
        }
      };

  private static void putIfSet(ObjectNode n, String field, @Nullable String value) {
    if (value != null) {
      n.put(field, value);
    }
  }
}

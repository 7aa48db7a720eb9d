package dev.capstan.release.plan;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.capstan.common.Escapes;
import dev.capstan.common.JsonMappers;
import dev.capstan.release.diff.FieldChange;
import dev.capstan.release.model.ReleaseIdentity;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

/**
 * Renders plans for people (a terraform-style block) and for programs (JSON). A change with a
 * field-level diff ({@link PlannedChange#diff()}) lists its changed fields under it, unified-diff
 * style: {@code -} the value before, {@code +} the value after, each with its full path as context;
 * a secret field only as {@code ~ data.password: (changed)}. Plans hold no secret value, so none
 * can appear in either form.
 *
 * <pre>
 *   + create     Secret/default/creds
 *   ~ update     apps/Deployment/default/web
 *       - spec.template.spec.containers[name=web].image: "ghcr.io/acme/web:1.0.0"
 *       + spec.template.spec.containers[name=web].image: "ghcr.io/acme/web:1.1.0"
 *   ~ update     Secret/default/db
 *       ~ data.password: (changed)
 *   ! repair     Service/default/web  (drift: field spec.ports[name=http].port set by kubectl-edit)
 *     unchanged  apps/Deployment/default/api
 *       ignored spec.replicas (set by kube-controller-manager; rule apps/Deployment: managers ...)
 *   - prune      ConfigMap/default/legacy  ⚠ destructive
 * </pre>
 */
public final class PlanRenderer {
  private static final ObjectMapper JSON = JsonMappers.trees();

  /** At most this many changed fields are listed per object in text; JSON has them all. */
  static final int MAX_FIELDS = 40;

  /** A value longer than this is cut in text; JSON has it whole. */
  static final int MAX_VALUE = 120;

  private PlanRenderer() {}

  /** The plan as text, unchanged objects left out (they are counted in the summary). */
  public static String text(Plan plan) {
    return text(plan, false);
  }

  /** The plan as text; {@code showUnchanged} lists unchanged objects too. */
  public static String text(Plan plan, boolean showUnchanged) {
    StringBuilder out = new StringBuilder();
    out.append("Plan for release ")
        .append(plan.namespace())
        .append('/')
        .append(plan.name())
        .append(": revision ")
        .append(plan.revision());
    if (plan.previousRevision() != null) {
      out.append(" (from ").append(plan.previousRevision()).append(')');
    } else {
      out.append(" (first install)");
    }
    out.append('\n');
    for (PlannedChange c : plan.changes()) {
      boolean ignoredDrift = c.ignored().stream().anyMatch(i -> !i.givenUp());
      if (c.action() == Action.UNCHANGED && !showUnchanged && !ignoredDrift) {
        continue;
      }
      out.append("  ")
          .append(c.action().symbol())
          .append(' ')
          .append(String.format("%-10s", c.action().id()))
          .append(' ')
          .append(c.ref().key());
      if (c.reason() != null) {
        out.append("  (").append(Escapes.escape(c.reason())).append(')');
      }
      if (c.action().destructive()) {
        out.append("  ⚠ destructive");
      }
      out.append('\n');
      for (IgnoredField i : c.ignored()) {
        out.append("      ignored ").append(Escapes.escape(i.describe())).append('\n');
      }
      diffText(out, c.diff());
    }
    if (!plan.hooks().isEmpty()) {
      out.append("Hooks the cast runs:\n");
      for (PlannedHook h : plan.hooks()) {
        out.append("  ⚓ ").append(h.describe()).append('\n');
      }
    }
    out.append("Summary: ").append(summary(plan)).append('\n');
    if (!plan.applyable()) {
      int n = plan.conflicts().size();
      out.append("Not applyable: ")
          .append(n)
          .append(n == 1 ? " conflict" : " conflicts")
          .append(" must be resolved first.\n");
    } else if (plan.changesNothing()) {
      out.append("No changes: every object is up to date.\n");
    }
    return out.toString();
  }

  private static void diffText(StringBuilder out, List<FieldChange> diff) {
    int shown = 0;
    for (FieldChange f : diff) {
      if (shown == MAX_FIELDS) {
        out.append("      … ")
            .append(diff.size() - shown)
            .append(" more changed fields (the JSON plan lists them all)\n");
        return;
      }
      shown++;
      String path = Escapes.escape(f.path());
      if (f.secret()) {
        out.append("      ~ ").append(path).append(": (").append(f.op().word()).append(")\n");
        continue;
      }
      if (f.before() != null) {
        out.append("      - ").append(path).append(": ").append(show(f.before())).append('\n');
      }
      if (f.after() != null) {
        out.append("      + ").append(path).append(": ").append(show(f.after())).append('\n');
      }
    }
  }

  private static String show(Object value) {
    return FieldChange.display(value, MAX_VALUE);
  }

  /** {@code 1 create, 2 update, ...}: every action with a non-zero count, in action order. */
  public static String summary(Plan plan) {
    StringJoiner joiner = new StringJoiner(", ");
    for (Map.Entry<Action, Integer> e : plan.counts().entrySet()) {
      if (e.getValue() > 0) {
        joiner.add(e.getValue() + " " + e.getKey().id());
      }
    }
    return joiner.length() == 0 ? "nothing" : joiner.toString();
  }

  /** Whether {@code c} is of a namespace the plan's release ensures (its Namespace document). */
  private static boolean ensured(Plan plan, PlannedChange c) {
    PlanFingerprint fingerprint = plan.fingerprint();
    return c.ensures()
        || (fingerprint != null
            && c.ref().kind().equals(dev.capstan.release.model.Kind.NAMESPACE)
            && fingerprint.spec().ensured(c.ref().name()).isPresent());
  }

  /** The plan as an indented JSON document. */
  public static String json(Plan plan) {
    try {
      return JsonMappers.pretty().writeValueAsString(jsonTree(plan));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot render plan as JSON", e);
    }
  }

  /** The plan as a JSON tree, for embedding in larger documents. */
  public static ObjectNode jsonTree(Plan plan) {
    ObjectNode root = JSON.createObjectNode();
    root.put("namespace", plan.namespace());
    root.put("release", plan.name());
    if (plan.releaseId() != null) {
      root.put("releaseId", plan.releaseId());
    }
    root.put("revision", plan.revision());
    if (plan.previousRevision() != null) {
      root.put("previousRevision", plan.previousRevision());
    }
    root.put("applyable", plan.applyable());
    root.put("needsConfirmation", plan.needsConfirmation());
    root.put("changesNothing", plan.changesNothing());
    ObjectNode counts = root.putObject("summary");
    plan.counts().forEach((action, n) -> counts.put(action.id(), n));
    ArrayNode changes = root.putArray("changes");
    for (PlannedChange c : plan.changes()) {
      ObjectNode node = changes.addObject();
      node.put("action", c.action().id());
      node.put("key", c.ref().key());
      node.put("apiVersion", c.ref().kind().apiVersion());
      node.put("kind", c.ref().kind().kind());
      node.put("namespace", c.ref().namespace());
      node.put("name", c.ref().name());
      if (c.reason() != null) {
        node.put("reason", c.reason());
      }
      ReleaseIdentity owner = c.owner();
      if (owner != null) {
        ObjectNode o = node.putObject("owner");
        o.put("namespace", owner.namespace());
        o.put("name", owner.name());
        o.put("id", owner.id());
      }
      if (c.action().destructive()) {
        node.put("destructive", true);
      }
      if (c.createReference()) {
        node.put("create", true);
      }
      if (ensured(plan, c)) {
        node.put("ensured", true);
      }
      if (c.wave() != 0) {
        node.put("wave", c.wave());
      }
      if (!c.ignored().isEmpty()) {
        ArrayNode ignored = node.putArray("ignored");
        for (IgnoredField i : c.ignored()) {
          ObjectNode field = ignored.addObject();
          field.put("field", i.field());
          field.put("pointer", i.pointer());
          field.put("rule", i.rule());
          if (i.manager() != null) {
            field.put("manager", i.manager());
          }
        }
      }
      if (!c.diff().isEmpty()) {
        ArrayNode diff = node.putArray("diff");
        for (FieldChange f : c.diff()) {
          ObjectNode op = diff.addObject();
          op.put("op", f.op().id());
          op.put("path", f.path());
          if (f.secret()) {
            op.put("secret", true);
            continue;
          }
          if (f.before() != null) {
            op.set("before", JSON.valueToTree(f.before()));
          }
          if (f.after() != null) {
            op.set("after", JSON.valueToTree(f.after()));
          }
        }
      }
    }
    ArrayNode hooks = plan.hooks().isEmpty() ? JSON.createArrayNode() : root.putArray("hooks");
    for (PlannedHook h : plan.hooks()) {
      ObjectNode node = hooks.addObject();
      node.put("phase", h.phase().annotationValue());
      node.put("key", h.ref().key());
      node.put("weight", h.weight());
      ArrayNode policies = node.putArray("deletePolicies");
      h.deletePolicies().forEach(p -> policies.add(p.annotationValue()));
    }
    return root;
  }
}

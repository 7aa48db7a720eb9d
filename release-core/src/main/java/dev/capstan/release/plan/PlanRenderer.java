package dev.capstan.release.plan;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.capstan.common.Escapes;
import dev.capstan.release.model.ReleaseIdentity;
import java.util.Map;
import java.util.StringJoiner;

/**
 * Renders plans for people (a terraform-style block) and for programs (JSON). Plans carry no
 * content, only references, actions and reasons, so no secret value can appear in either form.
 *
 * <pre>
 *   + create     secret/default/creds
 *   ~ update     configmap/default/settings
 *   ! repair     service/default/web  (drift: live content differs from what revision 1 applied)
 *   - prune      configmap/default/legacy  ⚠ destructive
 * </pre>
 */
public final class PlanRenderer {
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

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
      if (c.action() == Action.UNCHANGED && !showUnchanged) {
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

  /** The plan as an indented JSON document. */
  public static String json(Plan plan) {
    try {
      return JSON.writeValueAsString(jsonTree(plan));
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
      if (c.wave() != 0) {
        node.put("wave", c.wave());
      }
    }
    return root;
  }
}

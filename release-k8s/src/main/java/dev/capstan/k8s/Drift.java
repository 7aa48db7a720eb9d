package dev.capstan.k8s;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Drift of a live object Capstan applied, read from {@code metadata.managedFields} alone, so a
 * no-op plan needs nothing beyond the observation LISTs.
 *
 * <p>The rule: an object drifted when a field manager other than Capstan, writing the object itself
 * (no subresource such as {@code status} or {@code scale}) with {@code Update} or {@code Apply} no
 * earlier than Capstan's own last apply, owns a field outside {@code metadata}. Server-side apply
 * moves a field to the manager that last changed its value, so a field Capstan applied and someone
 * then edited ({@code kubectl edit}, a merge patch, a forced {@code kubectl apply}) shows up there,
 * and Capstan's next apply (forced) takes it back. Other managers' labels, annotations and
 * finalizers are theirs, not drift, and so are fields the API server's controllers set on the
 * object (a claim's {@code spec.volumeName}). What the rule cannot see: a field Capstan applied
 * that someone removed without setting anything (no manager owns it any more).
 */
final class Drift {
  private Drift() {}

  /**
   * Why the object drifted ({@code field .spec.rules owned by kubectl-edit}), or {@code null}.
   *
   * @param object the raw object
   * @param manager Capstan's field manager
   */
  static @Nullable String of(JsonObject object, String manager) {
    JsonObject metadata = JsonTrees.object(object, "metadata");
    if (metadata == null || !(metadata.get("managedFields") instanceof JsonArray entries)) {
      return null;
    }
    OffsetDateTime ours = null;
    for (JsonElement e : entries) {
      if (e instanceof JsonObject entry
          && manager.equals(JsonTrees.text(entry, "manager"))
          && "Apply".equals(JsonTrees.text(entry, "operation"))
          && JsonTrees.text(entry, "subresource") == null) {
        OffsetDateTime t = time(entry);
        if (t != null && (ours == null || t.isAfter(ours))) {
          ours = t;
        }
      }
    }
    if (ours == null) {
      return null; // not applied by Capstan: nothing it applied can have moved
    }
    boolean claim =
        "PersistentVolumeClaim".equals(JsonTrees.text(object, "kind"))
            && "v1".equals(JsonTrees.text(object, "apiVersion"));
    for (JsonElement e : entries) {
      if (!(e instanceof JsonObject entry)) {
        continue;
      }
      String who = JsonTrees.text(entry, "manager");
      String operation = JsonTrees.text(entry, "operation");
      OffsetDateTime t = time(entry);
      if (who == null
          || who.equals(manager)
          || JsonTrees.text(entry, "subresource") != null
          || !("Update".equals(operation) || "Apply".equals(operation))
          || t == null
          || t.isBefore(ours)
          || !(entry.get("fieldsV1") instanceof JsonObject fields)) {
        continue;
      }
      List<String> paths = new ArrayList<>();
      leaves(fields, "", paths);
      for (String path : paths) {
        if (path.startsWith(".metadata") || (claim && path.equals(".spec.volumeName"))) {
          continue;
        }
        return "field " + path + " owned by " + who;
      }
    }
    return null;
  }

  /** The paths of the leaves of a {@code fieldsV1} tree, e.g. {@code .spec.rules}. */
  private static void leaves(JsonObject node, String prefix, List<String> out) {
    boolean any = false;
    for (String key : node.keySet()) {
      if (key.equals(".")) {
        continue;
      }
      any = true;
      String step;
      if (key.startsWith("f:")) {
        step = "." + key.substring(2);
      } else if (key.startsWith("k:")) {
        step = "[" + key.substring(2) + "]";
      } else if (key.startsWith("v:")) {
        step = "[=" + key.substring(2) + "]";
      } else if (key.startsWith("i:")) {
        step = "[" + key.substring(2) + "]";
      } else {
        step = "." + key;
      }
      if (node.get(key) instanceof JsonObject child && child.size() > 0) {
        leaves(child, prefix + step, out);
      } else {
        out.add(prefix + step);
      }
    }
    if (!any && !prefix.isEmpty()) {
      out.add(prefix);
    }
  }

  private static @Nullable OffsetDateTime time(JsonObject entry) {
    String text = JsonTrees.text(entry, "time");
    if (text == null) {
      return null;
    }
    try {
      return OffsetDateTime.parse(text);
    } catch (DateTimeParseException e) {
      return null;
    }
  }
}

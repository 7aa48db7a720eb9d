package dev.capstan.k8s;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/** A workload's {@code spec.selector} said as the label selector of a LIST or WATCH. */
final class LabelSelectors {
  private LabelSelectors() {}

  /**
   * A workload's {@code spec.selector} as a label selector ({@code k=v}, {@code k in (a,b)}, {@code
   * k notin (a)}, {@code k}, {@code !k}, joined by commas), or {@code null} when it has none,
   * selects everything, or holds something this cannot say: then the namespace is watched whole.
   */
  static @Nullable String of(JsonObject workload) {
    JsonObject selector = JsonTrees.object(JsonTrees.object(workload, "spec"), "selector");
    if (selector == null) {
      return null;
    }
    List<String> terms = new ArrayList<>();
    JsonObject labels = JsonTrees.object(selector, "matchLabels");
    if (labels != null) {
      for (Map.Entry<String, JsonElement> e : new TreeMap<>(labels.asMap()).entrySet()) {
        if (!e.getValue().isJsonPrimitive()) {
          return null;
        }
        terms.add(e.getKey() + "=" + e.getValue().getAsString());
      }
    }
    JsonElement expressions = selector.get("matchExpressions");
    if (expressions != null && expressions.isJsonArray()) {
      for (JsonElement x : expressions.getAsJsonArray()) {
        String term = x.isJsonObject() ? expression(x.getAsJsonObject()) : null;
        if (term == null) {
          return null;
        }
        terms.add(term);
      }
    }
    return terms.isEmpty() ? null : String.join(",", terms);
  }

  private static @Nullable String expression(JsonObject x) {
    String key = JsonTrees.text(x, "key");
    String operator = JsonTrees.text(x, "operator");
    if (key == null || operator == null) {
      return null;
    }
    List<String> values = new ArrayList<>();
    JsonElement given = x.get("values");
    if (given != null && given.isJsonArray()) {
      given.getAsJsonArray().forEach(v -> values.add(v.getAsString()));
    }
    String set = "(" + String.join(",", values) + ")";
    return switch (operator) {
      case "In" -> values.isEmpty() ? null : key + " in " + set;
      case "NotIn" -> values.isEmpty() ? null : key + " notin " + set;
      case "Exists" -> key;
      case "DoesNotExist" -> "!" + key;
      default -> null;
    };
  }
}

package dev.capstan.k8s;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import dev.capstan.common.ApiJson;
import dev.capstan.common.Escapes;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.validate.ApiServerLimits;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The numbers a server-side apply dry run answers otherwise than the object sent them: the API
 * server converts an integer field's value to the field's Go type without an error, so a
 * Deployment's {@code spec.replicas: 4294967298} (an {@code int32}) is stored as 2 with HTTP 201.
 * Which field is 32 bits is the server's knowledge, not Capstan's: every number beyond 32 bits the
 * object sends is looked up at the same path in the answer, and one answered as another number is a
 * refusal of the plan (ARCHITECTURE.md, "Verified plans"). A custom resource's fields are judged
 * the same way, by what its CRD's schema makes the server store. Numbers within 32 bits are left
 * alone, so a mutating webhook's or policy's change of an ordinary value is no refusal; a value
 * answered as text (a quantity {@code memory: 8589934592} stored as {@code 8Gi}) or not answered is
 * no verdict either.
 */
final class StoredNumbers {
  /** The rule of a number beyond 32 bits, as shown in messages. */
  static final String RULE = "must be a number its field stores as sent";

  /** Why a server stores such a number otherwise, as shown in messages. */
  static final String WHY =
      " (a 32-bit integer field holds "
          + Integer.MIN_VALUE
          + " to "
          + Integer.MAX_VALUE
          + " and keeps the low 32 bits of a larger integer without an error)";

  private StoredNumbers() {}

  /**
   * Each number of {@code sent} beyond 32 bits that {@code answer} holds as another number, one
   * problem each ({@code Deployment shop/web: spec.replicas must be a number its field stores as
   * sent; the API server's dry run stores 2 (...): 4294967298}), joined by {@code "; "}; a Secret's
   * values are never shown.
   *
   * @param sent the object the dry run sent
   * @param answer the object the dry run answered
   * @return the problems, or empty when every such number is answered as sent
   */
  static Optional<String> changed(Manifest sent, JsonObject answer) {
    Map<String, Object> content = sent.content();
    Walk walk =
        new Walk(ApiServerLimits.describe(content) + ": ", "Secret".equals(content.get("kind")));
    walk.compare(content, answer);
    return walk.problems.isEmpty()
        ? Optional.empty()
        : Optional.of(String.join("; ", walk.problems));
  }

  /** One walk of the sent tree beside the answer, keeping the path for a problem. */
  private static final class Walk {
    private final String what;
    private final boolean hidden;
    private final List<Object> steps = new ArrayList<>();
    private final List<String> problems = new ArrayList<>();

    Walk(String what, boolean hidden) {
      this.what = what;
      this.hidden = hidden;
    }

    void compare(@Nullable Object sent, JsonElement answer) {
      if (sent instanceof Map<?, ?> map && answer instanceof JsonObject object) {
        for (Map.Entry<?, ?> e : map.entrySet()) {
          JsonElement stored = object.get(String.valueOf(e.getKey()));
          if (stored != null) {
            steps.add(String.valueOf(e.getKey()));
            compare(e.getValue(), stored);
            steps.remove(steps.size() - 1);
          }
        }
      } else if (sent instanceof List<?> list && answer instanceof JsonArray array) {
        for (int i = 0; i < list.size(); i++) {
          JsonElement stored = counterpart(list.get(i), i, array);
          if (stored != null) {
            steps.add(i);
            compare(list.get(i), stored);
            steps.remove(steps.size() - 1);
          }
        }
      } else if (sent instanceof Number n
          && answer instanceof JsonPrimitive stored
          && stored.isNumber()) {
        BigDecimal value = ApiJson.beyond32Bits(n);
        if (value != null && new BigDecimal(stored.getAsString()).compareTo(value) != 0) {
          problems.add(
              what
                  + ApiJson.path(steps)
                  + " "
                  + RULE
                  + "; the API server's dry run stores "
                  + (hidden ? "another" : stored.getAsString())
                  + WHY
                  + (hidden ? " " + Escapes.NOT_SHOWN : ": " + n));
        }
      }
    }

    /**
     * The answer's element for the {@code i}th element sent: in a list of named elements
     * (containers, ports, volumes), the one of the same name, since the server merges such a list
     * by key and may order it otherwise; else the element at the same index.
     */
    private static @Nullable JsonElement counterpart(
        @Nullable Object element, int i, JsonArray array) {
      if (element instanceof Map<?, ?> map && map.get("name") instanceof String name) {
        for (JsonElement e : array) {
          if (e instanceof JsonObject o
              && o.get("name") instanceof JsonPrimitive p
              && p.isString()
              && p.getAsString().equals(name)) {
            return e;
          }
        }
        return null;
      }
      return i < array.size() ? array.get(i) : null;
    }
  }
}

package dev.capstan.k8s;

import com.google.gson.annotations.SerializedName;
import dev.capstan.common.ApiJson;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.validate.ApiServerLimits;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.custom.IntOrString;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.lang.reflect.Field;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The numbers of a built-in kind's object that its 32-bit integer fields would not hold: the API
 * server keeps the low 32 bits of a larger integer there with HTTP 201 and no error, so {@code
 * replicas: 4294967298} would go live as 2. Which field is 32 bits is read from client-java's model
 * of the kind ({@code Integer} and {@code IntOrString} fields; {@code Long} ones are 64 bits), so
 * every cast refuses such a number before its first write, verified or not. A kind without a model
 * (a custom resource, a built-in kind newer than the client) and a field the model lacks are not
 * judged here; a verified plan's dry run still is ({@link StoredNumbers}).
 */
final class Int32Fields {
  private static final String MODELS = V1ObjectMeta.class.getPackageName() + ".";

  /** The API groups the Kubernetes project serves itself, which client-java's models cover. */
  static final Set<String> BUILT_IN_GROUPS =
      Set.of(
          "",
          "admissionregistration.k8s.io",
          "apiextensions.k8s.io",
          "apiregistration.k8s.io",
          "apps",
          "authentication.k8s.io",
          "authorization.k8s.io",
          "autoscaling",
          "batch",
          "certificates.k8s.io",
          "coordination.k8s.io",
          "discovery.k8s.io",
          "events.k8s.io",
          "flowcontrol.apiserver.k8s.io",
          "internal.apiserver.k8s.io",
          "networking.k8s.io",
          "node.k8s.io",
          "policy",
          "rbac.authorization.k8s.io",
          "resource.k8s.io",
          "scheduling.k8s.io",
          "storage.k8s.io",
          "storagemigration.k8s.io");

  /** The rule, as shown in messages. */
  static final String RULE =
      "must be from "
          + Integer.MIN_VALUE
          + " to "
          + Integer.MAX_VALUE
          + ": its field is a 32-bit integer, which keeps the low 32 bits of a larger integer"
          + " without an error";

  private static final Map<Class<?>, Map<String, Field>> FIELDS = new ConcurrentHashMap<>();

  private Int32Fields() {}

  /**
   * Each number of {@code object} beyond 32 bits at a field its kind's model types as a 32-bit
   * integer, one problem each ({@code Deployment shop/web: spec.replicas must be from -2147483648
   * to 2147483647: ...: 4294967298}), joined by {@code "; "} (a Secret has no such field, so no
   * secret value is shown).
   *
   * @param object the object to write
   * @return the problems, or empty when there is none or the kind has no model
   */
  static Optional<String> check(Manifest object) {
    Class<?> model = model(object.kind()).orElse(null);
    if (model == null) {
      return Optional.empty();
    }
    Map<String, Object> content = object.content();
    Walk walk = new Walk(ApiServerLimits.describe(content) + ": ");
    walk.visit(content, model);
    return walk.problems.isEmpty()
        ? Optional.empty()
        : Optional.of(String.join("; ", walk.problems));
  }

  /**
   * client-java's model class of a built-in kind: {@code V1Deployment} for {@code apps/v1
   * Deployment}, or, where two groups share a kind's name, the one named after its group ({@code
   * CoreV1Event}, {@code EventsV1Event}).
   */
  static Optional<Class<?>> model(Kind kind) {
    if (!BUILT_IN_GROUPS.contains(kind.group())) {
      return Optional.empty();
    }
    String version = capitalized(kind.version());
    String group = kind.group().isEmpty() ? "core" : kind.group().split("\\.", 2)[0];
    for (String name : List.of(version + kind.kind(), capitalized(group) + version + kind.kind())) {
      Class<?> model = modelClass(name);
      if (model != null && KubernetesObject.class.isAssignableFrom(model)) {
        return Optional.of(model);
      }
    }
    return Optional.empty();
  }

  private static @Nullable Class<?> modelClass(String simpleName) {
    try {
      return Class.forName(MODELS + simpleName, false, V1ObjectMeta.class.getClassLoader());
    } catch (ClassNotFoundException e) {
      return null;
    }
  }

  private static String capitalized(String s) {
    return s.isEmpty() ? s : s.substring(0, 1).toUpperCase(Locale.ROOT) + s.substring(1);
  }

  /** A model's fields by the JSON names they are written under. */
  private static Map<String, Field> fields(Class<?> model) {
    return FIELDS.computeIfAbsent(
        model,
        m -> {
          Map<String, Field> byName = new HashMap<>();
          for (Field f : m.getDeclaredFields()) {
            SerializedName name = f.getAnnotation(SerializedName.class);
            if (name != null) {
              byName.put(name.value(), f);
            }
          }
          return Map.copyOf(byName);
        });
  }

  /** One walk of the object beside its model's types, keeping the path for a problem. */
  private static final class Walk {
    /** The type of a node whose model is not known: nothing under it is judged. */
    private static final Type NONE = Void.class;

    private final String what;
    private final List<Object> steps = new ArrayList<>();
    private final List<String> problems = new ArrayList<>();

    Walk(String what) {
      this.what = what;
    }

    void visit(@Nullable Object node, Type type) {
      if (node instanceof Map<?, ?> map) {
        if (type instanceof Class<?> model && model.getName().startsWith(MODELS)) {
          Map<String, Field> fields = fields(model);
          for (Map.Entry<?, ?> e : map.entrySet()) {
            Field field = fields.get(String.valueOf(e.getKey()));
            if (field != null) {
              descend(String.valueOf(e.getKey()), e.getValue(), field.getGenericType());
            }
          }
        } else {
          Type values = argument(type, Map.class, 1);
          for (Map.Entry<?, ?> e : values == NONE ? Set.<Map.Entry<?, ?>>of() : map.entrySet()) {
            descend(String.valueOf(e.getKey()), e.getValue(), values);
          }
        }
      } else if (node instanceof List<?> list) {
        Type elements = argument(type, List.class, 0);
        for (int i = 0; elements != NONE && i < list.size(); i++) {
          descend(i, list.get(i), elements);
        }
      } else if (node instanceof Number n
          && (type == Integer.class || type == int.class || type == IntOrString.class)
          && ApiJson.beyond32Bits(n) != null
          && ApiJson.rule(n) == null) { // beyond 64 bits: refused by ApiServerLimits
        problems.add(what + ApiJson.path(steps) + " " + RULE + ": " + n);
      }
    }

    private void descend(Object step, @Nullable Object node, Type type) {
      steps.add(step);
      visit(node, type);
      steps.remove(steps.size() - 1);
    }

    /**
     * The {@code index}th type argument of a {@code List} or {@code Map} type, else {@link #NONE}.
     */
    private static Type argument(Type type, Class<?> raw, int index) {
      return type instanceof ParameterizedType p
              && p.getRawType() instanceof Class<?> c
              && raw.isAssignableFrom(c)
          ? p.getActualTypeArguments()[index]
          : NONE;
    }
  }
}

package dev.capstan.k8s;

import com.google.gson.JsonObject;
import dev.capstan.common.health.HealthRules;
import dev.capstan.release.model.ResourceRef;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * When a PersistentVolumeClaim binds: its StorageClass's {@code volumeBindingMode}, the default
 * class's when it names none. The StorageClasses are LISTed once, on the first claim judged.
 */
final class VolumeBindings {
  private final DynamicApis apis;
  private final Map<String, HealthRules.VolumeBinding> bindings = new ConcurrentHashMap<>();
  private volatile @Nullable String defaultClass;
  private volatile boolean classesRead;

  VolumeBindings(DynamicApis apis) {
    this.apis = apis;
  }

  /** How {@code claim} binds; {@link HealthRules.VolumeBinding#IMMEDIATE} for any other kind. */
  HealthRules.VolumeBinding of(ResourceRef ref, JsonObject claim) {
    if (!ref.kind().isVolumeClaim()) {
      return HealthRules.VolumeBinding.IMMEDIATE;
    }
    if (!classesRead) {
      for (JsonObject sc : apis.api(DynamicApis.STORAGE_CLASSES).list(null, null, null)) {
        String name = JsonTrees.text(sc, "metadata", "name");
        if (name == null) {
          continue;
        }
        bindings.put(
            name,
            "WaitForFirstConsumer".equals(JsonTrees.text(sc, "volumeBindingMode"))
                ? HealthRules.VolumeBinding.WAIT_FOR_FIRST_CONSUMER
                : HealthRules.VolumeBinding.IMMEDIATE);
        if ("true"
            .equals(
                JsonTrees.text(
                    sc,
                    "metadata",
                    "annotations",
                    "storageclass.kubernetes.io/is-default-class"))) {
          defaultClass = name;
        }
      }
      classesRead = true;
    }
    String cls = JsonTrees.text(claim, "spec", "storageClassName");
    if (cls == null) {
      cls = defaultClass;
    }
    return cls == null
        ? HealthRules.VolumeBinding.IMMEDIATE
        : bindings.getOrDefault(cls, HealthRules.VolumeBinding.IMMEDIATE);
  }
}

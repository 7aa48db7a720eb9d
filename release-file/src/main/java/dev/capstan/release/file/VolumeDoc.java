package dev.capstan.release.file;

import dev.capstan.common.Escapes;
import dev.capstan.common.StrictMap;
import dev.capstan.release.model.VolumeSpec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/** A volume of {@code spec.volumes}, bound from the file before it is a {@link VolumeSpec}. */
record VolumeDoc(
    @Nullable String name,
    @Nullable String namespace,
    @Nullable String size,
    @Nullable String storageClass,
    @Nullable List<String> accessModes,
    @Nullable String reclaimPolicy,
    Map<String, String> labels,
    Map<String, String> annotations) {

  static VolumeDoc read(StrictMap m) {
    return new VolumeDoc(
        m.optionalString("name"),
        m.optionalString("namespace"),
        m.optionalString("size"),
        m.optionalString("storageClass"),
        m.has("accessModes") ? m.strings("accessModes") : null,
        m.optionalString("reclaimPolicy"),
        m.stringMap("labels"),
        m.stringMap("annotations"));
  }

  VolumeSpec toSpec(String defaultNamespace) {
    List<VolumeSpec.AccessMode> modes = new ArrayList<>();
    for (String m : accessModes == null ? List.of("ReadWriteOnce") : accessModes) {
      modes.add(
          Arrays.stream(VolumeSpec.AccessMode.values())
              .filter(a -> a.kubernetesName().equals(m))
              .findFirst()
              .orElseThrow(
                  () ->
                      new IllegalArgumentException(
                          "accessModes must be ReadWriteOnce, ReadOnlyMany, ReadWriteMany or"
                              + " ReadWriteOncePod: "
                              + Escapes.quote(m))));
    }
    return new VolumeSpec(
        namespace == null ? defaultNamespace : namespace,
        DocValues.required(name, "name"),
        DocValues.required(size, "size"),
        storageClass,
        modes,
        reclaimPolicy == null
            ? VolumeSpec.ReclaimPolicy.DELETE
            : DocValues.enumValue(
                VolumeSpec.ReclaimPolicy.class, reclaimPolicy, "reclaimPolicy", false),
        new TreeMap<>(labels),
        new TreeMap<>(annotations));
  }

  /** The fields of one element. */
  static final Set<String> FIELDS =
      StrictMap.fields(
          "name",
          "namespace",
          "size",
          "storageClass",
          "accessModes",
          "reclaimPolicy",
          "labels",
          "annotations");
}

package dev.capstan.release.file;

import dev.capstan.common.StrictMap;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

record DriftIgnoreDoc(
    String kind, @Nullable String name, List<String> paths, List<String> managers) {
  static DriftIgnoreDoc read(StrictMap m) {
    return new DriftIgnoreDoc(
        m.string("kind"), m.optionalString("name"), m.strings("paths"), m.strings("managers"));
  }

  /** The fields of one rule. */
  static final Set<String> FIELDS = StrictMap.fields("kind", "name", "paths", "managers");
}

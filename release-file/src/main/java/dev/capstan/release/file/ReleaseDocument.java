package dev.capstan.release.file;

import dev.capstan.common.StrictMap;
import dev.capstan.common.StrictMap.Wording;
import dev.capstan.release.model.DeleteGate;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A release file document's own fields, {@code metadata} and {@code spec}: the lists of {@code
 * spec} are bound element by element later, by {@link ReleaseFileReader}.
 */
record ReleaseDocument(
    @Nullable String apiVersion,
    @Nullable String kind,
    @Nullable String name,
    @Nullable String namespace,
    @Nullable String version,
    @Nullable String source,
    List<@Nullable Object> references,
    List<@Nullable Object> services,
    List<@Nullable Object> secrets,
    List<@Nullable Object> configMaps,
    List<@Nullable Object> volumes,
    boolean manifests,
    boolean allowUnsafeCrdChanges,
    List<@Nullable Object> driftIgnore,
    boolean replaceOnImmutable,
    boolean verifyOnServer,
    DeleteGate deleteGate,
    List<@Nullable Object> healthRules) {

  private static final Set<String> DOCUMENT =
      StrictMap.fields("apiVersion", "kind", "metadata", "spec");
  private static final Set<String> METADATA =
      StrictMap.fields("name", "namespace", "version", "source");
  private static final Set<String> SPEC =
      StrictMap.fields(
          "references", "services", "secrets", "configMaps", "volumes", "manifests", "options");
  private static final Set<String> OPTIONS =
      StrictMap.fields(
          "allowUnsafeCrdChanges",
          "driftIgnore",
          "replaceOnImmutable",
          "verifyOnServer",
          DeleteGates.PROTECTED_KINDS,
          DeleteGates.DELETE_BUDGET,
          DeleteGates.APPROVE_DELETES,
          "healthRules");

  /**
   * Binds the document's shape, adding every problem it has to {@code problems}: null when the
   * document is not a mapping, else the document with what could be bound (a field with a problem
   * left out), so that the problems of its elements are reported beside those of its shape.
   */
  static @Nullable ReleaseDocument read(Object tree, List<String> problems) {
    List<String> shape = new ArrayList<>();
    StrictMap root = StrictMap.open(tree, "", "document", DOCUMENT, shape, Wording.LABELLED);
    if (root == null) {
      problems.addAll(shape);
      return null;
    }
    String apiVersion = root.optionalString("apiVersion");
    String kind = root.optionalString("kind");
    StrictMap meta = root.object("metadata", METADATA);
    String name = meta == null ? null : meta.optionalString("name");
    String namespace = meta == null ? null : meta.optionalString("namespace");
    String version = meta == null ? null : meta.optionalString("version");
    String source = meta == null ? null : meta.optionalString("source");
    StrictMap spec = root.object("spec", SPEC);
    List<@Nullable Object> references = list(spec, "references");
    List<@Nullable Object> services = list(spec, "services");
    List<@Nullable Object> secrets = list(spec, "secrets");
    List<@Nullable Object> configMaps = list(spec, "configMaps");
    List<@Nullable Object> volumes = list(spec, "volumes");
    // only checked to be a list here: manifests(..) reads the entries from the file's text
    list(spec, "manifests");
    boolean manifests = spec != null && spec.has("manifests");
    StrictMap options = spec == null ? null : spec.object("options", OPTIONS);
    boolean allowUnsafeCrdChanges = options != null && options.bool("allowUnsafeCrdChanges");
    List<@Nullable Object> driftIgnore = options == null ? List.of() : options.list("driftIgnore");
    boolean replaceOnImmutable = options != null && options.bool("replaceOnImmutable");
    // on unless the file turns it off (the CLI turns it off for an atomic cast)
    boolean verifyOnServer =
        options == null || !options.has("verifyOnServer") || options.bool("verifyOnServer");
    DeleteGate deleteGate =
        options == null
            ? DeleteGate.defaults()
            : DeleteGates.read(options, DeleteGate.defaults(), true);
    List<@Nullable Object> healthRules = options == null ? List.of() : options.list("healthRules");
    ReleaseDocument doc =
        new ReleaseDocument(
            apiVersion,
            kind,
            name,
            namespace,
            version,
            source,
            references,
            services,
            secrets,
            configMaps,
            volumes,
            manifests,
            allowUnsafeCrdChanges,
            driftIgnore,
            replaceOnImmutable,
            verifyOnServer,
            deleteGate,
            healthRules);
    problems.addAll(shape);
    return doc;
  }

  private static List<@Nullable Object> list(@Nullable StrictMap spec, String key) {
    return spec == null ? List.of() : spec.list(key);
  }
}

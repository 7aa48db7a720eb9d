package dev.capstan.helm;

import static java.util.Objects.requireNonNull;

import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.result.CastResult;
import java.util.List;
import java.util.Map;

/**
 * What an import did.
 *
 * @param cast the adopting cast (its release is the new Capstan revision)
 * @param importedRevisions the Helm revisions recorded as Capstan history by this run
 * @param handedOver per object, the field-manager entries removed ({@code helm Update}, {@code helm
 *     Apply}), for objects that had any
 * @param hooks the objects the deployed revision's hooks name, as the import left them: marked as
 *     this release's hooks, absent, or left as they are and why (not this Helm release's hooks, or
 *     changed since they were looked at)
 * @param removedRecords the Helm records deleted ({@code --remove-helm-records}), as {@code Kind
 *     namespace/name}; empty when they were kept
 */
public record HelmImportResult(
    CastResult cast,
    List<Integer> importedRevisions,
    Map<ResourceRef, List<String>> handedOver,
    List<HelmImportPlan.HookObject> hooks,
    List<String> removedRecords) {

  /** Copies the collections. */
  public HelmImportResult {
    requireNonNull(cast, "cast");
    importedRevisions = List.copyOf(importedRevisions);
    handedOver = Map.copyOf(handedOver);
    hooks = List.copyOf(hooks);
    removedRecords = List.copyOf(removedRecords);
  }
}

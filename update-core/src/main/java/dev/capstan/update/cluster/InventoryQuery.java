package dev.capstan.update.cluster;

import dev.capstan.common.Trees;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What to read for planning: these Deployments (with the pods they select) and these CRDs.
 *
 * @param workloads the Deployments, without duplicates, in first-mention order
 * @param crdNames the CRD names, without duplicates, in first-mention order
 * @param crdDocuments the release's document of each CRD, by name: for every one that exists, the
 *     inventory reports the spec it would have once the document is applied ({@link
 *     CrdState#dryRunSpec()}); CRDs without a document here get no dry-run spec
 */
public record InventoryQuery(
    List<Workload> workloads,
    List<String> crdNames,
    Map<String, Map<String, @Nullable Object>> crdDocuments) {
  /** Copies the lists, dropping duplicates, and deep-copies the documents. */
  public InventoryQuery {
    workloads = List.copyOf(new LinkedHashSet<>(workloads));
    crdNames = List.copyOf(new LinkedHashSet<>(crdNames));
    Map<String, Map<String, @Nullable Object>> docs = new LinkedHashMap<>();
    crdDocuments.forEach((name, doc) -> docs.put(name, Trees.freezeMap(doc)));
    crdDocuments = java.util.Collections.unmodifiableMap(docs);
  }

  /**
   * Creates a query without CRD documents (no dry-run specs).
   *
   * @param workloads the Deployments
   * @param crdNames the CRD names
   */
  public InventoryQuery(List<Workload> workloads, List<String> crdNames) {
    this(workloads, crdNames, Map.of());
  }
}

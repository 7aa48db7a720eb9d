package dev.capstan.update.cluster;

import java.util.LinkedHashSet;
import java.util.List;

/**
 * What to read for planning: these Deployments (with the pods they select) and these CRDs.
 *
 * @param workloads the Deployments, without duplicates, in first-mention order
 * @param crdNames the CRD names, without duplicates, in first-mention order
 */
public record InventoryQuery(List<Workload> workloads, List<String> crdNames) {
  /** Copies the lists, dropping duplicates. */
  public InventoryQuery {
    workloads = List.copyOf(new LinkedHashSet<>(workloads));
    crdNames = List.copyOf(new LinkedHashSet<>(crdNames));
  }
}

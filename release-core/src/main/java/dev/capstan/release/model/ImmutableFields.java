package dev.capstan.release.model;

import java.util.List;
import java.util.Map;

/**
 * The fields the Kubernetes API server refuses to change on an object that exists, by kind (dotted
 * paths): an update that changes one is refused with HTTP 422 ({@code field is immutable}). A plan
 * replaces such an object (deletes it and creates it again) only when it or its release opted in,
 * and the destructive-change gate judges that replace as a delete; the in-memory cluster refuses
 * such an update as the API server does. A field not listed here (another the API server validates)
 * is met when the update is refused: the cast then fails, since it never deletes what its plan did
 * not show.
 */
public final class ImmutableFields {
  /** The fields the API server refuses to change, by kind (dotted paths). */
  private static final Map<Kind, List<String>> IMMUTABLE =
      Map.ofEntries(
          Map.entry(Kind.DEPLOYMENT, List.of("spec.selector")),
          Map.entry(Kind.REPLICA_SET, List.of("spec.selector")),
          Map.entry(Kind.DAEMON_SET, List.of("spec.selector")),
          Map.entry(
              Kind.STATEFUL_SET,
              List.of(
                  "spec.selector",
                  "spec.serviceName",
                  "spec.podManagementPolicy",
                  "spec.volumeClaimTemplates")),
          Map.entry(Kind.JOB, List.of("spec.selector", "spec.template")),
          Map.entry(Kind.SERVICE, List.of("spec.clusterIP")),
          // a claim's spec but resources.requests (and volumeAttributesClassName)
          Map.entry(
              Kind.PERSISTENT_VOLUME_CLAIM,
              List.of(
                  "spec.accessModes",
                  "spec.storageClassName",
                  "spec.volumeMode",
                  "spec.selector",
                  "spec.dataSource",
                  "spec.dataSourceRef",
                  "spec.volumeName",
                  "spec.resources.limits")),
          // a volume's source (spec.persistentvolumesource) and its mode
          Map.entry(
              Kind.PERSISTENT_VOLUME,
              List.of(
                  "spec.volumeMode",
                  "spec.awsElasticBlockStore",
                  "spec.azureDisk",
                  "spec.azureFile",
                  "spec.cephfs",
                  "spec.cinder",
                  "spec.csi",
                  "spec.fc",
                  "spec.flexVolume",
                  "spec.flocker",
                  "spec.gcePersistentDisk",
                  "spec.glusterfs",
                  "spec.hostPath",
                  "spec.iscsi",
                  "spec.local",
                  "spec.nfs",
                  "spec.photonPersistentDisk",
                  "spec.portworxVolume",
                  "spec.quobyte",
                  "spec.rbd",
                  "spec.scaleIO",
                  "spec.storageos",
                  "spec.vsphereVolume")),
          Map.entry(
              Kind.CUSTOM_RESOURCE_DEFINITION,
              List.of("spec.scope", "spec.group", "spec.names.kind", "spec.names.plural")),
          Map.entry(
              Kind.STORAGE_CLASS,
              List.of("provisioner", "parameters", "reclaimPolicy", "volumeBindingMode")),
          Map.entry(Kind.ROLE_BINDING, List.of("roleRef")),
          Map.entry(Kind.CLUSTER_ROLE_BINDING, List.of("roleRef")));

  private ImmutableFields() {}

  /** The immutable fields of {@code kind}, or none known. */
  public static List<String> of(Kind kind) {
    return IMMUTABLE.getOrDefault(kind, List.of());
  }
}

package dev.capstan.k8s;

import io.kubernetes.client.common.KubernetesListObject;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ConfigMapList;
import io.kubernetes.client.openapi.models.V1CustomResourceDefinition;
import io.kubernetes.client.openapi.models.V1CustomResourceDefinitionList;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentList;
import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1LeaseList;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1NamespaceList;
import io.kubernetes.client.openapi.models.V1PersistentVolumeClaim;
import io.kubernetes.client.openapi.models.V1PersistentVolumeClaimList;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodList;
import io.kubernetes.client.openapi.models.V1ReplicaSet;
import io.kubernetes.client.openapi.models.V1ReplicaSetList;
import io.kubernetes.client.openapi.models.V1Secret;
import io.kubernetes.client.openapi.models.V1SecretList;
import io.kubernetes.client.openapi.models.V1Service;
import io.kubernetes.client.openapi.models.V1ServiceList;
import io.kubernetes.client.openapi.models.V1StorageClass;
import io.kubernetes.client.openapi.models.V1StorageClassList;

/**
 * One Kubernetes resource type: its model classes, group, version, plural and kind.
 *
 * @param <T> the object model
 * @param <L> the list model
 * @param type the object model class
 * @param listType the list model class
 * @param group the API group, empty for the core group
 * @param version the API version
 * @param plural the resource name in URLs
 * @param kind the kind, as in {@code kind:} and in messages
 */
record ApiResource<T extends KubernetesObject, L extends KubernetesListObject>(
    Class<T> type, Class<L> listType, String group, String version, String plural, String kind) {

  static final ApiResource<V1ConfigMap, V1ConfigMapList> CONFIGMAP =
      new ApiResource<>(
          V1ConfigMap.class, V1ConfigMapList.class, "", "v1", "configmaps", "ConfigMap");
  static final ApiResource<V1Secret, V1SecretList> SECRET =
      new ApiResource<>(V1Secret.class, V1SecretList.class, "", "v1", "secrets", "Secret");
  static final ApiResource<V1PersistentVolumeClaim, V1PersistentVolumeClaimList> PVC =
      new ApiResource<>(
          V1PersistentVolumeClaim.class,
          V1PersistentVolumeClaimList.class,
          "",
          "v1",
          "persistentvolumeclaims",
          "PersistentVolumeClaim");
  static final ApiResource<V1Service, V1ServiceList> SERVICE =
      new ApiResource<>(V1Service.class, V1ServiceList.class, "", "v1", "services", "Service");
  static final ApiResource<V1Pod, V1PodList> POD =
      new ApiResource<>(V1Pod.class, V1PodList.class, "", "v1", "pods", "Pod");
  static final ApiResource<V1Namespace, V1NamespaceList> NAMESPACE =
      new ApiResource<>(
          V1Namespace.class, V1NamespaceList.class, "", "v1", "namespaces", "Namespace");
  static final ApiResource<V1Deployment, V1DeploymentList> DEPLOYMENT =
      new ApiResource<>(
          V1Deployment.class, V1DeploymentList.class, "apps", "v1", "deployments", "Deployment");
  static final ApiResource<V1ReplicaSet, V1ReplicaSetList> REPLICASET =
      new ApiResource<>(
          V1ReplicaSet.class, V1ReplicaSetList.class, "apps", "v1", "replicasets", "ReplicaSet");
  static final ApiResource<V1Lease, V1LeaseList> LEASE =
      new ApiResource<>(
          V1Lease.class, V1LeaseList.class, "coordination.k8s.io", "v1", "leases", "Lease");
  static final ApiResource<V1StorageClass, V1StorageClassList> STORAGE_CLASS =
      new ApiResource<>(
          V1StorageClass.class,
          V1StorageClassList.class,
          "storage.k8s.io",
          "v1",
          "storageclasses",
          "StorageClass");
  static final ApiResource<V1CustomResourceDefinition, V1CustomResourceDefinitionList> CRD =
      new ApiResource<>(
          V1CustomResourceDefinition.class,
          V1CustomResourceDefinitionList.class,
          "apiextensions.k8s.io",
          "v1",
          "customresourcedefinitions",
          "CustomResourceDefinition");

  /** {@code v1} or {@code apps/v1}, as in {@code apiVersion:}. */
  String apiVersion() {
    return group.isEmpty() ? version : group + "/" + version;
  }
}

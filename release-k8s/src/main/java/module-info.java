/**
 * The Kubernetes adapters on client-java: {@code KubeClients}, {@code KubernetesOrchestrator},
 * {@code KubernetesStore}, {@code KubernetesPlatformCluster}, and client-java's models as
 * manifests. The update engine is optional: only {@code KubernetesPlatformCluster} needs it.
 */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"}) // client-java
module dev.capstan.k8s {
  requires transitive dev.capstan.release;
  requires static dev.capstan
      .update; // optional: its public types show only in KubernetesPlatformCluster
  requires transitive io.kubernetes.client.java;
  requires transitive io.kubernetes.client.java.api;
  requires transitive okhttp3;
  requires transitive com.google.gson;

  exports dev.capstan.k8s;

  provides dev.capstan.release.model.ManifestConverter with
      dev.capstan.k8s.ClientJavaManifests;
}

/**
 * The {@code Release} custom resource and the controller that keeps each one cast, with its
 * tenancy, its observer and the endpoints it serves. Built on the public API of the cores and the
 * Kubernetes adapters alone.
 */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"}) // client-java
module dev.capstan.controller {
  requires transitive dev.capstan.release;
  requires transitive dev.capstan.release.file;
  requires transitive dev.capstan.k8s;
  requires dev.capstan.helm;
  requires jdk.httpserver;

  exports dev.capstan.controller;
}

/**
 * The process and HTTP adapters of image builds: docker buildx, podman, buildah, git, OCI
 * registries.
 */
module dev.capstan.update.build.process {
  requires transitive dev.capstan.update;
  requires transitive java.net.http;

  exports dev.capstan.update.build.process;
}

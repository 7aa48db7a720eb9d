/** The release-file format: a release as YAML or JSON, typed entries and manifests. */
module dev.capstan.release.file {
  requires transitive dev.capstan.release;

  exports dev.capstan.release.file;
}

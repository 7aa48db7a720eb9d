/** {@code HelmImport}: a Helm 3 or 4 release taken over in place, with its history. */
module dev.capstan.helm {
  requires transitive dev.capstan.release;
  requires transitive dev.capstan.release.file;
  requires transitive dev.capstan.k8s;

  exports dev.capstan.helm;
  exports dev.capstan.helm.chart;
}

package dev.capstan.release.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.capstan.release.model.EnsuredNamespace;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ResourceRef;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Install manifests as projects publish them: a Namespace document first, objects in several
 * namespaces, {@code kind: List} documents, and files far larger than the objects in them are
 * allowed to be, read within limits sized for real bundles.
 */
class PublishedManifestsTest {
  @TempDir Path dir;

  private static @Nullable String noEnv(String name) {
    return null;
  }

  private Path write(String name, String text) throws IOException {
    Path file = dir.resolve(name);
    Files.createDirectories(file.getParent());
    Files.writeString(file, text);
    return file;
  }

  private static final String INSTALL =
      """
      apiVersion: v1
      kind: Namespace
      metadata:
        name: metallb-system
        labels:
          pod-security.kubernetes.io/enforce: privileged
          pod-security.kubernetes.io/audit: privileged
      ---
      apiVersion: v1
      kind: List
      items:
      - apiVersion: v1
        kind: ServiceAccount
        metadata: {name: controller, namespace: metallb-system}
      - apiVersion: rbac.authorization.k8s.io/v1
        kind: ClusterRole
        metadata: {name: metallb-system:controller}
      ---
      apiVersion: rbac.authorization.k8s.io/v1
      kind: RoleBinding
      metadata: {name: metallb-controller, namespace: kube-system}
      roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: metallb-controller}
      subjects: [{kind: ServiceAccount, name: controller, namespace: metallb-system}]
      """;

  @Test
  void aNamespaceDocumentIsEnsuredAndAListIsReadItemByItem() throws IOException {
    Path file = write("metallb-native.yaml", INSTALL);

    ReleaseFile f =
        ReleaseFiles.read(
            file,
            "metallb-native.yaml",
            new Overrides("metallb-system", "lb"),
            PublishedManifestsTest::noEnv);
    ReleaseSpec spec = f.toSpec();

    assertThat(spec.ensured())
        .containsExactly(
            new EnsuredNamespace(
                "metallb-system",
                Map.of(
                    "pod-security.kubernetes.io/audit", "privileged",
                    "pod-security.kubernetes.io/enforce", "privileged"),
                Map.of()));
    assertThat(spec.resources())
        .extracting(d -> d.ref().key())
        .containsExactly(
            "rbac.authorization.k8s.io/ClusterRole//metallb-system:controller",
            "ServiceAccount/metallb-system/controller",
            "rbac.authorization.k8s.io/RoleBinding/kube-system/metallb-controller");
    assertThat(spec.references())
        .containsExactly(
            ResourceRef.namespace("kube-system"), ResourceRef.namespace("metallb-system"));
  }

  @Test
  void theOldAdviceNowWorksWhenFollowed() throws IOException {
    // "list Namespace//x under spec.references, and pass --create-namespace": a release file with
    // the reference and the manifests, the Namespace document included
    write("k8s/install.yaml", INSTALL);
    Path release =
        write(
            "release.yaml",
            """
            apiVersion: capstan.dev/v1
            kind: Release
            metadata: {name: lb, namespace: metallb-system}
            spec:
              references: [Namespace//metallb-system]
              manifests: [{path: k8s/}]
            """);

    ReleaseSpec spec =
        ReleaseFiles.read(release, Overrides.none(), PublishedManifestsTest::noEnv).toSpec();

    assertThat(spec.ensured()).extracting(EnsuredNamespace::name).containsExactly("metallb-system");
    assertThat(spec.references()).contains(ResourceRef.namespace("metallb-system"));
  }

  @Test
  void aBundleOverTheOldFourMebibyteLimitIsRead() throws IOException {
    // published CRD bundles pass 4 MiB (one is 4.3 MiB, its largest CRD 833 KB)
    StringBuilder bundle = new StringBuilder();
    int crds = 0;
    while (bundle.length() < 5 << 20) {
      bundle.append(crd("Kind" + crds++, 800 * 1024));
    }
    Path file = write("bundle.yaml", bundle.toString());

    ReleaseFile f =
        ReleaseFiles.read(
            file, "bundle.yaml", new Overrides("ops", "crds"), PublishedManifestsTest::noEnv);

    assertThat(Files.size(file)).isGreaterThan(4L << 20);
    assertThat(f.payloads().size()).isEqualTo(crds);
  }

  /** A CRD of about {@code bytes} of YAML, most of it its schema's descriptions. */
  private static String crd(String name, int bytes) {
    StringBuilder properties = new StringBuilder();
    for (int i = 0; properties.length() < bytes; i++) {
      properties
          .append("              field")
          .append(i)
          .append(": {type: string, description: \"")
          .append("A field the controller reads; ".repeat(8))
          .append("\"}\n");
    }
    return """
        ---
        apiVersion: apiextensions.k8s.io/v1
        kind: CustomResourceDefinition
        metadata: {name: PLURALs.example.com}
        spec:
          group: example.com
          names: {kind: NAME, plural: PLURALs}
          scope: Namespaced
          versions:
          - name: v1
            served: true
            storage: true
            schema:
              openAPIV3Schema:
                type: object
                properties:
        """
            .replace("PLURAL", name.toLowerCase(java.util.Locale.ROOT))
            .replace("NAME", name)
        + properties;
  }

  @Test
  void theFilesOfOneReleaseAreHeldToTheReleaseLimitBeforeTheyAreRead() throws IOException {
    String filler = "#".repeat(ReleaseFiles.MAX_BYTES - 100) + "\n";
    write("k8s/a.yaml", filler);
    write("k8s/b.yaml", filler);
    write("k8s/c.yaml", filler + "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n");

    InvalidReleaseFileException e =
        catchThrowableOfType(
            InvalidReleaseFileException.class,
            () ->
                ReleaseFiles.read(
                    dir.resolve("k8s"),
                    "k8s",
                    new Overrides("shop", "big"),
                    PublishedManifestsTest::noEnv));

    long size = Files.size(dir.resolve("k8s/c.yaml"));
    assertThat(e.problems())
        .containsExactly(
            "(c.yaml): the release's files would total "
                + (2 * (ReleaseFiles.MAX_BYTES - 99) + size)
                + " bytes with this one ("
                + size
                + " bytes); the limit is 67108864 bytes (64 MiB) per release");
  }

  @Test
  void theDocumentsOfOneReleaseAreHeldToTheLimitAcrossItsFilesAndNoneIsReadPastIt()
      throws IOException {
    write(
        "k8s/a.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n" + "---\n".repeat(5999));
    write(
        "k8s/b.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n" + "---\n".repeat(5999));
    write("k8s/c.yaml", "not: [valid");

    InvalidReleaseFileException e =
        catchThrowableOfType(
            InvalidReleaseFileException.class,
            () ->
                ReleaseFiles.read(
                    dir.resolve("k8s"),
                    "k8s",
                    new Overrides("shop", "many"),
                    PublishedManifestsTest::noEnv));

    // c.yaml is not read: its syntax error is not reported
    assertThat(e.problems())
        .containsExactly(
            "(b.yaml#4000): the release would hold 10001 documents with this one; the limit is"
                + " 10000 documents per release");
  }

  @Test
  void aFileOfMoreDocumentsThanTheLimitIsRefusedAtTheFirstTooMany() throws IOException {
    Path file =
        write(
            "many.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"
                + "---\n".repeat(ReleaseFiles.MAX_DOCUMENTS));
    Path empty = write("empty.yaml", "---\n".repeat(ReleaseFiles.MAX_DOCUMENTS + 1));

    InvalidReleaseFileException e =
        catchThrowableOfType(
            InvalidReleaseFileException.class,
            () ->
                ReleaseFiles.read(
                    file, "many.yaml", new Overrides("shop", "x"), PublishedManifestsTest::noEnv));
    InvalidReleaseFileException whole =
        catchThrowableOfType(
            InvalidReleaseFileException.class,
            () ->
                ReleaseFiles.read(
                    empty,
                    "empty.yaml",
                    new Overrides("shop", "x"),
                    PublishedManifestsTest::noEnv));

    // the documents before the first too many are read; a file whose first document cannot be
    // read is refused as a whole
    assertThat(e.problems())
        .containsExactly(
            "(many.yaml#10000): holds more than 10000 documents (the limit) at line 10003, column"
                + " 1");
    assertThat(whole.problems())
        .containsExactly("holds more than 10000 documents (the limit) at line 10001, column 1");
  }
}

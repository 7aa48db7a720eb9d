package dev.capstan.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubernetes.client.util.KubeConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code $KUBECONFIG} list is merged as kubectl merges it: the first file that names a cluster,
 * user or context wins, the current context is the first file's that sets one, and a relative path
 * in a file is relative to that file's folder.
 */
class KubeconfigsTest {
  @TempDir Path dir;

  private Path write(String folder, String text) throws Exception {
    Path d = Files.createDirectories(dir.resolve(folder));
    return Files.writeString(d.resolve("config"), text);
  }

  @Test
  void theFirstFileThatNamesAnEntryOrTheCurrentContextWins() throws Exception {
    Path a =
        write(
            "a",
            """
            apiVersion: v1
            kind: Config
            clusters: [{name: shared, cluster: {server: "https://a.example:6443"}}]
            users: [{name: ua, user: {token: ta}}]
            contexts: [{name: ca, context: {cluster: shared, user: ua, namespace: team-a}}]
            """);
    Path b =
        write(
            "b",
            """
            apiVersion: v1
            kind: Config
            clusters:
            - {name: shared, cluster: {server: "https://b.example:6443"}}
            - {name: only-b, cluster: {server: "https://only-b.example:6443", certificate-authority: ca.pem}}
            users: [{name: ub, user: {client-certificate: certs/c.pem, client-key: /abs/k.pem}}]
            contexts:
            - {name: cb, context: {cluster: only-b, user: ub}}
            - {name: ca, context: {cluster: only-b, user: ub}}
            current-context: cb
            """);

    KubeConfig merged = Kubeconfigs.load(List.of(a, b));

    assertThat(merged.getCurrentContext()).isEqualTo("cb");
    assertThat(merged.getServer()).isEqualTo("https://only-b.example:6443");
    assertThat(merged.getCertificateAuthorityFile())
        .isEqualTo(dir.resolve("b").resolve("ca.pem").toString());
    assertThat(merged.getClientCertificateFile())
        .isEqualTo(dir.resolve("b").resolve("certs/c.pem").toString());
    assertThat(merged.getClientKeyFile()).isEqualTo("/abs/k.pem");
    assertThat(merged.setContext("ca")).isTrue();
    assertThat(merged.getServer()).isEqualTo("https://a.example:6443");
    assertThat(merged.getNamespace()).isEqualTo("team-a");
    assertThat(KubeClients.contextNames(List.of(a, b))).containsExactly("ca", "cb");
    KubeClients clients = KubeClients.fromKubeconfig(List.of(a, b), "ca");
    assertThat(clients.server()).isEqualTo("https://a.example:6443");
    assertThat(clients.namespace()).contains("team-a");
  }

  @Test
  void aListWithoutACurrentContextOrTheContextAskedForIsRefusedNamingEveryFile() throws Exception {
    Path a =
        write(
            "a",
            """
            apiVersion: v1
            kind: Config
            clusters: [{name: c, cluster: {server: "https://a.example:6443"}}]
            users: [{name: u, user: {token: t}}]
            contexts: [{name: x, context: {cluster: c, user: u}}]
            """);
    Path b = write("b", "apiVersion: v1\nkind: Config\n");
    String both = a + java.io.File.pathSeparator + b;

    assertThatThrownBy(() -> KubeClients.fromKubeconfig(List.of(a, b), null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("kubeconfig " + both + " names no current context; pass one of [x]");
    assertThatThrownBy(() -> KubeClients.fromKubeconfig(List.of(a, b), "y"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("kubeconfig " + both + " has no context 'y'; its contexts are [x]");
  }

  /** A syntax error on a credential's line names its place, never the line's text. */
  @Test
  void aKubeconfigThatIsNoYamlIsRefusedWithoutTheLineItQuotes() throws Exception {
    Path bad =
        write(
            "bad",
            """
            apiVersion: v1
            kind: Config
            users:
            - name: u
              user:
                token: sha256~hunter2-token: x
            """);

    assertThatThrownBy(() -> KubeClients.fromKubeconfig(List.of(bad), null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "kubeconfig "
                + bad
                + " is not a valid kubeconfig: not valid YAML at line 6, column 32 (the parser's"
                + " excerpt is not shown: it may hold a token or a key)")
        .hasNoCause();
  }
}

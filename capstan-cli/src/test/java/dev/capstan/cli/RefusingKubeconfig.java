package dev.capstan.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A kubeconfig whose one context, {@code ctx}, names a cluster at {@code https://127.0.0.1:1}: port
 * 1 refuses every connection, so a command that reaches for this cluster fails (after its retries),
 * and one that never does shows it sent nothing.
 */
public final class RefusingKubeconfig {
  private RefusingKubeconfig() {}

  /** Writes the kubeconfig as {@code dir/kubeconfig} and returns its path. */
  public static Path write(Path dir) throws IOException {
    return Files.writeString(
        dir.resolve("kubeconfig"),
        """
        apiVersion: v1
        kind: Config
        clusters: [{name: c, cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}}]
        users: [{name: u, user: {token: t}}]
        contexts: [{name: ctx, context: {cluster: c, user: u}}]
        current-context: ctx
        """);
  }
}

package dev.capstan.examples.daemon;

import dev.capstan.examples.cli.KubeConnections;
import dev.capstan.k8s.KubeClients;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Kubernetes clients kept across commands, one per kubeconfig file and context, so a command finds
 * its TLS connection to the API server open. The kubeconfig is read again on every {@link #open}:
 * when its content changed, the old clients are closed and new ones built from the new content.
 * Files the kubeconfig only names (a certificate path) are read when clients are built.
 */
public final class CachedKubeConnections implements KubeConnections {
  private record Key(Path kubeconfig, @Nullable String context) {}

  private record Entry(String digest, KubeClients clients) {}

  private final Map<Key, Entry> entries = new HashMap<>();

  @Override
  public synchronized KubeClients open(Path kubeconfig, @Nullable String context) {
    Path file = kubeconfig.toAbsolutePath().normalize();
    String digest = digest(file);
    Key key = new Key(file, context);
    Entry entry = entries.get(key);
    if (entry != null && entry.digest().equals(digest)) {
      return entry.clients();
    }
    if (entry != null) {
      entry.clients().closeConnections();
    }
    KubeClients clients = KubeClients.fromKubeconfig(file, context);
    entries.put(key, new Entry(digest, clients));
    return clients;
  }

  /** Keeps the clients for the next command; nobody hears of their retries until then. */
  @Override
  public void release(KubeClients clients) {
    clients.onRetry((request, attempt, delay, reason) -> {});
  }

  /** How many kubeconfig/context pairs have clients kept. */
  public synchronized int size() {
    return entries.size();
  }

  /** Closes every kept client's connections. */
  public synchronized void closeAll() {
    List<Entry> all = new ArrayList<>(entries.values());
    entries.clear();
    all.forEach(e -> e.clients().closeConnections());
  }

  private static String digest(Path file) {
    try {
      return HexFormat.of()
          .formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
    } catch (IOException e) {
      throw new IllegalArgumentException("--kubeconfig: cannot read " + file + ": " + e, e);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every Java platform", e);
    }
  }
}

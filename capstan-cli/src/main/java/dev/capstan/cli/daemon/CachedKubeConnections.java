package dev.capstan.cli.daemon;

import dev.capstan.cli.KubeConnections;
import dev.capstan.k8s.KubeClients;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Kubernetes clients kept across commands, one per kubeconfig file (or list of them) and context,
 * so a command finds its TLS connection to the API server open. Commands that run at once share
 * them (their connection pool; {@link KubeClients} is thread-safe), and each hears of the retries
 * of its own requests only ({@link #onRetry}). The kubeconfig is read again on every {@link #open}:
 * when its content changed, new clients are built from the new content for the commands that start
 * from then on, and the old ones are closed once the last command using them is done. Files the
 * kubeconfig only names (a certificate path) are read when clients are built. One {@code open}
 * builds clients at a time; the commands already running are not held up by it.
 */
public final class CachedKubeConnections implements KubeConnections {
  private record Key(List<Path> kubeconfigs, @Nullable String context) {}

  /** The clients built from one content of a kubeconfig, and how many commands use them now. */
  private static final class Entry {
    final String digest;
    final KubeClients clients;
    int users;
    boolean replaced;

    Entry(String digest, KubeClients clients) {
      this.digest = digest;
      this.clients = clients;
    }
  }

  /** One command's use of an entry's clients: who hears of its requests' retries. */
  private static final class Use {
    final Entry entry;
    volatile KubeClients.@Nullable RetryListener listener;

    Use(Entry entry) {
      this.entry = entry;
    }
  }

  /** The kept clients, by kubeconfig and context. */
  private final Map<Key, Entry> entries = new HashMap<>();

  /** Every entry whose clients are open: the kept ones, and replaced ones still in use. */
  private final IdentityHashMap<KubeClients, Entry> open = new IdentityHashMap<>();

  /**
   * The use of the command a thread works for: set on the thread that opened the clients, and
   * inherited by the threads it starts afterwards (the engine's parallel writers, its lease
   * renewer, its watches), which send requests, and so retry them, for that command. Threads
   * started elsewhere (none of the engine's are shared) have none: nobody hears of their retries.
   */
  private static final InheritableThreadLocal<@Nullable Use> CURRENT =
      new InheritableThreadLocal<>();

  /** Held while clients are built: one build at a time, and none twice for the same content. */
  private final Object building = new Object();

  @Override
  public KubeClients open(List<Path> kubeconfigs, @Nullable String context) {
    List<Path> files = kubeconfigs.stream().map(f -> f.toAbsolutePath().normalize()).toList();
    String digest = digest(files);
    Key key = new Key(files, context);
    Entry entry = use(key, digest);
    if (entry == null) {
      synchronized (building) {
        entry = use(key, digest); // built by another command meanwhile
        if (entry == null) {
          entry = build(key, files, context, digest);
        }
      }
    }
    CURRENT.set(new Use(entry));
    return entry.clients;
  }

  /** The kept entry of {@code key} for this content, counted as used; null when there is none. */
  private synchronized @Nullable Entry use(Key key, String digest) {
    Entry kept = entries.get(key);
    if (kept == null || !kept.digest.equals(digest)) {
      return null;
    }
    kept.users++;
    return kept;
  }

  /** Builds clients for {@code key} (holding {@link #building}) and keeps them, counted as used. */
  private Entry build(Key key, List<Path> files, @Nullable String context, String digest) {
    KubeClients clients = KubeClients.fromKubeconfig(files, context); // may throw: nothing changed
    Entry built = new Entry(digest, clients);
    clients.onRetry(
        (request, attempt, delay, reason) -> retrying(built, request, attempt, delay, reason));
    synchronized (this) {
      Entry kept = entries.put(key, built);
      if (kept != null) {
        kept.replaced = true;
        if (kept.users == 0) {
          close(kept);
        }
      }
      open.put(clients, built);
      built.users++;
    }
    return built;
  }

  /**
   * Tells the retries of the requests that the calling thread's command (the one that {@linkplain
   * #open opened} {@code clients} on this thread) and the threads it started send to {@code
   * listener}, until it {@linkplain #release releases} them; not another command's that runs at the
   * same time. A thread that did not open {@code clients} changes nothing.
   */
  @Override
  public void onRetry(KubeClients clients, KubeClients.RetryListener listener) {
    Use use = CURRENT.get();
    if (use != null && use.entry.clients == clients) {
      use.listener = listener;
    }
  }

  private void retrying(Entry entry, String request, int attempt, Duration delay, String reason) {
    Use use = CURRENT.get();
    KubeClients.@Nullable RetryListener listener =
        use == null || use.entry != entry ? null : use.listener;
    if (listener != null) {
      listener.retrying(request, attempt, delay, reason);
    }
  }

  /**
   * Keeps the clients for the next command; nobody hears of this command's retries any more.
   * Clients replaced meanwhile (the kubeconfig changed) are closed once no command uses them.
   */
  @Override
  public void release(KubeClients clients) {
    Use use = CURRENT.get();
    if (use != null && use.entry.clients == clients) {
      use.listener = null;
      CURRENT.remove();
    }
    synchronized (this) {
      Entry entry = open.get(clients);
      if (entry == null || entry.users == 0) {
        return;
      }
      entry.users--;
      if (entry.replaced && entry.users == 0) {
        close(entry);
      }
    }
  }

  /** How many kubeconfig/context pairs have clients kept. */
  public synchronized int size() {
    return entries.size();
  }

  /** Closes every kept client's connections (once no command runs). */
  public synchronized void closeAll() {
    List<Entry> all = new ArrayList<>(open.values());
    entries.clear();
    all.forEach(this::close);
  }

  private void close(Entry entry) {
    open.remove(entry.clients);
    entry.clients.closeConnections();
  }

  /** The digest of the files' contents, in order. */
  private static String digest(List<Path> files) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      for (Path file : files) {
        try {
          sha.update(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
        } catch (IOException e) {
          throw new IllegalArgumentException("--kubeconfig: cannot read " + file + ": " + e, e);
        }
      }
      return HexFormat.of().formatHex(sha.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every Java platform", e);
    }
  }
}

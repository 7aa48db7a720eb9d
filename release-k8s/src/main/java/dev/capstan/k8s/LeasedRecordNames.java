package dev.capstan.k8s;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The names of the record Secrets (heads and chunks) of each release whose lease this store holds,
 * as it listed them while holding it and as its own writes changed them since: what a purge deletes
 * by name. Only the lease holder writes a release's records, so such a listing stays whole until
 * the lease is given up; a listing that overlapped one of the store's own writes is not kept (it
 * may lack that write), and a release not listed under its lease has no names here.
 */
final class LeasedRecordNames {
  private final Map<String, Tracked> releases = new ConcurrentHashMap<>();

  /** A release's names while its lease is held: {@code null} until listed. */
  private static final class Tracked {
    private long writes;
    private @Nullable TreeSet<String> names;
  }

  /** The store took the lease of {@code namespace/name}: its names are tracked from now on. */
  void leaseTaken(String namespace, String name) {
    releases.put(key(namespace, name), new Tracked());
  }

  /** The store gives the lease of {@code namespace/name} up: its names are no longer known. */
  void leaseGivenUp(String namespace, String name) {
    releases.remove(key(namespace, name));
  }

  /**
   * A token to pass to {@link #listed} once a LIST of the release's record Secrets, sent after this
   * call, is answered; {@code -1} when the release's lease is not held here.
   */
  long beforeListing(String namespace, String name) {
    Tracked t = releases.get(key(namespace, name));
    if (t == null) {
      return -1;
    }
    synchronized (t) {
      return t.writes;
    }
  }

  /**
   * The names a LIST found, kept when the lease is still held here and the store wrote none of the
   * release's records since {@code token} was taken.
   */
  void listed(String namespace, String name, long token, Collection<String> found) {
    Tracked t = token < 0 ? null : releases.get(key(namespace, name));
    if (t == null) {
      return;
    }
    synchronized (t) {
      if (t.writes == token) {
        t.names = new TreeSet<>(found);
      }
    }
  }

  /** The store created {@code added} and deleted {@code removed} of the release's Secrets. */
  void written(
      String namespace, String name, Collection<String> added, Collection<String> removed) {
    changed(
        namespace,
        name,
        names -> {
          names.addAll(added);
          names.removeAll(removed);
        });
  }

  /** The store deleted the Secrets of revision {@code head} ({@code head} and its chunks). */
  void revisionDeleted(String namespace, String name, String head) {
    changed(
        namespace, name, names -> names.removeIf(n -> n.equals(head) || n.startsWith(head + ".")));
  }

  /**
   * One write of the store's: listings begun before it are not kept; the names are {@code edit}ed.
   */
  private void changed(String namespace, String name, Consumer<Set<String>> edit) {
    Tracked t = releases.get(key(namespace, name));
    if (t == null) {
      return;
    }
    synchronized (t) {
      t.writes++;
      if (t.names != null) {
        edit.accept(t.names);
      }
    }
  }

  /**
   * The names of the release's record Secrets, or {@code null} when they are not known (not listed
   * under a lease held here).
   */
  @Nullable List<String> names(String namespace, String name) {
    Tracked t = releases.get(key(namespace, name));
    if (t == null) {
      return null;
    }
    synchronized (t) {
      return t.names == null ? null : new ArrayList<>(t.names);
    }
  }

  private static String key(String namespace, String name) {
    return namespace + "/" + name;
  }
}

package dev.capstan.release.model;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.Escapes;
import dev.capstan.release.internal.Names;
import java.util.Comparator;

/**
 * Identifies one object: its kind, namespace ({@code ""} for cluster-scoped kinds) and name. Names
 * are checked when the reference is built, so an invalid name never reaches a plan.
 *
 * <p>Name rules: namespaces are DNS-1123 labels; Services are DNS-1035 labels; RBAC objects may use
 * any path segment (e.g. {@code system:metrics-reader}); every other kind is a DNS-1123 subdomain.
 *
 * @param kind the kind of object
 * @param namespace the namespace, or {@code ""} for cluster-scoped kinds
 * @param name the object's name
 */
public record ResourceRef(Kind kind, String namespace, String name)
    implements Comparable<ResourceRef> {

  /** Apply order: by {@link Kind#rank()}, then by key. */
  public static final Comparator<ResourceRef> APPLY_ORDER =
      (a, b) -> {
        int byRank = Integer.compare(a.kind.rank(), b.kind.rank());
        return byRank != 0 ? byRank : compareKeys(a, b);
      };

  /** Prune and uninstall order: reverse rank (what routes to workloads first), then by key. */
  public static final Comparator<ResourceRef> PRUNE_ORDER =
      (a, b) -> {
        int byRank = Integer.compare(b.kind.rank(), a.kind.rank());
        return byRank != 0 ? byRank : compareKeys(a, b);
      };

  /** Validates the parts; see the class documentation for the name rules. */
  public ResourceRef {
    requireNonNull(kind, "kind");
    requireNonNull(namespace, "namespace");
    requireNonNull(name, "name");
    if (kind.clusterScoped()) {
      if (!namespace.isEmpty()) {
        throw new IllegalArgumentException(
            kind
                + " "
                + Escapes.quote(name)
                + " is cluster-scoped; namespace must be empty: "
                + Escapes.quote(namespace));
      }
    } else if (!Names.isLabel(namespace, 63)) {
      throw new IllegalArgumentException(
          kind
              + " "
              + Escapes.quote(name)
              + ": namespace "
              + Names.LABEL_RULE
              + ": "
              + Escapes.quote(namespace));
    }
    if (kind.equals(Kind.NAMESPACE)) {
      check(Names.isLabel(name, 63), kind, name, Names.LABEL_RULE);
    } else if (kind.equals(Kind.SERVICE)) {
      check(Names.isDns1035Label(name), kind, name, Names.DNS1035_RULE);
    } else if (kind.group().equals("rbac.authorization.k8s.io")) {
      check(Names.isPathSegment(name), kind, name, Names.PATH_SEGMENT_RULE);
    } else {
      check(Names.isSubdomain(name), kind, name, Names.SUBDOMAIN_RULE);
    }
  }

  private static void check(boolean ok, Kind kind, String name, String rule) {
    if (!ok) {
      throw new IllegalArgumentException(kind + " name " + rule + ": " + Escapes.quote(name));
    }
  }

  /** A reference to an object of {@code kind} ({@code ""} namespace for cluster-scoped kinds). */
  public static ResourceRef of(Kind kind, String namespace, String name) {
    return new ResourceRef(kind, namespace, name);
  }

  /** A reference to a namespace. */
  public static ResourceRef namespace(String name) {
    return new ResourceRef(Kind.NAMESPACE, "", name);
  }

  /** A reference to a storage class. */
  public static ResourceRef storageClass(String name) {
    return new ResourceRef(Kind.STORAGE_CLASS, "", name);
  }

  /**
   * Parses a key made by {@link #key()}, e.g. {@code apps/Deployment/shop/web}, {@code
   * Secret/shop/creds} or {@code storage.k8s.io/StorageClass//fast}.
   *
   * @throws IllegalArgumentException naming the key when it has not three or four parts, or a part
   *     is bad
   */
  public static ResourceRef parse(String key) {
    String[] parts = key.split("/", -1);
    if (parts.length != 3 && parts.length != 4) {
      throw new IllegalArgumentException(
          "resource key must have the form [group/]Kind/namespace/name: " + Escapes.quote(key));
    }
    int n = parts.length;
    String kindKey = n == 4 ? parts[0] + "/" + parts[1] : parts[0];
    String namespace = parts[n - 2];
    return new ResourceRef(Kind.parseKey(kindKey, !namespace.isEmpty()), namespace, parts[n - 1]);
  }

  /** {@code [group/]Kind/namespace/name}; the namespace part is empty for cluster-scoped kinds. */
  public String key() {
    return kind.key() + "/" + namespace + "/" + name;
  }

  /**
   * Compares {@code a.key()} with {@code b.key()} without building the strings (plans sort tens of
   * thousands of refs).
   */
  private static int compareKeys(ResourceRef a, ResourceRef b) {
    if (!a.kind.equals(b.kind)) {
      int byKind = a.kind.key().compareTo(b.kind.key());
      if (byKind != 0) {
        return byKind;
      }
    }
    int la = a.namespace.length() + 1 + a.name.length();
    int lb = b.namespace.length() + 1 + b.name.length();
    for (int i = 0; i < Math.min(la, lb); i++) {
      char ca = a.charOfRest(i);
      char cb = b.charOfRest(i);
      if (ca != cb) {
        return ca - cb;
      }
    }
    return la - lb;
  }

  /** The character at {@code i} of {@code namespace + "/" + name}. */
  private char charOfRest(int i) {
    int n = namespace.length();
    return i < n ? namespace.charAt(i) : i == n ? '/' : name.charAt(i - n - 1);
  }

  @Override
  public int compareTo(ResourceRef other) {
    return APPLY_ORDER.compare(this, other);
  }

  @Override
  public String toString() {
    return key();
  }
}

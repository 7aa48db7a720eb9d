package dev.capstan.release.model;

import static java.util.Objects.requireNonNull;

import dev.capstan.release.internal.Names;
import java.util.Comparator;

/**
 * Identifies one object: its type, namespace ({@code ""} for cluster-scoped kinds) and name. Names
 * are checked when the reference is built, so an invalid name never reaches a plan.
 *
 * <p>Name rules: namespaces are DNS-1123 labels; services are DNS-1035 labels (a Kubernetes Service
 * name must be one); every other kind is a DNS-1123 subdomain.
 *
 * @param type the kind of object
 * @param namespace the namespace, or {@code ""} for cluster-scoped kinds
 * @param name the object's name
 */
public record ResourceRef(ResourceType type, String namespace, String name)
    implements Comparable<ResourceRef> {

  /** Apply order: by {@link ResourceType#applyRank()}, then by key. */
  public static final Comparator<ResourceRef> APPLY_ORDER =
      (a, b) -> {
        int byRank = Integer.compare(a.type.applyRank(), b.type.applyRank());
        return byRank != 0 ? byRank : compareKeys(a, b);
      };

  /** Prune and uninstall order: reverse rank (services first), then by key. */
  public static final Comparator<ResourceRef> PRUNE_ORDER =
      (a, b) -> {
        int byRank = Integer.compare(b.type.applyRank(), a.type.applyRank());
        return byRank != 0 ? byRank : compareKeys(a, b);
      };

  /** Validates the parts; see the class documentation for the name rules. */
  public ResourceRef {
    requireNonNull(type, "type");
    requireNonNull(namespace, "namespace");
    requireNonNull(name, "name");
    if (type.clusterScoped()) {
      if (!namespace.isEmpty()) {
        throw new IllegalArgumentException(
            type
                + " "
                + Names.quote(name)
                + " is cluster-scoped; namespace must be empty: "
                + Names.quote(namespace));
      }
    } else if (!Names.isLabel(namespace, 63)) {
      throw new IllegalArgumentException(
          type
              + " "
              + Names.quote(name)
              + ": namespace "
              + Names.LABEL_RULE
              + ": "
              + Names.quote(namespace));
    }
    switch (type) {
      case NAMESPACE -> check(Names.isLabel(name, 63), type, name, Names.LABEL_RULE);
      case SERVICE -> check(Names.isDns1035Label(name), type, name, Names.DNS1035_RULE);
      default -> check(Names.isSubdomain(name), type, name, Names.SUBDOMAIN_RULE);
    }
  }

  private static void check(boolean ok, ResourceType type, String name, String rule) {
    if (!ok) {
      throw new IllegalArgumentException(type + " name " + rule + ": " + Names.quote(name));
    }
  }

  /** A reference to a namespaced object. */
  public static ResourceRef of(ResourceType type, String namespace, String name) {
    return new ResourceRef(type, namespace, name);
  }

  /** A reference to a namespace. */
  public static ResourceRef namespace(String name) {
    return new ResourceRef(ResourceType.NAMESPACE, "", name);
  }

  /** A reference to a storage class. */
  public static ResourceRef storageClass(String name) {
    return new ResourceRef(ResourceType.STORAGE_CLASS, "", name);
  }

  /**
   * Parses a key made by {@link #key()}, e.g. {@code service/default/web} or {@code
   * storage_class//fast}.
   *
   * @throws IllegalArgumentException naming the key when it has not three parts or a part is bad
   */
  public static ResourceRef parse(String key) {
    String[] parts = key.split("/", -1);
    if (parts.length != 3) {
      throw new IllegalArgumentException(
          "resource key must have the form type/namespace/name: " + Names.quote(key));
    }
    return new ResourceRef(ResourceType.fromId(parts[0]), parts[1], parts[2]);
  }

  /** {@code type/namespace/name}; the namespace part is empty for cluster-scoped kinds. */
  public String key() {
    return type.id() + "/" + namespace + "/" + name;
  }

  /**
   * Compares {@code a.key()} with {@code b.key()} without building the strings (plans sort tens of
   * thousands of refs).
   */
  private static int compareKeys(ResourceRef a, ResourceRef b) {
    int byType = a.type.id().compareTo(b.type.id());
    if (byType != 0) {
      return byType;
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

package dev.capstan.controller;

import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Whose rights a Release is cast with, and which references it may make (docs/controller.md,
 * "Tenants"). A Release naming {@code spec.serviceAccountName} is cast as that service account of
 * its own namespace, by impersonation, for everything the engine does for it: its sources, plan,
 * access reviews, records, lease, writes and health waits. A Release naming none is cast as {@code
 * defaultServiceAccount} of its namespace when one is set (Flux's lockdown), is refused when {@code
 * requireServiceAccount} is, and is otherwise cast with the controller's own rights (one team, one
 * cluster: only for a controller whose Releases only trusted people may write).
 *
 * @param defaultServiceAccount the account, in each Release's namespace, of a Release that names
 *     none; or null
 * @param requireServiceAccount whether a Release that names no account (and has no default) is
 *     refused rather than cast with the controller's rights
 * @param crossNamespaceRefs whether {@code spec.dependsOn} may name a Release of another namespace
 */
public record Tenancy(
    @Nullable String defaultServiceAccount,
    boolean requireServiceAccount,
    boolean crossNamespaceRefs) {

  /** The form of a service account's name: a DNS-1123 subdomain of at most 253 characters. */
  static final Pattern ACCOUNT_NAME = Pattern.compile("[a-z0-9]([-a-z0-9.]*[a-z0-9])?");

  /** Checks the default account's name. */
  public Tenancy {
    if (defaultServiceAccount != null && !validAccount(defaultServiceAccount)) {
      throw new IllegalArgumentException(
          "the default service account must be a DNS-1123 subdomain of at most 253 characters: "
              + dev.capstan.common.Escapes.quote(defaultServiceAccount));
    }
  }

  /**
   * No boundary: a Release naming no account is cast with the controller's own rights, and may
   * depend on Releases of any namespace (the default).
   */
  public static Tenancy open() {
    return new Tenancy(null, false, true);
  }

  /** This tenancy with {@code name} as the account of Releases that name none. */
  public Tenancy withDefaultServiceAccount(String name) {
    return new Tenancy(name, requireServiceAccount, crossNamespaceRefs);
  }

  /** This tenancy refusing Releases that name no account (and have no default). */
  public Tenancy withServiceAccountRequired(boolean required) {
    return new Tenancy(defaultServiceAccount, required, crossNamespaceRefs);
  }

  /** This tenancy allowing, or refusing, references to other namespaces. */
  public Tenancy withCrossNamespaceRefs(boolean allowed) {
    return new Tenancy(defaultServiceAccount, requireServiceAccount, allowed);
  }

  static boolean validAccount(String name) {
    return name.length() <= 253 && ACCOUNT_NAME.matcher(name).matches();
  }

  /**
   * The account a Release of {@code namespace} naming {@code named} (or null) is cast as; null for
   * the controller's own rights.
   */
  @Nullable Account account(String namespace, @Nullable String named) {
    String name = named != null ? named : defaultServiceAccount;
    return name == null ? null : new Account(namespace, name);
  }

  /**
   * A service account a Release is cast as.
   *
   * @param namespace the account's namespace: the Release's
   * @param name its name
   */
  record Account(String namespace, String name) {
    Account {
      java.util.Objects.requireNonNull(namespace, "namespace");
      java.util.Objects.requireNonNull(name, "name");
    }

    /** The user the API server knows it as: {@code system:serviceaccount:NAMESPACE:NAME}. */
    String user() {
      return "system:serviceaccount:" + namespace + ":" + name;
    }
  }
}

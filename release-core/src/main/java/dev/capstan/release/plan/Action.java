package dev.capstan.release.plan;

import java.util.Locale;

/** What a plan does with one object. */
public enum Action {
  /** Create an object that does not exist. */
  CREATE("+", false),
  /** Apply a changed spec to an object this release owns. */
  UPDATE("~", false),
  /** Re-apply an unchanged spec to an owned object whose live content drifted. */
  REPAIR("!", false),
  /**
   * Delete an owned object and create it again: its update changes a field the API server keeps
   * immutable, and the object or the release opted in ({@code capstan.dev/replace-on-immutable},
   * {@code ReleaseOptions.replaceOnImmutable}).
   */
  REPLACE("±", true),
  /** Nothing to do: owned, same spec, no drift. */
  UNCHANGED(" ", false),
  /** Take ownership of an existing object no release owns. */
  ADOPT("↪", false),
  /** Cannot proceed: the object belongs to someone else, or a reference is missing. */
  CONFLICT("✗", false),
  /** Delete an owned object the release no longer wants. */
  PRUNE("-", true),
  /**
   * Let go of an owned object but keep it: un-stamp it (an object annotated {@code
   * helm.sh/resource-policy: keep}, a volume claim whose reclaim policy is Retain, or a CRD, which
   * is never deleted unless the release allows it).
   */
  RETAIN("⊘", false),
  /** A shared or external object the release relies on; checked, never owned or deleted. */
  REFERENCE("=", false);

  private final String symbol;
  private final boolean destructive;

  Action(String symbol, boolean destructive) {
    this.symbol = symbol;
    this.destructive = destructive;
  }

  /** The one-character marker used in text plans. */
  public String symbol() {
    return symbol;
  }

  /** Whether the action deletes data. */
  public boolean destructive() {
    return destructive;
  }

  /** Whether the action writes to the object. */
  public boolean writes() {
    return this == CREATE || this == UPDATE || this == REPAIR || this == REPLACE || this == ADOPT;
  }

  /** The lower-case name, as shown in text and JSON. */
  public String id() {
    return name().toLowerCase(Locale.ROOT);
  }
}

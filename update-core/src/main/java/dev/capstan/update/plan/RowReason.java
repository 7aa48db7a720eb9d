package dev.capstan.update.plan;

import java.util.List;

/**
 * Why a plan row has its action, as data: a {@link Code} and the values its wording needs, in the
 * order the code names them. The planner knows no command-line flags: {@link #text()} says what was
 * found, and a host (the {@code capstan update} command line) adds how to change it in its own
 * terms, for example {@code pass --allow-downgrade to permit} after a {@link Code#DOWNGRADE}.
 *
 * @param code what the reason is
 * @param values the code's values ({@link Code#valueNames()}), for example the opt-in group
 */
public record RowReason(Code code, List<String> values) {

  /** The reason of a row that needs none (an update). */
  public static final RowReason NONE = new RowReason(Code.NONE, List.of());

  /** The reasons a plan row can have. */
  public enum Code {
    /** No reason: the row is an update. */
    NONE,
    /** {@link Selection#only()} names other components. */
    NOT_SELECTED,
    /** The component is in an opt-in group the selection does not include. */
    OPT_IN("group"),
    /** The release manifest has no entry for the component. */
    NOT_IN_MANIFEST,
    /** The component is an on-demand image: no workload runs it. */
    ON_DEMAND,
    /** The component's Deployment is missing. */
    NOT_INSTALLED,
    /** The Deployment has no container of the catalog's name. */
    CONTAINER_NOT_FOUND("container"),
    /** The env var holding the image is not set on the Deployment. */
    ENV_VAR_NOT_SET("envVar", "deployment"),
    /** The running image is not a valid image reference. */
    UNPARSABLE_IMAGE("problem"),
    /** The component already runs the release's image. */
    IMAGE_MATCHES,
    /** The target is older than the installed version and downgrades are not allowed. */
    DOWNGRADE("from", "to"),
    /** The component's same-minor version policy refuses the change. */
    NOT_A_PATCH_UPDATE("component", "from", "to", "hint");

    @SuppressWarnings("ImmutableEnumChecker") // List.of: unmodifiable
    private final List<String> valueNames;

    Code(String... valueNames) {
      this.valueNames = List.of(valueNames);
    }

    /**
     * Returns the names of the code's values, in order.
     *
     * @return for example {@code [from, to]} for {@link #DOWNGRADE}
     */
    public List<String> valueNames() {
      return valueNames;
    }
  }

  /**
   * Validates the fields and copies the values.
   *
   * @throws IllegalArgumentException when the number of values is not the code's
   */
  public RowReason {
    values = CodedValues.checked("reason", code, code.valueNames, values);
  }

  /**
   * Creates a reason.
   *
   * @param code what the reason is
   * @param values the code's values, in the order {@link Code#valueNames()} names them
   * @return the reason
   */
  public static RowReason of(Code code, String... values) {
    return new RowReason(code, List.of(values));
  }

  /**
   * Returns one of the values by name.
   *
   * @param name a name of {@link Code#valueNames()}, for example {@code group}
   * @return the value
   * @throws IllegalArgumentException when the code has no value of that name
   */
  public String value(String name) {
    return CodedValues.value("reason", code, code.valueNames, values, name);
  }

  /**
   * Says what was found, without naming how a caller changes it; empty for {@link Code#NONE}.
   *
   * @return for example {@code not installed}, {@code opt-in group auth}, {@code downgrade v0.6.0
   *     -> v0.5.0}
   */
  public String text() {
    return switch (code) {
      case NONE -> "";
      case NOT_SELECTED -> "not selected";
      case OPT_IN -> "opt-in group " + value("group");
      case NOT_IN_MANIFEST -> "not in release manifest";
      case ON_DEMAND -> "on-demand image; no workload to update";
      case NOT_INSTALLED -> "not installed";
      case CONTAINER_NOT_FOUND ->
          "container \"" + value("container") + "\" not found in deployment";
      case ENV_VAR_NOT_SET -> value("envVar") + " not set on " + value("deployment");
      case UNPARSABLE_IMAGE -> "cannot parse current image: " + value("problem");
      case IMAGE_MATCHES -> "image matches release";
      case DOWNGRADE -> "downgrade " + value("from") + " -> " + value("to");
      case NOT_A_PATCH_UPDATE ->
          value("component")
              + " "
              + value("from")
              + " -> "
              + value("to")
              + " is not a patch update"
              + (value("hint").isEmpty() ? "" : "; " + value("hint"));
    };
  }
}

package dev.capstan.update.plan;

import java.util.List;

/**
 * A remark the operator should read before confirming, as data: a {@link Code} and the values its
 * wording needs, in the order the code names them. As with {@link RowReason}, {@link #text()} names
 * the library's options, and a command line words them in its flags.
 *
 * @param code what the remark is
 * @param values the code's values ({@link Code#valueNames()})
 */
public record PlanWarning(Code code, List<String> values) {

  /** The remarks a plan can carry. */
  public enum Code {
    /** The release changes CRDs, but {@link Selection#only()} is set, so none is applied. */
    CRDS_SKIPPED_BY_ONLY("version"),
    /** {@link Selection#allowUnsafeCrdChanges()} lets a change the safety gate blocks through. */
    UNSAFE_CRD_CHANGE_APPLIED("crd", "findings"),
    /** The release's CRDs already match the cluster's. */
    CRDS_MATCH,
    /** The release applies CRDs before any image rollout. */
    CRDS_APPLIED_FIRST("version", "crds"),
    /** The catalog's note of a component the plan updates. */
    COMPONENT_NOTE("component", "note");

    @SuppressWarnings("ImmutableEnumChecker") // List.of: unmodifiable
    private final List<String> valueNames;

    Code(String... valueNames) {
      this.valueNames = List.of(valueNames);
    }

    /**
     * Returns the names of the code's values, in order.
     *
     * @return for example {@code [component, note]} for {@link #COMPONENT_NOTE}
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
  public PlanWarning {
    values = CodedValues.checked("warning", code, code.valueNames, values);
  }

  /**
   * Creates a warning.
   *
   * @param code what the remark is
   * @param values the code's values, in the order {@link Code#valueNames()} names them
   * @return the warning
   */
  public static PlanWarning of(Code code, String... values) {
    return new PlanWarning(code, List.of(values));
  }

  /**
   * Returns one of the values by name.
   *
   * @param name a name of {@link Code#valueNames()}, for example {@code crd}
   * @return the value
   * @throws IllegalArgumentException when the code has no value of that name
   */
  public String value(String name) {
    return CodedValues.value("warning", code, code.valueNames, values, name);
  }

  /**
   * Says what the remark is, naming the library's options.
   *
   * @return for example {@code ui: pods restart}, or {@code release v0.5.0 applies
   *     CustomResourceDefinitions before image rollouts: a, b}
   */
  public String text() {
    return switch (code) {
      case CRDS_SKIPPED_BY_ONLY ->
          "release "
              + value("version")
              + " changes CustomResourceDefinitions but Selection.only is set, so CRD apply is"
              + " skipped; plan without Selection.only to apply them";
      case UNSAFE_CRD_CHANGE_APPLIED ->
          "CRD "
              + value("crd")
              + ": unsafe change applied because Selection.allowUnsafeCrdChanges is set: "
              + value("findings");
      case CRDS_MATCH -> "CustomResourceDefinitions already match the release; CRD apply skipped";
      case CRDS_APPLIED_FIRST ->
          "release "
              + value("version")
              + " applies CustomResourceDefinitions before image rollouts: "
              + value("crds");
      case COMPONENT_NOTE -> value("component") + ": " + value("note");
    };
  }
}

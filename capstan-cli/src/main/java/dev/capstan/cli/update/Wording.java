package dev.capstan.cli.update;

import dev.capstan.update.plan.CrdResult;
import dev.capstan.update.plan.PlanWarning;
import dev.capstan.update.plan.RowReason;

/**
 * The update library's reasons and warnings in the command line's terms: the library says what it
 * found ({@link RowReason#text()}, a CRD's findings), and this adds the flag that changes it. The
 * wording is the one {@code mcp-runtime update} prints, so scripts that read it keep working.
 */
final class Wording {
  private Wording() {}

  /**
   * Words a plan row's reason.
   *
   * @param reason the reason
   * @return for example {@code not selected (--only)}, {@code opt-in; pass --include auth}, {@code
   *     downgrade v0.6.0 -> v0.5.0; pass --allow-downgrade to permit}, else the library's text
   */
  static String reason(RowReason reason) {
    return switch (reason.code()) {
      case NOT_SELECTED -> "not selected (--only)";
      case OPT_IN -> "opt-in; pass --include " + reason.value("group");
      case DOWNGRADE -> reason.text() + "; pass --allow-downgrade to permit";
      default -> reason.text();
    };
  }

  /**
   * Words a CRD's reason: a change the safety gate blocks says how to apply it anyway.
   *
   * @param crd a CRD of the plan's preview or of a result
   * @return the reason, empty when there is none
   */
  static String reason(CrdResult crd) {
    return crd.isBlocked() && !crd.reason().isEmpty()
        ? crd.reason() + "; pass --allow-unsafe-crd-changes to apply anyway"
        : crd.reason();
  }

  /**
   * Words a plan's warning.
   *
   * @param warning the warning
   * @return the library's text, with the flags {@code --only} and {@code
   *     --allow-unsafe-crd-changes} where it names the selection's options
   */
  static String warning(PlanWarning warning) {
    return switch (warning.code()) {
      case CRDS_SKIPPED_BY_ONLY ->
          "release "
              + warning.value("version")
              + " changes CustomResourceDefinitions but --only is set, so CRD apply is skipped;"
              + " re-run without --only to apply them";
      case UNSAFE_CRD_CHANGE_APPLIED ->
          "CRD "
              + warning.value("crd")
              + ": unsafe change applied because --allow-unsafe-crd-changes is set: "
              + warning.value("findings");
      default -> warning.text();
    };
  }
}

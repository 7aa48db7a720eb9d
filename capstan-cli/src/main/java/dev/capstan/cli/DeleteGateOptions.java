package dev.capstan.cli;

import dev.capstan.release.model.DeleteBudget;
import dev.capstan.release.model.DeleteGate;
import dev.capstan.release.model.ResourceRef;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Option;

/**
 * The destructive-change gate's options of the commands that cast ({@code release cast}, {@code
 * plan}, {@code rollback}): the policy over the release file's, and approvals by name.
 */
final class DeleteGateOptions {
  @Option(
      names = "--approve-delete",
      paramLabel = "KEY",
      description =
          "Approve deleting this object though the delete gate keeps it (a protected kind, or over"
              + " the delete budget): [group/]Kind/namespace/name, as the refusal lists it; once per"
              + " object. Confirming the plan (cast's and rollback's --yes) is no approval.")
  List<String> approveDeletes = new ArrayList<>();

  @Option(
      names = "--protected-kinds",
      paramLabel = "KINDS",
      split = ",",
      description =
          "The kinds ([group/]Kind) whose every delete needs --approve-delete (default:"
              + " Namespace, PersistentVolumeClaim, PersistentVolume,"
              + " apiextensions.k8s.io/CustomResourceDefinition; 'none' for none).")
  @Nullable List<String> protectedKinds;

  @Option(
      names = "--delete-budget",
      paramLabel = "N|N%",
      description =
          "How many objects one plan may delete without --approve-delete: a count (10) or a share"
              + " of the release's objects (20%%) (default: no limit).")
  @Nullable String deleteBudget;

  /**
   * {@code gate} with the command line's policy over it (the kinds and budget when given) and its
   * approvals added.
   */
  DeleteGate deleteGate(DeleteGate gate) {
    DeleteGate out = policy(gate, protectedKinds, deleteBudget);
    List<ResourceRef> approved = new ArrayList<>();
    for (String key : approveDeletes) {
      try {
        approved.add(ResourceRef.parse(key));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("--approve-delete: " + e.getMessage(), e);
      }
    }
    return out.approving(approved);
  }

  /**
   * {@code gate} with the policy of {@code --protected-kinds} ({@code none}: no kind) and {@code
   * --delete-budget} when given; the controller's flags read alike.
   *
   * @throws IllegalArgumentException naming the flag, the rule and the value
   */
  static DeleteGate policy(
      DeleteGate gate, @Nullable List<String> protectedKinds, @Nullable String deleteBudget) {
    DeleteGate out = gate;
    try {
      if (protectedKinds != null) {
        out =
            out.withProtectedKinds(
                protectedKinds.equals(List.of("none")) ? List.of() : protectedKinds);
      }
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("--protected-kinds: " + e.getMessage(), e);
    }
    try {
      if (deleteBudget != null) {
        out = out.withBudget(DeleteBudget.parse(deleteBudget));
      }
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("--delete-budget: " + e.getMessage(), e);
    }
    return out;
  }
}

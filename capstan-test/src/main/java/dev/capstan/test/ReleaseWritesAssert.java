package dev.capstan.test;

import dev.capstan.release.memory.InMemoryCluster;
import dev.capstan.release.model.ResourceRef;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.assertj.core.api.AbstractAssert;
import org.assertj.core.api.Assertions;
import org.assertj.core.api.ListAssert;

/**
 * Assertions over the writes an {@link InMemoryCluster} recorded since it was created or {@link
 * InMemoryCluster#clearOperations() cleared}. Objects are named by their key, as {@link
 * ResourceRef#key()} prints it: {@code Secret/shop/db}, {@code apps/Deployment/shop/web}, {@code
 * rbac.authorization.k8s.io/ClusterRole//reader}. A write is an apply, a delete (prune), an
 * un-stamp (retain) or a namespace created; reads, records, leases and health waits are not.
 */
public final class ReleaseWritesAssert
    extends AbstractAssert<ReleaseWritesAssert, InMemoryCluster> {

  ReleaseWritesAssert(InMemoryCluster cluster) {
    super(cluster, ReleaseWritesAssert.class);
  }

  /** The writes, in order: {@code apply:KEY}, {@code delete:KEY}, {@code unstamp:KEY}, ... */
  private List<String> writes() {
    return actual.writes().stream().filter(w -> !w.equals("verify")).toList();
  }

  private List<String> keys(String prefix) {
    List<String> keys = new ArrayList<>();
    for (String w : writes()) {
      if (w.startsWith(prefix)) {
        keys.add(w.substring(prefix.length()));
      }
    }
    return keys;
  }

  private ReleaseWritesAssert fail(String expectation, Object... args) {
    failWithMessage(
        "%nExpected the in-memory cluster to have " + expectation + "%nbut its writes were:%n  %s",
        append(args, String.join("\n  ", actual.writes())));
    return this;
  }

  private static Object[] append(Object[] args, Object last) {
    Object[] all = Arrays.copyOf(args, args.length + 1);
    all[args.length] = last;
    return all;
  }

  /** The writes in order, with health waits as {@code verify}, for AssertJ's list assertions. */
  public ListAssert<String> writesList() {
    isNotNull();
    return Assertions.assertThat(actual.writes());
  }

  /** No object was written, deleted or un-stamped, and no namespace created. */
  public ReleaseWritesAssert wroteNothing() {
    isNotNull();
    if (!writes().isEmpty()) {
      fail("written nothing");
    }
    return this;
  }

  /** Exactly these objects were applied, each once, in this order. */
  public ReleaseWritesAssert appliedExactly(String... keys) {
    isNotNull();
    if (!keys("apply:").equals(List.of(keys))) {
      fail("applied exactly, in this order:%n  %s", String.join("\n  ", keys));
    }
    return this;
  }

  /**
   * These objects were applied, in this order (others may have been applied before, between or
   * after them).
   */
  public ReleaseWritesAssert appliedInOrder(String... keys) {
    isNotNull();
    List<String> applied = keys("apply:");
    int at = 0;
    for (String key : keys) {
      int found = applied.subList(at, applied.size()).indexOf(key);
      if (found < 0) {
        return fail("applied, in this order:%n  %s", String.join("\n  ", keys));
      }
      at += found + 1;
    }
    return this;
  }

  /** Exactly these objects were deleted (pruned), in this order. */
  public ReleaseWritesAssert prunedExactly(String... keys) {
    isNotNull();
    if (!keys("delete:").equals(List.of(keys))) {
      fail("pruned exactly, in this order:%n  %s", String.join("\n  ", keys));
    }
    return this;
  }

  /** Exactly these objects were un-stamped and kept (retained), in this order. */
  public ReleaseWritesAssert retainedExactly(String... keys) {
    isNotNull();
    if (!keys("unstamp:").equals(List.of(keys))) {
      fail("retained exactly, in this order:%n  %s", String.join("\n  ", keys));
    }
    return this;
  }

  /**
   * Something was pruned or retained, and every delete and un-stamp came after the last apply: the
   * removals went last.
   */
  public ReleaseWritesAssert prunedLast() {
    isNotNull();
    List<String> writes = writes();
    int firstRemoval = -1;
    int lastApply = -1;
    for (int i = 0; i < writes.size(); i++) {
      String w = writes.get(i);
      if (w.startsWith("delete:") || w.startsWith("unstamp:")) {
        firstRemoval = firstRemoval < 0 ? i : firstRemoval;
      } else {
        lastApply = i;
      }
    }
    if (firstRemoval < 0 || lastApply > firstRemoval) {
      fail("pruned something, after every apply");
    }
    return this;
  }

  /**
   * None of these objects was written, deleted or un-stamped, nor a write to it attempted and
   * fenced.
   */
  public ReleaseWritesAssert neverTouched(String... keys) {
    isNotNull();
    for (String key : keys) {
      for (String op : actual.operations()) {
        if (op.startsWith("fenced:")) {
          op = op.substring("fenced:".length());
        }
        int colon = op.indexOf(':');
        boolean write =
            op.startsWith("apply:") || op.startsWith("delete:") || op.startsWith("unstamp:");
        if (write && op.substring(colon + 1).equals(key)) {
          return fail("never touched %s", key);
        }
      }
    }
    return this;
  }

  /** None of these objects was written, deleted or un-stamped, nor a write to it attempted. */
  public ReleaseWritesAssert neverTouched(ResourceRef... refs) {
    return neverTouched(Arrays.stream(refs).map(ResourceRef::key).toArray(String[]::new));
  }
}

package dev.capstan.test;

import dev.capstan.update.memory.InMemoryPlatformCluster;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.assertj.core.api.AbstractAssert;
import org.assertj.core.api.Assertions;
import org.assertj.core.api.ListAssert;

/**
 * Assertions over the writes an {@link InMemoryPlatformCluster} recorded ({@link
 * InMemoryPlatformCluster#writes()}): Deployments patched, named {@code namespace/name}, and
 * CustomResourceDefinitions applied, named by {@code metadata.name}. A rollback is a second patch
 * of the same Deployment.
 */
public final class PlatformWritesAssert
    extends AbstractAssert<PlatformWritesAssert, InMemoryPlatformCluster> {
  private static final String PATCH = "patch deployment ";
  private static final String CRD = "apply crd ";

  PlatformWritesAssert(InMemoryPlatformCluster cluster) {
    super(cluster, PlatformWritesAssert.class);
  }

  private List<String> named(String prefix) {
    List<String> names = new ArrayList<>();
    for (String w : actual.writes()) {
      if (w.startsWith(prefix)) {
        names.add(w.substring(prefix.length()));
      }
    }
    return names;
  }

  private PlatformWritesAssert fail(String expectation, Object... args) {
    Object[] all = Arrays.copyOf(args, args.length + 1);
    all[args.length] = String.join("\n  ", actual.writes());
    failWithMessage(
        "%nExpected the in-memory platform to have " + expectation + "%nbut its writes were:%n  %s",
        all);
    return this;
  }

  /** The writes in order ({@code patch deployment NS/NAME}, {@code apply crd NAME}). */
  public ListAssert<String> writesList() {
    isNotNull();
    return Assertions.assertThat(actual.writes());
  }

  /** No Deployment was patched and no CRD applied. */
  public PlatformWritesAssert wroteNothing() {
    isNotNull();
    if (!actual.writes().isEmpty()) {
      fail("written nothing");
    }
    return this;
  }

  /**
   * Exactly these Deployments ({@code namespace/name}) were patched, in this order; a rolled-back
   * one appears twice.
   */
  public PlatformWritesAssert patchedExactly(String... workloads) {
    isNotNull();
    if (!named(PATCH).equals(List.of(workloads))) {
      fail("patched exactly, in this order:%n  %s", String.join("\n  ", workloads));
    }
    return this;
  }

  /** Exactly these CRDs were applied, in this order. */
  public PlatformWritesAssert appliedCrdsExactly(String... names) {
    isNotNull();
    if (!named(CRD).equals(List.of(names))) {
      fail("applied exactly these CRDs, in this order:%n  %s", String.join("\n  ", names));
    }
    return this;
  }

  /** A CRD was applied, and every CRD was applied before the first Deployment was patched. */
  public PlatformWritesAssert appliedCrdsFirst() {
    isNotNull();
    List<String> writes = actual.writes();
    int lastCrd = -1;
    int firstPatch = writes.size();
    for (int i = 0; i < writes.size(); i++) {
      if (writes.get(i).startsWith(CRD)) {
        lastCrd = i;
      } else if (firstPatch == writes.size()) {
        firstPatch = i;
      }
    }
    if (lastCrd < 0 || lastCrd > firstPatch) {
      fail("applied CRDs, all before the first patch");
    }
    return this;
  }

  /** None of these Deployments ({@code namespace/name}) or CRDs (by name) was written. */
  public PlatformWritesAssert neverTouched(String... names) {
    isNotNull();
    for (String name : names) {
      if (named(PATCH).contains(name) || named(CRD).contains(name)) {
        return fail("never touched %s", name);
      }
    }
    return this;
  }
}

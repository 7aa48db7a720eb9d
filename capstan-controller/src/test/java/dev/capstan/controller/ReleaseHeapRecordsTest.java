package dev.capstan.controller;

import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.release.ReleaseController;
import dev.capstan.release.codec.RecordLimits;
import dev.capstan.release.codec.ReleaseRecordCodec;
import dev.capstan.release.file.HeapBudget;
import dev.capstan.release.file.ManifestInput;
import dev.capstan.release.file.Overrides;
import dev.capstan.release.file.ReleaseFile;
import dev.capstan.release.file.ReleaseFiles;
import dev.capstan.release.memory.InMemoryCluster;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseInput;
import dev.capstan.release.model.ReleaseSpec;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The records the controller writes for a Release within its share of the heap are records it can
 * read back within {@link ReleaseHeap#recordLimits()}, whatever the Release's shape: so the bound
 * that keeps a forged record from exhausting the heap never makes a Release's own record
 * unreadable.
 */
class ReleaseHeapRecordsTest {
  /** 64 MiB over 4 workers: 12 MiB a Release. */
  private static final ReleaseHeap HEAP = new ReleaseHeap(64L << 20, 4);

  @Test
  void theLimitsAreHalfTheShareInBytesAndTwoNodesForEachItsManifestsMayHold() {
    ReleaseHeap shipped = new ReleaseHeap(384L << 20, 4); // 72 MiB a Release

    assertThat(shipped.recordLimits()).isEqualTo(new RecordLimits(36L << 20, 1_179_648));
    assertThat(new ReleaseHeap(8L << 30, 1).recordLimits().maxDecodedBytes())
        .isEqualTo(ReleaseRecordCodec.MAX_DECODED_BYTES);
  }

  @ParameterizedTest
  @ValueSource(strings = {"nodes", "text", "pairs", "objects"})
  void aReleaseAtNinetyNinePercentOfItsShareIsRecordedWithinTheLimits(String shape) {
    HeapBudget budget = HEAP.budget();
    List<ManifestInput> inputs = inputs(shape, (long) (budget.bytes() * 0.99));
    ReleaseFile file =
        ReleaseFiles.manifestInputs(
            inputs, "Release shop/web", new Overrides("shop", "web", "shop"), budget);
    InMemoryCluster cluster = InMemoryCluster.create().addNamespace("shop");

    Release recorded =
        ReleaseController.builder(cluster, cluster)
            .build()
            .cast(new ReleaseInput(ReleaseSpec.of("shop", "web", file.payloads()), file.payloads()))
            .release();

    byte[] encoded = ReleaseRecordCodec.encode(recorded);
    assertThat(ReleaseRecordCodec.decode(encoded, HEAP.recordLimits())).isEqualTo(recorded);
  }

  private static final String CRD =
      """
      apiVersion: apiextensions.k8s.io/v1
      kind: CustomResourceDefinition
      metadata: {name: foos.x.dev}
      spec:
        group: x.dev
        scope: Namespaced
        names: {kind: Foo, plural: foos, singular: foo, listKind: FooList}
        versions:
        - name: v1
          served: true
          storage: true
          schema:
            openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
      """;

  /**
   * Texts of {@code shape} whose estimate at 8 bytes a character and 128 a node nears {@code
   * target}.
   */
  private static List<ManifestInput> inputs(String shape, long target) {
    List<ManifestInput> inputs = new ArrayList<>();
    long spent = 0;
    if (shape.equals("nodes")) {
      inputs.add(ManifestInput.text("configmap web-crd key crd.yaml", CRD));
      spent += CRD.length() * 8L + 40 * 128L;
    }
    int object = 0;
    while (true) {
      StringBuilder text = new StringBuilder();
      long cost;
      switch (shape) {
        case "nodes" -> {
          // a custom object's list of {a}: three nodes for four characters
          text.append("apiVersion: x.dev/v1\nkind: Foo\nmetadata: {name: f")
              .append(object)
              .append("}\nspec:\n  l: [{a}");
          cost = text.length() * 8L + 12 * 128L;
          long item = 4 * 8L + 3 * 128L;
          for (int i = 0; i < 100_000 && spent + cost + item < target; i++) {
            text.append(",{a}");
            cost += item;
          }
          text.append("]\n");
        }
        case "text" -> {
          long room = Math.min(1_000_000, (target - spent) / 8 - 200);
          if (room <= 0) {
            return inputs;
          }
          text.append("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c")
              .append(object)
              .append("}\ndata:\n  k: ")
              .append("x".repeat((int) room))
              .append('\n');
          cost = text.length() * 8L + 12 * 128L;
        }
        case "pairs" -> {
          // dense k: v, the shape whose JSON grows most over its YAML
          text.append("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c")
              .append(object)
              .append("}\ndata:\n");
          cost = text.length() * 8L + 10 * 128L;
          for (int i = 0; i < 20_000; i++) {
            String pair = "  k" + i + ": v\n";
            long more = pair.length() * 8L + 2 * 128L;
            if (spent + cost + more >= target) {
              break;
            }
            text.append(pair);
            cost += more;
          }
        }
        case "objects" -> {
          text.append("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c")
              .append(object)
              .append("}\ndata: {a: b}\n");
          cost = text.length() * 8L + 14 * 128L; // 13 nodes, as the reader counts them
        }
        default -> throw new IllegalArgumentException(shape);
      }
      if (spent + cost > target || inputs.size() >= 10_000) {
        return inputs;
      }
      spent += cost;
      inputs.add(ManifestInput.text("configmap web-" + object + " key all.yaml", text.toString()));
      object++;
    }
  }
}

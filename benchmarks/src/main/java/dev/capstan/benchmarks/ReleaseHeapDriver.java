package dev.capstan.benchmarks;

import dev.capstan.release.ReleaseController;
import dev.capstan.release.file.HeapBudget;
import dev.capstan.release.file.ManifestInput;
import dev.capstan.release.file.Overrides;
import dev.capstan.release.file.ReleaseFile;
import dev.capstan.release.file.ReleaseFiles;
import dev.capstan.release.file.ReleaseTooLargeException;
import dev.capstan.release.memory.InMemoryCluster;
import dev.capstan.release.model.ReleaseInput;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.result.CastResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Whether the Release controller's bound on each Release's heap (docs/controller.md, "Limits")
 * keeps its workers within the heap: {@code W} threads, as the controller's workers, each reads a
 * Release of the worst shape just within {@code HeapBudget(maxMemory / 4 * 3 / W, 128, 8)} (the
 * controller's), waits until every thread holds its Release, casts it to an {@link InMemoryCluster}
 * of its own (which keeps a copy of every object: more than a real cluster costs the controller),
 * and waits again, as casts that hold their Releases through their health waits.
 *
 * <pre>
 * java -Xmx384m -XX:+UseG1GC -XX:+ExitOnOutOfMemoryError -Xlog:gc:file=gc.log \
 *     -cp benchmarks/target/benchmarks-all.jar dev.capstan.benchmarks.ReleaseHeapDriver nodes 4 0.99
 * </pre>
 *
 * <p>The shapes: {@code nodes}, custom objects holding lists of {@code {a}} (4 characters, 3 nodes:
 * the most heap per character measured); {@code text}, ConfigMaps of one 1 MB string each (the most
 * characters). The fill is the share of the budget the Release's estimate reaches. The process
 * exits on running out of heap (with {@code -XX:+ExitOnOutOfMemoryError}), else prints one line per
 * thread.
 */
public final class ReleaseHeapDriver {
  private static final int NODE_BYTES = 128;
  private static final int CHAR_BYTES = 8;

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

  private ReleaseHeapDriver() {}

  /**
   * Runs the threads.
   *
   * @param args the shape ({@code nodes} or {@code text}), the workers and the fill
   * @throws Exception when a thread fails
   */
  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      throw new IllegalArgumentException("usage: ReleaseHeapDriver nodes|text WORKERS FILL");
    }
    String shape = args[0];
    int workers = Integer.parseInt(args[1]);
    double fill = Double.parseDouble(args[2]);
    long heap = Runtime.getRuntime().maxMemory();
    HeapBudget budget = new HeapBudget(heap / 4 * 3 / workers, NODE_BYTES, CHAR_BYTES);
    System.out.printf(
        Locale.ROOT,
        "heap %d bytes, %d workers, %d bytes per Release, shape %s, fill %.2f%n",
        heap,
        workers,
        budget.bytes(),
        shape,
        fill);
    CyclicBarrier held = new CyclicBarrier(workers);
    CyclicBarrier cast = new CyclicBarrier(workers);
    ExecutorService pool = Executors.newFixedThreadPool(workers);
    try {
      List<Future<String>> results = new ArrayList<>();
      for (int w = 0; w < workers; w++) {
        String name = "w" + w;
        long target = (long) (budget.bytes() * fill);
        results.add(pool.submit(() -> run(name, inputs(shape, name, target), budget, held, cast)));
      }
      for (Future<String> result : results) {
        System.out.println(result.get());
      }
    } finally {
      pool.shutdown();
    }
  }

  private static String run(
      String name,
      List<ManifestInput> inputs,
      HeapBudget budget,
      CyclicBarrier held,
      CyclicBarrier cast)
      throws Exception {
    long start = System.nanoTime();
    ReleaseFile release;
    try {
      release =
          ReleaseFiles.manifestInputs(
              inputs, "Release shop/" + name, new Overrides("shop", name, "shop"), budget);
    } catch (ReleaseTooLargeException e) {
      held.await();
      cast.await();
      return name + ": refused: " + e.getMessage();
    }
    held.await();
    InMemoryCluster cluster = InMemoryCluster.create().addNamespace("shop");
    CastResult result =
        ReleaseController.builder(cluster, cluster)
            .build()
            .cast(
                new ReleaseInput(
                    ReleaseSpec.of("shop", name, release.payloads()), release.payloads()));
    cast.await();
    return String.format(
        Locale.ROOT,
        "%s: cast revision %d, %d objects, %.1f s",
        name,
        result.release().revision(),
        release.payloads().objects().size(),
        (System.nanoTime() - start) / 1e9);
  }

  /** The texts of a Release of {@code shape} whose estimate just reaches {@code target}. */
  private static List<ManifestInput> inputs(String shape, String name, long target) {
    List<ManifestInput> inputs = new ArrayList<>();
    long spent = 0;
    int object = 0;
    if (shape.equals("nodes")) {
      inputs.add(ManifestInput.text("configmap " + name + "-crd key crd.yaml", CRD));
      spent += CRD.length() * (long) CHAR_BYTES + 40L * NODE_BYTES;
      long item = 4L * CHAR_BYTES + 3L * NODE_BYTES;
      while (spent + item < target) {
        StringBuilder text =
            new StringBuilder("apiVersion: x.dev/v1\nkind: Foo\nmetadata: {name: f")
                .append(object++)
                .append("}\nspec:\n  l: [{a}");
        spent += text.length() * (long) CHAR_BYTES + 12L * NODE_BYTES;
        // at most 100,000 items an object: its JSON stays within the API server's 1.5 MiB
        for (int i = 0; i < 100_000 && spent + item < target; i++) {
          text.append(",{a}");
          spent += item;
        }
        inputs.add(
            ManifestInput.text("configmap " + name + "-" + object + " key all.yaml", text + "]\n"));
      }
    } else if (shape.equals("text")) {
      while (true) {
        long room = Math.min(1_000_000, (target - spent) / CHAR_BYTES - 200);
        if (room <= 0) {
          break;
        }
        String text =
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c"
                + object++
                + "}\ndata:\n  k: "
                + "x".repeat((int) room)
                + "\n";
        spent += text.length() * (long) CHAR_BYTES + 12L * NODE_BYTES;
        inputs.add(ManifestInput.text("configmap " + name + "-" + object + " key all.yaml", text));
      }
    } else {
      throw new IllegalArgumentException("the shape is nodes or text: " + shape);
    }
    return inputs;
  }
}

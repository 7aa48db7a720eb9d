package dev.capstan.controller;

import dev.capstan.release.codec.RecordLimits;
import dev.capstan.release.codec.ReleaseRecordCodec;
import dev.capstan.release.file.HeapBudget;
import dev.capstan.release.file.ReleaseTooLargeException;
import java.util.Locale;

/**
 * The heap each Release may take on this controller while it is read, held and cast
 * (ARCHITECTURE.md, "The Release controller"): three quarters of the controller's heap over its
 * workers, each of which holds one Release at a time (through its health wait); the last quarter is
 * the controller's own (its caches, clients and queue). What a Release takes is estimated from what
 * it makes the controller read ({@link HeapBudget}): {@value #CHAR_BYTES} bytes per character of
 * its manifests' texts or its chart's rendered output, {@value #NODE_BYTES} per node of their
 * documents, as measured for the worst shapes through a cast (docs/controller.md, "Limits"). A
 * Release over it is refused alone, before anything is written ({@link #REASON}).
 *
 * @param heap the controller's heap, {@link Runtime#maxMemory()}
 * @param workers how many Releases are reconciled at once
 */
record ReleaseHeap(long heap, int workers) {
  /** The heap a node of a document is taken to cost, through a cast: measured at 70 to 120. */
  static final int NODE_BYTES = 128;

  /** The heap a character of text is taken to cost, through a cast: measured at 6.5 to 8.5. */
  static final int CHAR_BYTES = 8;

  /** The reason of a Release refused for its size. */
  static final String REASON = "TooLarge";

  /** Checks the heap and workers are positive. */
  ReleaseHeap {
    if (heap <= 0 || workers < 1) {
      throw new IllegalArgumentException(
          "heap and workers must be positive: heap " + heap + ", workers " + workers);
    }
  }

  /** This JVM's heap shared by {@code workers}. */
  static ReleaseHeap of(int workers) {
    return new ReleaseHeap(Runtime.getRuntime().maxMemory(), workers);
  }

  /** The bytes each Release may take: {@code heap / 4 * 3 / workers}. */
  long perRelease() {
    return heap / 4 * 3 / workers;
  }

  /** The budget each Release is read within. */
  HeapBudget budget() {
    return new HeapBudget(perRelease(), NODE_BYTES, CHAR_BYTES);
  }

  /**
   * What a record may take while it is read: half the share in bytes of JSON (at most the codec's
   * own limit) and two nodes for each a Release's manifests may hold. The records the controller
   * writes for a Release within its share fit (they hold its manifests, and some nodes for each
   * object); a larger one, written by a host with more room or by someone writing the record's
   * Secrets, is unreadable here, its Release failing alone instead of the controller's heap.
   */
  RecordLimits recordLimits() {
    long bytes = Math.min(ReleaseRecordCodec.MAX_DECODED_BYTES, Math.max(1, perRelease() / 2));
    return new RecordLimits(bytes, Math.max(1, perRelease() / NODE_BYTES * 2));
  }

  /**
   * The status message of a Release over the budget: where reading stopped, the estimate and what
   * it is made of, the limit and where it comes from, and what to do. Names only sources, keys and
   * documents, never a value.
   *
   * @param chart whether the texts are a chart's rendered output
   */
  String refusal(ReleaseKey key, ReleaseTooLargeException e, boolean chart) {
    return "Release "
        + key
        + ": "
        + e.at()
        + ": "
        + (chart ? "the chart renders" : "its manifests hold")
        + " at least "
        + e.chars()
        + " characters of text and "
        + e.nodes()
        + " nodes (mappings, lists, keys and values), which would take at least "
        + e.estimate()
        + " bytes of the controller's heap at "
        + CHAR_BYTES
        + " and "
        + NODE_BYTES
        + " bytes each; a Release may take "
        + perRelease()
        + " bytes ("
        + mib(perRelease())
        + "), three quarters of the controller's "
        + mib(heap)
        + " heap over its "
        + workers
        + (workers == 1 ? " worker" : " workers")
        + "; "
        + (chart
            ? "render fewer or smaller objects, if the chart's values allow it"
            : "split the manifests into several Releases")
        + ", or give the controller a larger heap (a higher memory limit: the image's heap is 75%"
        + " of it)"
        + (workers == 1 ? "" : " or fewer --workers");
  }

  /** {@code 72.0 MiB}. */
  static String mib(long bytes) {
    return String.format(Locale.ROOT, "%.1f MiB", bytes / (double) (1 << 20));
  }
}

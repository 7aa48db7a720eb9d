/**
 * Micrometer metrics for Capstan, attached by the host as one listener: {@link
 * dev.capstan.micrometer.ReleaseMetrics} on a {@code ReleaseController}, {@link
 * dev.capstan.micrometer.UpdateMetrics} on the update applier's {@code ApplyOptions}. Every meter
 * is driven by the engines' events; no tag carries content (only operation, outcome, action and,
 * when asked, namespace and release names).
 */
@NullMarked
package dev.capstan.micrometer;

import org.jspecify.annotations.NullMarked;

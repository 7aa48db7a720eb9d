/**
 * OpenTelemetry traces for Capstan, attached by the host as one listener: {@link
 * dev.capstan.opentelemetry.ReleaseTracing} on a {@code ReleaseController}, {@link
 * dev.capstan.opentelemetry.UpdateTracing} on the update applier's {@code ApplyOptions}. A span per
 * operation, a child span per wave and per wait, driven by the engines' events; attributes name
 * releases, revisions, objects and counts, never content, so no secret value reaches a span.
 */
@NullMarked
package dev.capstan.opentelemetry;

import org.jspecify.annotations.NullMarked;

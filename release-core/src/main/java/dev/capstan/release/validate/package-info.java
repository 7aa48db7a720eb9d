/**
 * Checks a planned object against the limits the Kubernetes API server enforces, so a plan that
 * would be refused (HTTP 413, 422 or a timeout) is refused before anything is written. {@link
 * dev.capstan.release.validate.ApiServerLimits} works on a generic object tree (a manifest's
 * content; the typed specs are checked through the manifests they render to).
 */
@NullMarked
package dev.capstan.release.validate;

import org.jspecify.annotations.NullMarked;

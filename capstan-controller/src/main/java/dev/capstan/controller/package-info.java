/**
 * The {@code Release} custom resource ({@code releases.capstan.dev/v1alpha1}) and the controller
 * that keeps each one cast: it plans on every change of a Release or of the ConfigMaps and Secrets
 * it reads manifests from, on a manual reconcile request, and every {@code interval}; casts when
 * the plan changes something, as the service account the Release names (impersonated), once the
 * account's access to every request of the cast is reviewed; reports kstatus conditions and
 * aggregated Events; retries a failure after as long as it has been failing; uninstalls through a
 * finalizer when the Release is deleted; serves {@code /healthz}, {@code /readyz} and {@code
 * /metrics}. Built on Capstan's public API and client-java alone (docs/controller.md).
 */
@NullMarked
package dev.capstan.controller;

import org.jspecify.annotations.NullMarked;

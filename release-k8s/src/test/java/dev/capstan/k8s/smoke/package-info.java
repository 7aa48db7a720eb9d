/**
 * Smoke tests of the integration-test control plane: the API semantics Capstan's adapters rely on
 * (server-side apply, field-manager conflicts, label selectors, watches) and Deployments that
 * really roll out, or really fail to.
 */
@NullMarked
package dev.capstan.k8s.smoke;

import org.jspecify.annotations.NullMarked;

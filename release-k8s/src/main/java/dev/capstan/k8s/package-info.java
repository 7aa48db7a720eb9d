/**
 * Capstan's Kubernetes adapters on the official client-java. The adapters themselves are still to
 * come; the test sources hold {@code dev.capstan.k8s.testing}, the real control plane every adapter
 * integration test runs against.
 */
@NullMarked
package dev.capstan.k8s;

import org.jspecify.annotations.NullMarked;

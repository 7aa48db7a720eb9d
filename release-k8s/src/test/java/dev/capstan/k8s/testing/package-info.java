/**
 * Test support for integration tests against a real Kubernetes control plane: etcd, kube-apiserver,
 * kube-controller-manager, kube-scheduler and kwok on 127.0.0.1, built from the Go module proxy by
 * {@code testing/control-plane/build.sh} and started by {@code testing/control-plane/start.sh}.
 *
 * <p>Annotate a test class with {@link dev.capstan.k8s.testing.ControlPlaneTest}: one control plane
 * is started per test run (JVM) and shared by every such class; each test method gets a fresh
 * {@link dev.capstan.k8s.testing.TestNamespace}. See {@code testing/control-plane/README.md} for
 * the settings (reusing a running control plane, the opt-out outside CI).
 */
@NullMarked
package dev.capstan.k8s.testing;

import org.jspecify.annotations.NullMarked;

/**
 * The {@code Release} custom resource ({@code releases.capstan.dev/v1alpha1}) and the controller
 * that keeps each one cast: it plans on every change of a Release or of the ConfigMaps and Secrets
 * it reads manifests from, and every {@code interval}; casts when the plan changes something;
 * reports kstatus conditions in the Release's status; uninstalls through a finalizer when the
 * Release is deleted. Built on Capstan's public API and client-java alone (docs/controller.md).
 */
@NullMarked
package dev.capstan.controller;

import org.jspecify.annotations.NullMarked;

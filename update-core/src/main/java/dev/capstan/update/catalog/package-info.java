/**
 * The host platform's component catalog: the only place that says which workload an image lives in.
 * A release manifest names components; it can never direct the update at an arbitrary workload.
 *
 * <p>A {@link dev.capstan.update.catalog.Catalog} is an ordered list of {@link
 * dev.capstan.update.catalog.CatalogComponent}s (the order is the rollout order). Each component
 * has a workload (namespace and Deployment) and a container, or the env var of a container that
 * holds its image, or no workload at all (an on-demand image); a default repository; whether the
 * platform builds it ({@code built}); an opt-in group (components in a group are skipped unless the
 * group is included); a note shown as a warning when it changes; and a {@link
 * dev.capstan.update.catalog.VersionPolicy}. The catalog also holds the {@link
 * dev.capstan.update.catalog.InstalledCheck}, the list of resources an update never modifies, the
 * manifest apiVersion it accepts and the {@link dev.capstan.update.catalog.MetadataKeys} written on
 * patched Deployments.
 *
 * <p>Hosts build a catalog in Java ({@link dev.capstan.update.catalog.Catalog#builder()}) or load
 * it from YAML or JSON ({@link dev.capstan.update.catalog.Catalog#load(byte[], String)}); both
 * paths apply the same rules and report every problem with its path.
 */
@NullMarked
package dev.capstan.update.catalog;

import org.jspecify.annotations.NullMarked;

/**
 * The release model: immutable values validated when built.
 *
 * <ul>
 *   <li>{@link dev.capstan.release.model.Kind} (a value: group, version, kind, scope, shared, rank)
 *       and {@link dev.capstan.release.model.ResourceRef} name objects; {@code ResourceRef.key()}
 *       is {@code [group/]Kind/namespace/name}, e.g. {@code apps/Deployment/shop/web}.
 *   <li>Any object is a {@link dev.capstan.release.model.Manifest} (an immutable tree); the typed
 *       convenience specs ({@link dev.capstan.release.model.ServiceSpec}, {@link
 *       dev.capstan.release.model.SecretSpec}, {@link dev.capstan.release.model.ConfigMapSpec},
 *       {@link dev.capstan.release.model.VolumeSpec}) render into manifests. Items are collected in
 *       {@link dev.capstan.release.model.Payloads}, whose rendered objects are hashed by {@link
 *       dev.capstan.release.model.ContentHash}.
 *   <li>{@link dev.capstan.release.model.ReleaseSpec} is what the planner needs: desired refs with
 *       hashes, references, options.
 *   <li>{@link dev.capstan.release.model.Release} is one recorded revision; {@link
 *       dev.capstan.release.model.OwnershipStamp} is what every applied object carries.
 * </ul>
 */
@NullMarked
package dev.capstan.release.model;

import org.jspecify.annotations.NullMarked;

/**
 * The release model: immutable values validated when built.
 *
 * <ul>
 *   <li>{@link dev.capstan.release.model.ResourceType} and {@link
 *       dev.capstan.release.model.ResourceRef} name objects; {@code ResourceRef.key()} is {@code
 *       type/namespace/name}.
 *   <li>One payload record per kind ({@link dev.capstan.release.model.ServiceSpec}, {@link
 *       dev.capstan.release.model.SecretSpec}, {@link dev.capstan.release.model.ConfigMapSpec},
 *       {@link dev.capstan.release.model.VolumeSpec}), collected in {@link
 *       dev.capstan.release.model.Payloads} and hashed by {@link
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

/**
 * The release manifest: which image (repository, tag, optional digest) each component of a platform
 * release runs, plus the CustomResourceDefinitions the release needs.
 *
 * <p>{@link dev.capstan.update.manifest.PlatformReleases#parse} reads a {@link
 * dev.capstan.update.manifest.PlatformRelease} from YAML (snakeyaml-engine, with alias and size
 * limits) or JSON (Jackson), strictly, against the host's catalog: unknown fields, wrong types, a
 * wrong apiVersion or kind, a version that is not semver, a bad registry, a repository carrying a
 * tag or digest, a bad tag or digest, duplicate and unknown components, and a CRD bundle holding
 * anything but CustomResourceDefinitions are all reported together in one {@link
 * dev.capstan.update.InvalidManifestException}, each with its path (for example {@code
 * components[2].tag must match [A-Za-z0-9_][A-Za-z0-9_.-]{0,127}: 'v1 beta'}). The records validate
 * themselves the same way when built in Java.
 *
 * <p>{@link dev.capstan.update.manifest.CrdBundle} is the parsed CRD bundle; its documents' specs
 * are plain trees compared by value with live CRDs.
 */
@NullMarked
package dev.capstan.update.manifest;

import org.jspecify.annotations.NullMarked;

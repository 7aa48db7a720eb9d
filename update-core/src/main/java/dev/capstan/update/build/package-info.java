/**
 * Image builds: which images an update builds or reuses, and building them.
 *
 * <p>{@link dev.capstan.update.build.ImageBuilds#plan} looks at the unique target images of the
 * plan's built components: an image tagged with a release commit ({@code -g<40 hex>}) is always
 * built, from that commit; otherwise the {@link dev.capstan.update.build.ImageRegistry} is asked
 * whether the tag exists ({@code reuse}) or not ({@code build}); in a dry run the registry is not
 * asked. {@link dev.capstan.update.build.ImageBuilds#run} checks that the {@link
 * dev.capstan.update.build.SourceTree} is a clean checkout of the release commit, then builds and
 * pushes through the {@link dev.capstan.update.build.ImageBuilder} port with bounded parallelism,
 * retries, and cancellation of the sibling builds on the first failure.
 *
 * <p>The default adapters ({@link dev.capstan.update.build.ProcessImageBuilder}, {@link
 * dev.capstan.update.build.ProcessImageRegistry}, {@link dev.capstan.update.build.GitSourceTree})
 * run allow-listed executables with argument lists through a {@link
 * dev.capstan.update.build.CommandRunner}, never through a shell; they are the only classes of the
 * engine that start processes. {@link dev.capstan.update.build.BuildTool} finds a host's builder
 * ({@code docker buildx}, {@code podman}, {@code buildah}) on a {@code PATH} and makes a {@code
 * ProcessImageBuilder} of it; {@link dev.capstan.update.build.OciImageRegistry} asks the registry
 * itself over the OCI distribution API instead of running {@code docker manifest inspect}.
 */
@NullMarked
package dev.capstan.update.build;

import org.jspecify.annotations.NullMarked;

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
 * <p>The adapters that start processes or ask a registry over the network ({@code
 * ProcessImageBuilder}, {@code ProcessImageRegistry}, {@code GitSourceTree}, {@code BuildTool},
 * {@code OciImageRegistry}) live in the {@code update-build} module, package {@code
 * dev.capstan.update.build.process}: this package holds the ports and the pure planning only.
 */
@NullMarked
package dev.capstan.update.build;

import org.jspecify.annotations.NullMarked;

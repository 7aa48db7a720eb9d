/**
 * The process and HTTP adapters of image builds: the only code of the platform-update engine that
 * starts processes or asks a registry over the network. The ports they implement ({@link
 * dev.capstan.update.build.ImageBuilder}, {@link dev.capstan.update.build.ImageRegistry}, {@link
 * dev.capstan.update.build.SourceTree}) and the build planning ({@link
 * dev.capstan.update.build.ImageBuilds}) stay in {@code update-core}.
 *
 * <p>{@link dev.capstan.update.build.process.ProcessImageBuilder}, {@link
 * dev.capstan.update.build.process.ProcessImageRegistry} and {@link
 * dev.capstan.update.build.process.GitSourceTree} run allow-listed executables with argument lists
 * through a {@link dev.capstan.update.build.process.CommandRunner} ({@link
 * dev.capstan.update.build.process.CommandRunner#processes()} by default), never through a shell.
 * {@link dev.capstan.update.build.process.BuildTool} finds a host's builder ({@code docker buildx},
 * {@code podman}, {@code buildah}) on a {@code PATH} and makes a {@code ProcessImageBuilder} of it;
 * {@link dev.capstan.update.build.process.OciImageRegistry} asks the registry itself over the OCI
 * distribution API instead of running {@code docker manifest inspect}.
 */
@NullMarked
package dev.capstan.update.build.process;

import org.jspecify.annotations.NullMarked;

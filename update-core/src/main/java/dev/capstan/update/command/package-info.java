/**
 * The update command for wrapper tools (CLIs, servers): options in, plan and result out, every side
 * effect through a port.
 *
 * <p>{@link dev.capstan.update.command.UpdateCommand#run} runs this flow: validate the {@link
 * dev.capstan.update.command.UpdateOptions} (a target is required) → load and parse the manifest
 * through the {@link dev.capstan.update.command.ManifestLoader} (the {@code --to} version must
 * match it) → read the inventory and plan → refuse a plan with blocked rows (even in dry-run) →
 * stop after printing in dry-run or when nothing changes → ask the {@link
 * dev.capstan.update.command.Confirmer} (only the exact reply {@code yes} proceeds; with no
 * terminal and no {@code --yes} it refuses) → build images → apply. Output goes to a {@link
 * java.io.PrintStream} as text or JSON; environment variables are read through {@link
 * dev.capstan.update.command.Environment}. A CLI only parses flags into {@code UpdateOptions} and
 * maps the {@link dev.capstan.update.UpdateException} subclasses to exit codes.
 */
@NullMarked
package dev.capstan.update.command;

import org.jspecify.annotations.NullMarked;

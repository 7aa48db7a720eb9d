/**
 * The {@code capstan} command-line tool: a thin picocli layer over the release and update engines.
 * {@link dev.capstan.cli.Cli} runs one command in-process and returns its exit code.
 */
@NullMarked
package dev.capstan.cli;

import org.jspecify.annotations.NullMarked;

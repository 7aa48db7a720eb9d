/**
 * The demo {@code capstan demo} runs: a release and a platform update on the in-memory adapters,
 * and the demo platform's catalog that the command line's in-memory default target installs.
 */
@NullMarked
package dev.capstan.cli.demo;

import org.jspecify.annotations.NullMarked;

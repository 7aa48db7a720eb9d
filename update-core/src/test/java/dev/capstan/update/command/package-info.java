/** Tests of {@code dev.capstan.update.command}. */
@NullMarked
package dev.capstan.update.command;

import org.jspecify.annotations.NullMarked;

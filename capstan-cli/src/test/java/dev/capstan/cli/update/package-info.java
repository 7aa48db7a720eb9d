/** Tests of {@code dev.capstan.cli.update}: the update command and its reports. */
@NullMarked
package dev.capstan.cli.update;

import org.jspecify.annotations.NullMarked;

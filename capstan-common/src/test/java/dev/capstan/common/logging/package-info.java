/** Capturing what Capstan logs through SLF4J, for tests of every module that logs. */
@NullMarked
package dev.capstan.common.logging;

import org.jspecify.annotations.NullMarked;

/** Tests of {@code dev.capstan.update.report}. */
@NullMarked
package dev.capstan.update.report;

import org.jspecify.annotations.NullMarked;

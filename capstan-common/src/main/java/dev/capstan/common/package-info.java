/**
 * What both Capstan cores need once and share: escaping of values echoed in messages, plans and
 * reports ({@link dev.capstan.common.Escapes}), and the manual clock and sleeper host tests drive
 * time with ({@link dev.capstan.common.ManualClock}). Everything public here is API of the library
 * family, kept small.
 */
@NullMarked
package dev.capstan.common;

import org.jspecify.annotations.NullMarked;

@NullMarked
package dev.capstan.release.diff;

import org.jspecify.annotations.NullMarked;

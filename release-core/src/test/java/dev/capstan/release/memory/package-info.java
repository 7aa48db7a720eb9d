@NullMarked
package dev.capstan.release.memory;

import org.jspecify.annotations.NullMarked;

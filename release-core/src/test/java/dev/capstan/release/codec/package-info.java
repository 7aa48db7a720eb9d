@NullMarked
package dev.capstan.release.codec;

import org.jspecify.annotations.NullMarked;

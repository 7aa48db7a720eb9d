@NullMarked
package dev.capstan.update;

import org.jspecify.annotations.NullMarked;

@NullMarked
package dev.capstan.cel;

import org.jspecify.annotations.NullMarked;

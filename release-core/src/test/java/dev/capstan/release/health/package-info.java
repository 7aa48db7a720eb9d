@NullMarked
package dev.capstan.release.health;

import org.jspecify.annotations.NullMarked;

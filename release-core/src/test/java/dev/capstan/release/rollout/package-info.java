@NullMarked
package dev.capstan.release.rollout;

import org.jspecify.annotations.NullMarked;

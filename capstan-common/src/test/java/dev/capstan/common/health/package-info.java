/** Tests of the health rules, over the fixtures in {@code src/test/resources/health}. */
@NullMarked
package dev.capstan.common.health;

import org.jspecify.annotations.NullMarked;

@NullMarked
package dev.capstan.release.plan;

import org.jspecify.annotations.NullMarked;

@NullMarked
package dev.capstan.examples.daemon;

import org.jspecify.annotations.NullMarked;

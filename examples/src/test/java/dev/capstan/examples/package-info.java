@NullMarked
package dev.capstan.examples;

import org.jspecify.annotations.NullMarked;

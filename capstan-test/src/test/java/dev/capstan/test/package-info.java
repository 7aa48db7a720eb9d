/** Tests of the test kit. */
@NullMarked
package dev.capstan.test;

import org.jspecify.annotations.NullMarked;

/** Tests of escaping and strict, bounded input reading. */
@NullMarked
package dev.capstan.common;

import org.jspecify.annotations.NullMarked;

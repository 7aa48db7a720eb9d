@NullMarked
package dev.capstan.spring.boot;

import org.jspecify.annotations.NullMarked;

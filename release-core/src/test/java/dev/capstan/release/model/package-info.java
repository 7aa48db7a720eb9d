@NullMarked
package dev.capstan.release.model;

import org.jspecify.annotations.NullMarked;

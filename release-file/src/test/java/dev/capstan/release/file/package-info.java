@NullMarked
package dev.capstan.release.file;

import org.jspecify.annotations.NullMarked;

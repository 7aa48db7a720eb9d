@NullMarked
package dev.capstan.cli.daemon;

import org.jspecify.annotations.NullMarked;

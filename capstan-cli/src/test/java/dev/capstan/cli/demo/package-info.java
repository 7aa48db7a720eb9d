@NullMarked
package dev.capstan.cli.demo;

import org.jspecify.annotations.NullMarked;

/** Runnable examples of Capstan as a library: releases from a database and from manifest files. */
@NullMarked
package dev.capstan.examples;

import org.jspecify.annotations.NullMarked;

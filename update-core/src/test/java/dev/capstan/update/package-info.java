/** Tests of the update engine, and the shared mcp-runtime fixture. */
@NullMarked
package dev.capstan.update;

import org.jspecify.annotations.NullMarked;

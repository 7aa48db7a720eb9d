/**
 * Implementation helpers shared by Capstan's release packages. <strong>Not API</strong>: anything
 * here may change or disappear in any release; do not use it from application code.
 */
@NullMarked
package dev.capstan.release.internal;

import org.jspecify.annotations.NullMarked;

/** Tests of the API server's limits over object trees and typed specs. */
@NullMarked
package dev.capstan.release.validate;

import org.jspecify.annotations.NullMarked;

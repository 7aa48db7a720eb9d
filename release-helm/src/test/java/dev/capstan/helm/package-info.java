/** Tests of the Helm import: the record decoder (unit) and imports of real Helm releases (IT). */
@NullMarked
package dev.capstan.helm;

import org.jspecify.annotations.NullMarked;
